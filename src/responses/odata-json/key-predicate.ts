/**
 * The key predicate of an entity's canonical URL (URL Conventions §4.3.1): `('russellwhyte')`
 * for a single key, `(A=1,B='x')` for a compound key, each value an OData URL literal. In a
 * URL the literals are percent-encoded; in a context URL they are not (PROT §10).
 */
import { ODataError } from '../../errors/odata-error.js';
import type { Property, StructuredType } from '../../model/model.js';

/** How a key predicate is written. */
export interface KeyPredicateOptions {
  /**
   * Percent-encode each literal (for `@id`, `@editLink`, next links: a space, `/`, `:`, `#`,
   * `?`, `%` and non-ASCII characters), keeping `'`, `(` and `)` (default `false`: the
   * canonical form a context URL holds).
   */
  readonly encode?: boolean;
}

function missing(name: string): ODataError {
  return new ODataError({ code: 'invalid_result', status: 500, reason: `The entity has no value for its key property '${name}'`, appendLocation: false });
}

/**
 * One key value as an OData URL literal: a string quoted with `'` doubled, an enum member as
 * `NS.Type'Member'`, a duration as `duration'P1D'`, a binary value as `binary'…'`, numbers,
 * Booleans, Guids, dates and times as they are. The value is the JSON form of the key (what
 * `jsonRecord` gives: Int64 and Decimal as numbers or strings).
 *
 * @example
 * ```ts
 * keyLiteral(model.entitySets.get('People')!.type.properties.get('UserName')!, "O'Neil"); // "'O''Neil'"
 * ```
 */
export function keyLiteral(property: Property, value: unknown): string {
  if (value === null || value === undefined) throw missing(property.name);
  const text =
    typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' ? String(value) : undefined;
  if (text === undefined) throw missing(property.name);
  const type = property.type;
  if (type.kind === 'enum') return `${type.type.qualifiedName}'${text}'`;
  if (type.kind !== 'primitive') throw missing(property.name);
  switch (type.name) {
    case 'Edm.String':
      return `'${text.replaceAll("'", "''")}'`;
    case 'Edm.Duration':
      return `duration'${text}'`;
    case 'Edm.Binary':
      return `binary'${text}'`;
    case 'Edm.Double':
    case 'Edm.Single':
      // A double literal of the grammar: an exponent without '+'.
      return text.replace('e+', 'e');
    default:
      return text;
  }
}

/**
 * The key predicate of an entity of `type` from its key values (a record holding at least the
 * key properties, e.g. a row of `jsonRecord`): `(value)` for a single key, `(Name=value,…)` for
 * a compound key.
 *
 * @throws {ODataError} `invalid_result` (500) when a key value is missing
 * @example
 * ```ts
 * keyPredicate(people, { UserName: 'russellwhyte', FirstName: 'Russell' }); // "('russellwhyte')"
 * keyPredicate(orderItems, { OrderID: 1, Name: 'a b' }, { encode: true }); // "(OrderID=1,Name='a%20b')"
 * ```
 */
export function keyPredicate(type: StructuredType, values: Readonly<Record<string, unknown>>, options: KeyPredicateOptions = {}): string {
  const encode = (literal: string): string => (options.encode === true ? encodeURIComponent(literal) : literal);
  const parts = type.key.map((name) => {
    const property = type.properties.get(name);
    if (property === undefined) throw missing(name);
    return { name, literal: encode(keyLiteral(property, Object.hasOwn(values, name) ? values[name] : undefined)) };
  });
  if (parts.length === 1) return `(${parts[0]?.literal ?? ''})`;
  return `(${parts.map((part) => `${part.name}=${part.literal}`).join(',')})`;
}
