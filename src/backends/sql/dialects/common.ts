/**
 * What several dialects share: JSON objects of expanded rows, derived tables for values computed
 * once, Int64 guards, ISO 8601 durations as text, list parameters as JSON, exact parameter text.
 */
import { ODataError } from '../../../errors/odata-error.js';
import { toBigInt } from '../../../reference/values.js';
import { instantFromPicos, parseDuration, parseInstant } from '../../../util/temporal.js';
import type { Dialect, ExpandRows, JsonEntry, ParameterKind } from '../dialect.js';
import type { ExpressionType } from '../../../semantic/types.js';

/**
 * A JSON object of `entries` through an object builder (`json_build_object` and its kin): the
 * leaves of a complex value nest under its name, in the order of the select; keys are parameters.
 */
export function jsonObjectOf(
  entries: readonly JsonEntry[],
  build: (pairs: readonly string[]) => string,
  collection: (column: string) => string,
  key: (name: string) => string,
  depth = 0,
): string {
  const groups = new Map<string, JsonEntry[]>();
  for (const entry of entries) {
    const name = entry.path[depth] as string;
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [entry]);
    else group.push(entry);
  }
  const pairs = [...groups].map(([name, members]) => {
    const first = members[0] as JsonEntry;
    const value =
      first.path.length === depth + 1
        ? first.kind === 'collection'
          ? collection(first.value)
          : first.value
        : jsonObjectOf(members, build, collection, key, depth + 1);
    return `${key(name)}, ${value}`;
  });
  return build(pairs);
}

/**
 * The related rows numbered in their order and paged (`sub.o` the object, `sub.n` the position),
 * for the dialects that aggregate a derived table (PostgreSQL, SQLite).
 */
export function numberedRows(rows: ExpandRows & { readonly order: () => string; readonly paging: string }, object: string): string {
  return `SELECT ${object} AS o, ROW_NUMBER() OVER (ORDER BY ${rows.order()}) AS n FROM ${rows.from} WHERE ${rows.where} ORDER BY ${rows.order()}${rows.paging === '' ? '' : ` ${rows.paging}`}`;
}

/** Part names as written in SQL's `EXTRACT`, `DATEPART` and MySQL's functions. */
export const upper = (name: string): string => name.toUpperCase();

/**
 * SQLite stores a DateTimeOffset as fixed-width UTC text (`2024-01-01T00:30:00.000000000000Z`),
 * so that text order is time order.
 */
