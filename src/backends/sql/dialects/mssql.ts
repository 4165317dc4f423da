/** SQL Server: `@p1` placeholders, `OFFSET … FETCH`, `FOR JSON PATH`, predicates that are not values. */
import type { Dialect, JsonEntry } from '../dialect.js';
import { ROUNDING, clampInt64, fitIdentifier, doubleRounding, exactText, inlineValues, isoDurationSeconds, jsonList, negateIsoText } from './common.js';

/** SQL Server's `FOR JSON PATH` select list: each entry under its dotted path, nested JSON through `JSON_QUERY`. */
const forJsonList = (entries: readonly JsonEntry[]): string =>
  entries.map((entry) => `${entry.kind === 'json' ? `JSON_QUERY(${entry.value})` : entry.value} AS [${entry.path.join('.').replaceAll(']', ']]')}]`).join(', ');

export const mssql: Dialect = {
  name: 'mssql',
  // No SQL Server engine here to check JSON_VALUE and OPENJSON type tests against the reference.
  noDynamicProperties: 'dynamic properties (no SQL Server engine here checks their JSON reads against the reference)',
  // Storage: durations ISO 8601 text, collections JSON text.
  columnTypes: {
    'Edm.String': 'NVARCHAR(MAX)',
    'Edm.Boolean': 'BIT',
    'Edm.Byte': 'TINYINT',
    'Edm.SByte': 'SMALLINT',
    'Edm.Int16': 'SMALLINT',
    'Edm.Int32': 'INT',
    'Edm.Int64': 'BIGINT',
    'Edm.Decimal': 'DECIMAL(38, 18)',
    'Edm.Double': 'FLOAT',
    'Edm.Single': 'REAL',
    'Edm.Guid': 'UNIQUEIDENTIFIER',
    'Edm.Binary': 'VARBINARY(MAX)',
    'Edm.Date': 'DATE',
    'Edm.DateTimeOffset': 'DATETIMEOFFSET(7)',
    'Edm.TimeOfDay': 'TIME(7)',
    'Edm.Duration': 'VARCHAR(64)',
    enum: 'NVARCHAR(255)',
  },
  collectionColumnType: () => 'NVARCHAR(MAX)',
  boundedStringType: (maxLength) => (maxLength <= 4000 ? `NVARCHAR(${maxLength})` : 'NVARCHAR(MAX)'),
  // A clustered index key's 900 bytes, NVARCHAR's 2 bytes a character.
  indexKeyLimit: { bytes: 900, bytesPerCharacter: 2 },
  fractionalSecondDigits: 7,
  jsonCollection: (column) => `JSON_QUERY(${column})`,
  doubleSumOverflow: 'null',
  // 2 100 per request, two of them sp_executesql's statement and parameter list.
  maxParameters: 2_098,
  placeholder: (index) => `@p${index}`,
  quote: (name) => {
    const fitted = fitIdentifier(name, 128);
    return fitted.includes(']') ? `[${fitted.replaceAll(']', ']]')}]` : `[${fitted}]`;
  },
  paging: (top, skip) => `OFFSET ${skip ?? '0'} ROWS${top === undefined ? '' : ` FETCH NEXT ${top} ROWS ONLY`}`,
  nullsFirstByDefault: true,
  displayName: 'SQL Server',
  // Its geography and geometry types exist, but no engine here runs them: refused rather than untested.
  noSpatial: 'not written (no SQL Server engine here to test it)',
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
  toText: (x, kind) =>
    kind === 'date' ? `CONVERT(NVARCHAR(10), ${x}, 23)` : kind === 'guid' ? `LOWER(CAST(${x} AS NVARCHAR(36)))` : `CAST(${x} AS NVARCHAR(20))`,
  integerAsDecimal: (x) => `CAST(${x} AS DECIMAL(38, 0))`,
  shiftInstant: (column, micros, value) =>
    `DATEADD(microsecond, ${value(Number(micros % 1_000_000n), 'integer')}, DATEADD(second, ${value(Number(micros / 1_000_000n), 'bigint')}, ${column}))`,
  widerIntegers: { int32: 'bigint', int64: 'DECIMAL(38, 0)' },
  // FOR JSON PATH over a select list: dotted aliases nest (`address.city`), JSON_QUERY keeps nested JSON from being escaped.
  expandOne: (rows) => `(SELECT ${forJsonList(rows.entries)} FROM ${rows.from} WHERE ${rows.where} FOR JSON PATH, WITHOUT_ARRAY_WRAPPER, INCLUDE_NULL_VALUES)`,
  // FOR JSON gives NULL for no rows; the spec's answer is an empty array.
  expandMany: (rows) =>
    `COALESCE((SELECT ${forJsonList(rows.entries)} FROM ${rows.from} WHERE ${rows.where} ORDER BY ${rows.order()}${rows.paging === '' ? '' : ` ${rows.paging}`} FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')`,
  noHierarchy:
    'hierarchical transformations (its recursive common table expressions stop at 100 levels unless the statement ends with OPTION (MAXRECURSION 0), and no SQL Server engine here tests them)',
  binaryEquality: false,
  // Not run here (no SQL Server in the tests): $apply inside $expand stays refused until it is.
  correlatedDerivedTables: false,
  binary: (e) => `${e} COLLATE Latin1_General_100_BIN2`,
  like: (e, p) => `${e} COLLATE Latin1_General_100_BIN2 LIKE ${p} ESCAPE '\\'`,
  escapeChar: '\\',
  length: (e) => `LEN(${e} + N'x') - 1`,
  // The database's collation usually ignores case: the text is searched by code units.
  indexOf: (t, s) => `(CHARINDEX(${s}, ${t} COLLATE Latin1_General_100_BIN2) - 1)`,
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
  durationKey: (e) =>
    isoDurationSeconds(
      e,
      { greatest: (l, r) => `(CASE WHEN ${l} > ${r} THEN ${l} ELSE ${r} END)`, double: (x) => `CAST(${x} AS DECIMAL(38, 12))`, withValues: inlineValues },
      (t, c) => `CHARINDEX(${c}, ${t})`,
      (t, f, n) => `SUBSTRING(${t}, ${f}, ${n})`,
    ),
  negateDuration: (e) =>
    negateIsoText(
      e,
      (l, r) => `(${l} + ${r})`,
      (t, f) => `SUBSTRING(${t}, ${f}, 64)`,
    ),
  decimalDivide: (l, r) => `(CAST(${l} AS DECIMAL(38, 18)) / ${r})`,
  double: (e) => `CAST(${e} AS float)`,
  integer: (e) => `CAST(${e} AS BIGINT)`,
  truncate: (e) => `ROUND(${e}, 0, 1)`,
  concat: (l, r) => `(${l} + ${r})`,
  integerDivide: (l, r) => `(${l} / ${r})`,
  booleanLiteral: (v) => (v ? '1' : '0'),
  // Predicates are not values in T-SQL.
  booleanValue: (c, definite) => (definite ? `(CASE WHEN ${c} THEN 1 ELSE 0 END)` : `(CASE WHEN ${c} THEN 1 WHEN NOT (${c}) THEN 0 END)`),
  parameter: (value, kind) => (typeof value === 'boolean' ? (value ? 1 : 0) : exactText(value, kind)),
  typedPlaceholder: (p) => p,
};
