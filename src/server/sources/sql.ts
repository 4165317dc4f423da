/** `sqlSource`: any SQL database through a `query(sql, params)` function, compiled by `toSql`. */
import { readSqlRows, type SqlRow } from '../../backends/sql/read-rows.js';
import { toSql, type SqlQuery, type ToSqlOptions } from '../../backends/sql/to-sql.js';
import type { BoundQuery } from '../../semantic/bound-ast.js';
import type { ODataSource } from '../source.js';

/** Options of {@link sqlSource}: `toSql`'s (the dialect, the mapping, a plan cache) and the driver call. */
export interface SqlSourceOptions extends ToSqlOptions {
  /**
   * Runs one statement with its parameters and returns its rows as objects by column name:
   * `(sql, params) => pool.query(sql, params).then((r) => r.rows)` for `pg`.
   */
  readonly query: (sql: string, params: readonly unknown[], signal?: AbortSignal) => Promise<readonly SqlRow[]>;
}

/**
 * A source over a SQL database: each read is `toSql`'s statement (and its count statement for
 * `$count=true`), run by `query`, read back by `readSqlRows`.
 *
 * @example
 * ```ts
 * const pool = new pg.Pool();
 * const source = sqlSource({ dialect: 'postgres', query: async (sql, params) => (await pool.query(sql, [...params])).rows });
 * ```
 */
export function sqlSource(options: SqlSourceOptions): ODataSource {
  const { query: run, ...compile } = options;
  // A handler reads a bound query it keeps (its plan cache) again and again: compiled once.
  const compiledOf = new WeakMap<BoundQuery, SqlQuery>();
  return {
    async read(query, { ieee754Compatible, signal }) {
      let compiled = compiledOf.get(query);
      if (compiled === undefined) {
        compiled = toSql(query, compile);
        compiledOf.set(query, compiled);
      }
      const [rows, counted] = await Promise.all([
        run(compiled.sql, compiled.params, signal),
        compiled.count === undefined ? undefined : run(compiled.count.sql, compiled.count.params, signal),
      ]);
      const value = readSqlRows(query, compiled, rows, { ieee754Compatible });
      if (counted === undefined) return { value };
      const first = counted[0];
      const count = Number(first === undefined ? 0 : Object.values(first)[0]);
      return { value, count };
    },
  };
}
