/**
 * How a model is stored in MongoDB: collection and field names, and how values of each EDM
 * type are represented (Guid as text or a UUID binary, DateTimeOffset as `Date`, Decimal and
 * Int64 as doubles, BSON Decimal128 or Int64). Documents go both ways with
 * {@link toMongoDocument} and {@link fromMongoDocument}; a whole data set of stored tables with
 * {@link toMongoCollections}.
 *
 * The storage mapping (storage/storage-mapping.ts) says where relationships are stored: every
 * stored table (`storedTables`: entity sets, the implicit sets of contained entities such as
 * `Person_Trips`, link tables such as `Person_Friends`) is a collection of the same logical name,
 * and every hidden column (a foreign key `Photo_Id`, a container's key `Person_UserName`, a link
 * column) a field of the same logical name. Navigation follows `navigationLink`: `$lookup` with
 * `let`/`$expr` on the related fields, through the link collection for link tables.
 */
import { ODataError } from '../../errors/odata-error.js';
import { derivesFrom, type EntitySet, type Model, type NavigationProperty, type Property, type StructuredType, type TypeReference } from '../../model/model.js';
import { declaringType } from '../../model/navigation.js';
import { navigationLink, type StoredColumn } from '../../storage/links.js';
import type { StorageMapping } from '../../storage/storage-mapping.js';
import { storedTables, type HiddenColumn } from '../../storage/tables.js';
import { unknownTarget, unsupportedFeature, type UnsupportedAt } from '../../passes/unsupported.js';
import type { BoundExpandItem, BoundLiteral } from '../../semantic/bound-ast.js';
import type { ExpressionType } from '../../semantic/types.js';
import { parseInstant } from '../../util/temporal.js';
import { jsonValue } from '../../responses/json-values.js';

/** A MongoDB filter, sort, projection or pipeline stage document. */
export type MongoDocument = { [field: string]: unknown };

/**
 * Collection and field names, value representations and row scoping of a MongoDB database; the
 * storage mapping's overrides (`navigation`) say where relationships without referential
 * constraints are stored (a foreign key, a link collection).
 */
export interface MongoMapping extends StorageMapping {
  /**
   * The field that holds the key when the stored key is one property (an entity set of a type
   * with a single-property key): `'_id'` by default; `null` keeps the property's own name. The
   * documents of contained entities (`Person_Trips`) are keyed by their container's key and their
   * own (a `TripId` repeats across people): there the key properties keep their own fields, like
   * the container's key fields, and `_id` is left to MongoDB (a unique index on those fields is
   * the database's to make).
   */
  readonly keyField?: string | null;
  /**
   * Field per property, keyed `Type.property` or `property` (overrides the default, the property
   * name); and per stored column the model does not declare (a foreign key such as `Photo_Id`, a
   * container's key such as `Person_UserName`, a link collection's field), keyed by its logical name.
   */
  readonly fields?: Readonly<Record<string, string>>;
  /**
   * Collection per stored table (default: its logical name): an entity set's name, the implicit
   * set of contained entities (`Person_Trips`) or a link table (`Person_Friends`); used by `$lookup`.
   */
  readonly collections?: Readonly<Record<string, string>>;
  /**
   * How Guids are stored: `'string'` (default, lowercase text) or a function that makes the
   * stored value from the lowercase text, e.g. `(text) => new UUID(text)` from `mongodb`.
   */
  readonly guid?: 'string' | ((text: string) => unknown);
  /**
   * How Decimals are stored: `'double'` (default, not exact) or a function from the exact
   * decimal text, e.g. `Decimal128.fromString` from `mongodb`.
   */
  readonly decimal?: 'double' | ((text: string) => unknown);
  /**
   * How Int64 values are stored: `'long'` (default: a JavaScript `bigint`, which the `mongodb`
   * driver writes as a BSON Int64) or `'double'` (a number; values beyond 2^53 are refused).
   */
  readonly int64?: 'long' | 'double';
  /**
   * Document scoping, e.g. multi-tenancy: field → value conditions added for every collection of
   * entities the query reads (the request's, every `$lookup` of navigation and `$expand`, contained
   * entities' collections too). The fields need not be in the model: `{ tenantId: tenant }`.
   * Values are compared as given (`$eq`). Link collections (many-to-many) are not scoped: they
   * only relate entities, which are.
   */
  readonly scope?: Readonly<Record<string, unknown>>;
}

