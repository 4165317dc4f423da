/**
 * The four dialects: small overrides of standard SQL (Kysely-style). Identifiers are quoted with
 * their quote character doubled; values are always parameters.
 */
import { ODataError } from '../../errors/odata-error.js';
import { toBigInt } from '../../reference/values.js';
import { instantFromPicos, parseDuration, parseInstant } from '../../util/temporal.js';
import type { ExpressionType } from '../../semantic/types.js';
import type { Dialect, DialectName, ExpandRows, JsonEntry, ParameterKind } from './dialect.js';

/** The column type of a JSON_TABLE column for collection elements of `type`. */
function jsonTableType(type: ExpressionType): string {
  if (type.kind !== 'primitive') return 'LONGTEXT';
  switch (type.name) {
    case 'Edm.Int16':
    case 'Edm.Int32':
    case 'Edm.Int64':
    case 'Edm.Byte':
    case 'Edm.SByte':
      return 'BIGINT';
    case 'Edm.Double':
    case 'Edm.Single':
      return 'DOUBLE';
    case 'Edm.Decimal':
      return 'DECIMAL(38, 18)';
    case 'Edm.Boolean':
      return 'BOOLEAN';
    default:
      return 'LONGTEXT';
  }
}

/**
 * A JSON object of `entries` through an object builder (`json_build_object` and its kin): the
 * leaves of a complex value nest under its name, in the order of the select; keys are parameters.
 */
function jsonObjectOf(entries: readonly JsonEntry[], build: (pairs: readonly string[]) => string, collection: (column: string) => string, key: (name: string) => string, depth = 0): string {
  const groups = new Map<string, JsonEntry[]>();
  for (const entry of entries) {
    const name = entry.path[depth] as string;
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [entry]);
    else group.push(entry);
  }
  const pairs = [...groups].map(([name, members]) => {
    const first = members[0] as JsonEntry;
    const value = first.path.length === depth + 1 ? (first.kind === 'collection' ? collection(first.value) : first.value) : jsonObjectOf(members, build, collection, key, depth + 1);
    return `${key(name)}, ${value}`;
  });
  return build(pairs);
}

/**
 * The related rows numbered in their order and paged (`sub.o` the object, `sub.n` the position),
 * for the dialects that aggregate a derived table (PostgreSQL, SQLite).
 */
function numberedRows(rows: ExpandRows & { readonly order: () => string; readonly paging: string }, object: string): string {
  return `SELECT ${object} AS o, ROW_NUMBER() OVER (ORDER BY ${rows.order()}) AS n FROM ${rows.from} WHERE ${rows.where} ORDER BY ${rows.order()}${rows.paging === '' ? '' : ` ${rows.paging}`}`;
}

/** Part names as written in SQL's `EXTRACT`, `DATEPART` and MySQL's functions. */
const upper = (name: string): string => name.toUpperCase();

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

function rejectNul(value: unknown, engine: string): void {
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw new ODataError({ code: 'invalid_literal', reason: `${engine} strings cannot contain the NUL character`, appendLocation: false });
  }
}

/** MySQL and MariaDB store a DateTimeOffset in a DATETIME(6) column, in UTC (microseconds). */
export function mysqlDateTime(value: unknown): unknown {
  const text = utcText(value);
  return typeof text === 'string' ? `${text.slice(0, 10)} ${text.slice(11, 26)}` : text;
}

