/**
 * The canonical functions as the reference computes them (URL Conventions 5.1.1.5 to 5.1.1.11).
 * Strings are measured and indexed in Unicode code points; a `null` argument gives `null`.
 */
import { ODataError } from '../errors/odata-error.js';
import { derivesFrom, namesInstanceOf, type EnumType, type StructuredType } from '../model/model.js';
import { checkMatchesPattern } from '../semantic/pattern-subset.js';
import type { BoundCall } from '../semantic/bound-ast.js';
import { isRefusal, type FunctionTable } from '../semantic/function-table.js';
import type { CanonicalFunctionName } from '../syntax/ast.js';
import { INTEGER_RANGES, isIntegerType, isPrimitive, type ExpressionType } from '../semantic/types.js';
import { compareDecimal as compareDecimalValues, decimalToString, roundDecimal, toDecimal, type Decimal } from '../util/decimal.js';
import {
  civilFromDays,
  daysFromCivil,
  formatDate,
  formatTimeOfDay,
  instantFromPicos,
  parseDate,
  parseDuration,
  parseInstant,
  parseTimeOfDay,
  PICOS_PER_SECOND,
  type Instant,
} from '../util/temporal.js';
import { membersByValue } from '../passes/enums.js';
import type { Evaluator, Row, Scope } from './rows.js';
import { domainOf, toBigInt, toNumber } from './values.js';
import { geoDistance, geoFamilyOf, geoIntersects, geoLength, readGeo, type GeoFamily, type GeoJsonGeometry } from './geo.js';

/** Number of code points. */
function codePointLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) length++;
  }
  return length;
}

/** Code point index → UTF-16 index. */
function unitIndex(text: string, codePoints: number): number {
  let index = 0;
  for (let count = 0; count < codePoints && index < text.length; count++) {
    const c = text.charCodeAt(index);
    index += c >= 0xd800 && c <= 0xdbff && index + 1 < text.length ? 2 : 1;
  }
  return index;
}

/**
 * A `matchesPattern` pattern as a JavaScript `RegExp`, after the subset check that every backend
 * shares (src/semantic/pattern-subset.ts): the subset is what keeps a backtracking engine
 * (JavaScript's, and PCRE, ICU on the databases) bounded, so no other engine is needed here.
 */
function compilePattern(pattern: string): RegExp {
  const { js } = checkMatchesPattern(pattern);
  return new RegExp(js.source, js.flags);
}

function instantOf(value: unknown): Instant | undefined {
  return parseInstant(value);
}

/** Parts of a Date or DateTimeOffset value, in its own offset. */
function dateParts(value: unknown): { year: number; month: number; day: number } | undefined {
  const instant = instantOf(value);
  if (instant !== undefined) return instant;
  const days = parseDate(value);
  return days === undefined ? undefined : civilFromDays(days);
}

function timeParts(value: unknown): { hour: number; minute: number; second: number; fractionPicos: bigint } | undefined {
  const instant = instantOf(value);
  if (instant !== undefined) return instant;
  const picos = parseTimeOfDay(value);
  if (picos === undefined) return undefined;
  const seconds = Number(picos / PICOS_PER_SECOND);
  return { hour: Math.floor(seconds / 3600), minute: Math.floor((seconds % 3600) / 60), second: seconds % 60, fractionPicos: picos % PICOS_PER_SECOND };
}

const roundHalfAwayFromZero = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

function rounding(mode: 'round' | 'floor' | 'ceiling', resultType: ExpressionType): (value: unknown) => unknown {
  if (isPrimitive(resultType, 'Edm.Decimal')) {
    return (value) => {
      const decimal = typeof value === 'object' && value !== null && 'coefficient' in value ? (value as Decimal) : toDecimal(value);
      return decimal === undefined ? null : roundDecimal(decimal, mode);
    };
  }
  const round = mode === 'round' ? roundHalfAwayFromZero : mode === 'floor' ? Math.floor : Math.ceil;
  return (value) => {
    const n = toNumber(value);
    return n === null ? null : round(n);
  };
}

type Unary = (a: unknown) => unknown;
type Binary = (a: unknown, b: unknown) => unknown;

const str =
  (f: (s: string) => unknown): Unary =>
  (a) =>
    typeof a === 'string' ? f(a) : null;