export function utcText(value: unknown): unknown {
  const instant = parseInstant(value);
  if (instant === undefined) return value;
  const utc = instantFromPicos(instant.picos, 0);
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${pad(utc.year, 4)}-${pad(utc.month)}-${pad(utc.day)}T${pad(utc.hour)}:${pad(utc.minute)}:${pad(utc.second)}.${utc.fractionPicos.toString().padStart(12, '0')}Z`;
}

/**
 * A DateTimeOffset as a UTC date and time to the microsecond, space-separated
 * (`2024-01-01 00:30:00.000000`): MySQL/MariaDB's DATETIME(6) and DuckDB's TIMESTAMP.
 */
export function utcDateTime(value: unknown): unknown {
  const text = utcText(value);
  return typeof text === 'string' ? `${text.slice(0, 10)} ${text.slice(11, 26)}` : text;
}

export function rejectNul(value: unknown, engine: string): void {
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw new ODataError({ code: 'invalid_literal', reason: `${engine} strings cannot contain the NUL character`, appendLocation: false });
  }
}

/** Each value computed once in a correlated derived table (PostgreSQL, SQLite). */
export function derivedValues(expressions: readonly string[], body: (values: readonly string[]) => string, fence = ' OFFSET 0'): string {
  const names = expressions.map((_, i) => `"_v${i}"`);
  // `OFFSET 0` (SQLite: `LIMIT -1 OFFSET 0`, its only form of it) keeps the planner from
  // pulling the derived table up into its reader, which would put each expression back in every
  // place that reads it: nested, that planned in exponential memory (PGlite ran out of memory on
  // 11 nested Double cases whose statement was 7 KB).
  return `(SELECT ${body(names.map((name) => `"_w".${name}`))} FROM (SELECT ${expressions.map((e, i) => `${e} AS ${names[i]}`).join(', ')}${fence}) AS "_w")`;
}

/** The expressions repeated in the body (MySQL/MariaDB cannot reference outer columns in a derived table). */
export const inlineValues = (expressions: readonly string[], body: (values: readonly string[]) => string): string => body(expressions);

/** Clamped just outside Int64 with GREATEST/LEAST, and the two clamp values made null. */
export const clampInt64 = (sql: string, below: string, above: string): string =>
  `NULLIF(NULLIF(LEAST(GREATEST(${sql}, ${below}), ${above}), ${below}), ${above})`;

/**
 * Seconds of an ISO 8601 duration stored as text (`-P1DT2H3M4.5S`, days and time parts only, as
 * Edm.Duration has): the numbers between the designators, with the sign.
 */
export function isoDurationSeconds(
  x: string,
  dialect: { greatest(l: string, r: string): string; double(e: string): string; withValues: Dialect['withValues'] },
  find: (text: string, c: string) => string,
  cut: (text: string, from: string, length: string) => string,
): string {
  return dialect.withValues([x], ([v]) => {
    const t = v as string;
    const at = (c: string): string => find(t, `'${c}'`);
    const part = (end: string, from: string): string =>
      `(CASE WHEN ${at(end)} > 0 THEN ${dialect.double(cut(t, `${from} + 1`, `${at(end)} - ${from} - 1`))} ELSE 0 END)`;
    const afterT = at('T');
    const afterH = dialect.greatest(afterT, at('H'));
    const afterM = dialect.greatest(afterH, at('M'));
    const seconds = `(${part('D', at('P'))} * 86400 + ${part('H', afterT)} * 3600 + ${part('M', afterH)} * 60 + ${part('S', afterM)})`;
    return `(CASE WHEN ${t} IS NULL THEN NULL WHEN ${cut(t, '1', '1')} = '-' THEN -${seconds} ELSE ${seconds} END)`;
  });
}

/** The negation of a Duration stored as ISO 8601 text. */
export const negateIsoText = (x: string, concat: (l: string, r: string) => string, cut: (text: string, from: string) => string): string =>
  `(CASE WHEN ${x} LIKE '-%' THEN ${cut(x, '2')} WHEN ${x} IN ('PT0S', 'P0D') THEN ${x} ELSE ${concat(`'-'`, x)} END)`;

const NUMERIC_KINDS: ReadonlySet<ParameterKind> = new Set(['integer', 'bigint', 'decimal', 'double', 'rowCount']);

/** A JSON array of list items: numbers as JSON numbers (exact digits), the rest as strings. */
export function jsonList(values: readonly unknown[], kind: ParameterKind, infinity: string): string {
  const item = (v: unknown): string => {
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (NUMERIC_KINDS.has(kind)) {
      const text = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : v > 0 ? infinity : `-${infinity}`) : String(v);
      if (text === 'INF') return infinity;
      if (text === '-INF') return `-${infinity}`;
      return /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text) || text.includes(infinity) ? text : JSON.stringify(text);
    }
    return JSON.stringify(typeof v === 'number' || typeof v === 'bigint' ? String(v) : v);
  };
  return `[${values.map(item).join(',')}]`;
}

/**
 * Rounding of a Double in double: floor and ceiling are exact there (a decimal cast would lose
 * tiny values and overflow on the largest ones); round is half away from zero (the databases round
 * doubles half to even), from the exact fractional part x - trunc(x).
 */
export function doubleRounding(dialect: Pick<Dialect, 'withValues' | 'double' | 'truncate'>, name: 'round' | 'floor' | 'ceiling', x: string): string {
  if (name !== 'round') return `${name === 'floor' ? 'FLOOR' : 'CEILING'}(${x})`;
  return dialect.withValues([dialect.double(x)], ([v]) => {
    const t = dialect.truncate(v as string);
    return `(${t} + (CASE WHEN ABS(${v} - ${t}) >= 0.5 THEN (CASE WHEN ${v} > 0 THEN 1 ELSE -1 END) ELSE 0 END))`;
  });
}

export const ROUNDING = { round: 'ROUND', floor: 'FLOOR', ceiling: 'CEILING' } as const;

export const doubleQuote = (name: string): string => (name.includes('"') ? `"${name.replaceAll('"', '""')}"` : `"${name}"`);

const encoder = new TextEncoder();

/**
 * `name`, or, when it is longer than an engine's identifiers may be (`max` UTF-8 bytes), its
 * start and a hash of the whole name: flattened complex values of published models make column
 * names such as `mailboxSettings_automaticRepliesSetting_scheduledStartDateTime_dateTime`, which
 * PostgreSQL would cut at 63 bytes (two of them then collide). Deterministic, so the schema and
 * every statement name the same column.
 */
export function fitIdentifier(name: string, max: number): string {
  if (name.length * 3 <= max || encoder.encode(name).length <= max) return name;
  // FNV-1a, 32 bits, as 8 hex digits.
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193) >>> 0;
  const suffix = `~${hash.toString(16).padStart(8, '0')}`;
  let start = '';
  for (const character of name) {
    if (encoder.encode(start + character).length > max - suffix.length) break;
    start += character;
  }
  return start + suffix;
}

