/**
 * Value comparison for the harness and the differential runner: a property of a row a backend
 * returns equals the reference's when both read as the same value of the property's EDM type,
 * whatever representation the driver chose (PostgreSQL's `Date`s and intervals, MariaDB's
 * `YYYY-MM-DD hh:mm:ss.ffffff`, SQLite's 0/1 Booleans, digit strings for Int64 and Decimal).
 *
 * Where a driver or `JSON.parse` has already read an Int64 or a Decimal as a JavaScript number,
 * the digits beyond double precision are gone before the library could matter, so that value is
 * compared at double precision (and only that value: two exact texts must be equal exactly).
 */
import { domainOf } from '../reference/values.js';
import type { Property, StructuredType } from '../model/model.js';
import type { BoundQueryOptions } from '../semantic/bound-ast.js';
import { fromReference, type ExpressionType } from '../semantic/types.js';
import { isUnordered } from '../semantic/apply/output-type.js';
import { driverValue as readable } from '../reference/driver-values.js';

/**
 * The JavaScript form rows store values of a primitive or enum type in (docs/memory.md, the first
 * form of each): `undefined` where the reference has no one form (spatial, untyped values).
 */
function canonicalForm(type: ExpressionType): string | undefined {
  if (type.kind === 'enum') return 'string';
  if (type.kind !== 'primitive') return undefined;
  switch (type.name) {
    case 'Edm.Boolean':
      return 'boolean';
    case 'Edm.Int32':
    case 'Edm.Int16':
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Double':
    case 'Edm.Single':
      return 'number';
    case 'Edm.Int64':
      return 'bigint';
    case 'Edm.String':
    case 'Edm.Decimal':
    case 'Edm.Guid':
    case 'Edm.Date':
    case 'Edm.TimeOfDay':
    case 'Edm.Duration':
    case 'Edm.DateTimeOffset':
    case 'Edm.Binary':
      return 'string';
    default:
      return undefined;
  }
}

/** A value's JavaScript form: `typeof`, or the class of an object (`Date`, `Long`, `Decimal128`). */
function formOf(value: unknown): string {
  if (value === null || typeof value !== 'object') return typeof value;
  return (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
}

/**
 * Whether `actual` is not in a storage form of `type`: the type's own (docs/memory.md), or the
 * form the reference's value has (a Decimal the rows hold as a `number`); a description, or undefined.
 */
export function compareForm(type: ExpressionType, expected: unknown, actual: unknown, mode: Exclude<FormCheck, false> = true): string | undefined {
  if (actual === null || actual === undefined) return undefined;
  // OData JSON: the form of the reference's record (a Decimal as a string with IEEE754Compatible, 'INF' for a Double).
  if (mode !== true) {
    if (expected === null || expected === undefined || formOf(actual) === formOf(expected)) return undefined;
    return `expected the JSON form ${formOf(expected)} (${showValue(expected)}), got ${formOf(actual)} (${showValue(actual)})`;
  }
  const canonical = canonicalForm(type);
  const form = formOf(actual);
  if (canonical === undefined || form === canonical || (expected !== null && expected !== undefined && form === formOf(expected))) return undefined;
  return `expected the storage form ${canonical}, got ${form}`;
}

/**
 * How values' forms are compared: any form (`false`), storage forms (`true`), the reference's JSON
 * forms (`'json'`), or those with Decimals compared at double precision (`'json-decimal-as-double'`,
 * for the deviation of SQLite and DuckDB, which store Decimals as doubles).
 */
export type FormCheck = boolean | 'json' | 'json-decimal-as-double';

const INTEGERS: ReadonlySet<string> = new Set(['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64']);

/** An integer's exact value: a bigint, a safe integer number, or digit text; undefined for anything else. */
function exactInteger(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) return BigInt(value);
  return undefined;
}

/** Whether `value` went through a JavaScript number beyond double precision's integers. */
const lossy = (value: unknown): boolean => typeof value === 'number';

/**
 * Compares one value of `type`; a description of the difference, or undefined when equal. With
 * `storage`, the actual value must be in a storage form of the type too ({@link compareForm}).
 */
export function compareValue(type: ExpressionType, expected: unknown, actual: unknown, storage: FormCheck = false): string | undefined {
  const form = storage === false ? undefined : compareForm(type, expected, actual, storage);
  if (form !== undefined) return form;
  if (
    storage === 'json-decimal-as-double' &&
    type.kind === 'primitive' &&
    type.name === 'Edm.Decimal' &&
    expected !== null &&
    actual !== null &&
    Number(String(expected)) === Number(String(actual))
  )
    return undefined;
  // Integers by their exact digits: an Int32 expression the engines widen (`n32 mul n32`, typed Int32)
  // can pass 2^53, where a double would round both sides apart (DuckDB gives the digits as text; seed 2901).
  if (type.kind === 'primitive' && INTEGERS.has(type.name) && exactInteger(expected) !== undefined && exactInteger(actual) !== undefined)
    return exactInteger(expected) === exactInteger(actual) ? undefined : `expected ${showValue(expected)}, got ${showValue(actual)}`;
  const domain = domainOf(type);
  const e = domain.normalize(readable(expected ?? null, type));
  const a = domain.normalize(readable(actual ?? null, type));
  const show = (v: unknown): string => (typeof v === 'bigint' ? `${v}` : v instanceof Date ? v.toISOString() : (JSON.stringify(v) ?? String(v)));
  if (e === null || a === null) return e === a ? undefined : `expected ${show(expected)}, got ${show(actual)}`;
  if (domain.equals(e, a)) return undefined;
  if (type.kind === 'primitive') {
    // NaN, and -0 against 0.
    if (
      (type.name === 'Edm.Double' || type.name === 'Edm.Single') &&
      typeof e === 'number' &&
      typeof a === 'number' &&
      ((Number.isNaN(e) && Number.isNaN(a)) || e === a)
    )
      return undefined;
    if ((type.name === 'Edm.Decimal' || type.name === 'Edm.Int64') && (lossy(expected) || lossy(actual)) && Number(String(expected)) === Number(String(actual)))
      return undefined;
  }
  return `expected ${show(expected)}, got ${show(actual)}`;
}

