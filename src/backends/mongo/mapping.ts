/**
 * How an entity set is stored in MongoDB: collection and field names, and how values of each EDM
 * type are represented (Guid as text or a UUID binary, DateTimeOffset as `Date`, Decimal and
 * Int64 as doubles, BSON Decimal128 or Int64). Documents go both ways with
 * {@link toMongoDocument} and {@link fromMongoDocument}.
 */
import { ODataError } from '../../errors/odata-error.js';
import type { EntitySet, NavigationProperty, Property, StructuredType, TypeReference } from '../../model/model.js';
import { joinPairs } from '../../model/navigation.js';
import { unknownTarget, unsupportedFeature, type UnsupportedAt } from '../../passes/unsupported.js';
import type { BoundExpandItem, BoundLiteral } from '../../semantic/bound-ast.js';
import type { ExpressionType } from '../../semantic/types.js';
import { parseInstant } from '../../util/temporal.js';
import { jsonValue } from '../../responses/json-values.js';

/** A MongoDB filter, sort, projection or pipeline stage document. */
export type MongoDocument = { [field: string]: unknown };

export interface MongoMapping {
  /**
   * The field that holds the key when the entity type has a single-property key: `'_id'` by
   * default; `null` keeps the property's own name.
   */
  readonly keyField?: string | null;
  /** Field per property, keyed `Type.property` or `property` (overrides the default, the property name). */
  readonly fields?: Readonly<Record<string, string>>;
  /** Collection per entity set name (default: the entity set's name); used by `$lookup`. */
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
   * Document scoping, e.g. multi-tenancy: field → value conditions added for every collection the
   * query reads (the request's, every `$lookup` of navigation and `$expand`). The fields need not
   * be in the model: `{ tenantId: tenant }`. Values are compared as given (`$eq`).
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

/** The field name of a property in `type`. */
export function fieldOf(type: StructuredType, property: Property, mapping: MongoMapping): string {
  const override = mapping.fields?.[`${type.name}.${property.name}`] ?? mapping.fields?.[property.name];
  if (override !== undefined) return checkedField(override);
  const keyField = mapping.keyField === undefined ? '_id' : mapping.keyField;
  if (keyField !== null && type.key.length === 1 && type.key[0] === property.name) return checkedField(keyField);
  return checkedField(property.name);
}

/** The collection of an entity set. */
export function collectionOf(set: EntitySet, mapping: MongoMapping): string {
  return mapping.collections?.[set.name] ?? set.name;
}

/** The entity set of a navigation property's targets, as bound; refused when the model does not say. */
export function targetSet(navigation: NavigationProperty, entitySet: EntitySet | undefined, at?: UnsupportedAt): EntitySet {
  if (entitySet === undefined) throw unsupported(unknownTarget(navigation), at);
  return entitySet;
}

/** Pairs of (field here, field there) that join a navigation property (its constraints, or its partner's). */
export function joinFields(type: StructuredType, navigation: NavigationProperty, mapping: MongoMapping): { local: string; foreign: string }[] {
  const pairs = joinPairs(navigation);
  if (pairs.length === 0) throw unsupported(`the navigation property '${navigation.name}', which has no referential constraint`);
  return pairs.map(({ local, remote }) => ({
    local: fieldOf(type, type.properties.get(local) as Property, mapping),
    foreign: fieldOf(navigation.target, navigation.target.properties.get(remote) as Property, mapping),
  }));
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
 * The `let` variables and `$expr` conditions that join a navigation property's related documents
 * to the document at `base` (a path prefix): the constraint fields equal, and never on a null key.
 */
export function joinExpression(
  source: StructuredType,
  navigation: NavigationProperty,
  mapping: MongoMapping,
  base = '',
): { vars: MongoDocument; conditions: unknown[] } {
  const vars: MongoDocument = {};
  const conditions: unknown[] = [];
  joinFields(source, navigation, mapping).forEach((pair, i) => {
    vars[`odata_k${i}`] = { $ifNull: [`$${base}${pair.local}`, null] };
    conditions.push({ $ne: [`$$odata_k${i}`, null] }, { $eq: [`$${pair.foreign}`, `$$odata_k${i}`] });
  });
  return { vars, conditions };
}

/** A name for a computed field that no property of `type` uses. */
export function reservedField(type: StructuredType, mapping: MongoMapping, name: string): string {
  const fields = fieldSet(type, mapping);
  let field = `__odata_${name}`;
  while (fields.has(field)) field = `_${field}`;
  return field;
}

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
  switch (type.name) {
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
 * A row as a document: the key in `_id` (or the configured field), fields renamed, values as
 * {@link storedValue} stores them. Missing properties stay missing.
 */
export function toMongoDocument(row: Readonly<Record<string, unknown>>, type: StructuredType, options: MongoMapping = {}): MongoDocument {
  const document: MongoDocument = {};
  for (const property of type.properties.values()) {
    if (!Object.hasOwn(row, property.name)) continue;
    const value = row[property.name];
    const field = fieldOf(type, property, options);
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
 * renaming). With the query's `expand` items, expanded documents are read back too, and
 * counts become `name@odata.count`; with the names of the computed properties the query
 * returns (`bound.select.computed`), their values too (in expansions, by each one's options).
 */
export function fromMongoDocument(
  document: Readonly<MongoDocument>,
  type: StructuredType,
  options: MongoMapping = DEFAULT_MAPPING,
  expand: readonly BoundExpandItem[] = [],
  computed: readonly string[] = [],
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const property of type.properties.values()) {
    const field = fieldOf(type, property, options);
    if (!Object.hasOwn(document, field)) continue;
    const value = document[field];
    if (property.type.kind === 'complex') {
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
    const read = (d: unknown): unknown =>
      d === null || typeof d !== 'object' ? null : fromMongoDocument(d as MongoDocument, target, options, item.options.expand, item.options.select.computed);
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
    if (property.type.kind === 'complex') {
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
