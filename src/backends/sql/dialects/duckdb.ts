/**
 * DuckDB: PostgreSQL's dialect where the two agree (placeholders, intervals, `IS NOT DISTINCT FROM`,
 * NaN above every number), and DuckDB's own forms where they do not: RE2 regular expressions,
 * `json_object`, lists for collections, `//` for integer division, HUGEINT for wide integers.
 *
 * Storage: a DateTimeOffset is a TIMESTAMP holding UTC (no session time zone is involved), and a
 * Decimal a DOUBLE, as in SQLite: DuckDB's DECIMAL stops at 38 digits and fails on a product that
 * needs more (DECIMAL(38, 18) times itself), and its decimal division gives a DOUBLE anyway.
 */
import type { Dialect, ParameterKind } from '../dialect.js';
import { isPrimitive } from '../../../semantic/types.js';
import {
  clampInt64,
  derivedValues,
  doubleQuote,
  doubleRounding,
  GROUPING_SETS,
  exactText,
  intervalText,
  jsonObjectOf,
  jsonPathLiteral,
  numberedRows,
  upper,
  utcDateTime,
  jsonMemberPath,
} from './common.js';
import { postgres, postgresComplexCollections } from './postgres.js';

const TYPES: Readonly<Record<ParameterKind, string>> = {
  rowCount: 'BIGINT',
  string: 'VARCHAR',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  decimal: 'DOUBLE',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  guid: 'UUID',
  date: 'DATE',
  timestamp: 'TIMESTAMP',
  time: 'TIME',
  interval: 'INTERVAL',
  enum: 'VARCHAR',
};

const jsonObject = (pairs: readonly string[]): string => `json_object(${pairs.join(', ')})`;

/** PostgreSQL's reading of members, with DuckDB's column types and instants (its TIMESTAMP holds UTC). */
const duckdbMembers = postgresComplexCollections(
  () => duckdb.columnTypes,
  (text) => `make_timestamp(epoch_us(CAST(${text} AS TIMESTAMPTZ)))`,
);