/** The `scope` option as a filter (`undefined` without one). */
export function scopeFilter(mapping: MongoMapping): MongoDocument | undefined {
  if (mapping.scope === undefined) return undefined;
  const entries = Object.entries(mapping.scope);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([field, value]) => [checkedField(field), { $eq: value }]));
}

/** `unsupported_feature`; with the node and its option, the error points at the text (position). */
export function unsupported(what: string, at?: UnsupportedAt): ODataError {
  return unsupportedFeature('MongoDB', what, at);
}

/** Field names must be plain: a `$` prefix or a dot would be read as an operator or a path. */
function checkedField(name: string): string {
  if (name === '' || name.startsWith('$') || name.includes('.') || name.includes('\0')) {
    throw new ODataError({
      code: 'unsupported_feature',
      reason: `The MongoDB field name '${name}' cannot be used (empty, '$' prefix, '.' or NUL)`,
      appendLocation: false,
    });
  }
  return name;
}

/** An own entry of a record (never one of `Object.prototype`'s). */
function own(record: Readonly<Record<string, string>> | undefined, key: string): string | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * The field name of a property in `type`, in the documents of `set` (default: an entity set): the
 * key of a single-key type is `_id` (`keyField`) except in the documents of contained entities.
 */
export function fieldOf(type: StructuredType, property: Property, mapping: MongoMapping, set?: EntitySet): string {
  const override = own(mapping.fields, `${type.name}.${property.name}`) ?? own(mapping.fields, property.name);
  if (override !== undefined) return checkedField(override);
  const keyField = mapping.keyField === undefined ? '_id' : mapping.keyField;
  if (keyField !== null && set?.container === undefined && type.key.length === 1 && type.key[0] === property.name) return checkedField(keyField);
  return checkedField(property.name);
}

/** The field of a stored column the model does not declare (a foreign key, a container's key, a link column): `fields` by its logical name, or that name. */
export function hiddenField(column: string, mapping: MongoMapping): string {
  return checkedField(own(mapping.fields, column) ?? column);
}

/** The collection of a stored table by its logical name (an entity set, an implicit set, a link table). */
export function tableCollection(table: string, mapping: MongoMapping): string {
  return own(mapping.collections, table) ?? table;
}

/** The collection of an entity set (or of the implicit set of contained entities). */
export function collectionOf(set: EntitySet, mapping: MongoMapping): string {
  return tableCollection(set.name, mapping);
}

/** The entity set of a navigation property's targets, as bound; refused when the model does not say. */
export function targetSet(navigation: NavigationProperty, entitySet: EntitySet | undefined, at?: UnsupportedAt): EntitySet {
  if (entitySet === undefined) throw unsupported(unknownTarget(navigation), at);
  return entitySet;
}

/** The field names of a type's properties, computed once per type and mapping (read per document). */
const FIELD_SETS = new WeakMap<MongoMapping, WeakMap<StructuredType, ReadonlySet<string>>>();
function fieldSet(type: StructuredType, mapping: MongoMapping): ReadonlySet<string> {
  let byType = FIELD_SETS.get(mapping);
  if (byType === undefined) {
    byType = new WeakMap();
    FIELD_SETS.set(mapping, byType);
  }
  let fields = byType.get(type);
  if (fields === undefined) {
    fields = new Set([...type.properties.values()].map((p) => fieldOf(type, p, mapping)));
    byType.set(type, fields);
  }
  return fields;
}

/** The mapping of calls that pass none (one object, so that per-mapping caches hit). */
export const DEFAULT_MAPPING: MongoMapping = Object.freeze({});

/**
 * `{ [key]: value }`, built with a keyed store: a computed key in an object literal takes a slow
 * runtime path in V8 (about five times the time), and compiled filters are made of such objects.
 * Like the literal, it defines an own property even for the key `__proto__`.
 */
export function entry(key: string, value: unknown): MongoDocument {
  const document: Record<string, unknown> = {};
  if (key === '__proto__') Object.defineProperty(document, key, { value, enumerable: true, writable: true, configurable: true });
  else document[key] = value;
  return document as MongoDocument;
}

