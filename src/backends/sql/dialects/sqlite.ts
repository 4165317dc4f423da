/** SQLite: instants as fixed-width UTC text, Decimals as REAL, JSON through `json_each`. */
import type { Dialect } from '../dialect.js';
import {
  derivedValues as fencedValues,
  doubleQuote,
  exactText,
  isoDurationSeconds,
  jsonList,
  jsonMemberType,
  jsonObjectOf,
  jsonPathLiteral,
  negateIsoText,
  numberedRows,
  rejectNul,
  utcText,
  jsonMemberPath,
} from './common.js';

/** SQLite's derived values: its offset needs a limit (-1: none). */
const derivedValues = (expressions: readonly string[], body: (values: readonly string[]) => string): string =>
  fencedValues(expressions, body, ' LIMIT -1 OFFSET 0');

/**
 * An ISO 8601 instant (`2024-01-01T00:30:00.5+01:00`, `…Z`) as the stored fixed-width UTC text
 * (`2024-01-01T23:30:00.500000000000Z`): whole seconds in UTC through strftime (which applies the
 * offset), the fraction's digits (those after the 20th character) padded to 12.
 */
const isoToUtcText = (text: string): string =>
  derivedValues([text], ([t]) => {
    const v = t as string;
    const rest = `substr(${v}, 21)`;
    const digits = `(CASE WHEN substr(${v}, 20, 1) = '.' THEN substr(${rest}, 1, length(${rest}) - length(ltrim(${rest}, '0123456789'))) ELSE '' END)`;
    return `(CASE WHEN ${v} IS NULL THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%S', ${v}) || '.' || substr(${digits} || '000000000000', 1, 12) || 'Z' END)`;
  });

const sqliteObject = (pairs: readonly string[]): string => `json_object(${pairs.join(', ')})`;

