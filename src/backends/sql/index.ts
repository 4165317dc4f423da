/**
 * `odata-engine/sql`: a bound query as one parameterised SQL statement (PostgreSQL,
 * MySQL/MariaDB, SQLite, SQL Server, DuckDB), the `CREATE TABLE` a model implies, and the
 * target that tells `validateQuery` what SQL runs.
 *
 * @packageDocumentation
 */
export { toSql, type SqlQuery, type SqlStatement, type ToSqlOptions } from './to-sql.js';
export type { SqlSearchHook } from './dialect.js';
export type { SqlMapping } from './mapping.js';
export { createTableSql, createLinkTableSql, createSchemaSql, columnType } from './ddl.js';
export type { Dialect, DialectName, SpatialFamily, SpatialHooks } from './dialect.js';
export { DIALECTS } from './dialects/index.js';
export { sqlTarget } from './target.js';
export { readSqlRows, readSqlRow, type ReadableSql, type SqlRow } from './read-rows.js';
export { sqlTemplate } from './template.js';
