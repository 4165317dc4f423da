/** MySQL and MariaDB: DATETIME(6) in UTC, bytes for exact string comparison, `JSON_TABLE`. */
import { ODataError } from '../../../errors/odata-error.js';
import type { ExpressionType } from '../../../semantic/types.js';
import type { Dialect, SpatialHooks } from '../dialect.js';
import {
  ROUNDING,
  clampInt64,
  doubleRounding,
  exactText,
  inlineValues,
  isoDurationSeconds,
  jsonList,
  jsonMemberType,
  jsonObjectOf,
  jsonPathLiteral,
  negateIsoText,
  upper,
  utcDateTime,
  fitIdentifier,
  jsonMemberPath,
} from './common.js';

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

/** The fraction digits of a decimal number's text (`1.50` → 2, `1.5e-3` → 4), 0 to 30 (MySQL's limit). */
function decimalScale(value: unknown): number {
  const match = /^[-+]?\d*(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(String(value));
  if (match === null) return 30;
  return Math.min(30, Math.max(0, (match[1]?.length ?? 0) - Number(match[2] ?? 0)));
}

/** The digits after the point a decimal number's text needs, trailing zeros left out (`1e-300` → 300, `1.50` → 1). */
function fractionDigits(value: unknown): number {
  const match = /^[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(String(value));
  if (match === null) return 0;
  const digits = `${match[1] ?? ''}${match[2] ?? ''}`.replace(/0+$/, '');
  if (/^0*$/.test(digits)) return 0;
  return Math.max(0, digits.length - (match[1]?.length ?? 0) - Number(match[3] ?? 0));
}

/** The digits before the point of a decimal number's text (`1.5e3` → 4, `0.01` → 0). */
function integerDigits(value: unknown): number {
  const match = /^[-+]?0*(\d*)(?:\.\d*)?(?:[eE]([-+]?\d+))?$/.exec(String(value));
  if (match === null) return 0;
  return Math.max(0, (match[1]?.length ?? 0) + Number(match[2] ?? 0));
}

/**
 * An ISO 8601 instant (`2024-01-01T00:30:00.5+01:00`, `…Z`) as the stored DATETIME(6) in UTC: the
 * local date and time cast, moved by the offset's minutes (CONVERT_TZ would refuse offsets beyond
 * +13:00, which ISO 8601 and OData allow up to ±14:00).
 */
const isoToUtcDateTime = (t: string): string => {
  const zulu = `RIGHT(${t}, 1) = 'Z'`;
  const zone = `RIGHT(${t}, 6)`;
  const minutes = `(CASE WHEN ${zulu} THEN 0 ELSE (CASE WHEN LEFT(${zone}, 1) = '-' THEN -1 ELSE 1 END) * (CAST(SUBSTRING(${zone}, 2, 2) AS SIGNED) * 60 + CAST(SUBSTRING(${zone}, 5, 2) AS SIGNED)) END)`;
  return `TIMESTAMPADD(MINUTE, -${minutes}, CAST(LEFT(${t}, CHAR_LENGTH(${t}) - (CASE WHEN ${zulu} THEN 1 ELSE 6 END)) AS DATETIME(6)))`;
};

/**
 * MariaDB's (and MySQL's) spatial types: one column type per kind, values with their SRID. Its
 * functions compute in the plane whatever the SRID, except `ST_Distance_Sphere`: geography
 * distances and lengths go through it, with the reference's radius; `geo.intersects` of geography
 * is planar in degrees (see DEVIATIONS).
 */
export const mariadbSpatial: SpatialHooks = {
  columnType: (_, kind) => (kind === '' ? 'GEOMETRY' : kind === 'Collection' ? 'GEOMETRYCOLLECTION' : kind.toUpperCase()),
  fromText: (_, wkt, srid) => `ST_GeomFromText(${wkt}, ${srid})`,
  // Up to 17 decimals (MariaDB's maximum that keeps a double's digits); the CRS added from the value's SRID.
  asGeoJson: (_, value) =>
    `JSON_INSERT(ST_AsGeoJSON(${value}, 17), '$.crs', JSON_OBJECT('type', 'name', 'properties', JSON_OBJECT('name', CONCAT('EPSG:', ST_SRID(${value})))))`,
  distance: (family, a, b, radius) => (family === 'geography' ? `ST_Distance_Sphere(${a}, ${b}, ${radius()})` : `ST_Distance(${a}, ${b})`),
  // Geography: the sphere distances of consecutive points (their ordinals from the GeoJSON's positions), 0 for one point.
  length: (family, line, radius) =>
    family === 'geography'
      ? `(CASE WHEN ${line()} IS NULL THEN NULL ELSE COALESCE((SELECT SUM(ST_Distance_Sphere(ST_PointN(${line()}, \`geo_n\`.\`n\`), ST_PointN(${line()}, \`geo_n\`.\`n\` + 1), ${radius()})) FROM JSON_TABLE(ST_AsGeoJSON(${line()}), '$.coordinates[*]' COLUMNS (\`n\` FOR ORDINALITY)) AS \`geo_n\` WHERE \`geo_n\`.\`n\` < ST_NumPoints(${line()})), 0) END)`
      : `ST_Length(${line()})`,
  intersects: (_, point, polygon) => `(ST_Intersects(${point}, ${polygon}) <> 0)`,
};

const mysqlObject = (pairs: readonly string[]): string => `JSON_OBJECT(${pairs.join(', ')})`;

const mysqlNumbers = { greatest: (l: string, r: string): string => `GREATEST(${l}, ${r})`, double: (e: string): string => `CAST(${e} AS DECIMAL(38, 12))` };

export const mysql: Dialect = {
  name: 'mysql',
  // Storage: instants DATETIME(6) in UTC, durations ISO 8601 text, collections JSON text; binary collation.
  columnTypes: {
    'Edm.String': 'LONGTEXT',
    'Edm.Boolean': 'BOOLEAN',
    'Edm.Byte': 'SMALLINT',
    'Edm.SByte': 'SMALLINT',
    'Edm.Int16': 'SMALLINT',
    'Edm.Int32': 'INT',
    'Edm.Int64': 'BIGINT',
    'Edm.Decimal': 'DECIMAL(38, 18)',
    'Edm.Double': 'DOUBLE',
    'Edm.Single': 'FLOAT',
    'Edm.Guid': 'CHAR(36)',
    'Edm.Binary': 'LONGBLOB',
    'Edm.Date': 'DATE',
    'Edm.DateTimeOffset': 'DATETIME(6)',
    'Edm.TimeOfDay': 'TIME(6)',
    'Edm.Duration': 'VARCHAR(64)',
    enum: 'VARCHAR(255)',
  },
  collectionColumnType: () => 'LONGTEXT',
  // An index (a key) needs a bounded VARCHAR: at most 3 072 bytes, 768 characters of utf8mb4.
  boundedStringType: (maxLength) => (maxLength <= 16_383 ? `VARCHAR(${maxLength})` : 'LONGTEXT'),
  // InnoDB's index key limit (DYNAMIC rows), utf8mb4's 4 bytes a character.
  indexKeyLimit: { bytes: 3072, bytesPerCharacter: 4 },
  // Collections of complex values as JSON text: elements through JSON_TABLE, members through
  // JSON_VALUE as text (MariaDB keeps a number's digits; true/false are 1/0), cast to the column types.
  castsToCollectionType: false,
  complexCollections: {
    columnType: 'LONGTEXT',
    elements: (array, alias) => ({
      source: `JSON_TABLE(${array}, '$[*]' COLUMNS (e JSON PATH '$')) ${alias}`,
      element: `${alias}.e`,
      atom: `JSON_VALUE(${alias}.e, '$')`,
    }),
    numbered: (array, alias) => ({
      source: `JSON_TABLE(${array}, '$[*]' COLUMNS (n FOR ORDINALITY, e JSON PATH '$')) ${alias}`,
      element: `${alias}.e`,
      ordinal: `${alias}.n`,
    }),
    json: (element, path) =>
      `(CASE WHEN JSON_TYPE(JSON_EXTRACT(${element}, ${jsonPathLiteral(path)})) <> 'NULL' THEN JSON_EXTRACT(${element}, ${jsonPathLiteral(path)}) END)`,
    member: (element, path) => `JSON_VALUE(${element}, ${jsonPathLiteral(path)})`,
    typed: (raw, type) => {
      const member = jsonMemberType(type);
      if ('refused' in member) return member;
      switch (member.name) {
        case 'Edm.Guid':
          return { sql: `LOWER(${raw})` };
        case 'Edm.DateTimeOffset':
          return { sql: isoToUtcDateTime(raw) };
        case 'Edm.Boolean':
          return { sql: `(CASE ${raw} WHEN 'true' THEN TRUE WHEN '1' THEN TRUE WHEN 'false' THEN FALSE WHEN '0' THEN FALSE END)` };
        case 'Edm.Decimal':
          return { sql: `CAST(${raw} AS DECIMAL(65, 30))` };
        case 'Edm.Double':
        case 'Edm.Single':
          // Doubles hold no INF or NaN here: the reference's JSON form of them is null.
          return { sql: `(CASE WHEN ${raw} IN ('INF', '-INF', 'NaN') THEN NULL ELSE CAST(${raw} AS DOUBLE) END)` };
        case 'Edm.Date':
          return { sql: `CAST(${raw} AS DATE)` };
        case 'Edm.TimeOfDay':
          return { sql: `CAST(${raw} AS TIME(6))` };
        case 'Edm.Duration':
          // ISO 8601 text, as Duration columns are here.
          return { sql: raw };
        case 'Edm.String':
        case 'enum':
          return { sql: raw };
        default:
          return { sql: `CAST(${raw} AS SIGNED)` };
      }
    },
  },
  tableOptions: 'CHARACTER SET utf8mb4 COLLATE utf8mb4_bin',
  fractionalSecondDigits: 6,
  jsonCollection: (column) => `JSON_EXTRACT(${column}, '$')`,
  doubleSumOverflow: 'null',
  // The protocol's prepared statement counts parameters in 16 bits.
  maxParameters: 65_535,
  placeholder: () => '?',
  // 64 characters at most (fitIdentifier counts UTF-8 bytes, which is stricter).
  quote: (name) => {
    const fitted = fitIdentifier(name, 64);
    return fitted.includes('`') ? `\`${fitted.replaceAll('`', '``')}\`` : `\`${fitted}\``;
  },
  paging: (top, skip) =>
    top === undefined && skip === undefined ? '' : `LIMIT ${top ?? '18446744073709551615'}${skip === undefined ? '' : ` OFFSET ${skip}`}`,
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
  toText: (x, kind) => (kind === 'date' ? `DATE_FORMAT(${x}, '%Y-%m-%d')` : kind === 'guid' ? `LOWER(${x})` : `CAST(${x} AS CHAR)`),
  integerAsDecimal: (x) => `CAST(${x} AS DECIMAL(65, 0))`,
  shiftInstant: (column, micros, value) => `DATE_ADD(${column}, INTERVAL ${value(micros, 'bigint')} MICROSECOND)`,
  widerIntegers: { int32: 'SIGNED', int64: 'DECIMAL(65, 0)' },
  collectionElements: (column, alias, element: ExpressionType) => ({
    source: `JSON_TABLE(${column}, '$[*]' COLUMNS (v ${jsonTableType(element)} PATH '$')) ${alias}`,
    value: `${alias}.v`,
  }),
  rowArray: (entries, key) => `JSON_ARRAY(JSON_EXTRACT(${jsonObjectOf(entries, mysqlObject, mysql.jsonCollection, key)}, '$'))`,
  // JSON_EXTRACT(…, '$'): nested JSON must reach the object builders as JSON, not as a string.
  expandOne: (rows, key) =>
    `JSON_EXTRACT((SELECT ${jsonObjectOf(rows.entries, mysqlObject, mysql.jsonCollection, key)} FROM ${rows.from} WHERE ${rows.where}), '$')`,
  groupArray: {
    array: (entries, order, key) =>
      `JSON_EXTRACT(JSON_ARRAYAGG(JSON_EXTRACT(${jsonObjectOf(entries, mysqlObject, mysql.jsonCollection, key)}, '$') ORDER BY ${order}), '$')`,
    empty: 'JSON_ARRAY()',
  },
  // MariaDB cannot correlate a derived table with the outer row: order and page inside JSON_ARRAYAGG.
  expandMany: (rows, key) => {
    const object = jsonObjectOf(rows.entries, mysqlObject, mysql.jsonCollection, key);
    const paging = rows.paging === '' ? '' : ` ${rows.paging}`;
    return `JSON_EXTRACT((SELECT COALESCE(JSON_ARRAYAGG(JSON_EXTRACT(${object}, '$') ORDER BY ${rows.order()}${paging}), JSON_ARRAY()) FROM ${rows.from} WHERE ${rows.where}), '$')`;
  },
  // The default collations ignore case, and the PAD SPACE ones (utf8mb4_bin too, on MariaDB) pad
  // with spaces: 'a' = 'a ' and '\t' < ''. Bytes (UTF-8, so code-point order) have neither.
  // A recursive table's columns are typed by its anchor: the sort path is widened (16 000 characters,
  // 1 600 levels), and sorted by pieces of 1 000 characters (the engines sort by the first
  // max_sort_length bytes of a text only, 1 024 by default).
  hierarchy: {
    recursive: 'RECURSIVE ',
    rankText: (rank) => `LPAD(${rank}, 10, '0')`,
    widePath: (path) => `CAST(${path} AS CHAR(16000))`,
    // max_sort_length (1024 bytes) cuts each sort key: chunks of 1000 digits, as bytes (in utf8mb4
    // a 1000-character key would be cut at about 256 characters, and deep paths tied).
    orderByPath: (path) => Array.from({ length: 16 }, (_, i) => `CAST(SUBSTRING(${path}, ${i * 1000 + 1}, 1000) AS BINARY)`).join(' ASC, '),
  },
  binaryEquality: false,
  correlatedDerivedTables: false,
  binary: (e) => `CAST(${e} AS BINARY)`,
  // The bytes of UTF-8 order as the code points do; the extreme is read back as text.
  extremeText: (fn, e) => `CONVERT(${fn}(CAST(${e} AS BINARY)) USING utf8mb4)`,
  like: (e, p) => `${e} COLLATE utf8mb4_bin LIKE ${p} ESCAPE '\\\\'`,
  escapeChar: '\\',
  length: (e) => `CHAR_LENGTH(${e})`,
  // Two texts that are not columns compare in the connection's collation, which ignores case.
  indexOf: (t, s) => `(INSTR(${t} COLLATE utf8mb4_bin, ${s}) - 1)`,
  substring: (t, from, length) => (length === undefined ? `SUBSTRING(${t}, ${from})` : `SUBSTRING(${t}, ${from}, ${length})`),
  greatest: (l, r) => `GREATEST(${l}, ${r})`,
  least: (l, r) => `LEAST(${l}, ${r})`,
  withValues: inlineValues,
  int64Guard: clampInt64,
  // A decimal remainder of zero can be a negative zero, which MariaDB orders below 0 and finds
  // unequal to it (-1 % -0.5); 0 + x normalizes it. Integers too: an Int64 computed in
  // DECIMAL(65, 0) gives -0 for -2147483648 % -2147483648 (seed 20261136).
  // (Cast, as a quotient is: compared with a double, MariaDB would take fmod of doubles.)
  modulo: (l, r, kind) => (kind === 'decimal' ? `(0 + CAST(${l} % ${r} AS DECIMAL(65, 30)))` : kind === 'integer' ? `(0 + (${l} % ${r}))` : `(${l} % ${r})`),
  listParameter: (values, kind) => jsonList(values, kind, '1e999'),
  inList: (column, p, kind) => {
    const type =
      kind === 'integer' || kind === 'bigint'
        ? 'BIGINT'
        : kind === 'decimal'
          ? 'DECIMAL(65, 30)'
          : kind === 'double'
            ? 'DOUBLE'
            : kind === 'boolean'
              ? 'BOOLEAN'
              : 'LONGTEXT CHARACTER SET utf8mb4';
    // Strings (and enum member names) compare by bytes, as the column side already does.
    const bytes = kind === 'string' || kind === 'enum';
    const value = bytes ? 'CAST(`_j`.`v` AS BINARY)' : '`_j`.`v`';
    const left = bytes && !column.startsWith('CAST(') ? `CAST(${column} AS BINARY)` : column;
    return `${left} IN (SELECT ${value} FROM JSON_TABLE(${p}, '$[*]' COLUMNS (\`v\` ${type} PATH '$')) AS \`_j\`)`;
  },
  // A Double's rounding cast back to DOUBLE: MariaDB types FLOOR/CEILING of a computed double after a
  // LEFT JOIN as a 17-digit integer, which made the largest doubles -1e17 (fuzz seed 20261128).
  rounding: (name, x, double) => (double ? `CAST(${doubleRounding(mysql, name, x)} AS DOUBLE)` : `${ROUNDING[name]}(CAST(${x} AS DECIMAL(65, 30)))`),
  orderedDouble: (e) => e,
  nanOrderKey: () => undefined,
  dateAsInstant: (e) => e,
  durationKey: (e) =>
    isoDurationSeconds(
      e,
      { ...mysqlNumbers, withValues: inlineValues },
      (t, c) => `INSTR(${t}, ${c})`,
      (t, f, n) => `SUBSTRING(${t}, ${f}, ${n})`,
    ),
  negateDuration: (e) =>
    negateIsoText(
      e,
      (l, r) => `CONCAT(${l}, ${r})`,
      (t, f) => `SUBSTRING(${t}, ${f})`,
    ),
  // 24 digits after the point and div_precision_increment's 4 give the reference's 28 (rounded half
  // away from zero, as the reference does), with 41 digits before the point.
  // Cast to DECIMAL(65, 28): compared with a double, MariaDB would divide in floating point, not
  // round to 28 digits; 0 + x: a quotient rounded to zero can be a negative zero, less than 0.
  decimalDivide: (l, r) => `(0 + CAST(CAST(${l} AS DECIMAL(65, 24)) / ${r} AS DECIMAL(65, 28)))`,
  double: (e) => `CAST(${e} AS DOUBLE)`,
  integer: (e) => `CAST(${e} AS SIGNED)`,
  truncate: (e) => `TRUNCATE(${e}, 0)`,
  concat: (l, r) => `CONCAT(${l}, ${r})`,
  // DIV fails beyond BIGINT (-2^63 DIV -1): a decimal quotient truncated (30 decimals cannot round up to the next integer).
  integerDivide: (l, r) => `TRUNCATE(CAST(${l} AS DECIMAL(65, 30)) / ${r}, 0)`,
  // Dynamic properties in a JSON object (MariaDB: LONGTEXT checked as JSON), the member named by a
  // JSON path parameter; JSON_TYPE says 'NULL' for JSON null, JSON_VALUE gives a scalar's text.
  dynamicProperties: {
    columnType: 'JSON',
    key: jsonMemberPath,
    asJson: (text) => `JSON_EXTRACT(${text}, '$')`,
    member: (column, key, read) => {
      const type = (): string => `JSON_TYPE(JSON_EXTRACT(${column}, ${key()}))`;
      const value = (): string => `JSON_VALUE(${column}, ${key()})`;
      switch (read) {
        case undefined:
          return `(CASE WHEN ${type()} <> 'NULL' THEN CAST(JSON_EXTRACT(${column}, ${key()}) AS CHAR CHARACTER SET utf8mb4) COLLATE utf8mb4_bin END)`;
        case 'Edm.String':
          return `(CASE WHEN ${type()} = 'STRING' THEN ${value()} END)`;
        case 'Edm.Double':
          return `(CASE WHEN ${type()} IN ('INTEGER', 'UNSIGNED INTEGER', 'DOUBLE', 'DECIMAL') THEN CAST(${value()} AS DOUBLE) END)`;
        case 'Edm.Boolean':
          // MariaDB's JSON_VALUE of true is '1', MySQL's 'true'.
          return `(CASE WHEN ${type()} = 'BOOLEAN' THEN ${value()} IN ('true', '1') END)`;
      }
    },
  },
  booleanLiteral: (v) => (v ? 'TRUE' : 'FALSE'),
  booleanValue: (c) => `(${c})`,
  parameter: (value, kind) => {
    // MySQL/MariaDB doubles hold no INF or NaN (the driver would write them as bare words).
    if (
      (kind === 'double' || kind === 'decimal') &&
      (value === 'INF' || value === '-INF' || value === 'NaN' || (typeof value === 'number' && !Number.isFinite(value)))
    ) {
      throw new ODataError({ code: 'unsupported_feature', reason: 'MySQL and MariaDB have no INF or NaN values', appendLocation: false });
    }
    // A DECIMAL holds 65 digits: a wider Decimal value (`cast(-1.7976931348623157e308,Edm.Decimal)`)
    // would saturate to 65 nines (seed 20261136); it is refused instead.
    if (kind === 'decimal' && value !== null && integerDigits(value) + decimalScale(value) > 65) {
      throw new ODataError({ code: 'unsupported_feature', reason: 'MySQL and MariaDB hold at most 65 digits of a Decimal', appendLocation: false });
    }
    // And 30 after the point: a value with more (`cast(1e-300,Edm.Decimal)`) would be rounded (to 0).
    if (kind === 'decimal' && value !== null && fractionDigits(value) > 30) {
      throw new ODataError({
        code: 'unsupported_feature',
        reason: 'MySQL and MariaDB hold at most 30 digits after the point of a Decimal',
        appendLocation: false,
      });
    }
    if (kind === 'guid' && typeof value === 'string') return value.toLowerCase();
    if (kind === 'timestamp') return utcDateTime(value);
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
  spatial: mariadbSpatial,
};
