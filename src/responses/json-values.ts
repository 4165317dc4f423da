/**
 * Records as OData JSON (OData JSON Format 4.01 §7.1): each value written as its EDM type says,
 * whatever JavaScript or driver form it came in (the forms the reference's value domains read, and
 * the drivers' forms `driverValue` knows). Int64 and Decimal are numbers, or strings with
 * `ieee754Compatible` (§3.2); instants are ISO 8601 text in UTC; Double's special values, Dates,
 * times, durations, Guids and binary values are strings; enums are member names.
 */
import { ODataError } from '../errors/odata-error.js';
import type { EnumType, Property, StructuredType } from '../model/model.js';
import { domainOf } from '../reference/values.js';
import type { BoundExpandItem, BoundQueryOptions } from '../semantic/bound-ast.js';
import { fromReference, type ExpressionType } from '../semantic/types.js';
import { decimalToString, type Decimal } from '../util/decimal.js';
import { formatDate, formatDuration, formatTimeOfDay, instantFromPicos } from '../util/temporal.js';
import { driverValue } from '../reference/driver-values.js';
import { JsonNumber, parseJsonText } from '../util/json-text.js';

/** How values are written. */
export interface JsonValueOptions {
  /**
   * `IEEE754Compatible=true` (OData JSON Format 4.01 §3.2): Int64 and Decimal values as strings
   * (exact digits), instead of JSON numbers that a JavaScript client reads as doubles.
   */
  readonly ieee754Compatible?: boolean;
}

/** A value the reader cannot read as its type: a storage or programming error (status 500). */
export function unreadable(what: string, type: string): ODataError {
  return new ODataError({
    code: 'invalid_result',
    status: 500,
    reason: `The database returned a value for '${what}' that is not an ${type}`,
    appendLocation: false,
  });
}

/** Text of JSON stored in a column or returned for an expansion, read exactly (see {@link parseJsonText}). */
export function readJson(value: unknown, what: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return parseJsonText(value);
  } catch {
    throw unreadable(what, 'JSON value');
  }
}

const pad = (n: number | bigint, width = 2): string => String(n).padStart(width, '0');

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Decimal text without exponent, redundant zeros or sign on zero: what it is written as (see decimalToString). */
const CANONICAL_DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;
/** Decimal text a double can be read from directly (PostgreSQL's `2.50` of a numeric with a scale). */
const DECIMAL_TEXT = /^-?\d+(?:\.\d+)?$/;
const DATE_TEXT = /^\d{4}-\d\d-\d\d$/;
const MEMBER_VALUE = /^-?\d{1,19}$/;
const LOWER_GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An enumeration's member names by value, computed once per type. */
const membersByValue = new WeakMap<EnumType, ReadonlyMap<bigint, string>>();
function memberNames(type: EnumType): ReadonlyMap<bigint, string> {
  let names = membersByValue.get(type);
  if (names === undefined) {
    const map = new Map<bigint, string>();
    // The first member of a value names it, as enumText's search does.
    for (const [name, value] of type.members) if (!map.has(value)) map.set(value, name);
    membersByValue.set(type, (names = map));
  }
  return names;
}

/**
 * An instant (picoseconds since the epoch) as ISO 8601 text in UTC, with at least the three digits
 * of milliseconds `Date.prototype.toISOString` writes, and more where the value has them.
 */
function instantText(picos: bigint): string {
  const utc = instantFromPicos(picos, 0);
  const digits = utc.fractionPicos.toString().padStart(12, '0').replace(/0+$/, '').padEnd(3, '0');
  return `${pad(utc.year, 4)}-${pad(utc.month)}-${pad(utc.day)}T${pad(utc.hour)}:${pad(utc.minute)}:${pad(utc.second)}.${digits}Z`;
}

