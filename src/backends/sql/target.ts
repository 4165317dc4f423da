/** `sqlTarget`: the SQL backend of one dialect as a target of `validateQuery`. */
import type { QueryTarget } from '../../validation/validate-query.js';
import { toSql, type ToSqlOptions } from './to-sql.js';
import type { Dialect, DialectName } from './dialect.js';
import { DIALECTS } from './dialects/index.js';

/**
 * A {@link QueryTarget} that compiles with `toSql` for `dialect`: `validateQuery` then reports
 * what that dialect cannot run (`unsupported_feature`, with its position) as diagnostics.
 *
 * @example
 * ```ts
 * validateQuery("$filter=matchesPattern(name,'^a')", { model, entitySet: 'products', target: sqlTarget('sqlite') });
 * // [{ code: 'unsupported_feature', message: "The SQL backend does not support 'matchesPattern' on SQLite …", range: … }]
 * ```
 */
export function sqlTarget(dialect: DialectName | Dialect, options: Omit<ToSqlOptions, 'dialect'> = {}): QueryTarget {
  const resolved = typeof dialect === 'string' ? DIALECTS[dialect] : dialect;
  return { name: resolved.displayName, check: (bound) => void toSql(bound, { ...options, dialect: resolved }) };
}