export const sqlite: Dialect = {
  name: 'sqlite',
  // Storage: Decimals are REAL, instants fixed-width UTC text, collections JSON text.
  columnTypes: {
    'Edm.String': 'TEXT',
    'Edm.Boolean': 'INTEGER',
    'Edm.Byte': 'INTEGER',
    'Edm.SByte': 'INTEGER',
    'Edm.Int16': 'INTEGER',
    'Edm.Int32': 'INTEGER',
    'Edm.Int64': 'INTEGER',
    'Edm.Decimal': 'REAL',
    'Edm.Double': 'REAL',
    'Edm.Single': 'REAL',
    'Edm.Guid': 'TEXT',
    'Edm.Binary': 'BLOB',
    'Edm.Date': 'TEXT',
    'Edm.DateTimeOffset': 'TEXT',
    'Edm.TimeOfDay': 'TEXT',
    'Edm.Duration': 'TEXT',
    enum: 'TEXT',
  },
  collectionColumnType: () => 'TEXT',
  fractionalSecondDigits: 12,
  // Collections of complex values as JSON text: elements through json_each, members through
  // json_extract (numbers as numbers, true/false as 1/0, as the columns store them).
  complexCollections: {
    columnType: 'TEXT',
    elements: (array, alias) => ({ source: `json_each(${array}) ${alias}`, element: `${alias}.value`, atom: `${alias}.atom` }),
    numbered: (array, alias) => ({ source: `json_each(${array}) ${alias}`, element: `${alias}.value`, ordinal: `${alias}.key` }),
    json: (element, path) => `json_extract(${element}, ${jsonPathLiteral(path)})`,
    member: (element, path) => `json_extract(${element}, ${jsonPathLiteral(path)})`,
    typed: (raw, type) => {
      const member = jsonMemberType(type);
      if ('refused' in member) return member;
      switch (member.name) {
        case 'Edm.Guid':
          return { sql: `LOWER(${raw})` };
        case 'Edm.DateTimeOffset':
          return { sql: isoToUtcText(raw) };
        case 'Edm.TimeOfDay':
          // Stored as HH:MM:SS, then the fraction without trailing zeros (see timeOf).
          return { sql: `(CASE WHEN instr(${raw}, '.') > 0 THEN rtrim(rtrim(${raw}, '0'), '.') ELSE ${raw} END)` };
        case 'Edm.Decimal':
          return { sql: `CAST(${raw} AS REAL)` };
        case 'Edm.Double':
        case 'Edm.Single':
          // The reference's JSON form of the non-finite doubles: infinities, and NaN as null (as REAL columns hold it).
          return { sql: `(CASE ${raw} WHEN 'INF' THEN 9e999 WHEN '-INF' THEN -9e999 WHEN 'NaN' THEN NULL ELSE CAST(${raw} AS REAL) END)` };
        case 'Edm.Byte':
        case 'Edm.SByte':
        case 'Edm.Int16':
        case 'Edm.Int32':
        case 'Edm.Int64':
          return { sql: `CAST(${raw} AS INTEGER)` };
        default:
          return { sql: raw };
      }
    },
  },
  jsonCollection: (column) => `json(${column})`,
  // SQLITE_MAX_VARIABLE_NUMBER's default since SQLite 3.32 (sql.js's build among them).
  maxParameters: 32_766,
  placeholder: () => '?',
  quote: doubleQuote,
  paging: (top, skip) => (top === undefined && skip === undefined ? '' : `LIMIT ${top ?? '-1'}${skip === undefined ? '' : ` OFFSET ${skip}`}`),
  nullsFirstByDefault: true,
  displayName: 'SQLite',
  noSpatial: 'no spatial types (SpatiaLite is a loadable extension)',
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
  toText: (x, kind) => (kind === 'guid' ? `LOWER(${x})` : `CAST(${x} AS TEXT)`),
  // Decimals are REAL here; an integer overflowing in arithmetic becomes REAL by itself.
  integerAsDecimal: (x) => x,
  fractionalSeconds: (x, isTime) =>
    isTime
      ? `(CASE WHEN length(${x}) > 9 THEN CAST('0.' || substr(${x}, 10) AS REAL) WHEN ${x} IS NULL THEN NULL ELSE 0.0 END)`
      : `CAST('0.' || substr(${x}, 21, 12) AS REAL)`,
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
  rowArray: (entries, key) => `json_array(json(${jsonObjectOf(entries, sqliteObject, sqlite.jsonCollection, key)}))`,
  expandOne: (rows, key) => `json((SELECT ${jsonObjectOf(rows.entries, sqliteObject, sqlite.jsonCollection, key)} FROM ${rows.from} WHERE ${rows.where}))`,
  groupArray: {
    array: (entries, order, key) => `json(json_group_array(json(${jsonObjectOf(entries, sqliteObject, sqlite.jsonCollection, key)}) ORDER BY ${order}))`,
    empty: 'json_array()',
  },
  expandMany: (rows, key) =>
    `json((SELECT json_group_array(json(sub.o) ORDER BY sub.n) FROM (${numberedRows(rows, jsonObjectOf(rows.entries, sqliteObject, sqlite.jsonCollection, key))}) sub))`,
  // SQLite's default BINARY collation already compares bytes, i.e. code points.
  hierarchy: { recursive: 'RECURSIVE ', rankText: (rank) => `substr('0000000000' || (${rank}), -10, 10)` },
  binaryEquality: true,
  binary: (e) => e,
  // SUM of integers fails with 'integer overflow' beyond 64 bits: summed as high and low 32 bits
  // (neither sum can overflow), the total computed in an expression, which gives a REAL beyond 64
  // bits (null through int64Guard).
  integerSum: (e) => `(SUM(${e} / 4294967296) * 4294967296 + SUM(${e} % 4294967296))`,
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
  durationKey: (e) =>
    isoDurationSeconds(
      e,
      sqlite,
      (t, c) => `instr(${t}, ${c})`,
      (t, f, n) => `substr(${t}, ${f}, ${n})`,
    ),
  negateDuration: (e) =>
    negateIsoText(
      e,
      (l, r) => `(${l} || ${r})`,
      (t, f) => `substr(${t}, ${f})`,
    ),
  // Decimals are REAL here (and integer / integer would truncate).
  decimalDivide: (l, r) => `(CAST(${l} AS REAL) / ${r})`,
  double: (e) => `CAST(${e} AS REAL)`,
  integer: (e) => `CAST(${e} AS INTEGER)`,
  // CAST AS INTEGER saturates at 2^63; doubles from 2^52 up are integers already.
  // (abs() of -2^63 is an error: an integer quotient can be it.)
  truncate: (e) => `(CASE WHEN ${e} >= 4503599627370496 OR ${e} <= -4503599627370496 THEN ${e} ELSE CAST(CAST(${e} AS INTEGER) AS REAL) END)`,
  concat: (l, r) => `(${l} || ${r})`,
  integerDivide: (l, r) => `(${l} / ${r})`,
  // Dynamic properties in a JSON object stored as text (JSON1), the member named by a JSON path
  // parameter: json_type tells the JSON types apart ('true', 'false', 'integer', 'real', 'text',
  // 'null'), `->` gives a member's JSON text.
  dynamicProperties: {
    columnType: 'TEXT',
    key: jsonMemberPath,
    asJson: (text) => `json(${text})`,
    member: (column, key, read) => {
      const type = (): string => `json_type(${column}, ${key()})`;
      switch (read) {
        case undefined:
          return `(CASE WHEN ${type()} <> 'null' THEN ${column} -> ${key()} END)`;
        case 'Edm.String':
          return `(CASE WHEN ${type()} = 'text' THEN json_extract(${column}, ${key()}) END)`;
        case 'Edm.Double':
          return `(CASE WHEN ${type()} IN ('integer', 'real') THEN CAST(json_extract(${column}, ${key()}) AS REAL) END)`;
        case 'Edm.Boolean':
          return `(CASE ${type()} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
      }
    },
  },
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