/** An enum value as member names: a flag value as the members whose bits it holds, in declaration order. */
function enumText(type: EnumType, value: unknown, bits: bigint): string | undefined {
  if (typeof value === 'string') {
    const names = value.split(',').map((name) => name.trim());
    if (names.every((name) => type.members.has(name))) return names.join(',');
  }
  for (const [name, member] of type.members) if (member === bits) return name;
  if (!type.isFlags) return undefined;
  let rest = bits;
  const names: string[] = [];
  // Largest (composite) members first, each only for bits not yet named.
  for (const [name, member] of [...type.members].sort((a, b) => (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0))) {
    if (member !== 0n && (member & rest) === member) {
      names.push(name);
      rest &= ~member;
    }
  }
  if (rest !== 0n || names.length === 0) return undefined;
  const order = [...type.members.keys()];
  return names.sort((a, b) => order.indexOf(a) - order.indexOf(b)).join(',');
}

/**
 * One value of a primitive or enum `type` as OData JSON; `null` for null. `what` names the value
 * in the error.
 *
 * @throws {ODataError} `invalid_result` (500) when the value cannot be read as its type
 */
export function jsonValue(type: ExpressionType, value: unknown, options: JsonValueOptions = {}, what = 'value'): unknown {
  return valueJson(type, value, options, () => what);
}

/** {@link jsonValue}, with the value's name computed only for an error. */
function valueJson(type: ExpressionType, value: unknown, options: JsonValueOptions, what: () => string): unknown {
  if (value === null || value === undefined) return null;
  // The forms most drivers give, already OData JSON.
  if (type.kind === 'primitive') {
    switch (type.name) {
      case 'Edm.String':
        if (typeof value === 'string') return value;
        break;
      case 'Edm.Boolean':
        if (typeof value === 'boolean') return value;
        break;
      case 'Edm.Int32':
      case 'Edm.Int16':
      case 'Edm.Byte':
      case 'Edm.SByte':
        if (typeof value === 'number' && Number.isInteger(value)) return value;
        break;
      case 'Edm.Double':
      case 'Edm.Single':
        if (typeof value === 'number' && Number.isFinite(value)) return value;
        break;
      case 'Edm.DateTimeOffset':
        // toISOString is the format below for the years 1 to 9999 and millisecond precision.
        if (value instanceof Date) {
          const year = value.getUTCFullYear();
          if (year >= 1 && year <= 9999) return value.toISOString();
        }
        break;
      case 'Edm.Int64':
        if (typeof value === 'number' && Number.isSafeInteger(value)) return options.ieee754Compatible === true ? String(value) : value;
        if (typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX) return options.ieee754Compatible === true ? String(value) : Number(value);
        break;
      case 'Edm.Decimal':
        // Decimal text as the drivers give it (node-postgres, PGlite, mysql2), already canonical.
        if (typeof value === 'string') {
          if (options.ieee754Compatible === true ? CANONICAL_DECIMAL.test(value) : DECIMAL_TEXT.test(value))
            return options.ieee754Compatible === true ? value : Number(value);
        }
        break;
      case 'Edm.Guid':
        if (typeof value === 'string' && LOWER_GUID.test(value)) return value;
        break;
      case 'Edm.Date':
        // A driver's Date (at UTC or, node-postgres, local midnight) read as its calendar day.
        if (value instanceof Date) {
          const day = driverValue(value, type);
          if (typeof day === 'string' && DATE_TEXT.test(day)) return day;
        }
        break;
    }
  } else if (type.kind === 'enum' && !type.type.isFlags) {
    // A stored member value (a number, or its digits as text), or a member's name.
    if (typeof value === 'number' || typeof value === 'bigint' || (typeof value === 'string' && MEMBER_VALUE.test(value))) {
      const name = memberNames(type.type).get(BigInt(value));
      if (name !== undefined) return name;
    } else if (typeof value === 'string' && type.type.members.has(value)) return value;
  }
  const exact = type.kind === 'primitive' && (type.name === 'Edm.Int64' || type.name === 'Edm.Decimal');
  // A spatial value from JSON text read exactly (its text held a long number somewhere) has JsonNumber coordinates: as numbers.
  const spatial = type.kind === 'primitive' && type.name.startsWith('Edm.Geo');
  const input = value instanceof JsonNumber ? (exact ? value.text : Number(value.text)) : spatial ? plain(value) : value;
  const read = domainOf(type).normalize(driverValue(input, type));
  const name = type.kind === 'primitive' ? type.name : type.kind === 'enum' ? type.type.qualifiedName : type.kind;
  if (read === null || read === undefined) throw unreadable(what(), name);
  if (type.kind === 'enum') {
    const text = enumText(type.type, input, read as bigint);
    if (text === undefined) throw unreadable(what(), name);
    return text;
  }
  if (type.kind !== 'primitive') return read;
  switch (type.name) {
    case 'Edm.Int64':
      return options.ieee754Compatible === true ? String(read) : Number(read);
    case 'Edm.Int32':
    case 'Edm.Int16':
    case 'Edm.Byte':
    case 'Edm.SByte':
      // An integer result past 2^53 (a product of Int32 values, computed in 64 bits): written as an Int64 is.
      return typeof read === 'bigint' ? (options.ieee754Compatible === true ? String(read) : Number(read)) : read;
    case 'Edm.Decimal': {
      const text = decimalToString(read as Decimal);
      return options.ieee754Compatible === true ? text : Number(text);
    }
    case 'Edm.Double':
    case 'Edm.Single': {
      const n = read as number;
      return Number.isNaN(n) ? 'NaN' : n === Infinity ? 'INF' : n === -Infinity ? '-INF' : n;
    }
    case 'Edm.Date':
      return formatDate(read as number);
    case 'Edm.DateTimeOffset':
      return instantText(read as bigint);
    case 'Edm.TimeOfDay':
      return formatTimeOfDay(read as bigint);
    case 'Edm.Duration':
      return formatDuration(read as bigint);
    default:
      // Booleans, numbers, strings, lowercase Guids, base64url binary values.
      return read;
  }
}