/** An object value whose every property is null (or such an object) counts as null (flattened storage, see DEVIATIONS). */
function nullish(value: unknown): boolean {
  return (
    value === null ||
    value === undefined ||
    (typeof value === 'object' &&
      !Array.isArray(value) &&
      !(value instanceof Date) &&
      // Nested complex values are flattened too: one whose leaves are all null is null as well.
      Object.values(value as object).every(nullish))
  );
}

/** Compares a structural property of a row (primitive, enum, complex or a collection of them); `storage`: see {@link compareValue}. */
export function compareProperty(property: Property, expected: unknown, actual: unknown, storage: FormCheck = false, presence = false): string | undefined {
  if (property.collection) {
    if (nullish(expected) && nullish(actual)) return undefined;
    if (!Array.isArray(expected) || !Array.isArray(actual)) return `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
    if (expected.length !== actual.length) return `expected ${expected.length} items, got ${actual.length}`;
    if (isUnordered(property)) {
      // Items in no defined order (the rows of a nest or addnested pipeline): each matched once.
      const left = [...actual];
      for (const [i, item] of expected.entries()) {
        const at = left.findIndex((candidate) => compareItem(property, item, candidate, storage) === undefined);
        if (at < 0) return `item ${i}: ${showValue(item)} is not among the items`;
        left.splice(at, 1);
      }
      return undefined;
    }
    for (let i = 0; i < expected.length; i++) {
      const difference = compareItem(property, expected[i], actual[i], storage);
      if (difference !== undefined) return `item ${i}: ${difference}`;
    }
    return undefined;
  }
  return compareItem(property, expected, actual, storage, presence);
}

/** A value as text for a message (bigints as digits). */
function showValue(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}` : v)) ?? String(value);
}

function compareItem(property: Property, expected: unknown, actual: unknown, storage: FormCheck, presence = false): string | undefined {
  // An entity held as a value (a row of join or addnested) compares as its declared properties.
  if (property.type.kind === 'complex' || property.type.kind === 'entity') {
    if (nullish(expected) || nullish(actual))
      return nullish(expected) && nullish(actual) ? undefined : `expected ${showValue(expected)}, got ${showValue(actual)}`;
    // With `presence`, a grouping path's value: the rolled-up properties of rollup() are absent inside it too.
    return compareStructured(property.type.type, expected as Record<string, unknown>, actual as Record<string, unknown>, storage, presence);
  }
  return compareValue(fromReference(property.type), expected, actual, storage);
}

/**
 * Compares the structural properties of two rows: each property of the reference's row equal by
 * its type ({@link compareProperty}; with `storage`, in a storage form of it too). With `presence`,
 * exactly: the same properties present both ways (a row of a `concat` branch has only its
 * branch's, and one the reference leaves out is no null); without, a missing property is null (an
 * entity's missing value). The first difference, or undefined.
 */
export function compareStructured(
  type: StructuredType,
  expected: Record<string, unknown>,
  actual: Record<string, unknown>,
  storage: FormCheck = false,
  presence = false,
): string | undefined {
  for (const [name, value] of Object.entries(expected)) {
    const property = type.properties.get(name);
    if (property === undefined || property.kind !== 'property') continue;
    if (presence && !Object.hasOwn(actual, name)) return `${name}: expected ${showValue(value)}, got no such property`;
    const difference = compareProperty(property, value, Object.hasOwn(actual, name) ? actual[name] : undefined, storage, presence);
    if (difference !== undefined) return `${name}: ${difference}`;
  }
  if (!presence) return undefined;
  for (const name of Object.keys(actual)) {
    const property = type.properties.get(name);
    if (property === undefined || property.kind !== 'property' || Object.hasOwn(expected, name)) continue;
    return `${name}: expected no such property, got ${showValue(actual[name])}`;
  }
  return undefined;
}

/**
 * Compares the computed properties (`$compute`) that `$select` returns, each by its type (with
 * `storage`, in a storage form of it too); the first difference, or undefined.
 */
export function compareComputed(
  options: BoundQueryOptions,
  expected: Record<string, unknown>,
  actual: Record<string, unknown>,
  storage: FormCheck = false,
): string | undefined {
  const names = options.select.computed;
  if (names === undefined || names.length === 0) return undefined;
  for (const item of options.compute ?? []) {
    if (!names.includes(item.name)) continue;
    if (!Object.hasOwn(actual, item.name)) return `${item.name}: missing`;
    const difference = compareValue(item.type, Object.hasOwn(expected, item.name) ? expected[item.name] : undefined, actual[item.name], storage);
    if (difference !== undefined) return `${item.name}: ${difference}`;
  }
  return undefined;
}