/** The fraction digits of a decimal number's text (`1.50` → 2, `1.5e-3` → 4), 0 to 30 (MySQL's limit). */
function decimalScale(value: unknown): number {
  const match = /^[-+]?\d*(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(String(value));
  if (match === null) return 30;
  return Math.min(30, Math.max(0, (match[1]?.length ?? 0) - Number(match[2] ?? 0)));
}

/** Each value computed once in a correlated derived table (PostgreSQL, SQLite). */
function derivedValues(expressions: readonly string[], body: (values: readonly string[]) => string): string {
  const names = expressions.map((_, i) => `"_v${i}"`);
  return `(SELECT ${body(names.map((name) => `"_w".${name}`))} FROM (SELECT ${expressions.map((e, i) => `${e} AS ${names[i]}`).join(', ')}) AS "_w")`;
}

/** The expressions repeated in the body (MySQL/MariaDB cannot reference outer columns in a derived table). */
const inlineValues = (expressions: readonly string[], body: (values: readonly string[]) => string): string => body(expressions);

/** Clamped just outside Int64 with GREATEST/LEAST, and the two clamp values made null. */
const clampInt64 = (sql: string, below: string, above: string): string => `NULLIF(NULLIF(LEAST(GREATEST(${sql}, ${below}), ${above}), ${below}), ${above})`;

/**
 * Seconds of an ISO 8601 duration stored as text (`-P1DT2H3M4.5S`, days and time parts only, as
 * Edm.Duration has): the numbers between the designators, with the sign.
 */
function isoDurationSeconds(x: string, dialect: { greatest(l: string, r: string): string; double(e: string): string; withValues: Dialect['withValues'] }, find: (text: string, c: string) => string, cut: (text: string, from: string, length: string) => string): string {
  return dialect.withValues([x], ([v]) => {
    const t = v as string;
    const at = (c: string): string => find(t, `'${c}'`);
    const part = (end: string, from: string): string => `(CASE WHEN ${at(end)} > 0 THEN ${dialect.double(cut(t, `${from} + 1`, `${at(end)} - ${from} - 1`))} ELSE 0 END)`;
    const afterT = at('T');
    const afterH = dialect.greatest(afterT, at('H'));
    const afterM = dialect.greatest(afterH, at('M'));
    const seconds = `(${part('D', at('P'))} * 86400 + ${part('H', afterT)} * 3600 + ${part('M', afterH)} * 60 + ${part('S', afterM)})`;
    return `(CASE WHEN ${t} IS NULL THEN NULL WHEN ${cut(t, '1', '1')} = '-' THEN -${seconds} ELSE ${seconds} END)`;
  });
}

/** The negation of a Duration stored as ISO 8601 text. */
const negateIsoText = (x: string, concat: (l: string, r: string) => string, cut: (text: string, from: string) => string): string =>
  `(CASE WHEN ${x} LIKE '-%' THEN ${cut(x, '2')} WHEN ${x} IN ('PT0S', 'P0D') THEN ${x} ELSE ${concat(`'-'`, x)} END)`;

const NUMERIC_KINDS: ReadonlySet<ParameterKind> = new Set(['integer', 'bigint', 'decimal', 'double', 'rowCount']);

/** A JSON array of list items: numbers as JSON numbers (exact digits), the rest as strings. */
function jsonList(values: readonly unknown[], kind: ParameterKind, infinity: string): string {
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

const PG_ARRAY_TYPES: Partial<Record<ParameterKind, string>> = {
  integer: 'integer',
  bigint: 'bigint',
  decimal: 'numeric',
  double: 'double precision',
  boolean: 'boolean',
  guid: 'uuid',
  date: 'date',
  timestamp: 'timestamptz',
  time: 'time',
  interval: 'interval',
};

/**
 * Rounding of a Double in double: floor and ceiling are exact there (a decimal cast would lose
 * tiny values and overflow on the largest ones); round is half away from zero (the databases round
 * doubles half to even), from the exact fractional part x - trunc(x).
 */
function doubleRounding(dialect: Pick<Dialect, 'withValues' | 'double' | 'truncate'>, name: 'round' | 'floor' | 'ceiling', x: string): string {
  if (name !== 'round') return `${name === 'floor' ? 'FLOOR' : 'CEILING'}(${x})`;
  return dialect.withValues([dialect.double(x)], ([v]) => {
    const t = dialect.truncate(v as string);
    return `(${t} + (CASE WHEN ABS(${v} - ${t}) >= 0.5 THEN (CASE WHEN ${v} > 0 THEN 1 ELSE -1 END) ELSE 0 END))`;
  });
}

const ROUNDING = { round: 'ROUND', floor: 'FLOOR', ceiling: 'CEILING' } as const;

const doubleQuote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** Converts a parameter to text for exact numeric kinds (the drivers then parse it exactly). */
function exactText(value: unknown, kind: ParameterKind): unknown {
  if (kind === 'bigint' && value !== null) return String(toBigInt(value) ?? value);
  if (kind === 'decimal' && value !== null) return typeof value === 'object' && value !== null && 'coefficient' in value ? decimalText(value as { coefficient: bigint; scale: number }) : String(value);
  return value;
}

function decimalText({ coefficient, scale }: { coefficient: bigint; scale: number }): string {
  const negative = coefficient < 0n;
  const digits = (negative ? -coefficient : coefficient).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`}`;
}

const postgresObject = (pairs: readonly string[]): string => `json_build_object(${pairs.join(', ')})`;
const sqliteObject = (pairs: readonly string[]): string => `json_object(${pairs.join(', ')})`;
const mysqlObject = (pairs: readonly string[]): string => `JSON_OBJECT(${pairs.join(', ')})`;
/** SQL Server's `FOR JSON PATH` select list: each entry under its dotted path, nested JSON through `JSON_QUERY`. */
const forJsonList = (entries: readonly JsonEntry[]): string =>
  entries.map((entry) => `${entry.kind === 'json' ? `JSON_QUERY(${entry.value})` : entry.value} AS [${entry.path.join('.').replaceAll(']', ']]')}]`).join(', ');

export const postgres: Dialect = {
  name: 'postgres',
  fractionalSecondDigits: 6,
  // Arrays are JSON arrays in json_build_object already.
  jsonCollection: (column) => column,
  placeholder: (index) => `$${index}`,
  quote: doubleQuote,
  paging: (top, skip) => [top === undefined ? '' : `LIMIT ${top}`, skip === undefined ? '' : `OFFSET ${skip}`].filter(Boolean).join(' '),
  nullsFirstByDefault: false,
  displayName: 'PostgreSQL',
  notDistinct: (l, r) => `${l()} IS NOT DISTINCT FROM ${r()}`,
  booleanCondition: (value) => value,
  matchesPattern: (text, pattern, value) => `${text} ~ ${value(pattern.postgres)}`,
  trim: (e) => `btrim(${e})`,
  datePart: (name, x, isDate) => `CAST(FLOOR(EXTRACT(${upper(name)} FROM ${isDate ? x : `(${x} AT TIME ZONE 'UTC')`})) AS integer)`,
  dateOf: (x) => `CAST((${x} AT TIME ZONE 'UTC') AS date)`,
  timeOf: (x) => `CAST((${x} AT TIME ZONE 'UTC') AS time)`,
  // EXTRACT gives numeric (exact): the microseconds of the minute, without the whole seconds.
  fractionalSeconds: (x, isTime) => `(mod(EXTRACT(MICROSECONDS FROM ${isTime ? x : `(${x} AT TIME ZONE 'UTC')`}), 1000000) / 1000000.0)`,
  totalSeconds: (x) => `EXTRACT(EPOCH FROM ${x})`,
  instantDifference: (later, earlier) => `(${later} - ${earlier})`,
  durationSum: (l, r, operator) => `(${l} ${operator} ${r})`,
  // to_char, not a cast: a cast's text follows the session's DateStyle.
  toText: (x, kind) => (kind === 'date' ? `to_char(${x}, 'YYYY-MM-DD')` : `CAST(${x} AS text)`),
  integerAsDecimal: (x) => `CAST(${x} AS numeric)`,
  shiftInstant: (column, micros, value) => `(${column} + ${value(`${micros} microseconds`, 'interval')})`,
  widerIntegers: { int32: 'bigint', int64: 'numeric' },
  collectionElements: (column, alias) => ({ source: `unnest(${column}) AS ${alias}(v)`, value: `${alias}.v` }),
  expandOne: (rows, key) => `(SELECT ${jsonObjectOf(rows.entries, postgresObject, postgres.jsonCollection, key)} FROM ${rows.from} WHERE ${rows.where})`,
  expandMany: (rows, key) => `(SELECT COALESCE(json_agg(sub.o ORDER BY sub.n), '[]'::json) FROM (${numberedRows(rows, jsonObjectOf(rows.entries, postgresObject, postgres.jsonCollection, key))}) sub)`,
  // Deterministic collations (every built-in one) compare equal only on equal bytes.
  binaryEquality: true,
  binary: (e) => `${e} COLLATE "C"`,
  like: (e, p) => `${e} LIKE ${p} ESCAPE '\\'`,
  escapeChar: '\\',
  length: (e) => `char_length(${e})`,
  indexOf: (t, s) => `(strpos(${t}, ${s}) - 1)`,
  // substr takes integer positions: the compiler has clamped them to 32 bits.
  substring: (t, from, length) => (length === undefined ? `substr(${t}, CAST(${from} AS integer))` : `substr(${t}, CAST(${from} AS integer), CAST(${length} AS integer))`),
  // GREATEST/LEAST ignore nulls here: null when one is null.
  greatest: (l, r) => `(CASE WHEN ${l} IS NULL OR ${r} IS NULL THEN NULL ELSE GREATEST(${l}, ${r}) END)`,
  least: (l, r) => `(CASE WHEN ${l} IS NULL OR ${r} IS NULL THEN NULL ELSE LEAST(${l}, ${r}) END)`,
  withValues: derivedValues,
  int64Guard: clampInt64,
  modulo: (l, r) => `mod(${l}, ${r})`,
  listParameter: (values) => `{${values.map((v) => `"${String(v === 'INF' ? 'Infinity' : v === '-INF' ? '-Infinity' : v).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`,
  inList: (column, p, kind) => `${column} = ANY(CAST(${p} AS ${PG_ARRAY_TYPES[kind] ?? 'text'}[]))`,
  durationKey: (e) => e,
  orderedDouble: (e) => `NULLIF(${e}, CAST('NaN' AS double precision))`,
  rounding: (name, x, double) => (double ? doubleRounding(postgres, name, x) : `${ROUNDING[name]}(CAST(${x} AS numeric))`),
  nanOrderKey: (e) => `(CASE WHEN ${e} IS NULL THEN 0 WHEN ${e} = CAST('NaN' AS double precision) THEN 1 ELSE 2 END)`,
  notNaN: (e) => `(${e} IS NULL OR ${e} <> CAST('NaN' AS double precision))`,
  dateAsInstant: (e) => e,
  negateDuration: (e) => `(-${e})`,
  // The reference's quotient: 28 digits after the point, rounded half away from zero. A dividend
  // with 28 digits after the point makes PostgreSQL divide to at least 28 (it chooses fewer for 2/3).
  decimalDivide: (l, r) => `ROUND((CAST(${l} AS numeric) + 0.0000000000000000000000000000) / ${r}, 28)`,
  double: (e) => `CAST(${e} AS double precision)`,
  truncate: (e) => `trunc(${e})`,
  concat: (l, r) => `(${l} || ${r})`,
  // div() truncates also when an operand is numeric (widened Int64 arithmetic).
  integerDivide: (l, r) => `div(${l}, ${r})`,
  booleanLiteral: (v) => (v ? 'TRUE' : 'FALSE'),
  booleanValue: (c) => `(${c})`,
  parameter: (value, kind) => {
    // PostgreSQL text cannot hold NUL: refuse the value as bad input rather than fail in the database.
    rejectNul(value, 'PostgreSQL');
    // An interval cannot read negative ISO 8601 durations ('-P1DT2H'), and its microseconds stop at
    // 2^63 (about 292 000 years): days and the microseconds of the rest, each with the sign.
    if (kind === 'interval' && typeof value === 'string') {
      const picos = parseDuration(value);
      if (picos !== undefined) {
        const micros = picos / 1_000_000n;
        const days = micros / 86_400_000_000n;
        return `${days} days ${micros - days * 86_400_000_000n} microseconds`;
      }
    }
    return exactText(value, kind);
  },
  typedPlaceholder: (p, kind) => {
    const types: Partial<Record<ParameterKind, string>> = {
      rowCount: 'bigint',
      string: 'text',
      integer: 'integer',
      bigint: 'bigint',
      decimal: 'numeric',
      double: 'double precision',
      boolean: 'boolean',
      guid: 'uuid',
      date: 'date',
      timestamp: 'timestamptz',
      time: 'time',
      interval: 'interval',
      enum: 'text',
    };
    return `${p}::${types[kind] ?? 'text'}`;
  },
};

export const sqlite: Dialect = {
  name: 'sqlite',
  fractionalSecondDigits: 12,
  jsonCollection: (column) => `json(${column})`,
  placeholder: () => '?',
  quote: doubleQuote,
  paging: (top, skip) => (top === undefined && skip === undefined ? '' : `LIMIT ${top ?? '-1'}${skip === undefined ? '' : ` OFFSET ${skip}`}`),
  nullsFirstByDefault: true,
  displayName: 'SQLite',
  notDistinct: (l, r) => `${l()} IS ${r()}`,
  booleanCondition: (value) => `(${value} <> 0)`,
  // SQLite's LIKE ignores ASCII case: compare exactly instead.
  stringMatch: (name, text, needle) => {
    if (name === 'contains') return `instr(${text()}, ${needle()}) > 0`;
    if (name === 'startswith') return `substr(${text()}, 1, length(${needle()})) = ${needle()}`;
    // endswith(null, '') is null, not true: the empty needle's shortcut needs a text.
    return `(CASE WHEN ${text()} IS NULL THEN NULL WHEN length(${needle()}) = 0 THEN 1 ELSE substr(${text()}, -length(${needle()})) = ${needle()} END)`;
  },
  containsIgnoringCase: (text, needle) => `instr(lower(${text}), lower(${needle})) > 0`,
  trim: (e) => `TRIM(${e})`,
  datePart: (name, x) => `CAST(strftime('${{ year: '%Y', month: '%m', day: '%d', hour: '%H', minute: '%M', second: '%S' }[name]}', ${x}) AS INTEGER)`,
  // Instants are fixed-width UTC text (2024-01-01T00:30:00.000000000000Z); times of day are ISO
  // 8601 text (HH:MM:SS, then the fraction without trailing zeros), so `time` writes that form.
  dateOf: (x) => `substr(${x}, 1, 10)`,
  timeOf: (x) => `(substr(${x}, 12, 8) || rtrim(rtrim(substr(${x}, 20, 13), '0'), '.'))`,
  toText: (x) => `CAST(${x} AS TEXT)`,
  // Decimals are REAL here; an integer overflowing in arithmetic becomes REAL by itself.
  integerAsDecimal: (x) => x,
  fractionalSeconds: (x, isTime) =>
    isTime ? `(CASE WHEN length(${x}) > 9 THEN CAST('0.' || substr(${x}, 10) AS REAL) WHEN ${x} IS NULL THEN NULL ELSE 0.0 END)` : `CAST('0.' || substr(${x}, 21, 12) AS REAL)`,
  totalSeconds: (x) => sqlite.durationKey(x),
  // Exactly, on the text: whole seconds through the date functions (unix seconds, integers), the 12
  // fraction digits as an integer of picoseconds with its carry. The compiler keeps the result
  // inside the years 1 to 9999, which the date functions cover.
  shiftInstant: (column, micros, value) => {
    const seconds = micros >= 0n ? micros / 1_000_000n : -((-micros + 999_999n) / 1_000_000n);
    const picos = (micros - seconds * 1_000_000n) * 1_000_000n;
    const fraction = `(CAST(substr(${column}, 21, 12) AS INTEGER) + ${value(picos, 'bigint')})`;
    const whole = `(CAST(strftime('%s', substr(${column}, 1, 19)) AS INTEGER) + ${value(seconds, 'bigint')} + ${fraction} / 1000000000000)`;
    return `(strftime('%Y-%m-%dT%H:%M:%S', ${whole}, 'unixepoch') || '.' || printf('%012d', ${fraction} % 1000000000000) || 'Z')`;
  },
  collectionElements: (column, alias) => ({ source: `json_each(${column}) ${alias}`, value: `${alias}.value` }),
  // json(…): nested JSON must reach the object builders as JSON, not as a string.
  expandOne: (rows, key) => `json((SELECT ${jsonObjectOf(rows.entries, sqliteObject, sqlite.jsonCollection, key)} FROM ${rows.from} WHERE ${rows.where}))`,
  expandMany: (rows, key) => `json((SELECT json_group_array(json(sub.o) ORDER BY sub.n) FROM (${numberedRows(rows, jsonObjectOf(rows.entries, sqliteObject, sqlite.jsonCollection, key))}) sub))`,
  // SQLite's default BINARY collation already compares bytes, i.e. code points.
  binaryEquality: true,
  binary: (e) => e,
  // LIKE is case-insensitive for ASCII in SQLite: match with instr/substr instead (no wildcards at all).
  like: (e, p) => `${e} LIKE ${p} ESCAPE '\\'`,
  escapeChar: '\\',
  length: (e) => `length(${e})`,
  indexOf: (t, s) => `(instr(${t}, ${s}) - 1)`,
  substring: (t, from, length) => (length === undefined ? `substr(${t}, ${from})` : `substr(${t}, ${from}, ${length})`),
  greatest: (l, r) => `max(${l}, ${r})`,
  least: (l, r) => `min(${l}, ${r})`,
  withValues: derivedValues,
  // Integer arithmetic that overflows gives a REAL in SQLite.
  int64Guard: (sql) => derivedValues([sql], ([v]) => `(CASE WHEN typeof(${v}) = 'integer' THEN ${v} END)`),
  // % converts its operands to integers: a - b·trunc(a/b) for the others.
  modulo: (l, r, kind) => (kind === 'integer' ? `(${l} % ${r})` : derivedValues([l, r], ([a, b]) => `(${a} - ${b} * ${sqlite.truncate(`${a} / ${b}`)})`)),
  listParameter: (values, kind) => jsonList(values, kind, '9e999'),
  inList: (column, p) => `${column} IN (SELECT value FROM json_each(${p}))`,
  // SQLite's round() rounds half away from zero; floor and ceiling without the math extension
  // (CAST AS INTEGER saturates at 2^63: from 2^52 up a double is an integer already).
  rounding: (name, x) =>
    name === 'round'
      ? `round(${x})`
      : derivedValues([x], ([v]) => {
          const [beyond, step] = name === 'floor' ? ['<', '- 1'] : ['>', '+ 1'];
          return `(CASE WHEN ${v} >= 4503599627370496 OR ${v} <= -4503599627370496 THEN ${v} WHEN ${v} ${beyond} CAST(${v} AS INTEGER) THEN CAST(${v} AS INTEGER) ${step} ELSE CAST(${v} AS INTEGER) END)`;
        }),
  orderedDouble: (e) => e,
  nanOrderKey: () => undefined,
  // DateTimeOffset values are fixed-width UTC text (see utcText).
  dateAsInstant: (e) => `(${e} || 'T00:00:00.000000000000Z')`,
  durationKey: (e) => isoDurationSeconds(e, sqlite, (t, c) => `instr(${t}, ${c})`, (t, f, n) => `substr(${t}, ${f}, ${n})`),
  negateDuration: (e) => negateIsoText(e, (l, r) => `(${l} || ${r})`, (t, f) => `substr(${t}, ${f})`),
  // Decimals are REAL here (and integer / integer would truncate).
  decimalDivide: (l, r) => `(CAST(${l} AS REAL) / ${r})`,
  double: (e) => `CAST(${e} AS REAL)`,
  // CAST AS INTEGER saturates at 2^63; doubles from 2^52 up are integers already.
  // (abs() of -2^63 is an error: an integer quotient can be it.)
  truncate: (e) => `(CASE WHEN ${e} >= 4503599627370496 OR ${e} <= -4503599627370496 THEN ${e} ELSE CAST(CAST(${e} AS INTEGER) AS REAL) END)`,
  concat: (l, r) => `(${l} || ${r})`,
  integerDivide: (l, r) => `(${l} / ${r})`,
  booleanLiteral: (v) => (v ? '1' : '0'),
  booleanValue: (c) => `(${c})`,
  parameter: (value, kind) => {
    // SQLite's string functions stop at NUL: refuse such values as bad input.
    rejectNul(value, 'SQLite');
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (kind === 'guid' && typeof value === 'string') return value.toLowerCase();
    // A Date compared as a DateTimeOffset is midnight UTC.
    if (kind === 'timestamp') return utcText(typeof value === 'string' && /^-?\d{4,}-\d\d-\d\d$/.test(value) ? `${value}T00:00:00Z` : value);
    // Decimals are REAL in SQLite: bound as numbers, never as text (text compares above every number).
    if ((kind === 'decimal' || kind === 'double') && value !== null) {
      const text = exactText(value, 'decimal');
      return text === 'INF' ? Infinity : text === '-INF' ? -Infinity : Number(text);
    }
    return exactText(value, kind);
  },
  typedPlaceholder: (p, kind) => (kind === 'bigint' ? `CAST(${p} AS INTEGER)` : p),
};

const mysqlNumbers = { greatest: (l: string, r: string): string => `GREATEST(${l}, ${r})`, double: (e: string): string => `CAST(${e} AS DECIMAL(38, 12))` };

export const mysql: Dialect = {
  name: 'mysql',
  fractionalSecondDigits: 6,
  jsonCollection: (column) => `JSON_EXTRACT(${column}, '$')`,
  placeholder: () => '?',
  quote: (name) => `\`${name.replaceAll('`', '``')}\``,
  paging: (top, skip) => (top === undefined && skip === undefined ? '' : `LIMIT ${top ?? '18446744073709551615'}${skip === undefined ? '' : ` OFFSET ${skip}`}`),
  nullsFirstByDefault: true,
  displayName: 'MySQL/MariaDB',
  notDistinct: (l, r) => `${l()} <=> ${r()}`,
  booleanCondition: (value) => `(${value} <> 0)`,
  // Case-sensitive with a binary collation (MariaDB's PCRE, MySQL's ICU).
  matchesPattern: (text, pattern, value) => `${text} COLLATE utf8mb4_bin REGEXP ${value(pattern.mysql)}`,
  trim: (e) => `TRIM(${e})`,
  datePart: (name, x) => `${upper(name)}(${x})`,
  dateOf: (x) => `DATE(${x})`,
  timeOf: (x) => `TIME(${x})`,
  // Exactly (a division would keep div_precision_increment digits only).
  fractionalSeconds: (x) => `CAST(CONCAT('0.', LPAD(MICROSECOND(${x}), 6, '0')) AS DECIMAL(7, 6))`,
  totalSeconds: (x) => mysql.durationKey(x),
  // In the DECIMAL(38, 12) of durationKey: the division keeps the dividend's 12 digits.
  instantDifference: (later, earlier) => `(CAST(TIMESTAMPDIFF(MICROSECOND, ${earlier}, ${later}) AS DECIMAL(38, 12)) / 1000000)`,
  durationSum: (l, r, operator) => `(${l} ${operator} ${r})`,
  toText: (x, kind) => (kind === 'date' ? `DATE_FORMAT(${x}, '%Y-%m-%d')` : `CAST(${x} AS CHAR)`),
  integerAsDecimal: (x) => `CAST(${x} AS DECIMAL(65, 0))`,
  shiftInstant: (column, micros, value) => `DATE_ADD(${column}, INTERVAL ${value(micros, 'bigint')} MICROSECOND)`,
  widerIntegers: { int32: 'SIGNED', int64: 'DECIMAL(65, 0)' },
  collectionElements: (column, alias, element: ExpressionType) => ({ source: `JSON_TABLE(${column}, '$[*]' COLUMNS (v ${jsonTableType(element)} PATH '$')) ${alias}`, value: `${alias}.v` }),
  // JSON_EXTRACT(…, '$'): nested JSON must reach the object builders as JSON, not as a string.
  expandOne: (rows, key) => `JSON_EXTRACT((SELECT ${jsonObjectOf(rows.entries, mysqlObject, mysql.jsonCollection, key)} FROM ${rows.from} WHERE ${rows.where}), '$')`,
  // MariaDB cannot correlate a derived table with the outer row: order and page inside JSON_ARRAYAGG.
  expandMany: (rows, key) => {
    const object = jsonObjectOf(rows.entries, mysqlObject, mysql.jsonCollection, key);
    const paging = rows.paging === '' ? '' : ` ${rows.paging}`;
    return `JSON_EXTRACT((SELECT COALESCE(JSON_ARRAYAGG(JSON_EXTRACT(${object}, '$') ORDER BY ${rows.order()}${paging}), JSON_ARRAY()) FROM ${rows.from} WHERE ${rows.where}), '$')`;
  },
  // The default collations ignore case, and the PAD SPACE ones (utf8mb4_bin too, on MariaDB) pad
  // with spaces: 'a' = 'a ' and '\t' < ''. Bytes (UTF-8, so code-point order) have neither.
  binaryEquality: false,
  binary: (e) => `CAST(${e} AS BINARY)`,
  like: (e, p) => `${e} COLLATE utf8mb4_bin LIKE ${p} ESCAPE '\\\\'`,
  escapeChar: '\\',
  length: (e) => `CHAR_LENGTH(${e})`,
  indexOf: (t, s) => `(INSTR(${t}, ${s}) - 1)`,
  substring: (t, from, length) => (length === undefined ? `SUBSTRING(${t}, ${from})` : `SUBSTRING(${t}, ${from}, ${length})`),
  greatest: (l, r) => `GREATEST(${l}, ${r})`,
  least: (l, r) => `LEAST(${l}, ${r})`,
  withValues: inlineValues,
  int64Guard: clampInt64,
  // A decimal remainder of zero can be a negative zero, which MariaDB orders below 0 and finds
  // unequal to it (-1 % -0.5); 0 + x normalizes it.
  // (Cast, as a quotient is: compared with a double, MariaDB would take fmod of doubles.)
  modulo: (l, r, kind) => (kind === 'decimal' ? `(0 + CAST(${l} % ${r} AS DECIMAL(65, 30)))` : `(${l} % ${r})`),
  listParameter: (values, kind) => jsonList(values, kind, '1e999'),
  inList: (column, p, kind) => {
    const type = kind === 'integer' || kind === 'bigint' ? 'BIGINT' : kind === 'decimal' ? 'DECIMAL(65, 30)' : kind === 'double' ? 'DOUBLE' : kind === 'boolean' ? 'BOOLEAN' : 'LONGTEXT CHARACTER SET utf8mb4';
    // Strings (and enum member names) compare by bytes, as the column side already does.
    const bytes = kind === 'string' || kind === 'enum';
    const value = bytes ? 'CAST(`_j`.`v` AS BINARY)' : '`_j`.`v`';
    const left = bytes && !column.startsWith('CAST(') ? `CAST(${column} AS BINARY)` : column;
    return `${left} IN (SELECT ${value} FROM JSON_TABLE(${p}, '$[*]' COLUMNS (\`v\` ${type} PATH '$')) AS \`_j\`)`;
  },
  rounding: (name, x, double) => (double ? doubleRounding(mysql, name, x) : `${ROUNDING[name]}(CAST(${x} AS DECIMAL(65, 30)))`),
  orderedDouble: (e) => e,
  nanOrderKey: () => undefined,
  dateAsInstant: (e) => e,
  durationKey: (e) => isoDurationSeconds(e, { ...mysqlNumbers, withValues: inlineValues }, (t, c) => `INSTR(${t}, ${c})`, (t, f, n) => `SUBSTRING(${t}, ${f}, ${n})`),
  negateDuration: (e) => negateIsoText(e, (l, r) => `CONCAT(${l}, ${r})`, (t, f) => `SUBSTRING(${t}, ${f})`),
  // 24 digits after the point and div_precision_increment's 4 give the reference's 28 (rounded half
  // away from zero, as the reference does), with 41 digits before the point.
  // Cast to DECIMAL(65, 28): compared with a double, MariaDB would divide in floating point, not
  // round to 28 digits; 0 + x: a quotient rounded to zero can be a negative zero, less than 0.
  decimalDivide: (l, r) => `(0 + CAST(CAST(${l} AS DECIMAL(65, 24)) / ${r} AS DECIMAL(65, 28)))`,
  double: (e) => `CAST(${e} AS DOUBLE)`,
  truncate: (e) => `TRUNCATE(${e}, 0)`,
  concat: (l, r) => `CONCAT(${l}, ${r})`,
  // DIV fails beyond BIGINT (-2^63 DIV -1): a decimal quotient truncated (30 decimals cannot round up to the next integer).
  integerDivide: (l, r) => `TRUNCATE(CAST(${l} AS DECIMAL(65, 30)) / ${r}, 0)`,
  booleanLiteral: (v) => (v ? 'TRUE' : 'FALSE'),
  booleanValue: (c) => `(${c})`,
  parameter: (value, kind) => {
    // MySQL/MariaDB doubles hold no INF or NaN (the driver would write them as bare words).
    if ((kind === 'double' || kind === 'decimal') && (value === 'INF' || value === '-INF' || value === 'NaN' || (typeof value === 'number' && !Number.isFinite(value)))) {
      throw new ODataError({ code: 'unsupported_feature', reason: 'MySQL and MariaDB have no INF or NaN values', appendLocation: false });
    }
    if (kind === 'guid' && typeof value === 'string') return value.toLowerCase();
    if (kind === 'timestamp') return mysqlDateTime(value);
    return exactText(value, kind);
  },
  // Exact numbers travel as text; without a cast MySQL would compute with them as DOUBLE.
  // A decimal with no more fraction digits than it has: DECIMAL(65, 30) would leave a product with
  // a DECIMAL(38, 18) column only 17 integer digits (`dec mul 2147483648` saturated).
  // Temporal parameters as their column types: a bare string next to a TIME, DATE or DATETIME column
  // in a CASE makes the CASE text, and text compares as text ('12:00:00.000000' is not '12:00:00').
  typedPlaceholder: (p, kind, value) =>
    kind === 'bigint'
      ? `CAST(${p} AS SIGNED)`
      : kind === 'decimal'
        ? `CAST(${p} AS DECIMAL(65, ${decimalScale(value)}))`
        : kind === 'time'
          ? `CAST(${p} AS TIME(6))`
          : kind === 'date'
            ? `CAST(${p} AS DATE)`
            : kind === 'timestamp'
              ? `CAST(${p} AS DATETIME(6))`
              : p,
};

export const mssql: Dialect = {
  name: 'mssql',
  fractionalSecondDigits: 7,
  jsonCollection: (column) => `JSON_QUERY(${column})`,
  placeholder: (index) => `@p${index}`,
  quote: (name) => `[${name.replaceAll(']', ']]')}]`,
  paging: (top, skip) => `OFFSET ${skip ?? '0'} ROWS${top === undefined ? '' : ` FETCH NEXT ${top} ROWS ONLY`}`,
  nullsFirstByDefault: true,
  displayName: 'SQL Server',
  notDistinct: (l, r) => `(${l()} = ${r()} OR (${l()} IS NULL AND ${r()} IS NULL))`,
  booleanCondition: (value) => `(${value} <> 0)`,
  trim: (e) => `TRIM(${e})`,
  datePart: (name, x) => `DATEPART(${name}, ${x})`,
  dateOf: (x) => `CAST(${x} AS date)`,
  timeOf: (x) => `CAST(${x} AS time(7))`,
  fractionalSeconds: (x) => `CAST(DATEPART(nanosecond, ${x}) / 1000000000.0 AS DECIMAL(10, 9))`,
  totalSeconds: (x) => mssql.durationKey(x),
  instantDifference: (later, earlier) => `(CAST(DATEDIFF_BIG(microsecond, ${earlier}, ${later}) AS DECIMAL(38, 12)) / 1000000)`,
  durationSum: (l, r, operator) => `(${l} ${operator} ${r})`,
  toText: (x, kind) => (kind === 'date' ? `CONVERT(NVARCHAR(10), ${x}, 23)` : `CAST(${x} AS NVARCHAR(20))`),
  integerAsDecimal: (x) => `CAST(${x} AS DECIMAL(38, 0))`,
  shiftInstant: (column, micros, value) =>
    `DATEADD(microsecond, ${value(Number(micros % 1_000_000n), 'integer')}, DATEADD(second, ${value(Number(micros / 1_000_000n), 'bigint')}, ${column}))`,
  widerIntegers: { int32: 'bigint', int64: 'DECIMAL(38, 0)' },
  // FOR JSON PATH over a select list: dotted aliases nest (`address.city`), JSON_QUERY keeps nested JSON from being escaped.
  expandOne: (rows) => `(SELECT ${forJsonList(rows.entries)} FROM ${rows.from} WHERE ${rows.where} FOR JSON PATH, WITHOUT_ARRAY_WRAPPER, INCLUDE_NULL_VALUES)`,
  // FOR JSON gives NULL for no rows; the spec's answer is an empty array.
  expandMany: (rows) =>
    `COALESCE((SELECT ${forJsonList(rows.entries)} FROM ${rows.from} WHERE ${rows.where} ORDER BY ${rows.order()}${rows.paging === '' ? '' : ` ${rows.paging}`} FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')`,
  binaryEquality: false,
  binary: (e) => `${e} COLLATE Latin1_General_100_BIN2`,
  like: (e, p) => `${e} COLLATE Latin1_General_100_BIN2 LIKE ${p} ESCAPE '\\'`,
  escapeChar: '\\',
  length: (e) => `LEN(${e} + N'x') - 1`,
  indexOf: (t, s) => `(CHARINDEX(${s}, ${t}) - 1)`,
  substring: (t, from, length) => `SUBSTRING(${t}, CAST(${from} AS int), CAST(${length ?? '2147483647'} AS int))`,
  greatest: (l, r) => `(CASE WHEN ${l} IS NULL OR ${r} IS NULL THEN NULL ELSE GREATEST(${l}, ${r}) END)`,
  least: (l, r) => `(CASE WHEN ${l} IS NULL OR ${r} IS NULL THEN NULL ELSE LEAST(${l}, ${r}) END)`,
  withValues: inlineValues,
  int64Guard: clampInt64,
  modulo: (l, r, kind) => (kind === 'double' ? `(${l} - ${r} * ROUND(${l} / ${r}, 0, 1))` : `(${l} % ${r})`),
  listParameter: (values, kind) => jsonList(values, kind, '1e999'),
  inList: (column, p) => `${column} IN (SELECT [value] FROM OPENJSON(${p}))`,
  rounding: (name, x, double) => (double ? doubleRounding(mssql, name, x) : `${ROUNDING[name]}(CAST(${x} AS DECIMAL(65, 30)))`),
  orderedDouble: (e) => e,
  nanOrderKey: () => undefined,
  dateAsInstant: (e) => e,
  durationKey: (e) => isoDurationSeconds(e, { greatest: (l, r) => `(CASE WHEN ${l} > ${r} THEN ${l} ELSE ${r} END)`, double: (x) => `CAST(${x} AS DECIMAL(38, 12))`, withValues: inlineValues }, (t, c) => `CHARINDEX(${c}, ${t})`, (t, f, n) => `SUBSTRING(${t}, ${f}, ${n})`),
  negateDuration: (e) => negateIsoText(e, (l, r) => `(${l} + ${r})`, (t, f) => `SUBSTRING(${t}, ${f}, 64)`),
  decimalDivide: (l, r) => `(CAST(${l} AS DECIMAL(38, 18)) / ${r})`,
  double: (e) => `CAST(${e} AS float)`,
  truncate: (e) => `ROUND(${e}, 0, 1)`,
  concat: (l, r) => `(${l} + ${r})`,
  integerDivide: (l, r) => `(${l} / ${r})`,
  booleanLiteral: (v) => (v ? '1' : '0'),
  // Predicates are not values in T-SQL.
  booleanValue: (c) => `(CASE WHEN ${c} THEN 1 WHEN NOT (${c}) THEN 0 END)`,
  parameter: (value, kind) => (typeof value === 'boolean' ? (value ? 1 : 0) : exactText(value, kind)),
  typedPlaceholder: (p) => p,
};

/**
 * The built-in dialects by name. A custom dialect spreads one and overrides what differs; the
 * compiler asks it for every difference and never tests its name.
 *
 * @example
 * ```ts
 * const libsql: Dialect = { ...DIALECTS.sqlite, name: 'libsql', displayName: 'libSQL' };
 * toSql(bindQuery("$filter=name eq 'a'", { model, entitySet: 'products' }), { dialect: libsql }).sql;
 * ```
 */
export const DIALECTS = { postgres, mysql, sqlite, mssql } as const satisfies Record<DialectName, Dialect>;
