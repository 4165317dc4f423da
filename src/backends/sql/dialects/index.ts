/**
 * The built-in dialects, one file each: small overrides of standard SQL (Kysely-style).
 * Identifiers are quoted with their quote character doubled; values are always parameters.
 */
import type { Dialect, DialectName } from '../dialect.js';
import { duckdb } from './duckdb.js';
import { mssql } from './mssql.js';
import { mysql } from './mysql.js';
import { postgres } from './postgres.js';
import { sqlite } from './sqlite.js';

export { utcDateTime, utcText } from './common.js';
export { duckdb, mssql, mysql, postgres, sqlite };

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
export const DIALECTS = { postgres, mysql, sqlite, mssql, duckdb } as const satisfies Record<DialectName, Dialect>;
