/**
 * Value domains of the reference semantics: for each type an expression is compared in, how a
 * stored value is read (`normalize`) and how two read values compare. Rows may hold the natural
 * JavaScript form of each type (see the README's storage table); a value that cannot be read
 * as its type counts as `null`.
 */
import type { EnumType } from '../model/model.js';
import type { ExpressionType } from '../semantic/types.js';
import { readGeo, type GeoFamily } from './geo.js';
import { compareDecimal, decimalToString, toDecimal, type Decimal } from '../util/decimal.js';
import {
  formatDate,
  formatDuration,
  formatInstant,
  parseDate,
  parseDuration,
  parseInstant,
  parseTimeOfDay,
  PICOS_PER_DAY,
  type Instant,
} from '../util/temporal.js';

export interface Domain {
  /** The comparable form of a stored or computed value, or `null`. */
  normalize(value: unknown): unknown;
  /** Order of two normalized, non-null values. */
  compare(a: unknown, b: unknown): number;
  /** Equality of two normalized, non-null values (`NaN` equals nothing). */
  equals(a: unknown, b: unknown): boolean;
}

const compareScalars = (a: unknown, b: unknown): number => ((a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0);

/**
 * Ordinal comparison by Unicode code point (as PostgreSQL's C collation, MySQL's `_bin`
 * collations and MongoDB do), not by UTF-16 code unit.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800–DFFF) encode code points above U+FFFF: move them above U+E000–FFFF.
    if (x >= 0xd800) x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
    if (y >= 0xd800) y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

const scalar = (normalize: (value: unknown) => unknown): Domain => ({ normalize, compare: compareScalars, equals: (a, b) => a === b });

function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    if (value === 'INF') return Infinity;
    if (value === '-INF') return -Infinity;
    const n = Number(value);
    return value.trim() === '' || (Number.isNaN(n) && value !== 'NaN') ? null : n;
  }
  if (typeof value === 'object' && value !== null && 'coefficient' in value) return Number(toDecimalString(value as Decimal));
  return null;
}

function toDecimalString(value: Decimal): string {
  return `${value.coefficient}e-${value.scale}`;
}

function toBigInt(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : null;
  if (typeof value === 'string' && /^[-+]?\d+$/.test(value)) return BigInt(value);
  if (typeof value === 'object' && value !== null && 'coefficient' in value) {
    const d = value as Decimal;
    return d.scale === 0 ? d.coefficient : null;
  }
  return null;
}

const BOOLEAN: Domain = scalar((v) => (typeof v === 'boolean' ? v : null));
const INTEGER: Domain = scalar((v) => {
  // An integer result beyond 2^53 (an Int32 product) is an exact bigint; JavaScript compares it with numbers exactly.
  if (typeof v === 'bigint') return v >= -(2n ** 53n) && v <= 2n ** 53n ? Number(v) : v;
  // The same from a driver's text (node-postgres gives a 64-bit product as digits): exact too.
  if (typeof v === 'string' && /^[-+]?\d{16,}$/.test(v)) {
    const exact = BigInt(v);
    return exact >= -(2n ** 53n) && exact <= 2n ** 53n ? Number(exact) : exact;
  }
  const n = toNumber(v);
  return n === null || Number.isNaN(n) ? null : n;
});
const INT64: Domain = scalar(toBigInt);
const DOUBLE: Domain = {
  normalize: toNumber,
  compare: (a, b) => {
    const x = a as number;
    const y = b as number;
    // NaN sorts first (after null), as .NET's Double.CompareTo does.
    if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
    if (Number.isNaN(y)) return 1;
    return compareScalars(x, y);
  },
  equals: (a, b) => a === b,
};
const DECIMAL: Domain = {
  normalize: (v) => (typeof v === 'object' && v !== null && 'coefficient' in v ? v : (toDecimal(v) ?? null)),
  compare: (a, b) => compareDecimal(a as Decimal, b as Decimal),
  equals: (a, b) => compareDecimal(a as Decimal, b as Decimal) === 0,
};
const STRING: Domain = {
  normalize: (v) => (typeof v === 'string' ? v : null),
  compare: (a, b) => compareStrings(a as string, b as string),
  equals: (a, b) => a === b,
};
/** GUIDs compare case-insensitively. */
const GUID: Domain = scalar((v) => (typeof v === 'string' ? v.toLowerCase() : null));
const DATE: Domain = scalar((v) => parseDate(v) ?? null);
/** DateTimeOffset as an instant in picoseconds; a Date value counts as midnight UTC. */
const DATE_TIME_OFFSET: Domain = scalar((v) => {
  const instant = parseInstant(v);
  if (instant !== undefined) return instant.picos;
  const days = parseDate(v);
  return days === undefined ? null : BigInt(days) * PICOS_PER_DAY;
});
const TIME_OF_DAY: Domain = scalar((v) => parseTimeOfDay(v) ?? null);
const DURATION: Domain = scalar((v) => parseDuration(v) ?? null);
const BINARY: Domain = scalar((v) => {
  if (v instanceof Uint8Array) {
    let text = '';
    for (const byte of v) text += String.fromCharCode(byte);
    return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
  }
  return typeof v === 'string' ? v.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '') : null;
});
/** The rank of a JSON type in the order of dynamic values (semantic/dynamic-values.ts): numbers, strings, Booleans, then anything else. */
function jsonRank(value: unknown): number {
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return 0;
    case 'string':
      return 1;
    case 'boolean':
      return 2;
    default:
      return 3;
  }
}