/** Escapes every regex metacharacter, so that a value is matched literally (JS and PCRE alike). */
export function escapeRegex(text: string): string {
  // Most texts have nothing to escape: a test first spares the replace's copy.
  return REGEX_SPECIAL.test(text) ? text.replace(REGEX_SPECIALS, '\\$&') : text;
}
const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/-]/;
const REGEX_SPECIALS = /[\\^$.*+?()[\]{}|/-]/g;

/**
 * The fields that identify a document of `set` (its stored table's key): for contained entities,
 * the fields of their container's key, then their own key's; else the key's fields.
 */
export function storageKeyFields(type: StructuredType, set: EntitySet | undefined, mapping: MongoMapping): string[] {
  const own = type.key.map((name) => fieldOf(type, type.properties.get(name) as Property, mapping, set));
  const container = set?.container;
  if (container === undefined) return own;
  const link = navigationLink(container.type, container.navigation, mapping);
  const parent = link?.kind === 'direct' ? link.pairs.flatMap(({ target }) => (target.column === undefined ? [] : [hiddenField(target.column, mapping)])) : [];
  return [...parent, ...own];
}

/** The documents a navigation property starts from: their type and their entity set (`undefined` for rows that are no entities). */
export interface LinkSource {
  readonly type: StructuredType;
  readonly set: EntitySet | undefined;
}

/**
 * The field of a stored column in the documents of `side`: a property's field, or a hidden
 * column's. Refused where those documents cannot have it (rows of `$apply` that lack the property).
 */
function storedField(column: StoredColumn, side: LinkSource, navigation: NavigationProperty, declaring: StructuredType, mapping: MongoMapping): string {
  if (column.property !== undefined) {
    const property = side.type.properties.get(column.property.name);
    if (property === undefined) throw unsupported(`the navigation property '${navigation.name}' on documents without its property '${column.property.name}'`);
    return fieldOf(side.type, property, mapping, side.set);
  }
  // Documents of an entity set (also with fields `$apply`'s compute added) have its hidden fields.
  const stored = side.set?.type ?? side.type;
  if (!derivesFrom(stored, declaring) && !derivesFrom(declaring, stored) && stored !== navigation.target)
    throw unsupported(`the navigation property '${navigation.name}' on documents without its field '${column.column}'`);
  return hiddenField(column.column, mapping);
}

/** What a `$lookup` of a navigation property needs: the collection, the `let` variables and the first stages of its pipeline. */
export interface LinkLookup {
  readonly from: string;
  readonly let: MongoDocument;
  /** The stages that give the related documents (more stages on them follow). */
  readonly pipeline: MongoDocument[];
}

/**
 * The `$lookup` of the documents related to the document at `base` (a path prefix) by a navigation
 * property, as the storage mapping stores their relationship (storage/links.ts): the related
 * fields equal (`let`/`$expr`, never on a null key); for a link table, the link collection's
 * documents of the source, their distinct target keys (a link stored twice relates once), and
 * for each the target documents (a nested `$lookup`). With `scoped`, the scope restricts the
 * target documents (not the link documents).
 */