/** Converts a parameter to text for exact numeric kinds (the drivers then parse it exactly). */
export function exactText(value: unknown, kind: ParameterKind): unknown {
  if (kind === 'bigint' && value !== null) return String(toBigInt(value) ?? value);
  if (kind === 'decimal' && value !== null)
    return typeof value === 'object' && value !== null && 'coefficient' in value ? decimalText(value as { coefficient: bigint; scale: number }) : String(value);
  return value;
}

function decimalText({ coefficient, scale }: { coefficient: bigint; scale: number }): string {
  const negative = coefficient < 0n;
  const digits = (negative ? -coefficient : coefficient).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`}`;
}

/**
 * A Duration parameter for an INTERVAL (PostgreSQL, DuckDB), which cannot read negative ISO 8601
 * durations ('-P1DT2H') and whose microseconds stop at 2^63 (about 292 000 years): days and the
 * microseconds of the rest, each with the sign.
 */
export function intervalText(value: unknown): unknown {
  const picos = typeof value === 'string' ? parseDuration(value) : undefined;
  if (picos === undefined) return value;
  const micros = picos / 1_000_000n;
  const days = micros / 86_400_000_000n;
  return `${days} days ${micros - days * 86_400_000_000n} microseconds`;
}

/**
 * Property names of a path into a JSON element, checked to be safe inside an SQL string literal
 * and a JSON path (names come from the model; an OData identifier has none of `'`, `"`, `\`).
 */
export function jsonPathNames(path: readonly string[]): readonly string[] {
  for (const name of path) {
    // eslint-disable-next-line no-control-regex
    if (/['"\\\u0000-\u001f]/.test(name))
      throw new ODataError({ code: 'unsupported_feature', reason: `the property name '${name}' in a JSON path`, appendLocation: false });
  }
  return path;
}

/** A JSON path (`'$."City"."Name"'`) as an SQL string literal. */
export const jsonPathLiteral = (path: readonly string[]): string =>
  `'$${jsonPathNames(path)
    .map((name) => `."${name}"`)
    .join('')}'`;

/** The primitive types a member of a JSON element may have: `Edm.*` by name, `enum`; the rest refused. */
const JSON_MEMBER_TYPES = new Set([
  'Edm.String',
  'Edm.Boolean',
  'Edm.Byte',
  'Edm.SByte',
  'Edm.Int16',
  'Edm.Int32',
  'Edm.Int64',
  'Edm.Decimal',
  'Edm.Double',
  'Edm.Single',
  'Edm.Guid',
  'Edm.Date',
  'Edm.DateTimeOffset',
  'Edm.TimeOfDay',
  'Edm.Duration',
  'enum',
]);

/**
 * The name of a member's type (`Edm.Int32`, `enum`) when collections of complex values can hold
 * it, else the reason it is refused (binary, stream, spatial and untyped values).
 */
export function jsonMemberType(type: ExpressionType): { readonly name: string } | { readonly refused: string } {
  const name = type.kind === 'enum' ? 'enum' : type.kind === 'primitive' ? type.name : undefined;
  if (name !== undefined && JSON_MEMBER_TYPES.has(name)) return { name };
  const shown = type.kind === 'primitive' ? type.name : type.kind;
  return { refused: `${shown} values inside collections of complex values` };
}

/**
 * The JSON path `$."name"` of one member, with `"` and `\` escaped: a parameter value (never SQL
 * text) for the dynamic property hooks of MySQL/MariaDB, SQLite and DuckDB, whose path syntax
 * reads these escapes, so that any name (a dot, `$`, brackets, quotes) is one member's.
 */
export const jsonMemberPath = (name: string): string => `$."${name.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** `GROUP BY GROUPING SETS ((…), (…))` and `GROUPING(…)`, as PostgreSQL and DuckDB write them (see `Dialect.groupingSets`). */
export const GROUPING_SETS: NonNullable<Dialect['groupingSets']> = {
  by: (sets) => `GROUPING SETS (${sets.map((set) => `(${set.join(', ')})`).join(', ')})`,
  grouping: (expressions) => `GROUPING(${expressions.join(', ')})`,
};