export const duckdb: Dialect = {
  ...postgres,
  name: 'duckdb',
  displayName: 'DuckDB',
  // Not PostGIS's: DuckDB's spatial extension is a download (INSTALL spatial), which the engine never does.
  spatial: undefined,
  noSpatial: 'its spatial extension is a download, not loaded',
  // Its SUM of Doubles is INF past the largest double, as the reference's.
  groupingSets: GROUPING_SETS,
  doubleSumOverflow: undefined,
  // DuckDB has no bound of its own: PostgreSQL's, so that a statement runs on both.
  maxParameters: 65_535,
  // Storage: instants TIMESTAMP in UTC, Decimals DOUBLE, primitive collections lists.
  columnTypes: {
    'Edm.String': 'VARCHAR',
    'Edm.Boolean': 'BOOLEAN',
    'Edm.Byte': 'SMALLINT',
    'Edm.SByte': 'SMALLINT',
    'Edm.Int16': 'SMALLINT',
    'Edm.Int32': 'INTEGER',
    'Edm.Int64': 'BIGINT',
    'Edm.Decimal': 'DOUBLE',
    'Edm.Double': 'DOUBLE',
    'Edm.Single': 'FLOAT',
    'Edm.Guid': 'UUID',
    'Edm.Binary': 'BLOB',
    'Edm.Date': 'DATE',
    'Edm.DateTimeOffset': 'TIMESTAMP',
    'Edm.TimeOfDay': 'TIME',
    'Edm.Duration': 'INTERVAL',
    enum: 'VARCHAR',
  },
  collectionColumnType: (element) => `${element}[]`,
  fractionalSecondDigits: 6,
  // Collections of complex values as JSON: elements through json_each, members as text (numbers
  // as their JSON text), instants through TIMESTAMPTZ to UTC microseconds (no session time zone).
  // Dynamic properties in a JSON object (the built-in json extension), the member named by a JSON
  // path parameter: json_type tells the JSON types apart ('VARCHAR', 'BIGINT', 'UBIGINT', 'DOUBLE',
  // 'BOOLEAN', 'NULL'), json_extract_string gives a scalar's text.
  dynamicProperties: {
    columnType: 'JSON',
    key: jsonMemberPath,
    asJson: (text) => `CAST(${text} AS JSON)`,
    member: (column, key, read) => {
      const type = (): string => `json_type(${column}, ${key()})`;
      const text = (): string => `json_extract_string(${column}, ${key()})`;
      switch (read) {
        case undefined:
          return `(CASE WHEN ${type()} <> 'NULL' THEN CAST(json_extract(${column}, ${key()}) AS VARCHAR) END)`;
        case 'Edm.String':
          return `(CASE WHEN ${type()} = 'VARCHAR' THEN ${text()} END)`;
        case 'Edm.Double':
          return `(CASE WHEN ${type()} IN ('BIGINT', 'UBIGINT', 'HUGEINT', 'DOUBLE') THEN CAST(${text()} AS DOUBLE) END)`;
        case 'Edm.Boolean':
          return `(CASE WHEN ${type()} = 'BOOLEAN' THEN ${text()} = 'true' END)`;
      }
    },
  },
  complexCollections: {
    ...duckdbMembers,
    // DuckDB's INTERVAL reads no ISO 8601 durations ('P1DT2H').
    typed: (raw, type) =>
      isPrimitive(type, 'Edm.Duration')
        ? { refused: 'Edm.Duration values inside collections of complex values on DuckDB (its INTERVAL reads no ISO 8601 durations)' }
        : duckdbMembers.typed(raw, type),
    columnType: 'JSON',
    elements: (array, alias) => ({ source: `json_each(${array}) AS ${alias}`, element: `${alias}.value`, atom: `json_extract_string(${alias}.value, '$')` }),
    numbered: (array, alias) => ({ source: `json_each(${array}) AS ${alias}`, element: `${alias}.value`, ordinal: `CAST(${alias}.key AS BIGINT)` }),
    json: (element, path) => `NULLIF(json_extract(${element}, ${jsonPathLiteral(path)}), CAST('null' AS JSON))`,
    member: (element, path) => `json_extract_string(${element}, ${jsonPathLiteral(path)})`,
  },
  quote: doubleQuote,
  // DuckDB's own: `regexp_matches` is RE2, partial match; `(?s)` lets `.` match line breaks.
  matchesPattern: (text, pattern, value) => `regexp_matches(${text}, ${value(`(?s)${pattern.re2}`)})`,
  trim: (e) => `trim(${e})`,
  // Instants are UTC timestamps: no time zone conversion.
  datePart: (name, x) => `CAST(EXTRACT(${upper(name)} FROM ${x}) AS INTEGER)`,
  dateOf: (x) => `CAST(${x} AS DATE)`,
  timeOf: (x) => `CAST(${x} AS TIME)`,
  fractionalSeconds: (x) => `((EXTRACT(MICROSECONDS FROM ${x}) % 1000000) / 1000000.0)`,
  totalSeconds: (x) => `EXTRACT(EPOCH FROM ${x})`,
  toText: (x, kind) => (kind === 'date' ? `strftime(${x}, '%Y-%m-%d')` : `CAST(${x} AS VARCHAR)`), // a UUID as lowercase text
  // Decimals are DOUBLE here.
  integerAsDecimal: (x) => `CAST(${x} AS DOUBLE)`,
  shiftInstant: (column, micros, value) => `(${column} + to_microseconds(${value(micros, 'bigint')}))`,
  // Casts: DuckDB's binder finds NULL + INTERVAL ambiguous and reads TIMESTAMP - NULL as a
  // TIMESTAMP (an untyped null operand, such as a shift out of range folded to null).
  instantDifference: (later, earlier) => `(CAST(${later} AS TIMESTAMP) - CAST(${earlier} AS TIMESTAMP))`,
  durationSum: (l, r, operator) => `(CAST(${l} AS INTERVAL) ${operator} CAST(${r} AS INTERVAL))`,
  // A duration's key in microseconds only: DuckDB compares intervals by their parts, so '1 day
  // -12:00:00' (P1D minus PT12H) was not equal to '12:00:00' (fuzz seed 20261130). Moving an instant
  // by it and back gives the normalized interval (durations have days and time only).
  durationKey: (e) => `to_microseconds(epoch_us(TIMESTAMP '2000-01-01' + CAST(${e} AS INTERVAL)) - epoch_us(TIMESTAMP '2000-01-01'))`,
  widerIntegers: { int32: 'BIGINT', int64: 'HUGEINT' },
  collectionElements: (column, alias) => ({ source: `(SELECT unnest(${column}) AS v) AS ${alias}`, value: `${alias}.v` }),
  rowArray: (entries, key) => `json_array(${jsonObjectOf(entries, jsonObject, duckdb.jsonCollection, key)})`,
  expandOne: (rows, key) => `(SELECT ${jsonObjectOf(rows.entries, jsonObject, duckdb.jsonCollection, key)} FROM ${rows.from} WHERE ${rows.where})`,
  groupArray: {
    array: (entries, order, key) => `to_json(list(${jsonObjectOf(entries, jsonObject, duckdb.jsonCollection, key)} ORDER BY ${order}))`,
    empty: `CAST('[]' AS JSON)`,
  },
  // json_group_array takes no ORDER BY (a macro): a list in order, as JSON.
  expandMany: (rows, key) =>
    `(SELECT COALESCE(to_json(list(sub.o ORDER BY sub.n)), CAST('[]' AS JSON)) FROM (${numberedRows(rows, jsonObjectOf(rows.entries, jsonObject, duckdb.jsonCollection, key))}) sub)`,
  // The default collation compares bytes (UTF-8: code points).
  hierarchy: { recursive: 'RECURSIVE ', rankText: (rank) => `LPAD(CAST(${rank} AS VARCHAR), 10, '0')` },
  binaryEquality: true,
  binary: (e) => e,
  length: (e) => `length(${e})`,
  substring: (t, from, length) =>
    length === undefined ? `substr(${t}, CAST(${from} AS BIGINT))` : `substr(${t}, CAST(${from} AS BIGINT), CAST(${length} AS BIGINT))`,
  withValues: derivedValues,
  // Back to BIGINT (in range, or null): DuckDB's HUGEINT to DOUBLE is not correctly rounded
  // (-9007199254741538 became -9007199254741536; seed 3112, model 1927).
  int64Guard: (sql, below, above) => `CAST(${clampInt64(sql, below, above)} AS BIGINT)`,
  // % keeps the dividend's sign for integers and doubles alike (fmod does not, on DuckDB); integers
  // in HUGEINT, where -2^63 % -1 does not overflow.
  modulo: (l, r, kind) => (kind === 'integer' ? `(CAST(${l} AS HUGEINT) % ${r})` : `(${l} % ${r})`),
  // The items as JSON text, read as a list of text and cast to the column's type.
  listParameter: (values) => JSON.stringify(values.map((v) => (v === 'INF' ? 'Infinity' : v === '-INF' ? '-Infinity' : String(v)))),
  inList: (column, p, kind) => `${column} IN (SELECT unnest(CAST(from_json(${p}, '["VARCHAR"]') AS ${TYPES[kind]}[])))`,
  rounding: (name, x) => doubleRounding(duckdb, name, x),
  decimalDivide: (l, r) => `(CAST(${l} AS DOUBLE) / ${r})`,
  double: (e) => `CAST(${e} AS DOUBLE)`,
  truncate: (e) => `trunc(${e})`,
  // `/` divides in floating point; `//` truncates.
  integerDivide: (l, r) => `(${l} // ${r})`,
  parameter: (value, kind) => {
    // Numbers travel as text, cast by their placeholder: the driver would bind an integral double
    // (1.7976931348623157e308) as a BIGINT and a bigint beyond 64 bits not at all. An integer
    // (the Int64 guard's bounds) is read as a HUGEINT, exactly (see typedPlaceholder), unless it is
    // wider than a HUGEINT (a folded Double such as 1.7976931348623157e308 as a Decimal): a DOUBLE.
    if ((kind === 'decimal' || kind === 'double') && value !== null) {
      const text = typeof value === 'number' ? String(value) : String(exactText(value, 'decimal'));
      return text === 'INF' ? 'Infinity' : text === '-INF' ? '-Infinity' : text;
    }
    // A Date compared as a DateTimeOffset is midnight UTC.
    if (kind === 'timestamp') return utcDateTime(typeof value === 'string' && /^-?\d{4,}-\d\d-\d\d$/.test(value) ? `${value}T00:00:00Z` : value);
    if (kind === 'interval') return intervalText(value);
    // The driver binds a JavaScript bigint as a BIGINT only: integers travel as text, cast by the placeholder.
    return typeof value === 'bigint' ? String(value) : exactText(value, kind);
  },
  typedPlaceholder: (p, kind, value) =>
    `CAST(${p} AS ${kind === 'decimal' && typeof value === 'string' && /^-?\d{16,38}$/.test(value) ? 'HUGEINT' : TYPES[kind]})`,
};