export function linkLookup(source: LinkSource, navigation: NavigationProperty, target: EntitySet, mapping: MongoMapping, base = '', scoped = true): LinkLookup {
  const link = navigationLink(source.type, navigation, mapping);
  const declaring = declaringType(navigation, source.type);
  if (link === undefined || declaring === undefined) throw unsupported(`the navigation property '${navigation.name}' (the type that declares it is unknown)`);
  const there: LinkSource = { type: navigation.target, set: target };
  const scope = scoped ? scopeFilter(mapping) : undefined;
  const matching = (conditions: unknown[]): MongoDocument => {
    const expr = { $expr: conditions.length === 1 ? conditions[0] : { $and: conditions } };
    return { $match: scope === undefined ? expr : { $and: [scope, expr] } };
  };
  const vars: MongoDocument = {};
  const conditions: unknown[] = [];
  const join = (i: number, here: string, remote: string): void => {
    vars[`odata_k${i}`] = { $ifNull: [`$${base}${here}`, null] };
    conditions.push({ $ne: [`$$odata_k${i}`, null] }, { $eq: [`$${remote}`, `$$odata_k${i}`] });
  };
  if (link.kind === 'direct') {
    link.pairs.forEach((pair, i) =>
      join(i, storedField(pair.source, source, navigation, declaring, mapping), storedField(pair.target, there, navigation, declaring, mapping)),
    );
    return { from: collectionOf(target, mapping), let: vars, pipeline: [matching(conditions)] };
  }
  link.source.forEach((pair, i) => join(i, storedField(pair.column, source, navigation, declaring, mapping), hiddenField(pair.link, mapping)));
  const keys: MongoDocument = {};
  const targetVars: MongoDocument = {};
  const targetConditions: unknown[] = [];
  link.target.forEach((pair, i) => {
    keys[`t${i}`] = { $ifNull: [`$${hiddenField(pair.link, mapping)}`, null] };
    targetVars[`odata_t${i}`] = `$_id.t${i}`;
    targetConditions.push({ $ne: [`$$odata_t${i}`, null] }, { $eq: [`$${storedField(pair.column, there, navigation, declaring, mapping)}`, `$$odata_t${i}`] });
  });
  // The target documents, for a moment, in a field of the link documents (one no target property has).
  const linked = reservedField(navigation.target, mapping, 'linked');
  const pipeline: MongoDocument[] = [
    { $match: { $expr: { $and: conditions } } },
    { $group: { _id: keys } },
    { $lookup: { from: collectionOf(target, mapping), let: targetVars, pipeline: [matching(targetConditions)], as: linked } },
    { $unwind: `$${linked}` },
    { $replaceRoot: { newRoot: `$${linked}` } },
  ];
  return { from: tableCollection(link.table, mapping), let: vars, pipeline };
}

/**
 * A `$lookup`'s source of the entity `$apply` wrote into a document (`BoundExpandItem.made`): the
 * document of `target` whose key equals the key values of the document's `made` value (never on a
 * null key value), restricted by the scope.
 */
export function madeLookup(source: LinkSource, made: Property, type: StructuredType, target: EntitySet, mapping: MongoMapping): LinkLookup {
  const inner = (made.type as { readonly type: StructuredType }).type;
  const at = fieldOf(source.type, made, mapping, source.set);
  const vars: MongoDocument = {};
  const conditions: unknown[] = [];
  type.key.forEach((name, i) => {
    vars[`odata_k${i}`] = { $ifNull: [`$${at}.${fieldOf(inner, inner.properties.get(name) as Property, mapping)}`, null] };
    conditions.push({ $ne: [`$$odata_k${i}`, null] }, { $eq: [`$${fieldOf(type, type.properties.get(name) as Property, mapping, target)}`, `$$odata_k${i}`] });
  });
  const scope = scopeFilter(mapping);
  const expr = { $expr: conditions.length === 1 ? conditions[0] : { $and: conditions } };
  return { from: collectionOf(target, mapping), let: vars, pipeline: [{ $match: scope === undefined ? expr : { $and: [scope, expr] } }] };
}

/** A name for a computed field that no property of `type` uses. */
export function reservedField(type: StructuredType, mapping: MongoMapping, name: string): string {
  const fields = fieldSet(type, mapping);
  let field = `__odata_${name}`;
  while (fields.has(field)) field = `_${field}`;
  return field;
}

/** The integer types narrower than Int64. */
const INTEGERS = new Set(['Edm.Int32', 'Edm.Int16', 'Edm.Byte', 'Edm.SByte']);

/**
 * A literal as it is stored: DateTimeOffset as a `Date`, Guid as lowercase text (or through
 * the `guid` option), an enum as its member name, Decimal and Int64 by the options; strings,
 * numbers and Booleans as they are.
 */
export function storedValue(value: BoundLiteral['value'], type: ExpressionType | TypeReference, mapping: MongoMapping = {}): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) {
    if (value.length !== 1) throw unsupported('combined flag enum values');
    return value[0];
  }
  if (type.kind !== 'primitive') return value;
  // A narrower integer folded out of 32 bits (`2147483647 mul -4226943`): an Int64, exactly (seed 3115).
  const name = typeof value === 'bigint' && INTEGERS.has(type.name) && (value > 2147483647n || value < -2147483648n) ? 'Edm.Int64' : type.name;
  switch (name) {
    case 'Edm.DateTimeOffset':
      return instantDate(value);
    case 'Edm.Guid': {
      const text = (value as string).toLowerCase();
      return typeof mapping.guid === 'function' ? mapping.guid(text) : text;
    }
    case 'Edm.Int64': {
      const big = typeof value === 'bigint' ? value : BigInt(value as number | string);
      if (mapping.int64 !== 'double') return big;
      if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER))
        throw unsupported(`the Int64 value ${big} as a double (int64: 'double' is exact only up to 2^53)`);
      return Number(big);
    }
    case 'Edm.Decimal': {
      const text = String(value);
      return typeof mapping.decimal === 'function' ? mapping.decimal(text) : Number(text);
    }
    case 'Edm.Double':
    case 'Edm.Single':
    case 'Edm.Int32':
    case 'Edm.Int16':
    case 'Edm.Byte':
    case 'Edm.SByte':
      // Numeric literals may be exact text (a decimal literal compared with a Double): stored as numbers.
      return typeof value === 'string' ? Number(value) : typeof value === 'bigint' ? Number(value) : value;
    default:
      return value;
  }
}

