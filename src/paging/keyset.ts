/**
 * Keyset (seek) paging, independent of the backend: the total order of a query (its `$orderby`
 * keys, then the entity key as tie-breaker), the values of that order read from the last row of a
 * page, and the continuation condition "after that row" as an OData `$filter`, ANDed into the
 * bound query so that every backend runs it as it runs any filter.
 *
 * The condition follows the library's ordering conventions (PROT 11.2.6.2 and the reference):
 * null sorts before every value ascending and after every value descending; strings by code point,
 * enums by their members' values. For `(k1 asc, k2 desc, id asc)` after `(v1, v2, v3)` it is
 * `k1 gt v1 or (k1 eq v1 and (k2 lt v2 or k2 eq null)) or (k1 eq v1 and k2 eq v2 and id gt v3)`,
 * with `eq null`, `ne null` and "nothing after null descending" for null values, and the first
 * key's bound (`k1 ge v1`) ANDed in front so that an index on the order can seek to it.
 *
 * A page is then `continuation AND filter`, ordered, with `$top` the page size and no `$skip`:
 * an index on the order keys serves it at any depth, where `$skip` reads and drops every row before it.
 *
 * Limits: the values must be exact (a driver that reads Int64 as a double loses them beyond 2^53);
 * a stored Double NaN is not continued past (comparisons with NaN are false; see DEVIATIONS, "Keyset paging").
 */
import { orderedByApply } from '../semantic/apply/output-order.js';
import { ODataError } from '../errors/odata-error.js';
import { driverValue } from '../reference/driver-values.js';
import type { ExpressionType } from '../semantic/types.js';
import type { Model, Property } from '../model/model.js';
import { bindQuery } from '../semantic/bind-query.js';
import type { BoundExpression, BoundQuery, BoundQueryOptions } from '../semantic/bound-ast.js';
import { parseQuery } from '../syntax/query-string.js';

/** One key of a keyset order: a property of the entity and its direction. */
export interface KeysetKey {
  readonly property: Property;
  readonly direction: 'asc' | 'desc';
}

/** Primitive types a keyset key may have: those with a literal form and a total order everywhere. */
const ORDERABLE = new Set([
  'Edm.String',
  'Edm.Guid',
  'Edm.Boolean',
  'Edm.Byte',
  'Edm.SByte',
  'Edm.Int16',
  'Edm.Int32',
  'Edm.Int64',
  'Edm.Decimal',
  'Edm.Double',
  'Edm.Single',
  'Edm.Date',
  'Edm.DateTimeOffset',
  'Edm.TimeOfDay',
]);

function orderable(property: Property): boolean {
  if (property.collection) return false;
  if (property.type.kind === 'enum') return !property.type.type.isFlags;
  return property.type.kind === 'primitive' && ORDERABLE.has(property.type.name);
}

/**
 * The keys of the total order of a query's rows: its `$orderby` items, then the entity key's
 * properties that `$orderby` does not name (the tie-breaker every backend appends when paging).
 * `undefined` when an `$orderby` item is not a single-valued property of the entity of an
 * orderable type (an expression, a navigation path, `$count`, a flags enum, Binary, spatial):
 * such a query cannot be continued by keyset, only by `$skip`.
 *
 * @example
 * ```ts
 * keysetKeys(bindQuery('$orderby=name desc', { model, entitySet: 'assets' }));
 * // [{ property: name, direction: 'desc' }, { property: id, direction: 'asc' }]
 * ```
 */
export function keysetKeys(query: BoundQueryOptions): readonly KeysetKey[] | undefined {
  // Rows of an aggregation (`$apply`) have no key to continue after.
  if (query.apply !== undefined && !query.apply.entity) return undefined;
  // Nor rows in an order of $apply's own (orderby, traverse…) where $orderby gives none: pages by offset.
  if (query.apply !== undefined && query.orderBy === undefined && orderedByApply(query.apply.transformations)) return undefined;
  const keys: KeysetKey[] = [];
  for (const item of query.orderBy ?? []) {
    const expression = item.expression;
    if (expression.kind !== 'path' || expression.root.kind !== 'it' || expression.steps.length !== 1) return undefined;
    const step = expression.steps[0];
    if (step?.kind !== 'property' || !orderable(step.property)) return undefined;
    // A repeated key orders nothing more.
    if (keys.some((k) => k.property === step.property)) continue;
    keys.push({ property: step.property, direction: item.direction });
  }
  for (const name of query.entityType.key) {
    const property = query.entityType.properties.get(name);
    if (property === undefined) return undefined;
    if (keys.some((k) => k.property === property)) continue;
    if (!orderable(property)) return undefined;
    keys.push({ property, direction: 'asc' });
  }
  return keys;
}