const str2 =
  (f: (s: string, t: string) => unknown): Binary =>
  (a, b) =>
    typeof a === 'string' && typeof b === 'string' ? f(a, b) : null;

/** How the reference computes one canonical function: its evaluator over the compiled arguments. */
export type ReferenceFunction = (node: BoundCall, args: readonly Evaluator[]) => Evaluator;

/** A function of one argument, null for null. */
const unary =
  (f: Unary): ReferenceFunction =>
  (_, args) => {
    const [a] = args as [Evaluator];
    return (row, scope) => {
      const value = a(row, scope);
      return value === null || value === undefined ? null : f(value);
    };
  };

/** A function of two arguments, null when either is null (the second is not computed when the first is null). */
function binaryOf(args: readonly Evaluator[], f: Binary): Evaluator {
  const [a, b] = args as [Evaluator, Evaluator];
  return (row, scope) => {
    const x = a(row, scope);
    if (x === null || x === undefined) return null;
    const y = b(row, scope);
    return y === null || y === undefined ? null : f(x, y);
  };
}
const binary =
  (f: Binary): ReferenceFunction =>
  (_, args) =>
    binaryOf(args, f);

/** A value computed once per compiled query. */
const constant =
  (value: () => unknown): ReferenceFunction =>
  () => {
    const v = value();
    return () => v;
  };

const rounded: ReferenceFunction = (node, args) => unary(rounding(node.name as 'round', node.type))(node, args);

/** `substring(s, start[, length])` in code points. */
const substring: ReferenceFunction = (_, args) => {
  const [text, startArg, lengthArg] = args as [Evaluator, Evaluator, Evaluator | undefined];
  return (row: Row, scope: Scope) => {
    const s = text(row, scope);
    const start = toNumber(startArg(row, scope));
    const length = lengthArg === undefined ? undefined : toNumber(lengthArg(row, scope));
    if (typeof s !== 'string' || start === null || length === null) return null;
    // A computed negative length fails on this row: null (a negative literal is refused at bind time).
    if (length !== undefined && length < 0) return null;
    const total = codePointLength(s);
    // A negative start counts from the end (URL 5.1.1.5.7, "if supported").
    const from = start < 0 ? Math.max(0, total + start) : Math.min(start, total);
    const to = length === undefined ? total : Math.min(total, from + length);
    return s.slice(unitIndex(s, from), unitIndex(s, to));
  };
};

const matchesPattern: ReferenceFunction = (_, args) => {
  const cache = new Map<string, RegExp>();
  return binaryOf(
    args,
    str2((s, pattern) => {
      let regex = cache.get(pattern);
      if (regex === undefined) {
        regex = compilePattern(pattern);
        if (cache.size < 64) cache.set(pattern, regex);
      }
      return regex.test(s);
    }),
  );
};

/** `hassubset` and `hassubsequence`, with elements equal as the element type's values. */
const collectionTest: ReferenceFunction = (node, args) => {
  const element =
    node.args[0]?.type.kind === 'collection' ? node.args[0].type.element : node.args[1]?.type.kind === 'collection' ? node.args[1].type.element : undefined;
  const domain = element === undefined ? domainOf({ kind: 'null' }) : domainOf(element);
  const equal = (x: unknown, y: unknown): boolean => {
    const a = domain.normalize(x);
    const b = domain.normalize(y);
    return a === null || b === null ? a === b : domain.equals(a, b);
  };
  return binaryOf(args, (a, b) => {
    if (!Array.isArray(a) || !Array.isArray(b)) return null;
    if (node.name === 'hassubset') return b.every((y) => a.some((x) => equal(x, y)));
    let at = 0;
    for (const y of b) {
      while (at < a.length && !equal(a[at], y)) at++;
      if (at === a.length) return false;
      at++;
    }
    return true;
  });
};

/** The family of a geo call's arguments (the binder has them all of one family). */
function callFamily(node: BoundCall): GeoFamily {
  for (const arg of node.args) {
    const family = arg.type.kind === 'primitive' ? geoFamilyOf(arg.type.name) : undefined;
    if (family !== undefined) return family;
  }
  return 'geography';
}

/**
 * A geo function (src/reference/geo.ts) over its arguments read as spatial values (GeoJSON from a
 * row, WKT from a literal): null when an argument is null or not a spatial value.
 */