/**
 * A DateTimeOffset as a `Date` (a BSON date: milliseconds, the fraction below truncated), parsed
 * exactly, so that an instant outside the years 0000–9999 (folded from `maxdatetime() add
 * duration'P1D'`) is a valid date too, which `new Date(text)` would not give for `10000-01-01…`.
 */
function instantDate(value: unknown): Date {
  const instant = parseInstant(value);
  const date = instant === undefined ? new Date(Number.NaN) : new Date(Number(floorDiv(instant.picos, 1_000_000_000n)));
  if (Number.isNaN(date.getTime())) throw unsupported(`the DateTimeOffset value '${String(value)}' (outside the range of a date)`);
  return date;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** {@link storedValue} for a property's type. */
export function mongoValue(value: BoundLiteral['value'], property: Property, mapping: MongoMapping = {}): unknown {
  return storedValue(value, property.type, mapping);
}

/**
 * A row as a document: the key in `_id` (or the configured field; not for contained entities, see
 * `keyField`), fields renamed, values as {@link storedValue} stores them, complex values as
 * subdocuments and collections of them as arrays of subdocuments. Missing properties stay
 * missing. `set` is the entity set (or implicit set) the row is stored in.
 */
export function toMongoDocument(row: Readonly<Record<string, unknown>>, type: StructuredType, options: MongoMapping = {}, set?: EntitySet): MongoDocument {
  const document: MongoDocument = {};
  for (const property of type.properties.values()) {
    if (!Object.hasOwn(row, property.name)) continue;
    const value = row[property.name];
    const field = fieldOf(type, property, options, set);
    if (property.type.kind === 'complex') {
      // Complex values are subdocuments (a collection of them, an array of subdocuments).
      const complex = property.type.type;
      const convert = (item: unknown): unknown =>
        item === null || typeof item !== 'object' ? null : toMongoDocument(item as Record<string, unknown>, complex, options);
      document[field] = property.collection ? (Array.isArray(value) ? value.map(convert) : null) : convert(value);
      continue;
    }
    if (property.collection) {
      document[field] = Array.isArray(value) ? value.map((item) => storedValue(item as BoundLiteral['value'], property.type, options)) : null;
      continue;
    }
    document[field] = value === null || value === undefined ? null : storedValue(value as BoundLiteral['value'], property.type, options);
  }
  return document;
}

/** A hidden column's value in a document (typed as the key property it holds). */
function hiddenValue(value: unknown, column: HiddenColumn, options: MongoMapping): unknown {
  return value === null || value === undefined ? null : storedValue(value as BoundLiteral['value'], column.holds.type, options);
}

/**
 * Every stored table of `data` (rows by the table's logical name, as the in-memory backend takes
 * them: entity sets, the implicit sets of contained entities, link tables, with their hidden
 * columns) as the documents of its collection (by `collections`), by {@link toMongoDocument}, the
 * hidden columns as fields (by `fields`). Tables `data` does not have are left out.
 *
 * @example
 * ```ts
 * const collections = toMongoCollections(tripPin, { People: people, Person_Friends: friends, Person_Trips: trips });
 * for (const [name, documents] of Object.entries(collections)) await db.collection(name).insertMany(documents);
 * ```
 */
export function toMongoCollections(
  model: Model,
  data: Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>>,
  options: MongoMapping = {},
): Record<string, MongoDocument[]> {
  const collections: Record<string, MongoDocument[]> = {};
  for (const table of storedTables(model, options)) {
    if (!Object.hasOwn(data, table.name)) continue;
    const rows = data[table.name] as readonly Readonly<Record<string, unknown>>[];
    const hidden = table.kind === 'entities' ? table.hidden : table.columns;
    collections[tableCollection(table.name, options)] = rows.map((row) => {
      const document = table.kind === 'entities' ? toMongoDocument(row, table.set.type, options, table.set) : {};
      for (const column of hidden) {
        if (Object.hasOwn(row, column.column)) document[hiddenField(column.column, options)] = hiddenValue(row[column.column], column, options);
      }
      // An open type's dynamic properties: an embedded document of JSON primitives (storage/dynamic-properties.ts).
      if (table.kind === 'entities' && table.dynamic !== undefined && Object.hasOwn(row, table.dynamic)) {
        const bag = row[table.dynamic];
        document[hiddenField(table.dynamic, options)] = bag !== null && typeof bag === 'object' && !Array.isArray(bag) ? { ...bag } : null;
      }
      return document;
    });
  }
  return collections;
}

/** The field that holds `name@odata.count` of an expansion (a field name cannot hold the dot). */
export function countField(type: StructuredType, name: string, mapping: MongoMapping): string {
  return reservedField(type, mapping, `count_${name}`);
}

/** The field that holds the computed property `name` (`$compute`) in a result document. */
export function computedField(type: StructuredType, name: string, mapping: MongoMapping): string {
  return reservedField(type, mapping, `compute_${name}`);
}

/**
 * A document back as a row with property names (the inverse of {@link toMongoDocument}'s
 * renaming; hidden fields are left out). With the query's `expand` items, expanded documents are
 * read back too (by each item's entity set), and counts become `name@odata.count`; with the names
 * of the computed properties the query returns (`bound.select.computed`), their values too (in
 * expansions, by each one's options). `set`: the entity set of the document (default: an entity
 * set of its own, not contained entities).
 */
export function fromMongoDocument(
  document: Readonly<MongoDocument>,
  type: StructuredType,
  options: MongoMapping = DEFAULT_MAPPING,
  expand: readonly BoundExpandItem[] = [],
  computed: readonly string[] = [],
  set?: EntitySet,
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const property of type.properties.values()) {
    const field = fieldOf(type, property, options, set);
    // A field removed by `$$REMOVE` (a rolled-up grouping property) is absent; mingo gives it as undefined.
    const value = document[field];
    if (value === undefined || !Object.hasOwn(document, field)) continue;
    // An entity as a value (a row of join or addnested) is read as its document: the key from `_id`.
    if (property.type.kind === 'complex' || property.type.kind === 'entity') {
      const complex = property.type.type;
      const read = (item: unknown): unknown => (item === null || typeof item !== 'object' ? null : fromMongoDocument(item as MongoDocument, complex, options));
      row[property.name] = property.collection ? (Array.isArray(value) ? value.map(read) : null) : read(value);
    } else row[property.name] = value;
  }
  for (const name of computed) {
    const field = computedField(type, name, options);
    if (Object.hasOwn(document, field)) row[name] = document[field];
  }
  for (const item of expand) {
    const name = item.navigation.name;
    const target = item.navigation.target;
    const counted = countField(type, name, options);
    if (Object.hasOwn(document, counted)) row[`${name}@odata.count`] = document[counted];
    if (item.form === '$count' || !Object.hasOwn(document, name)) continue;
    const value = document[name];
    // With $apply, the related rows are of its output type (in the reference's storage forms).
    const read = (d: unknown): unknown =>
      d === null || typeof d !== 'object'
        ? null
        : item.options.apply !== undefined
          ? fromMongoApplyDocument(d as MongoDocument, item.options, options)
          : fromMongoDocument(d as MongoDocument, target, options, item.options.expand, item.options.select.computed, item.entitySet);
    row[name] = Array.isArray(value) ? value.map(read) : read(value);
  }
  return row;
}

