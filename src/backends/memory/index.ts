/**
 * `odata-engine/memory`: a bound query run over JavaScript arrays, with the reference semantics
 * every other backend is measured against.
 *
 * @packageDocumentation
 */
export { dataResolver } from './data-resolver.js';
export { compileQuery, type CompiledQuery, type MemoryBackendOptions, type QueryResult } from './compile-query.js';
export type { Row, NavigationResolver } from '../../reference/rows.js';
export { defaultSearch, type SearchFunction } from '../../reference/search.js';
export { crossJoinRows } from './crossjoin.js';