/**
 * Untyped (dynamic) values (semantic/dynamic-values.ts): ordered by JSON type (numbers, strings,
 * Booleans, others), then by value; equal when of one JSON type and equal.
 */
const UNTYPED: Domain = {
  normalize: (v) => (v === undefined ? null : typeof v === 'bigint' ? Number(v) : v),
  compare: (a, b) => {
    const rank = jsonRank(a) - jsonRank(b);
    if (rank !== 0) return rank;
    return typeof a === 'string' ? compareStrings(a, b as string) : typeof a === 'object' ? 0 : compareScalars(a, b);
  },
  equals: (a, b) => a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b)),
};

/**
 * A dynamic property's value read from a row (semantic/dynamic-values.ts): as it is (absent is
 * null), or, with `read`, as that type where its JSON type is that type's, else null.
 */
export function readDynamic(value: unknown, read: 'Edm.String' | 'Edm.Double' | 'Edm.Boolean' | undefined): unknown {
  if (value === undefined || value === null) return null;
  switch (read) {
    case undefined:
      return value;
    case 'Edm.String':
      return typeof value === 'string' ? value : null;
    case 'Edm.Boolean':
      return typeof value === 'boolean' ? value : null;
    case 'Edm.Double':
      return typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : null;
  }
}

/** Other values (spatial, complex) are equal when their JSON is. */
const OPAQUE: Domain = {
  normalize: (v) => (v === undefined ? null : v),
  compare: () => 0,
  equals: (a, b) => JSON.stringify(a, jsonSafe) === JSON.stringify(b, jsonSafe),
};

/** A bigint as its digits in JSON (the storage form of Int64 values inside complex values). */
const jsonSafe = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : value);

/**
 * Spatial values (src/reference/geo.ts): the canonical GeoJSON object, from GeoJSON (an object or
 * its text, as `ST_AsGeoJSON` gives it) or WKT text (a literal's); no order, equal when their JSON is.
 */
const spatial = (family: GeoFamily): Domain => ({
  normalize: (v) => readGeo(v, family),
  compare: () => 0,
  equals: (a, b) => JSON.stringify(a) === JSON.stringify(b),
});
const GEOGRAPHY = spatial('geography');
const GEOMETRY = spatial('geometry');

const enumDomains = new WeakMap<EnumType, Domain>();

/** Enum values compare by their numeric value; rows may hold member names, `'A,B'` for flags, or numbers. */
function enumDomain(type: EnumType): Domain {
  let domain = enumDomains.get(type);
  if (domain === undefined) {
    const memberValue = (name: string): bigint | null => type.members.get(name.trim()) ?? (/^[-+]?\d+$/.test(name.trim()) ? BigInt(name.trim()) : null);
    domain = scalar((v) => {
      if (typeof v === 'number' || typeof v === 'bigint') return BigInt(v);
      const names = typeof v === 'string' ? v.split(',') : Array.isArray(v) ? (v as unknown[]).map(String) : null;
      if (names === null) return null;
      let value = 0n;
      for (const name of names) {
        const member = memberValue(name);
        if (member === null) return null;
        value |= member;
      }
      return value;
    });
    enumDomains.set(type, domain);
  }
  return domain;
}

/** The domain of values of `type`. */
export function domainOf(type: ExpressionType): Domain {
  switch (type.kind) {
    case 'enum':
      return enumDomain(type.type);
    case 'primitive':
      switch (type.name) {
        case 'Edm.Boolean':
          return BOOLEAN;
        case 'Edm.Byte':
        case 'Edm.SByte':
        case 'Edm.Int16':
        case 'Edm.Int32':
          return INTEGER;
        case 'Edm.Int64':
          return INT64;
        case 'Edm.Decimal':
          return DECIMAL;
        case 'Edm.Double':
        case 'Edm.Single':
          return DOUBLE;
        case 'Edm.String':
          return STRING;
        case 'Edm.Guid':
          return GUID;
        case 'Edm.Date':
          return DATE;
        case 'Edm.DateTimeOffset':
          return DATE_TIME_OFFSET;
        case 'Edm.TimeOfDay':
          return TIME_OF_DAY;
        case 'Edm.Duration':
          return DURATION;
        case 'Edm.Binary':
          return BINARY;
        case 'Edm.Untyped':
          return UNTYPED;
        default:
          return type.name.startsWith('Edm.Geography') ? GEOGRAPHY : type.name.startsWith('Edm.Geometry') ? GEOMETRY : OPAQUE;
      }
    default:
      return OPAQUE;
  }
}

export { toBigInt, toNumber };

/**
 * A value the reference evaluator computed for an expression of `type`, in the form rows store
 * values of that type (docs/memory.md): exact decimal text for a Decimal it computed exactly, ISO
 * 8601 text for instants, dates and durations; every other value as it is.
 */
export function storedForm(type: ExpressionType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object') {
    if ((value as { kind?: unknown }).kind === 'instant') return formatInstant(value as Instant);
    if ('coefficient' in value) return decimalToString(value as Decimal);
    return value;
  }
  if (type.kind === 'primitive') {
    if (typeof value === 'bigint' && type.name === 'Edm.Duration') return formatDuration(value);
    if (typeof value === 'number' && type.name === 'Edm.Date') return formatDate(value);
  }
  return value;
}