/**
 * A number-like value the driver gives (a JavaScript number or bigint, a BSON `Long`, `Int32`,
 * `Double` or `Decimal128`, as `$sum` and `$divide` make them) in the storage form of `type`, as
 * the in-memory backend's rows hold it: Int64 a `bigint`, Decimal its text, the other numbers a
 * `number`. Other values are returned as they are.
 */
export function numericValue(value: unknown, type: TypeReference): unknown {
  if (value === null || value === undefined || type.kind !== 'primitive') return value ?? null;
  const bson = typeof value === 'object' ? (value as { _bsontype?: string })._bsontype : undefined;
  const text = typeof value === 'number' || typeof value === 'bigint' ? String(value) : bson !== undefined ? String(value) : undefined;
  if (text === undefined) return value;
  switch (type.name) {
    case 'Edm.Int64':
      if (typeof value === 'bigint') return value;
      if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
      return /^[-+]?\d+$/.test(text) ? BigInt(text) : value;
    case 'Edm.Decimal':
      return typeof value === 'number' && !Number.isFinite(value) ? value : text;
    case 'Edm.Double':
    case 'Edm.Single':
    case 'Edm.Int32':
    case 'Edm.Int16':
    case 'Edm.Byte':
    case 'Edm.SByte':
      return typeof value === 'number' ? value : Number(text);
    default:
      return value;
  }
}

