/**
 * The four dialects: small overrides of standard SQL (Kysely-style). Identifiers are quoted with
 * their quote character doubled; values are always parameters.
 */
import { ODataError } from '../../errors/odata-error.js';
import { toBigInt } from '../memory/values.js';
import { instantFromPicos, parseInstant } from '../../util/temporal.js';
import type { Dialect, DialectName, ParameterKind } from './dialect.js';

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

export const postgres: Dialect = {
  name: 'postgres',
  // Arrays are JSON arrays in json_build_object already.
  jsonCollection: (column) => column,
  placeholder: (index) => `$${index}`,
  quote: doubleQuote,
  paging: (top, skip) => [top === undefined ? '' : `LIMIT ${top}`, skip === undefined ? '' : `OFFSET ${skip}`].filter(Boolean).join(' '),
  nullsFirstByDefault: false,
  notDistinct: (l, r) => `${l} IS NOT DISTINCT FROM ${r}`,
  // Deterministic collations (every built-in one) compare equal only on equal bytes.
  binaryEquality: true,
  binary: (e) => `${e} COLLATE "C"`,
  like: (e, p) => `${e} LIKE ${p} ESCAPE '\\'`,
  escapeChar: '\\',
  length: (e) => `char_length(${e})`,
  indexOf: (t, s) => `(strpos(${t}, ${s}) - 1)`,
  substring: (t, start, length) => (length === undefined ? `substr(${t}, (${start}) + 1)` : `substr(${t}, (${start}) + 1, ${length})`),
  concat: (l, r) => `(${l} || ${r})`,
  integerDivide: (l, r) => `(${l} / ${r})`,
  booleanLiteral: (v) => (v ? 'TRUE' : 'FALSE'),
  parameter: (value, kind) => {
    // PostgreSQL text cannot hold NUL: refuse the value as bad input rather than fail in the database.
    rejectNul(value, 'PostgreSQL');
    return exactText(value, kind);
  },
  typedPlaceholder: (p, kind) => {
    const types: Partial<Record<ParameterKind, string>> = {
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
  jsonCollection: (column) => `json(${column})`,
  placeholder: () => '?',
  quote: doubleQuote,
  paging: (top, skip) => (top === undefined && skip === undefined ? '' : `LIMIT ${top ?? '-1'}${skip === undefined ? '' : ` OFFSET ${skip}`}`),
  nullsFirstByDefault: true,
  notDistinct: (l, r) => `${l} IS ${r}`,
  // SQLite's default BINARY collation already compares bytes, i.e. code points.
  binaryEquality: true,
  binary: (e) => e,
  // LIKE is case-insensitive for ASCII in SQLite: match with instr/substr instead (no wildcards at all).
  like: (e, p) => `${e} LIKE ${p} ESCAPE '\\'`,
  escapeChar: '\\',
  length: (e) => `length(${e})`,
  indexOf: (t, s) => `(instr(${t}, ${s}) - 1)`,
  substring: (t, start, length) => (length === undefined ? `substr(${t}, (${start}) + 1)` : `substr(${t}, (${start}) + 1, ${length})`),
  concat: (l, r) => `(${l} || ${r})`,
  integerDivide: (l, r) => `(${l} / ${r})`,
  booleanLiteral: (v) => (v ? '1' : '0'),
  parameter: (value, kind) => {
    // SQLite's string functions stop at NUL: refuse such values as bad input.
    rejectNul(value, 'SQLite');
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (kind === 'guid' && typeof value === 'string') return value.toLowerCase();
    if (kind === 'timestamp') return utcText(value);
    return exactText(value, kind);
  },
  typedPlaceholder: (p, kind) => (kind === 'bigint' ? `CAST(${p} AS INTEGER)` : p),
};

export const mysql: Dialect = {
  name: 'mysql',
  jsonCollection: (column) => `JSON_EXTRACT(${column}, '$')`,
  placeholder: () => '?',
  quote: (name) => `\`${name.replaceAll('`', '``')}\``,
  paging: (top, skip) => (top === undefined && skip === undefined ? '' : `LIMIT ${top ?? '18446744073709551615'}${skip === undefined ? '' : ` OFFSET ${skip}`}`),
  nullsFirstByDefault: true,
  notDistinct: (l, r) => `${l} <=> ${r}`,
  // The default collations ignore case, and the PAD SPACE ones (utf8mb4_bin too, on MariaDB) pad
  // with spaces: 'a' = 'a ' and '\t' < ''. Bytes (UTF-8, so code-point order) have neither.
  binaryEquality: false,
  binary: (e) => `CAST(${e} AS BINARY)`,
  like: (e, p) => `${e} COLLATE utf8mb4_bin LIKE ${p} ESCAPE '\\\\'`,
  escapeChar: '\\',
  length: (e) => `CHAR_LENGTH(${e})`,
  indexOf: (t, s) => `(INSTR(${t}, ${s}) - 1)`,
  substring: (t, start, length) => (length === undefined ? `SUBSTRING(${t}, (${start}) + 1)` : `SUBSTRING(${t}, (${start}) + 1, ${length})`),
  concat: (l, r) => `CONCAT(${l}, ${r})`,
  integerDivide: (l, r) => `(${l} DIV ${r})`,
  booleanLiteral: (v) => (v ? 'TRUE' : 'FALSE'),
  parameter: (value, kind) => {
    if (kind === 'guid' && typeof value === 'string') return value.toLowerCase();
    if (kind === 'timestamp') return mysqlDateTime(value);
    return exactText(value, kind);
  },
  // Exact numbers travel as text; without a cast MySQL would compute with them as DOUBLE.
  typedPlaceholder: (p, kind) => (kind === 'bigint' ? `CAST(${p} AS SIGNED)` : kind === 'decimal' ? `CAST(${p} AS DECIMAL(65, 30))` : p),
};

export const mssql: Dialect = {
  name: 'mssql',
  jsonCollection: (column) => `JSON_QUERY(${column})`,
  placeholder: (index) => `@p${index}`,
  quote: (name) => `[${name.replaceAll(']', ']]')}]`,
  paging: (top, skip) => `OFFSET ${skip ?? '0'} ROWS${top === undefined ? '' : ` FETCH NEXT ${top} ROWS ONLY`}`,
  nullsFirstByDefault: true,
  notDistinct: (l, r) => `(${l} = ${r} OR (${l} IS NULL AND ${r} IS NULL))`,
  binaryEquality: false,
  binary: (e) => `${e} COLLATE Latin1_General_100_BIN2`,
  like: (e, p) => `${e} COLLATE Latin1_General_100_BIN2 LIKE ${p} ESCAPE '\\'`,
  escapeChar: '\\',
  length: (e) => `LEN(${e} + N'x') - 1`,
  indexOf: (t, s) => `(CHARINDEX(${s}, ${t}) - 1)`,
  substring: (t, start, length) => `SUBSTRING(${t}, (${start}) + 1, ${length ?? '2147483647'})`,
  concat: (l, r) => `(${l} + ${r})`,
  integerDivide: (l, r) => `(${l} / ${r})`,
  booleanLiteral: (v) => (v ? '1' : '0'),
  parameter: (value, kind) => (typeof value === 'boolean' ? (value ? 1 : 0) : exactText(value, kind)),
  typedPlaceholder: (p) => p,
};

export const DIALECTS = { postgres, mysql, sqlite, mssql } as const satisfies Record<DialectName, Dialect>;