const geo =
  (f: (values: readonly GeoJsonGeometry[], family: GeoFamily) => unknown): ReferenceFunction =>
  (node, args) => {
    const family = callFamily(node);
    // A literal's text is parsed once, not per row: the last text read by each argument, and its value.
    const texts: unknown[] = args.map(() => undefined);
    const read: (GeoJsonGeometry | null)[] = args.map(() => null);
    return (row, scope) => {
      const values: GeoJsonGeometry[] = [];
      for (let i = 0; i < args.length; i++) {
        const raw = (args[i] as Evaluator)(row, scope);
        let value: GeoJsonGeometry | null;
        if (typeof raw === 'string' && raw === texts[i]) value = read[i] as GeoJsonGeometry | null;
        else {
          value = readGeo(raw, family);
          if (typeof raw === 'string') [texts[i], read[i]] = [raw, value];
        }
        if (value === null) return null;
        values.push(value);
      }
      return f(values, family);
    };
  };

/** Every canonical function as the reference computes it (exported for the test that it covers the registry). */
export const REFERENCE_FUNCTIONS: FunctionTable<ReferenceFunction> = {
  contains: binary(str2((s, t) => s.includes(t))),
  startswith: binary(str2((s, t) => s.startsWith(t))),
  endswith: binary(str2((s, t) => s.endsWith(t))),
  substringof: binary(str2((t, s) => s.includes(t))),
  length: unary(str(codePointLength)),
  indexof: binary(
    str2((s, t) => {
      const index = s.indexOf(t);
      return index < 0 ? -1 : codePointLength(s.slice(0, index));
    }),
  ),
  substring,
  tolower: unary(str((s) => s.toLowerCase())),
  toupper: unary(str((s) => s.toUpperCase())),
  trim: unary(str((s) => s.trim())),
  concat: binary(str2((s, t) => s + t)),
  matchesPattern,
  hassubset: collectionTest,
  hassubsequence: collectionTest,
  year: unary((v) => dateParts(v)?.year ?? null),
  month: unary((v) => dateParts(v)?.month ?? null),
  day: unary((v) => dateParts(v)?.day ?? null),
  hour: unary((v) => timeParts(v)?.hour ?? null),
  minute: unary((v) => timeParts(v)?.minute ?? null),
  second: unary((v) => timeParts(v)?.second ?? null),
  fractionalseconds: unary((v) => {
    const parts = timeParts(v);
    return parts === undefined ? null : { coefficient: parts.fractionPicos, scale: 12 };
  }),
  totalseconds: unary((v) => {
    const picos = parseDuration(v);
    return picos === undefined ? null : { coefficient: picos, scale: 12 };
  }),
  date: unary((v) => {
    const instant = instantOf(v);
    return instant === undefined ? null : formatDate(daysFromCivil(instant.year, instant.month, instant.day));
  }),
  time: unary((v) => {
    const instant = instantOf(v);
    return instant === undefined
      ? null
      : formatTimeOfDay(BigInt(instant.hour * 3600 + instant.minute * 60 + instant.second) * PICOS_PER_SECOND + instant.fractionPicos);
  }),
  totaloffsetminutes: unary((v) => instantOf(v)?.offsetMinutes ?? null),
  // One value per compiled query, so that every row sees the same "now".
  now: constant(() => instantFromPicos(BigInt(Date.now()) * 1_000_000_000n, 0)),
  mindatetime: constant(() => parseInstant('0001-01-01T00:00:00Z')),
  maxdatetime: constant(() => parseInstant('9999-12-31T23:59:59.999999999999Z')),
  round: rounded,
  floor: rounded,
  ceiling: rounded,
  cast: (node, args) => castFunction(node, args),
  isof: (node, args) => isofFunction(node, args),
  'geo.distance': geo(([a, b], family) => geoDistance(a!, b!, family)),
  'geo.intersects': geo(([point, polygon], family) => geoIntersects(point!, polygon!, family)),
  'geo.length': geo(([line], family) => geoLength(line!, family)),
};

/** Why the reference refuses a canonical function, or `undefined` where it computes it. */
export function referenceFunctionRefusal(name: CanonicalFunctionName): string | undefined {
  const entry = REFERENCE_FUNCTIONS[name];
  return isRefusal(entry) ? entry.refused : undefined;
}