/**
 * The values of the keys in a row (by property name), as JSON values: instants as ISO 8601 text,
 * Int64 values that JSON cannot hold exactly as text. What a token stores. The row may be a
 * driver's (PostgreSQL's timestamp text, a `Date`, MySQL's 0/1 Booleans) or a record.
 */
export function keysetValues(keys: readonly KeysetKey[], row: Readonly<Record<string, unknown>>): unknown[] {
  return keys.map(({ property }) => {
    const stored = Object.hasOwn(row, property.name) ? row[property.name] : null;
    if (stored === undefined || stored === null) return null;
    // A driver's own form (PostgreSQL's text `2023-06-30 12:30:15.5+00`, MariaDB's, 0/1 Booleans): the reference's.
    const value = driverValue(stored, property.type as ExpressionType);
    if (value instanceof Date) {
      const iso = value.toISOString();
      return property.type.kind === 'primitive' && property.type.name === 'Edm.Date' ? iso.slice(0, 10) : iso;
    }
    if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    return value;
  });
}

function invalid(reason: string): ODataError {
  return new ODataError({ code: 'invalid_option_value', reason, option: '$skiptoken', appendLocation: false });
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^-?\d{1,19}$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const DATE = /^-?\d{4,}-\d{2}-\d{2}$/;
const INSTANT = /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,12})?)?(Z|[+-]\d{2}:\d{2})$/;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d{1,12})?)?$/;

/** The OData literal of a key's value; a value that does not fit the type is an ODataError. */
function literal(property: Property, value: unknown): string {
  if (value === null) return 'null';
  const type = property.type;
  const bad = (): ODataError => invalid(`The continuation value for '${property.name}' does not fit its type`);
  if (type.kind === 'enum') {
    const members = type.type.members;
    const name =
      typeof value === 'string'
        ? value
        : typeof value === 'number' || typeof value === 'bigint'
          ? [...members].find(([, v]) => v === BigInt(value))?.[0]
          : undefined;
    if (name === undefined || !members.has(name)) throw bad();
    return `${type.type.qualifiedName}'${name}'`;
  }
  if (type.kind !== 'primitive') throw bad();
  const text =
    typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' ? String(value) : undefined;
  if (text === undefined) throw bad();
  switch (type.name) {
    case 'Edm.String':
      if (typeof value !== 'string') throw bad();
      return `'${value.replaceAll("'", "''")}'`;
    case 'Edm.Guid':
      if (!GUID.test(text)) throw bad();
      return text;
    case 'Edm.Boolean':
      if (typeof value !== 'boolean') throw bad();
      return text;
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Int16':
    case 'Edm.Int32':
    case 'Edm.Int64':
      if (!INTEGER.test(text)) throw bad();
      return text;
    case 'Edm.Decimal':
      if (!DECIMAL.test(text)) throw bad();
      return text;
    case 'Edm.Double':
    case 'Edm.Single': {
      const number = typeof value === 'number' ? value : typeof value === 'string' && DECIMAL.test(value) ? Number(value) : Number.NaN;
      if (typeof value === 'string' && !DECIMAL.test(value) && !['NaN', 'INF', '-INF'].includes(value)) throw bad();
      if (typeof value === 'string' && ['NaN', 'INF', '-INF'].includes(value)) return value;
      if (Number.isNaN(number)) return 'NaN';
      if (!Number.isFinite(number)) return number > 0 ? 'INF' : '-INF';
      // A double literal of the grammar: digits, a fraction and an exponent without '+'.
      return String(number).replace('e+', 'e');
    }
    case 'Edm.Date':
      if (!DATE.test(text)) throw bad();
      return text;
    case 'Edm.DateTimeOffset':
      if (!INSTANT.test(text)) throw bad();
      return text;
    case 'Edm.TimeOfDay':
      if (!TIME.test(text)) throw bad();
      return text;
    default:
      throw bad();
  }
}