/** Sets an own property, even one named `__proto__`. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** What untyped JSON (an unknown member) becomes: numbers as numbers, the rest as it is. */
function plain(value: unknown): unknown {
  if (value instanceof JsonNumber) return Number(value.text);
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) setOwn(out, key, plain(item));
    return out;
  }
  return value;
}

/** Whether every primitive inside a complex value is null (flattened storage cannot tell it from null). */
function allNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value as object).every(allNull);
}

/** A property's item type as an expression type, computed once per property. */
const itemTypes = new WeakMap<Property, ExpressionType>();
function typeOf(property: Property): ExpressionType {
  let type = itemTypes.get(property);
  if (type === undefined) itemTypes.set(property, (type = fromReference(property.type)));
  return type;
}

/** A structural property's value (primitive, enum, complex, or a collection of them) as OData JSON. */
function propertyValue(
  property: Property,
  value: unknown,
  options: JsonValueOptions,
  whole: (path: readonly string[]) => boolean,
  path: readonly string[],
): unknown {
  if (value === null || value === undefined) return null;
  if (property.collection) {
    const items = readJson(value, property.name);
    if (!Array.isArray(items)) throw unreadable(property.name, 'array');
    return items.map((item) => itemValue(property, item, options, whole, path));
  }
  return itemValue(property, value, options, whole, path);
}

function itemValue(
  property: Property,
  value: unknown,
  options: JsonValueOptions,
  whole: (path: readonly string[]) => boolean,
  path: readonly string[],
): unknown {
  if (value === null || value === undefined) return null;
  if (property.type.kind !== 'complex' && property.type.kind !== 'entity') return valueJson(typeOf(property), value, options, () => path.join('/'));
  const complex = readJson(value, property.name);
  if (typeof complex !== 'object' || complex === null || Array.isArray(complex)) throw unreadable(path.join('/'), property.type.type.qualifiedName);
  const out = structured(property.type.type, complex as Record<string, unknown>, options, whole, path, property.type.kind === 'entity');
  // A whole complex value stored flattened with every column null is null (see DEVIATIONS).
  return !property.collection && whole(path) && allNull(out) ? null : out;
}

function structured(
  type: StructuredType,
  value: Record<string, unknown>,
  options: JsonValueOptions,
  whole: (path: readonly string[]) => boolean,
  path: readonly string[],
  /** An entity held as a value (a row of `join` or `addnested`): its declared properties only, not the columns that link it. */
  declared = false,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = type.properties.get(key);
    if (declared && (property === undefined || !property.selectable)) continue;
    setOwn(out, key, property === undefined ? plain(item) : propertyValue(property, item, options, whole, [...path, key]));
  }
  return out;
}

