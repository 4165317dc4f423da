/**
 * What differs between SQL dialects. The base compiler (`compiler.ts`) writes standard SQL and
 * asks the dialect for every difference: placeholders, identifier quoting, paging, null ordering,
 * string comparison, functions, JSON for `$expand`, date arithmetic. It never tests a dialect's
 * name. An optional hook a dialect leaves out is a capability it lacks: the compiler refuses what
 * needs it with `unsupported_feature`. A custom dialect is an object of this type (spread a
 * built-in one from `DIALECTS` and override what differs).
 */
import type { BoundSearch, DynamicRead } from '../../semantic/bound-ast.js';
import type { CheckedPattern } from '../../semantic/pattern-subset.js';
import type { ExpressionType } from '../../semantic/types.js';

/** The built-in dialects. */
export type DialectName = 'postgres' | 'mysql' | 'sqlite' | 'mssql' | 'duckdb';

export interface Dialect {
  /** A short name (the built-ins': `postgres`, `mysql`, `sqlite`, `mssql`, `duckdb`); shown to search hooks. */
  readonly name: DialectName | (string & {});
  /** The engine's name in messages (`PostgreSQL`, `SQL Server`). */
  readonly displayName: string;
  /**
   * Storage conventions (what `createTableSql` writes and the compiler assumes): the column type
   * of each EDM primitive type by its name (`Edm.Int32`), and of enumeration types (`enum`).
   */
  readonly columnTypes: Readonly<Record<string, string>>;
  /** The column type of a primitive collection of `element` (a column type): an array, or JSON text. */
  collectionColumnType(element: string): string;
  /**
   * The column type of a string of at most `maxLength` characters (a `MaxLength` facet, or a
   * key: an engine that cannot index unbounded text gets one here). Absent: `Edm.String`'s type.
   */
  boundedStringType?(maxLength: number): string;
  /**
   * The most bytes one index key may hold, and the bytes a character of a bounded string counts
   * for in it (MySQL/MariaDB InnoDB: 3 072 and 4 with utf8mb4; SQL Server: 900 and 2): a primary
   * key of several strings without `MaxLength` shares it (`createTableSql`). Absent: no such limit.
   */
  readonly indexKeyLimit?: { readonly bytes: number; readonly bytesPerCharacter: number };
  /** Written after `CREATE TABLE name (…)` (a character set and collation). */
  readonly tableOptions?: string;
  /**
   * Digits of a second that stored DateTimeOffset, TimeOfDay and Duration values keep (PostgreSQL
   * and MySQL/MariaDB 6, SQL Server 7; 12 where they are exact text): a finer literal is compared
   * exactly or refused (see `limitFraction`), never rounded by the database.
   */
  readonly fractionalSecondDigits: number;
  /**
   * The most parameters one statement may have: the engine's (or its driver's) limit, or lower.
   * A query that needs more is a `query_too_complex` error from `toSql`. Absent: no bound.
   */
  readonly maxParameters?: number;
  /** The placeholder of the n-th parameter (1-based): `$1`, `?`, `@p1`. */
  placeholder(index: number): string;
  /** A quoted identifier; quote characters inside are doubled (escaped). */
  quote(identifier: string): string;
  /** `LIMIT … OFFSET …` or `OFFSET … ROWS FETCH NEXT … ROWS ONLY` (top and skip are parameters). */
  paging(top: string | undefined, skip: string | undefined): string;
  /** Whether `ORDER BY x ASC` already puts nulls first and `DESC` last (otherwise NULLS FIRST/LAST is written). */
  readonly nullsFirstByDefault: boolean;
  /**
   * Null-safe equality: true when both sides are null. Each call of `left`/`right` compiles the
   * operand again (with its own parameters), for forms that need an operand twice.
   */
  notDistinct(left: () => string, right: () => string): string;
  /** A Boolean column (or value) as a condition: itself, or `(x <> 0)` where Booleans are 0/1. */
  booleanCondition(value: string): string;
  /**
   * `contains`/`startswith`/`endswith` compared exactly by code point, where `LIKE` cannot be
   * made to (SQLite's ignores ASCII case); without it the compiler uses {@link like}.
   */
  stringMatch?(name: 'contains' | 'startswith' | 'endswith', text: () => string, needle: () => string): string;
  /** Whether `text` contains `needle` ignoring case (the default `$search`), where not by `LIKE`. */
  containsIgnoringCase?(text: string, needle: string): string;
  /** `matchesPattern` with a pattern of the shared subset; `value` makes a parameter. Absent: no regular expressions. */
  matchesPattern?(text: string, pattern: CheckedPattern, value: (pattern: string) => string): string;
  /** `trim`: leading and trailing spaces removed. */
  trim(expression: string): string;
  /** `year` … `second` of a Date (`isDate`) or of a DateTimeOffset stored in UTC. */
  datePart(name: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', expression: string, isDate: boolean): string;
  /**
   * The sum (`+`) or difference (`-`) of two Duration keys (what {@link durationKey} gives), exact.
   * Absent where keys are not exact (SQLite's REAL seconds): duration arithmetic is unsupported.
   */
  durationSum?(left: string, right: string, operator: '+' | '-'): string;
  /** An integer as a Decimal (so that arithmetic on it is decimal, not the integer type's). */
  integerAsDecimal(expression: string): string;
  /** An integer as its decimal digits, a Date as `YYYY-MM-DD`, a Guid as lowercase text (for `cast(…, Edm.String)`). Absent: unsupported. */
  toText?(expression: string, kind: 'integer' | 'date' | 'guid'): string;
  /** `date`: the calendar day (an Edm.Date) of a DateTimeOffset stored in UTC. Absent: unsupported. */
  dateOf?(instant: string): string;
  /** `time`: the time of day (an Edm.TimeOfDay) of a DateTimeOffset stored in UTC. Absent: unsupported. */
  timeOf?(instant: string): string;
  /**
   * `fractionalseconds`: the fraction of the second (a Decimal from 0 to below 1) of a
   * DateTimeOffset stored in UTC, or of a TimeOfDay when `isTime`. Absent: unsupported.
   */
  fractionalSeconds?(value: string, isTime: boolean): string;
  /** `totalseconds`: a Duration as its (signed, fractional) number of seconds, a Decimal. Absent: unsupported. */
  totalSeconds?(duration: string): string;
  /**
   * The difference `later - earlier` of two instants as a Duration key (what {@link durationKey}
   * gives: an interval where durations are intervals, else seconds), exact to the microsecond.
   * Absent: unsupported (SQLite's date functions are not exact).
   */
  instantDifference?(later: string, earlier: string): string;
  /**
   * An instant moved by `micros` microseconds (`value` makes a parameter of a kind). Absent where
   * instants cannot be computed with (SQLite stores them as text).
   */
  shiftInstant?(column: string, micros: bigint, value: (value: unknown, kind: ParameterKind) => string): string;
  /**
   * The types integer arithmetic is computed in, one size wider than its operands (Int32 and
   * smaller in `int32`, Int64 in `int64`); absent where integers are already wide (SQLite).
   */
  readonly widerIntegers?: { readonly int32: string; readonly int64: string };
  /** The rows of a primitive collection column (stored as an array or JSON): a FROM item and its value. Absent: unsupported. */
  collectionElements?(column: string, alias: string, element: ExpressionType): { readonly source: string; readonly value: string };
  /**
   * Collections of complex values, each stored as one JSON array of objects (the elements in the
   * reference's JSON value form). Absent: such properties are not stored, and queries of them are
   * refused.
   */
  readonly complexCollections?: ComplexCollections;
  /**
   * `false` where a collection column's type is no CAST target (MySQL/MariaDB: `LONGTEXT`): a
   * branch of `concat` without the column gives a plain NULL, which the UNION types by the others.
   */
  readonly castsToCollectionType?: false;
  /**
   * Dynamic properties of open types, stored as members of one JSON object column per table
   * (storage/dynamic-properties.ts). Absent: queries that read one are refused.
   */
  readonly dynamicProperties?: DynamicPropertyHooks;
  /** Why the dialect has no {@link dynamicProperties} hook, for its refusals. */
  readonly noDynamicProperties?: string;
  /**
   * `$expand` of a single-valued navigation property: the JSON object of the related row (null
   * when there is none), as a scalar subquery over `rows`; `key` makes a parameter of a key.
   * Absent (with {@link expandMany}): `$expand` is unsupported.
   */
  expandOne?(rows: ExpandRows, key: (name: string) => string): string;
  /**
   * A JSON array of one object, of `entries` of the row at hand (no subquery): σ(x) of a hierarchy
   * node placed through a collection. Absent: {@link expandMany} over a table of one row.
   */
  rowArray?(entries: readonly JsonEntry[], key: (name: string) => string): string;
  /** `$expand` of a collection: the JSON array of the related rows' objects, in `order`, paged by `paging` (empty: no paging), `[]` for none. */
  expandMany?(rows: ExpandRows & { readonly order: () => string; readonly paging: string }, key: (name: string) => string): string;
  /**
   * The JSON array of the objects of a GROUP BY group's rows, in `order` (an aggregate; a `groupby`
   * ending in `nest`), and the empty array for a group without rows. Absent: such arrays are
   * correlated subqueries (`expandMany`).
   */
  readonly groupArray?: {
    array(entries: readonly JsonEntry[], order: string, key: (name: string) => string): string;
    readonly empty: string;
  };
  /**
   * Whether `=` on strings already means equal code points (deterministic default collation), so
   * equality and `in` can skip `binary()` and use a plain index on the column.
   */
  readonly binaryEquality: boolean;
  /**
   * `GROUP BY` of several grouping sets in one pass (`$apply`'s `rollup`): the GROUP BY clause of
   * `sets` (each a list of grouped expressions), and the bit mask of which of `expressions` a
   * row's set leaves out (the most significant bit the first), as SQL's `GROUPING(a, b, …)` gives
   * it. Absent: one `GROUP BY` per grouping set, their rows one after the other (`UNION ALL`).
   */
  readonly groupingSets?: {
    by(sets: readonly (readonly string[])[]): string;
    grouping(expressions: readonly string[]): string;
  };
  /**
   * `false` where a derived table (a SELECT in FROM) cannot see the columns of an outer query
   * (MariaDB: "Unknown column"), or where that is not tested (SQL Server): `$apply` inside
   * `$expand`, whose pipeline of derived tables reads the related rows of each expanded row, and
   * `from` in an aggregate inside `groupby` (derived tables over each group's rows) are then
   * refused. Absent: it can.
   */
  readonly correlatedDerivedTables?: false;
  /** Makes a string expression compare case-sensitively by code point. */
  binary(expression: string): string;
  /**
   * `MIN`/`MAX` of strings by code point, as a string (`$apply`'s min and max). Absent:
   * `MIN(binary(x))`, where {@link binary} keeps the value a string.
   */
  extremeText?(fn: 'MIN' | 'MAX', expression: string): string;
  /**
   * Where the engine's `SUM` of Doubles fails past the largest double (PostgreSQL, SQL Server) or
   * gives a wrong total (MariaDB: 0): `$apply`'s `sum` and `average` of Doubles are then summed so
   * that nothing overflows, a total beyond being INF (`infinity`) or null (`null`, where doubles
   * have no INF). Absent: `SUM` and `AVG` as they are (the engine's total is already INF).
   */
  readonly doubleSumOverflow?: 'infinity' | 'null';
  /**
   * The exact `SUM` of integers (`$apply`'s sum), to be checked against Int64's range by
   * {@link int64Guard}. Absent: `SUM(CAST(x AS widerIntegers.int64))`.
   */
  integerSum?(expression: string): string;
  /** `contains`/`startswith`/`endswith`: `kind` says where the (already escaped) pattern is anchored. */
  like(expression: string, pattern: string): string;
  /** Whether LIKE is case-sensitive in this dialect (else `like` uses another form). */
  readonly escapeChar: string;
  /** Number of code points of a string. */
  length(expression: string): string;
  /** Zero-based position of `search` in `text`, -1 when absent. */
  indexOf(text: string, search: string): string;
  /**
   * The characters of `text` from the one-based position `from` (1 to 2^31 - 1), optionally at
   * most `length` of them (0 to 2^31 - 1): the compiler clamps both, and handles negative starts.
   */
  substring(text: string, from: string, length?: string): string;
  /** The larger of two values (null when one is null). */
  greatest(left: string, right: string): string;
  /** The smaller of two values (null when one is null). */
  least(left: string, right: string): string;
  /**
   * `body` over the values of `expressions`, each computed once where the dialect can (a
   * correlated derived table); otherwise the expressions are repeated in the body.
   */
  withValues(expressions: readonly string[], body: (values: readonly string[]) => string): string;
  /**
   * `sql` (an integer computed one size wider), or null when it is outside Int64; `below` and
   * `above` are parameters holding -2^63 - 1 and 2^63.
   */
  int64Guard(sql: string, below: string, above: string): string;
  /**
   * A Duration as a value that compares and sorts as the duration: the interval itself where
   * durations are intervals, else the ISO 8601 text (`-P1DT2H3M4.5S`) read as seconds.
   */
  durationKey(expression: string): string;
  /** The negation of a Duration. */
  negateDuration(expression: string): string;
  /**
   * A long `in` list as one parameter: the parameter value holding the (converted, non-null)
   * items, and `column IN` the set it reads (`= ANY(CAST($1 AS type[]))`, `json_each`, `JSON_TABLE`,
   * `OPENJSON`).
   */
  listParameter(values: readonly unknown[], kind: ParameterKind): unknown;
  inList(column: string, placeholder: string, kind: ParameterKind): string;
  /**
   * A Double for `gt`/`ge`/`lt`/`le`: where NaN is a value greater than every other (PostgreSQL),
   * NaN as null, so that an order comparison with NaN is false as in the reference.
   */
  orderedDouble(expression: string): string;
  /**
   * A first order key for a Double where NaN sorts above every number (PostgreSQL), so that the
   * order is the reference's: null, NaN, then the numbers; `undefined` where doubles have no NaN.
   */
  nanOrderKey(expression: string): string | undefined;
  /** `round` (half away from zero), `floor` or `ceiling` of a Decimal, or of a Double when `double`. */
  rounding(name: 'round' | 'floor' | 'ceiling', expression: string, double: boolean): string;
  /** A Date compared as a DateTimeOffset (midnight UTC) where the stored forms differ. */
  dateAsInstant(expression: string): string;
  /** Decimal division (`divby`) of two numbers; `right` is not zero. */
  decimalDivide(left: string, right: string): string;
  /** A number as a double-precision float. */
  double(expression: string): string;
  /** An integral number (a Decimal or a Double, checked to be an Int64 first) as a 64-bit integer. */
  integer(expression: string): string;
  /** A double rounded toward zero (to an integer-valued double). */
  truncate(expression: string): string;
  /** The remainder of a truncating division (sign of the dividend) in `kind` arithmetic; `right` is not zero. */
  modulo(left: string, right: string, kind: 'integer' | 'decimal' | 'double'): string;
  /** String concatenation. */
  concat(left: string, right: string): string;
  /** Truncating integer division. */
  integerDivide(left: string, right: string): string;
  /**
   * Where NaN is a Double above every number (PostgreSQL): the condition that `expression` is below
   * NaN (a range an index serves), added to an order comparison with a number literal that NaN
   * would pass (`price gt 50`), instead of {@link orderedDouble}; `undefined` elsewhere.
   */
  readonly belowNaN?: (expression: string) => string;
  /** Where doubles can be NaN: the condition that `expression` is not NaN (true for NULL). */
  readonly notNaN?: (expression: string) => string;
  /** `true`/`false` as SQL values. */
  booleanLiteral(value: boolean): string;
  /**
   * A condition (TRUE, FALSE or NULL exactly as OData's Boolean value) as a value in a select
   * list or a comparison: the condition itself where predicates are values, else a CASE.
   * `definite`: the condition is never NULL (a comparison), so it may be written once.
   */
  booleanValue(condition: string, definite: boolean): string;
  /** A parameter value as the driver should receive it. */
  parameter(value: unknown, kind: ParameterKind): unknown;
  /** Cast of a parameter placeholder to the column type, where the driver needs it; `value` is the parameter, when the placeholder is one. */
  typedPlaceholder(placeholder: string, kind: ParameterKind, value?: unknown): string;
  /** A primitive collection column, or a collection of complex values' JSON column, as a JSON array inside a JSON object (not as the text it is stored in). */
  jsonCollection(column: string): string;
  /**
   * Spatial types and the geo functions (`geo.distance`, `geo.length`, `geo.intersects`), where the
   * engine has them (PostGIS, MariaDB). Absent: spatial properties have no column type in
   * `createTableSql`, are read as the column gives them (GeoJSON or WKT text), and the geo functions
   * are refused (`unsupported_feature`).
   */
  readonly spatial?: SpatialHooks;
  /** Why the dialect has no {@link spatial} hook, for its refusals and the capability table (default: no spatial types). */
  readonly noSpatial?: string;
  /**
   * Recursive common table expressions, for the hierarchical transformations of `$apply`
   * (`ancestors`, `descendants`, `traverse`); absent: they are refused, `noHierarchy` saying why.
   */
  readonly hierarchy?: HierarchyHooks;
  readonly noHierarchy?: string;
}

/** What the hierarchical transformations need of a dialect (backends/sql/hierarchy.ts). */
export interface HierarchyHooks {
  /** What follows `WITH` when a common table expression of the list is recursive (`RECURSIVE `, or nothing). */
  readonly recursive: string;
  /** A positive integer below 10^10 as text of ten digits, zero-padded (a sibling rank in a sort path). */
  rankText(rank: string): string;
  /** The anchor's sort path as text long enough for the recursive rows' (where a recursive table's column types come from its anchor). */
  widePath?(path: string): string;
  /** ORDER BY items of a sort path, where the engine sorts by a prefix of long text only (their last one takes the direction). */
  orderByPath?(path: string): string;
  /**
   * A node identifier of Edm type `type` in a column of a recursive table that both the node's key
   * column and a parent foreign key column fill, where their declared types differ (`VARCHAR(255)`
   * and `TEXT`) and the engine wants the recursive rows' type to be the anchor's: both as one type.
   */
  nodeValue?(value: string, type: string): string;
  /**
   * Arrays of node identifiers, for `rolluprecursive`: the walk down from the roots carries each
   * node's path from its root, whose elements are the portions it is in (one walk instead of a
   * walk down and one up). Absent: the two walks.
   */
  readonly paths?: PathHooks;
}

/** A dialect's arrays of node identifiers (HierarchyHooks.paths). */
export interface PathHooks {
  /** An array of the one node identifier `id`. */
  start(id: string): string;
  /** The array `path` with `id` appended. */
  append(path: string, id: string): string;
  /**
   * An item of a SELECT list that gives the row a row per element of `path` (a set-returning
   * function: planners estimate its groups as a column's of unknown values, where a lateral
   * function's are the ten rows they assume per call, which made PostgreSQL join the groups to
   * their nodes by 10 000 index probes).
   */
  elements(path: string): string;
}

/** The family of a spatial type: `Edm.Geography…` (on the sphere) or `Edm.Geometry…` (in the plane). */
export type SpatialFamily = 'geography' | 'geometry';

/**
 * A dialect's spatial SQL. Values are GeoJSON in OData (src/reference/geo.ts); the compiler passes
 * a literal as its OGC WKT text and SRID, both parameters, and reads columns back as GeoJSON text.
 */
export interface SpatialHooks {
  /**
   * The column type of a spatial property: `kind` is the EDM type's suffix (`Point`, `LineString`,
   * `Polygon`, `MultiPoint`, `MultiLineString`, `MultiPolygon`, `Collection`; `''` for any).
   */
  columnType(family: SpatialFamily, kind: string, srid: number): string;
  /** A spatial value from OGC WKT text and an SRID (both SQL: parameters). */
  fromText(family: SpatialFamily, wkt: string, srid: string): string;
  /**
   * A spatial value (a column) as GeoJSON text, for reading back: with a named `crs` (`EPSG:<srid>`)
   * where the engine writes one, else the value reads as of its family's default SRID.
   */
  asGeoJson(family: SpatialFamily, value: string): string;
  /** `geo.distance` of two points: metres on the sphere of radius `radius` (a parameter) for geography, planar for geometry. */
  distance(family: SpatialFamily, a: string, b: string, radius: () => string): string;
  /** `geo.length` of a line string (each use of `line` compiles it again): metres on the sphere for geography, planar for geometry. */
  length(family: SpatialFamily, line: () => string, radius: () => string): string;
  /** `geo.intersects(point, polygon)`: a condition, the boundary included. */
  intersects(family: SpatialFamily, point: string, polygon: string): string;
}

/**
 * How a dialect stores and reads collections of complex values as JSON (`complexCollections`):
 * the elements of a JSON array as rows, members of an element by their path of property names
 * (names from the model, checked by {@link jsonPathNames}), and a primitive member as a value
 * stored the way a column of its type stores it, so that comparisons, functions and parameters
 * treat it as they treat that column.
 */
export interface ComplexCollections {
  /** The column type of such a collection (`jsonb`, `JSON`, `TEXT`). */
  readonly columnType: string;
  /**
   * The elements of a JSON array (a column, or a member of an element): a FROM item named `alias`,
   * each element's JSON (`element`), and the element read as a primitive value (`atom`, for arrays
   * of primitives inside an element), as {@link member} reads one.
   */
  elements(array: string, alias: string): { readonly source: string; readonly element: string; readonly atom: string };
  /**
   * The elements of a JSON array with their positions (`ordinal`, increasing in array order), for
   * options on a `$select` item (semantic/select-options.ts: sorted, paged). Absent: refused.
   */
  numbered?(array: string, alias: string): { readonly source: string; readonly element: string; readonly ordinal: string };
  /** The JSON (an object or array) at `path` in `element`; SQL NULL where it is absent or JSON null. */
  json(element: string, path: readonly string[]): string;
  /** The primitive at `path` in `element` as the dialect reads it (text, or a number); SQL NULL where absent or JSON null. */
  member(element: string, path: readonly string[]): string;
  /**
   * A primitive read by {@link member} (or an `atom`) as a value of `type`, stored as its column
   * would be; a string (the reason) where this dialect cannot compare that type exactly in JSON.
   */
  typed(raw: string, type: ExpressionType): { readonly sql: string } | { readonly refused: string };
}

/**
 * How a dialect reads dynamic properties of open types from their JSON object column
 * (`dynamicProperties`; semantics in semantic/dynamic-values.ts). A property's name comes from the
 * request, so it only ever enters SQL as a parameter (what {@link key} makes of it).
 */
export interface DynamicPropertyHooks {
  /** The column type of the JSON object (`jsonb`, `JSON`, `TEXT`). */
  readonly columnType: string;
  /** The parameter value that names the member `name` (the name itself, or a JSON path with the name quoted and escaped). */
  key(name: string): string;
  /**
   * The member of the JSON object `column` that the parameter `key` names (each call of `key`
   * makes the parameter again, for forms that need it twice): with `read`, the value as a column
   * of that type stores it, SQL NULL where its JSON type is another; without, its JSON text
   * (compared by code point), SQL NULL where it is absent or JSON null.
   */
  member(column: string, key: () => string, read: DynamicRead | undefined): string;
  /**
   * The JSON value of a member's JSON text (what `member` gives without `read`), as a member of the
   * dialect's JSON objects: a dynamic property in the rows of `nest`, `addnested` or `$apply`
   * inside `$expand`. Absent: the JSON text itself (a string there).
   */
  asJson?(text: string): string;
}

/**
 * One member of an expanded row's JSON object: a property (`path` into complex values), a
 * collection stored as JSON or an array (`collection`: primitive, or of complex values), or a
 * nested expansion's JSON.
 */
export interface JsonEntry {
  readonly path: readonly string[];
  readonly value: string;
  readonly kind: 'value' | 'collection' | 'json';
}

/** The related rows of an expansion: their JSON entries, `FROM` item(s) and `WHERE` condition. */
export interface ExpandRows {
  readonly entries: readonly JsonEntry[];
  readonly from: string;
  readonly where: string;
}

/** The kind of a parameter value, for typed placeholders and driver conversion. */
/** `rowCount`: a $top or $skip (0 to 2^53 - 1), a plain number that LIMIT accepts in every dialect. */
export type ParameterKind =
  'rowCount' | 'string' | 'integer' | 'bigint' | 'decimal' | 'double' | 'boolean' | 'guid' | 'date' | 'timestamp' | 'time' | 'interval' | 'enum';

/** Builds the SQL condition of a `$search`; `column` and `value` keep identifiers quoted and values parameters. */
export type SqlSearchHook = (
  search: BoundSearch,
  helpers: { readonly dialect: Dialect['name']; column(property: string): string; value(value: string): string },
) => string;
