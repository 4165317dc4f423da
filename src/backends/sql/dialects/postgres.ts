/** PostgreSQL (and PGlite): arrays, intervals, `json_build_object`, typed placeholders (`$1::numeric`). */
import type { ComplexCollections, Dialect, ParameterKind, SpatialHooks } from '../dialect.js';
import {
  ROUNDING,
  clampInt64,
  derivedValues,
  doubleQuote,
  doubleRounding,
  GROUPING_SETS,
  exactText,
  intervalText,
  jsonMemberType,
  jsonObjectOf,
  jsonPathNames,
  numberedRows,
  rejectNul,
  upper,
  fitIdentifier,
} from './common.js';

/** The PostgreSQL type of each parameter kind: placeholders are cast to it (`$1::numeric`), long in-lists to its array. */
const PG_TYPES: Readonly<Record<ParameterKind, string>> = {
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

/** A path as a text array literal (`'{"City","Name"}'`), for `#>` and `#>>`. */
const textArray = (path: readonly string[]): string =>
  `'{${jsonPathNames(path)
    .map((name) => `"${name}"`)
    .join(',')}}'`;

/**
 * Collections of complex values as `jsonb` arrays: elements through `jsonb_array_elements`,
 * members through `#>>` as text, cast to their column types (`types()`: numeric is exact, text
 * compares by code point with COLLATE "C" as columns do); `instant` reads an ISO 8601 instant.
 */
export const postgresComplexCollections = (types: () => Readonly<Record<string, string>>, instant: (text: string) => string): ComplexCollections => ({
  columnType: 'jsonb',
  elements: (array, alias) => ({
    source: `jsonb_array_elements(CAST(${array} AS jsonb)) AS ${alias}(e)`,
    element: `${alias}.e`,
    atom: `(${alias}.e #>> '{}')`,
  }),
  numbered: (array, alias) => ({
    source: `jsonb_array_elements(CAST(${array} AS jsonb)) WITH ORDINALITY AS ${alias}(e, n)`,
    element: `${alias}.e`,
    ordinal: `${alias}.n`,
  }),
  json: (element, path) => `NULLIF(${element} #> ${textArray(path)}, 'null'::jsonb)`,
  member: (element, path) => `(${element} #>> ${textArray(path)})`,
  typed: (raw, type) => {
    const member = jsonMemberType(type);
    if ('refused' in member) return member;
    switch (member.name) {
      case 'Edm.String':
      case 'enum':
        return { sql: raw };
      case 'Edm.DateTimeOffset':
        return { sql: instant(raw) };
      case 'Edm.Duration':
        // An interval reads ISO 8601 durations, but not a negative one ('-P1D').
        return { sql: `(CASE WHEN LEFT(${raw}, 1) = '-' THEN -CAST(SUBSTR(${raw}, 2) AS interval) ELSE CAST(${raw} AS interval) END)` };
      case 'Edm.Double':
      case 'Edm.Single':
        // The reference's JSON form of the non-finite doubles.
        return { sql: `CAST((CASE ${raw} WHEN 'INF' THEN 'Infinity' WHEN '-INF' THEN '-Infinity' ELSE ${raw} END) AS ${types()[member.name]})` };
      default:
        return { sql: `CAST(${raw} AS ${types()[member.name]})` };
    }
  },
});

/** The PostGIS type modifier of an EDM spatial kind (`Collection` → GeometryCollection, any → Geometry). */
const postgisKind = (kind: string): string => (kind === '' ? 'Geometry' : kind === 'Collection' ? 'GeometryCollection' : kind);

/**
 * PostGIS (`CREATE EXTENSION postgis`): `geography`/`geometry` columns typed by kind and SRID,
 * geography on PostGIS's sphere (`use_spheroid = false`: the mean radius (2a + b) / 3 of the
 * SRID's ellipsoid, the reference's for 4326), read back as GeoJSON with a short CRS.
 */
export const postgisSpatial: SpatialHooks = {
  columnType: (family, kind, srid) => `${family}(${postgisKind(kind)}, ${srid})`,
  fromText: (family, wkt, srid) => (family === 'geography' ? `CAST(ST_GeomFromText(${wkt}, ${srid}) AS geography)` : `ST_GeomFromText(${wkt}, ${srid})`),
  // Up to 17 decimals: PostGIS writes the shortest digits that read back as the stored double.
  asGeoJson: (_, value) => `ST_AsGeoJSON(${value}, 17, 2)`,
  distance: (family, a, b) => (family === 'geography' ? `ST_Distance(${a}, ${b}, false)` : `ST_Distance(${a}, ${b})`),
  length: (family, line) => (family === 'geography' ? `ST_Length(${line()}, false)` : `ST_Length(${line()})`),
  intersects: (_, point, polygon) => `ST_Intersects(${point}, ${polygon})`,
};

const postgresObject = (pairs: readonly string[]): string => `json_build_object(${pairs.join(', ')})`;

export const postgres: Dialect = {
  name: 'postgres',
  // Storage: primitive collections are arrays.
  columnTypes: {
    'Edm.String': 'text',
    'Edm.Boolean': 'boolean',
    'Edm.Byte': 'smallint',
    'Edm.SByte': 'smallint',
    'Edm.Int16': 'smallint',
    'Edm.Int32': 'integer',
    'Edm.Int64': 'bigint',
    'Edm.Decimal': 'numeric',
    'Edm.Double': 'double precision',
    'Edm.Single': 'real',
    'Edm.Guid': 'uuid',
    'Edm.Binary': 'bytea',
    'Edm.Date': 'date',
    'Edm.DateTimeOffset': 'timestamptz',
    'Edm.TimeOfDay': 'time',
    'Edm.Duration': 'interval',
    enum: 'text',
  },
  collectionColumnType: (element) => `${element}[]`,
  boundedStringType: (maxLength) => `varchar(${maxLength})`,
  fractionalSecondDigits: 6,
  complexCollections: postgresComplexCollections(
    () => postgres.columnTypes,
    (text) => `CAST(${text} AS timestamptz)`,
  ),
  // Arrays are JSON arrays in json_build_object already.
  jsonCollection: (column) => column,
  groupingSets: GROUPING_SETS,
  doubleSumOverflow: 'infinity',
  // The protocol's Bind message counts parameters in 16 bits.
  maxParameters: 65_535,
  placeholder: (index) => `$${index}`,
  // NAMEDATALEN - 1: PostgreSQL cuts longer identifiers (see fitIdentifier).
  quote: (name) => doubleQuote(fitIdentifier(name, 63)),
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
  toText: (x, kind) => (kind === 'date' ? `to_char(${x}, 'YYYY-MM-DD')` : `CAST(${x} AS text)`), // a uuid as lowercase text
  integerAsDecimal: (x) => `CAST(${x} AS numeric)`,
  shiftInstant: (column, micros, value) => `(${column} + ${value(`${micros} microseconds`, 'interval')})`,
  widerIntegers: { int32: 'bigint', int64: 'numeric' },
  collectionElements: (column, alias) => ({ source: `unnest(${column}) AS ${alias}(v)`, value: `${alias}.v` }),
  rowArray: (entries, key) => `json_build_array(${jsonObjectOf(entries, postgresObject, postgres.jsonCollection, key)})`,
  expandOne: (rows, key) => `(SELECT ${jsonObjectOf(rows.entries, postgresObject, postgres.jsonCollection, key)} FROM ${rows.from} WHERE ${rows.where})`,
  groupArray: {
    array: (entries, order, key) => `json_agg(${jsonObjectOf(entries, postgresObject, postgres.jsonCollection, key)} ORDER BY ${order})`,
    empty: `'[]'::json`,
  },
  expandMany: (rows, key) =>
    `(SELECT COALESCE(json_agg(sub.o ORDER BY sub.n), '[]'::json) FROM (${numberedRows(rows, jsonObjectOf(rows.entries, postgresObject, postgres.jsonCollection, key))}) sub)`,
  // Deterministic collations (every built-in one) compare equal only on equal bytes.
  hierarchy: {
    recursive: 'RECURSIVE ',
    rankText: (rank) => `LPAD(CAST(${rank} AS TEXT), 10, '0')`,
    // A key's VARCHAR(255) or NUMERIC(p,s) beside a foreign key's TEXT or NUMERIC: their types without modifiers.
    nodeValue: (value, type) => (type === 'Edm.String' ? `CAST(${value} AS TEXT)` : type === 'Edm.Decimal' ? `CAST(${value} AS NUMERIC)` : value),
    paths: {
      start: (id) => `ARRAY[${id}]`,
      append: (path, id) => `array_append(${path}, ${id})`,
      elements: (path) => `unnest(${path})`,
    },
  },
  binaryEquality: true,
  binary: (e) => `${e} COLLATE "C"`,
  like: (e, p) => `${e} LIKE ${p} ESCAPE '\\'`,
  escapeChar: '\\',
  length: (e) => `char_length(${e})`,
  indexOf: (t, s) => `(strpos(${t}, ${s}) - 1)`,
  // substr takes integer positions: the compiler has clamped them to 32 bits.
  substring: (t, from, length) =>
    length === undefined ? `substr(${t}, CAST(${from} AS integer))` : `substr(${t}, CAST(${from} AS integer), CAST(${length} AS integer))`,
  // GREATEST/LEAST ignore nulls here: null when one is null.
  greatest: (l, r) => `(CASE WHEN ${l} IS NULL OR ${r} IS NULL THEN NULL ELSE GREATEST(${l}, ${r}) END)`,
  least: (l, r) => `(CASE WHEN ${l} IS NULL OR ${r} IS NULL THEN NULL ELSE LEAST(${l}, ${r}) END)`,
  withValues: derivedValues,
  int64Guard: clampInt64,
  modulo: (l, r) => `mod(${l}, ${r})`,
  listParameter: (values) =>
    `{${values
      .map(
        (v) =>
          `"${String(v === 'INF' ? 'Infinity' : v === '-INF' ? '-Infinity' : v)
            .replaceAll('\\', '\\\\')
            .replaceAll('"', '\\"')}"`,
      )
      .join(',')}}`,
  inList: (column, p, kind) => `${column} = ANY(CAST(${p} AS ${PG_TYPES[kind]}[]))`,
  durationKey: (e) => e,
  orderedDouble: (e) => `NULLIF(${e}, CAST('NaN' AS double precision))`,
  rounding: (name, x, double) => (double ? doubleRounding(postgres, name, x) : `${ROUNDING[name]}(CAST(${x} AS numeric))`),
  nanOrderKey: (e) => `(CASE WHEN ${e} IS NULL THEN 0 WHEN ${e} = CAST('NaN' AS double precision) THEN 1 ELSE 2 END)`,
  belowNaN: (e) => `${e} < CAST('NaN' AS double precision)`,
  notNaN: (e) => `(${e} IS NULL OR ${e} <> CAST('NaN' AS double precision))`,
  dateAsInstant: (e) => e,
  negateDuration: (e) => `(-${e})`,
  // The reference's quotient: 28 digits after the point, rounded half away from zero. A dividend
  // with 28 digits after the point makes PostgreSQL divide to at least 28 (it chooses fewer for 2/3).
  decimalDivide: (l, r) => `ROUND((CAST(${l} AS numeric) + 0.0000000000000000000000000000) / ${r}, 28)`,
  double: (e) => `CAST(${e} AS double precision)`,
  integer: (e) => `CAST(${e} AS BIGINT)`,
  truncate: (e) => `trunc(${e})`,
  concat: (l, r) => `(${l} || ${r})`,
  // div() truncates also when an operand is numeric (widened Int64 arithmetic).
  integerDivide: (l, r) => `div(${l}, ${r})`,
  // Dynamic properties in a jsonb object, the member named by a text parameter (`->` never reads it as a path).
  dynamicProperties: {
    columnType: 'jsonb',
    key: (name) => name,
    asJson: (text) => `CAST(${text} AS json)`,
    member: (column, key, read) => {
      const typed = (json: string, sql: string): string => `(CASE WHEN jsonb_typeof(${column} -> CAST(${key()} AS text)) = '${json}' THEN ${sql} END)`;
      const text = (): string => `${column} ->> CAST(${key()} AS text)`;
      switch (read) {
        case undefined:
          return `(NULLIF(${column} -> CAST(${key()} AS text), 'null'::jsonb))::text`;
        case 'Edm.String':
          return typed('string', text());
        case 'Edm.Double':
          return typed('number', `CAST(${text()} AS double precision)`);
        case 'Edm.Boolean':
          return typed('boolean', `CAST(${text()} AS boolean)`);
      }
    },
  },
  booleanLiteral: (v) => (v ? 'TRUE' : 'FALSE'),
  booleanValue: (c) => `(${c})`,
  parameter: (value, kind) => {
    // PostgreSQL text cannot hold NUL: refuse the value as bad input rather than fail in the database.
    rejectNul(value, 'PostgreSQL');
    if (kind === 'interval') return intervalText(value);
    return exactText(value, kind);
  },
  typedPlaceholder: (p, kind) => `${p}::${PG_TYPES[kind]}`,
  // PostGIS; an engine without it (PGlite) takes `{ ...DIALECTS.postgres, spatial: undefined }`.
  spatial: postgisSpatial,
};