/** Compiles a canonical function call over compiled arguments. */
export function callFunction(node: BoundCall, args: readonly Evaluator[]): Evaluator {
  const entry = REFERENCE_FUNCTIONS[node.name];
  if (isRefusal(entry))
    throw new ODataError({ code: 'unsupported_feature', reason: `The in-memory backend does not implement '${node.name}'`, appendLocation: false });
  return entry(node, args);
}

/**
 * Whether a structured value of static type `source` is an instance of `target` (URL 5.1.1.10):
 * always when `source` is `target` or derives from it; for a `target` derived from `source`, when
 * the value names it or a type derived from it as its type (`@odata.type`, as in a payload); never
 * for unrelated types.
 */
function instanceTest(source: ExpressionType | undefined, target: ExpressionType): ((value: unknown) => boolean) | undefined {
  if (target.kind !== 'entity' && target.kind !== 'complex') return undefined;
  if (source === undefined || (source.kind !== 'entity' && source.kind !== 'complex')) return () => false;
  if (derivesFrom(source.type, target.type)) return (value) => value !== null && value !== undefined;
  if (!derivesFrom(target.type, source.type)) return () => false;
  return derivedInstance(target.type);
}

/**
 * Whether a structured value is an instance of `type`, a type derived from its static type: the
 * value names `type` or a type derived from it as its own (`@odata.type`, as in a payload).
 */
export function derivedInstance(type: StructuredType): (value: unknown) => boolean {
  return (value) => {
    const declared = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['@odata.type'] : undefined;
    return typeof declared === 'string' && namesInstanceOf(declared, type);
  };
}

function castFunction(node: BoundCall, args: readonly Evaluator[]): Evaluator {
  const target = node.targetType;
  const [value] = args;
  if (value === undefined || target === undefined) return (row) => row;
  const instance = instanceTest(node.args[0]?.type, target);
  if (instance !== undefined) {
    // To a structured type: the value itself when it is an instance of it, else the cast fails (null).
    return (row, scope) => {
      const v = value(row, scope);
      return instance(v) ? v : null;
    };
  }
  const source = node.args[0]?.type;
  if (source !== undefined && (source.kind === 'entity' || source.kind === 'complex')) return () => null;
  if (target.kind === 'enum') {
    // URL 5.1.1.10.1 rule 10 (an integer by the members' values; a flag enum any value of its
    // underlying type), and a string holding an enumeration literal (member names or a number).
    const toEnum = enumFrom(target.type);
    return (row, scope) => {
      const v = value(row, scope);
      if (v === null || v === undefined) return null;
      if (source?.kind === 'enum') return source.type === target.type ? v : null;
      if (source !== undefined && isIntegerType(source)) {
        const n = toBigInt(v);
        return n === null ? null : toEnum(n);
      }
      if (source !== undefined && isPrimitive(source, 'Edm.String') && typeof v === 'string') {
        if (/^-?\d+$/.test(v.trim())) return toEnum(BigInt(v.trim()));
        const names = v.split(',').map((name) => name.trim());
        if (names.some((name) => !target.type.members.has(name)) || (!target.type.isFlags && names.length !== 1)) return null;
        return target.type.isFlags ? toEnum(names.reduce((bits, name) => bits | (target.type.members.get(name) as bigint), 0n)) : names[0];
      }
      return null;
    };
  }
  if (isPrimitive(target, 'Edm.String')) {
    return (row, scope) => {
      const v = value(row, scope);
      if (v === null || v === undefined) return null;
      if (typeof v === 'object' && 'coefficient' in v) return decimalToString(v as Decimal);
      // A Guid in its canonical form: lowercase hexadecimal digits (as OData.net writes it).
      if (source !== undefined && isPrimitive(source, 'Edm.Guid') && typeof v === 'string') return v.toLowerCase();
      return typeof v === 'object' ? JSON.stringify(v) : String(v);
    };
  }
  const range = target.kind === 'primitive' ? INTEGER_RANGES[target.name] : undefined;
  if (range !== undefined) {
    // To an integer type: the integer when the value is one in the type's range, else the cast fails (null).
    const int64 = isPrimitive(target, 'Edm.Int64');
    return (row, scope) => {
      const v = value(row, scope);
      if (v === null || v === undefined) return null;
      // An enumeration value as its members' numeric value (URL 5.1.1.10.1 rule 9).
      const number = source?.kind === 'enum' ? enumValueOf(v, source.type) : v;
      if (number === null) return null;
      const decimal =
        typeof number === 'object' && 'coefficient' in number
          ? (number as Decimal)
          : toDecimal(typeof number === 'number' && Number.isInteger(number) ? BigInt(number) : number);
      if (decimal === undefined) return null;
      const integral = roundDecimal(decimal, 'floor');
      if (compareDecimalValues(integral, decimal) !== 0) return null;
      const n = integral.coefficient * 10n ** BigInt(Math.max(0, -integral.scale));
      if (n < range[0] || n > range[1]) return null;
      return int64 ? n : Number(n);
    };
  }
  const domain = domainOf(target);
  // To Edm.Double: the double nearest the value (an Int64 or a Decimal beyond 2^53 rounds, as every engine's cast does).
  const toDouble = isPrimitive(target, 'Edm.Double');
  return (row, scope) => {
    const v = value(row, scope);
    if (v === null || v === undefined) return null;
    const normalized = domain.normalize(v);
    return normalized === null ? null : toDouble ? normalized : v;
  };
}

