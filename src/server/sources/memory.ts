/** `memorySource`: arrays of rows in memory, read by the in-memory backend (the reference). */
import { compileQuery, type MemoryBackendOptions } from '../../backends/memory/compile-query.js';
import { crossJoinRows } from '../../backends/memory/crossjoin.js';
import type { Row } from '../../reference/rows.js';
import { crossJoinOf } from '../../semantic/resource-path/crossjoin.js';
import { jsonRecord } from '../../responses/json-values.js';
import type { BoundQuery } from '../../semantic/bound-ast.js';
import type { ODataSource } from '../source.js';

/**
 * A source over rows in memory, by stored table name (an entity set's name; contained entities
 * and link tables by the names of `storedTables`), as the in-memory backend reads them.
 * `$crossjoin(…)` reads the combinations of its sets' rows (`crossJoinRows`).
 *
 * @example
 * ```ts
 * const source = memorySource({ People: [{ UserName: 'russellwhyte', FirstName: 'Russell' }] });
 * const handler = createODataHandler({ model, source });
 * ```
 */
export function memorySource(data: Readonly<Record<string, readonly Row[]>>, options: Omit<MemoryBackendOptions, 'data'> = {}): ODataSource {
  // A handler reads a bound query it keeps (its plan cache) again and again: compiled once.
  const compiledOf = new WeakMap<BoundQuery, ReturnType<typeof compileQuery>>();
  return {
    read(query, { ieee754Compatible }) {
      let compiled = compiledOf.get(query);
      if (compiled === undefined) {
        compiled = compileQuery(query, { ...options, data });
        compiledOf.set(query, compiled);
      }
      // `$crossjoin(…)`: the combinations of its sets' rows (those its leading filter keeps); the
      // handler has counted the sets' rows in the request's scope against `maxCrossJoinRows`.
      const join = crossJoinOf(query.entitySet);
      const rows = join === undefined ? ((data[query.entitySet.name] ?? []) as Row[]) : crossJoinRows(query, join, { ...options, data }, true);
      const result = compiled.apply(rows);
      const value = result.value.map((row) => jsonRecord(query, row, { ieee754Compatible }));
      return Promise.resolve(result.count === undefined ? { value } : { value, count: result.count });
    },
  };
}
