/**
 * `readSqlRows`: the rows a `toSql` statement returns (keyed `c0, c1, …` and `e0, …`, in the
 * driver's types) as OData JSON records: properties by name, complex values nested again from
 * their flattened columns, expansions parsed from JSON text (or the driver's JSON values) and
 * typed as well, counts as numbers.
 */
import type { BoundQuery } from '../../semantic/bound-ast.js';
import { groupedDynamic } from '../../semantic/dynamic-values.js';
import { jsonRecord, readJson, type JsonValueOptions } from '../../responses/json-values.js';
import type { SqlQuery } from './to-sql.js';

/** A result row as the driver gives it: column alias → value. */
export type SqlRow = Readonly<Record<string, unknown>>;

/** What reading rows needs of a compiled query: its columns, expansions, computed properties and presence column. */
export type ReadableSql = Pick<SqlQuery, 'columns' | 'expansions'> & Partial<Pick<SqlQuery, 'computed' | 'presence'>>;

/** Sets an own property, even one named `__proto__`. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Reads the rows of `compiled` (what `toSql(query, …)` returned) as OData JSON records of the
 * query's entity type, in the order of the select list:
 * - Int64 and Decimal as numbers, or as exact strings with `{ ieee754Compatible: true }`;
 * - DateTimeOffset as ISO 8601 text in UTC (`2024-05-01T08:30:00.000Z`), Date as `YYYY-MM-DD`,
 *   TimeOfDay and Duration as ISO 8601 text, Guids lowercase, Booleans from 0/1, enums as member
 *   names, Double's NaN and infinities as `'NaN'`, `'INF'`, `'-INF'`;
 * - complex values nested again (a whole complex value whose columns are all null is null);
 * - collections (primitive, or of complex values stored as JSON) as arrays, from JSON text, arrays
 *   or the driver's parsed JSON, their elements typed the same way;
 * - expansions as objects (or null) and arrays, from JSON text or the driver's JSON values, with
 *   their values typed the same way; `name@odata.count` as numbers;
 * - computed properties (`$compute`, the `k0, …` columns) by their types, the same way;
 * - after `$apply` with `concat`, each row with only its own branch's properties (`presence`).
 *
 * Digits are kept where the driver keeps them: JSON text is read without going through a double,
 * so have the driver return Int64, Decimal and JSON as text for exact values (node-postgres does
 * for `bigint` and `numeric`; mysql2 with `supportBigNumbers` and `bigNumberStrings`).
 *
 * @throws {ODataError} `invalid_result` (status 500) for a value that cannot be read as its type
 *
 * @example
 * ```ts
 * const bound = bindQuery('$select=id,price&$expand=parent', { model, entitySet: 'items' });
 * const compiled = toSql(bound, { dialect: 'postgres' });
 * const records = readSqlRows(bound, compiled, (await pool.query(compiled.sql, [...compiled.params])).rows);
 * ```
 */
export function readSqlRows(query: BoundQuery, compiled: ReadableSql, rows: readonly SqlRow[], options: JsonValueOptions = {}): Record<string, unknown>[] {
  return rows.map((row) => readSqlRow(query, compiled, row, options));
}

/** One row of {@link readSqlRows}. */
export function readSqlRow(query: BoundQuery, compiled: ReadableSql, row: SqlRow, options: JsonValueOptions = {}): Record<string, unknown> {
  // The record with the driver's values, nested along the columns' paths, then typed as a whole.
  const record: Record<string, unknown> = {};
  // After concat or rollup: the properties this row has (top-level names, or paths of rollup's
  // grouping properties such as `Customer/Country`); the others are left out.
  const present = compiled.presence === undefined ? undefined : compiled.presence.sets[Number(row[compiled.presence.alias])];
  for (const { alias, path } of compiled.columns) {
    if (present !== undefined && !isPresent(present, path)) continue;
    let target = record;
    for (const name of path.slice(0, -1)) {
      if (!Object.hasOwn(target, name)) setOwn(target, name, {});
      target = target[name] as Record<string, unknown>;
    }
    setOwn(target, path[path.length - 1] as string, Object.hasOwn(row, alias) ? row[alias] : null);
  }
  // Dynamic properties grouped by come as their JSON text (see the dialects' dynamicProperties).
  for (const name of groupedDynamic(query.apply)) if (Object.hasOwn(record, name)) setOwn(record, name, readJson(record[name], name));
  for (const { alias, name, type } of compiled.computed ?? []) {
    const value = Object.hasOwn(row, alias) ? row[alias] : null;
    // A dynamic property in $select comes as its JSON text.
    setOwn(record, name, type.kind === 'primitive' && type.name === 'Edm.Untyped' ? readJson(value, name) : value);
  }
  for (const { alias, name } of compiled.expansions) setOwn(record, name, Object.hasOwn(row, alias) ? row[alias] : null);
  return jsonRecord(query, record, options);
}

/** Whether a column at `path` is among `present`: its top-level property, or a path to it or above it. */
export function isPresent(present: readonly string[], path: readonly string[]): boolean {
  let prefix = path[0] as string;
  if (present.includes(prefix)) return true;
  for (let i = 1; i < path.length; i++) {
    prefix += `/${path[i] as string}`;
    if (present.includes(prefix)) return true;
  }
  return false;
}