/** The numeric value of an enumeration value (member names, or a number as text), or null. */
function enumValueOf(value: unknown, type: EnumType): bigint | null {
  const text = String(value).trim();
  if (/^-?\d+$/.test(text)) return BigInt(text);
  let bits = 0n;
  for (const name of text.split(',').map((part) => part.trim())) {
    const member = type.members.get(name);
    if (member === undefined) return null;
    bits |= member;
  }
  return bits;
}

/**
 * The enumeration value of an integer (URL 5.1.1.10.1 rule 10): the member with that value; for a
 * flag enum any value of the underlying type, as the names of the single-bit members that make it
 * up, or as the number where they do not. Null where the cast fails.
 */
function enumFrom(type: EnumType): (n: bigint) => string | null {
  const byValue = new Map(membersByValue(type));
  const range = INTEGER_RANGES[type.underlyingType] as readonly [bigint, bigint];
  const bits = [...type.members].filter(([, value]) => value > 0n && (value & (value - 1n)) === 0n);
  return (n) => {
    const named = byValue.get(n);
    if (named !== undefined) return named;
    if (!type.isFlags || n < range[0] || n > range[1]) return null;
    const parts = bits.filter(([, value]) => (n & value) === value);
    return parts.reduce((all, [, value]) => all | value, 0n) === n && parts.length > 0 ? parts.map(([name]) => name).join(',') : String(n);
  };
}

function isofFunction(node: BoundCall, args: readonly Evaluator[]): Evaluator {
  const target = node.targetType;
  const [value] = args;
  if (value === undefined || target === undefined) return () => true;
  const instance = instanceTest(node.args[0]?.type, target);
  if (instance !== undefined) return (row, scope) => instance(value(row, scope));
  const source = node.args[0]?.type;
  // A structured value is never of a primitive or enum type.
  if (source !== undefined && (source.kind === 'entity' || source.kind === 'complex')) return () => false;
  // Of an integer type: exactly when the cast to it succeeds (an integral value in its range), so
  // that isof(n32,Edm.Int16) is false for 2147483647, whose cast is null.
  if ((target.kind === 'primitive' && INTEGER_RANGES[target.name] !== undefined) || target.kind === 'enum') {
    const cast = castFunction(node, args);
    return (row, scope) => cast(row, scope) !== null;
  }
  // A stream has no literal form: only a stream is one. Text is binary only when it is base64url (rule 3).
  if (isPrimitive(target, 'Edm.Stream') && !(source !== undefined && isPrimitive(source, 'Edm.Stream'))) return () => false;
  const base64url = source !== undefined && isPrimitive(source, 'Edm.String') && isPrimitive(target, 'Edm.Binary');
  const domain = domainOf(target);
  return (row, scope) => {
    const v = value(row, scope);
    if (v === null || v === undefined) return false;
    if (base64url) return typeof v === 'string' && /^[A-Za-z0-9_-]*={0,2}$/.test(v) && v.replace(/=+$/, '').length % 4 !== 1;
    return domain.normalize(v) !== null;
  };
}