/** Which paths into complex values are selected whole (so that all-null columns mean null). */
function wholeSelection(query: BoundQueryOptions): (path: readonly string[]) => boolean {
  if (query.select.all) return () => true;
  const paths = query.select.properties.map((item) => item.path.map((p) => p.name).join('/'));
  return (path) => {
    for (let i = 1; i <= path.length; i++) if (paths.includes(path.slice(0, i).join('/'))) return true;
    return false;
  };
}

/** What reading records of one set of options needs, computed once per options. */
interface Plan {
  readonly whole: (path: readonly string[]) => boolean;
  readonly expansions: ReadonlyMap<string, BoundExpandItem>;
  /** The types of the computed properties (`$compute`) `$select` returns, by name. */
  readonly computed: ReadonlyMap<string, ExpressionType> | undefined;
}

const plans = new WeakMap<BoundQueryOptions, Plan>();
function planOf(query: BoundQueryOptions): Plan {
  let plan = plans.get(query);
  if (plan === undefined) {
    const names = query.select.computed;
    const computed =
      names === undefined || names.length === 0
        ? undefined
        : new Map((query.compute ?? []).filter((item) => names.includes(item.name)).map((item) => [item.name, item.type]));
    plan = { whole: wholeSelection(query), expansions: new Map(query.expand.map((item) => [item.navigation.name, item])), computed };
    plans.set(query, plan);
  }
  return plan;
}

/** The options an expansion's records are read with: `$ref` has the keys only (no nested options apply). */
const nestedOptions = new WeakMap<BoundExpandItem, BoundQueryOptions>();
function optionsOf(item: BoundExpandItem): BoundQueryOptions {
  let options = nestedOptions.get(item);
  if (options === undefined) {
    options =
      item.form === '$ref'
        ? { entityType: item.navigation.target, select: { all: true, properties: [], navigation: [] }, expand: [] }
        : { ...item.options, entityType: item.navigation.target };
    nestedOptions.set(item, options);
  }
  return options;
}

/**
 * One record of the query's entity type as OData JSON: its properties by their types, complex
 * values nested, computed properties (`$compute`) by their types, expansions (objects, arrays, or
 * JSON text) by their own options, and `name@odata.count` members as numbers.
 */
export function jsonRecord(query: BoundQueryOptions, record: Readonly<Record<string, unknown>>, options: JsonValueOptions = {}): Record<string, unknown> {
  // With $apply, the rows are of its output type (aggregates, grouping properties, computed values).
  const type = query.apply?.output ?? query.entityType;
  const { whole, expansions, computed } = planOf(query);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    const item = expansions.get(key);
    const property = type.properties.get(key);
    // An entity $apply made, expanded with options: its expansion (BoundExpandItem.made).
    if (property !== undefined && item?.made === undefined) {
      setOwn(out, key, propertyValue(property, value, options, whole, [key]));
      continue;
    }
    if (item !== undefined) {
      setOwn(out, key, expanded(item, value, options));
      continue;
    }
    const computedType = computed?.get(key);
    if (computedType !== undefined) {
      setOwn(
        out,
        key,
        valueJson(computedType, value, options, () => key),
      );
      continue;
    }
    if (key.endsWith('@odata.count')) {
      const count = value instanceof JsonNumber ? Number(value.text) : Number(value);
      if (!Number.isSafeInteger(count) || count < 0) throw unreadable(key, 'count');
      setOwn(out, key, count);
      continue;
    }
    setOwn(out, key, plain(value));
  }
  return out;
}

/** An expansion: an object or null (single-valued), an array (collection), as JSON text or parsed. */
function expanded(item: BoundExpandItem, value: unknown, options: JsonValueOptions): unknown {
  const name = item.navigation.name;
  const parsed = readJson(value, name);
  const nested = optionsOf(item);
  const one = (row: unknown): unknown => {
    if (row === null || row === undefined) return null;
    if (typeof row !== 'object' || Array.isArray(row)) throw unreadable(name, 'object');
    return jsonRecord(nested, row as Record<string, unknown>, options);
  };
  if (!item.navigation.collection) return one(parsed);
  if (parsed === null || parsed === undefined) return [];
  if (!Array.isArray(parsed)) throw unreadable(name, 'array');
  return parsed.map(one);
}
