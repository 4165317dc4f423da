/**
 * How entity sets and properties map to tables and columns: the naming (as is or snake_case),
 * explicit table and column names, row scoping, and the flattened columns of complex values.
 */
import type { Property, StructuredType } from '../../model/model.js';
import type { StorageMapping } from '../../storage/storage-mapping.js';
import { dynamicColumn } from '../../storage/dynamic-properties.js';

/**
 * How entity sets and properties map to tables and columns; the storage mapping's overrides
 * (`navigation`) say where relationships without referential constraints are stored.
 */
export interface SqlMapping extends StorageMapping {
  /** `'asIs'` (default) or `'snake_case'` for tables and columns. */
  readonly naming?: 'asIs' | 'snake_case';
  /** Table per entity set name, implicit set of contained entities (`Person_Trips`) or link table (overrides the naming). */
  readonly tables?: Readonly<Record<string, string>>;
  /**
   * Column per property, keyed `Type.property` or `property`, or per column the model does not
   * declare (a foreign key such as `Airline_AirlineCode`, a container's key, a link table's column),
   * keyed by its logical name (overrides the naming).
   */
  readonly columns?: Readonly<Record<string, string>>;
  /**
   * Row scoping, e.g. multi-tenancy: column → value conditions added for every table the
   * statement reads (the entity set, every joined or related table, `$expand` and lambdas), as
   * parameters. The columns need not be in the model: `{ tenant_id: tenantId }` (a UUID-shaped
   * string is compared as a Guid).
   */
  readonly scope?: Readonly<Record<string, string | number | bigint | boolean>>;
}

export function snake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();
}

/** The column name of a property of `type` (the mapping, the naming, or its own name). */
export function columnName(type: StructuredType, property: Property, mapping: SqlMapping): string {
  return (
    mapping.columns?.[`${type.name}.${property.name}`] ??
    mapping.columns?.[property.name] ??
    (mapping.naming === 'snake_case' ? snake(property.name) : property.name)
  );
}

/**
 * The stored columns of a property: itself, or, for a complex value, its properties' columns with
 * its own column name and `_` as prefix (`address_city`; nested complex values repeat the rule).
 * `createTableSql` creates these columns.
 */
export function complexLeaves(
  type: StructuredType,
  property: Property,
  mapping: SqlMapping,
  prefix = '',
  /** The complex types on the path here: a type that contains itself is flattened once (see DEVIATIONS). */
  within: readonly StructuredType[] = [],
  /**
   * Whether the dialect stores collections of complex values (a JSON column each, in an entity's
   * table): an entity held as a value has them as leaves then, each one JSON column.
   */
  json = false,
): { path: Property[]; column: string; property: Property }[] {
  const name = prefix + columnName(type, property, mapping);
  // An entity held as a value (the alias of a join) is flattened as a complex value is.
  if ((property.type.kind !== 'complex' && property.type.kind !== 'entity') || property.collection) return [{ path: [property], column: name, property }];
  const complex = property.type.type;
  if (within.includes(complex)) return [];
  // (A complex value's collections of complex values have no column; an entity's have, where the dialect stores them.)
  const stored = json && property.type.kind === 'entity';
  return [...complex.properties.values()]
    .filter((p) => stored || !(p.collection && p.type.kind === 'complex'))
    .flatMap((p) => complexLeaves(complex, p, mapping, `${name}_`, [...within, complex], json).map((leaf) => ({ ...leaf, path: [property, ...leaf.path] })));
}

/**
 * Whether a leaf of {@link complexLeaves} is a collection of complex values' (or of entities', such as
 * a navigation traverse placed a node in: seed 3116) JSON column (no order, no equality).
 */
export function isJsonLeaf(leaf: { readonly property: Property }): boolean {
  return leaf.property.collection && (leaf.property.type.kind === 'complex' || leaf.property.type.kind === 'entity');
}

/**
 * The column of the dynamic properties of rows of `type` (an entity set's type; storage/dynamic-properties.ts)
 * under the mapping (`columns` by its logical name, else the naming), or `undefined` for a type that is not open.
 */
export function dynamicColumnName(type: StructuredType, mapping: SqlMapping): string | undefined {
  const logical = dynamicColumn(type, mapping);
  if (logical === undefined) return undefined;
  const named = mapping.columns !== undefined && Object.hasOwn(mapping.columns, logical) ? mapping.columns[logical] : undefined;
  return named ?? (mapping.naming === 'snake_case' ? snake(logical) : logical);
}