/**
 * A value the driver gives in the in-memory backend's storage form of `type`: numbers as
 * {@link numericValue} makes them, a DateTimeOffset (a BSON date) as ISO 8601 text in UTC, a Guid
 * stored as a UUID binary as its lowercase text. Other values are returned as they are.
 */
export function mongoStoredForm(value: unknown, type: TypeReference | ExpressionType): unknown {
  if (value === null || value === undefined || type.kind !== 'primitive') return value ?? null;
  if (type.name === 'Edm.DateTimeOffset') return value instanceof Date ? jsonValue(type, value) : value;
  if (type.name === 'Edm.Guid') {
    const uuid = value as { toHexString?: (dashes?: boolean) => string };
    return typeof value === 'object' && typeof uuid.toHexString === 'function' ? uuid.toHexString(true).toLowerCase() : value;
  }
  return numericValue(value, type as TypeReference);
}

/** {@link mongoStoredForm} of every property of a row of `type` (into complex values and collections too). */
function storedRow(row: Record<string, unknown>, type: StructuredType): Record<string, unknown> {
  for (const property of type.properties.values()) {
    if (!Object.hasOwn(row, property.name)) continue;
    const value = row[property.name];
    // An entity as a value (a row of join or addnested) is read as its document: the key from `_id`.
    if (property.type.kind === 'complex' || property.type.kind === 'entity') {
      const complex = property.type.type;
      const read = (item: unknown): void => void (item !== null && typeof item === 'object' && storedRow(item as Record<string, unknown>, complex));
      if (property.collection && Array.isArray(value)) value.forEach(read);
      else if (!property.collection) read(value);
    } else if (property.collection) {
      if (Array.isArray(value)) row[property.name] = value.map((item) => mongoStoredForm(item, property.type));
    } else row[property.name] = mongoStoredForm(value, property.type);
  }
  return row;
}

/**
 * A document of a query with `$apply` back as a row of its output type (`apply.output`): fields
 * renamed as {@link fromMongoDocument} does, and every value (grouping values, aggregates, computed
 * values, the request's `$compute`) in the in-memory backend's storage form ({@link mongoStoredForm}:
 * `$count` an Int64 `bigint`, a Decimal sum its text, a DateTimeOffset ISO text, a UUID Guid its
 * text). A field the document has not (a property of another `concat` branch) stays missing.
 * Without `$apply`, {@link fromMongoDocument} of the entity type.
 */
export function fromMongoApplyDocument(
  document: Readonly<MongoDocument>,
  query: {
    readonly entityType: StructuredType;
    readonly apply?: { readonly output: StructuredType };
    readonly expand: readonly BoundExpandItem[];
    readonly select?: { readonly computed?: readonly string[] };
    readonly compute?: readonly { readonly name: string; readonly type: ExpressionType }[];
  },
  options: MongoMapping = DEFAULT_MAPPING,
): Record<string, unknown> {
  const computed = query.select?.computed ?? [];
  if (query.apply === undefined) return fromMongoDocument(document, query.entityType, options, query.expand, computed);
  const row = storedRow(fromMongoDocument(document, query.apply.output, options, query.expand, computed), query.apply.output);
  for (const item of query.compute ?? []) if (Object.hasOwn(row, item.name)) row[item.name] = mongoStoredForm(row[item.name], item.type);
  return row;
}