/**
 * The continuation condition "after the row whose key values are `values`" as OData `$filter`
 * text, for keys from {@link keysetKeys}; `false` when no row can follow. Values are those of
 * {@link keysetValues}; each is checked against its property's type and written as a literal, so a
 * forged value gives an ODataError (`invalid_option_value` in `$skiptoken`), never other filter text.
 *
 * @example
 * ```ts
 * keysetFilter(keys, ['Pump', 'c0ffee00-0000-4000-8000-000000000000']);
 * // "name gt 'Pump' or name eq 'Pump' and id gt c0ffee00-…"
 * ```
 */
export function keysetFilter(keys: readonly KeysetKey[], values: readonly unknown[]): string {
  if (values.length !== keys.length) throw invalid(`The continuation has ${values.length} values for ${keys.length} order keys`);
  const literals = keys.map((key, index) => literal(key.property, values[index]));
  const disjuncts: string[] = [];
  keys.forEach((key, index) => {
    const name = key.property.name;
    const value = literals[index] as string;
    const isNull = values[index] === null;
    // Strictly after the value in this key's direction (null first ascending, last descending;
    // a property that cannot be null needs no null case).
    const orNull = key.property.nullable ? ` or ${name} eq null` : '';
    const after =
      key.direction === 'asc'
        ? isNull
          ? `${name} ne null`
          : `${name} gt ${value}`
        : isNull
          ? undefined
          : orNull === ''
            ? `${name} lt ${value}`
            : `(${name} lt ${value}${orNull})`;
    if (after === undefined) return;
    const equal = keys.slice(0, index).map((k, j) => `${k.property.name} eq ${literals[j] as string}`);
    disjuncts.push([...equal, after].join(' and '));
  });
  if (disjuncts.length === 0) return 'false';
  const condition = disjuncts.map((d) => `(${d})`).join(' or ');
  // The same rows, with the first key's bound stated on its own: a range an index on the order
  // can seek to (databases do not derive it from the disjunction).
  const first = keys[0] as KeysetKey;
  if (keys.length === 1 || values[0] === null) return condition;
  const name = first.property.name;
  const bound =
    first.direction === 'asc'
      ? `${name} ge ${literals[0] as string}`
      : first.property.nullable
        ? `(${name} le ${literals[0] as string} or ${name} eq null)`
        : `${name} le ${literals[0] as string}`;
  return `${bound} and (${condition})`;
}

/**
 * The query restricted to the rows after the one whose key values are `values` (in the order of
 * {@link keysetKeys}): the continuation of {@link keysetFilter}, bound against the query's entity
 * set in `model` (without the request's node limits: the service wrote it, not the client) and
 * ANDed into its `$filter`. `$top`, `$skip` and `$count` are left as they are: a page is usually
 * the result with `$top` the page size and no `$skip` (`$skip` applies to the first page only),
 * and a total count is that of the query without the continuation.
 *
 * @throws {ODataError} `unsupported_feature` when the order has no keyset keys (see
 * {@link keysetKeys}); `invalid_option_value` (in `$skiptoken`) when the values do not fit it.
 */
export function continueAfter(query: BoundQuery, values: readonly unknown[], model: Model): BoundQuery {
  const keys = keysetKeys(query);
  if (keys === undefined)
    throw new ODataError({
      code: 'unsupported_feature',
      reason: 'Keyset paging needs an $orderby of properties of the entity',
      option: '$orderby',
      appendLocation: false,
    });
  const text = keysetFilter(keys, values);
  let continuation: BoundExpression;
  try {
    continuation = bindQuery(parseQuery(`$filter=${encodeURIComponent(text)}`), {
      model,
      entitySet: query.entitySet.name,
      maxNodeCount: Number.MAX_SAFE_INTEGER,
    }).filter as BoundExpression;
  } catch (error) {
    // A value of the right shape but not of the type (month 13, an Int32 beyond its range).
    if (error instanceof ODataError) throw invalid(`The continuation values do not fit the order keys (${error.reason})`);
    throw error;
  }
  const filter: BoundExpression =
    query.filter === undefined
      ? continuation
      : {
          kind: 'binary',
          operator: 'and',
          left: query.filter,
          right: continuation,
          type: continuation.type,
          operandType: continuation.type,
          span: query.filter.span,
        };
  return { ...query, filter };
}
