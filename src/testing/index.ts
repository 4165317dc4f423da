/**
 * `odata-engine/testing`: fast-check arbitraries for property tests and fuzzing.
 * Requires `fast-check` (a peer dependency of this entry point only).
 *
 * @packageDocumentation
 */
export {
  expressionArbitrary,
  identifierArbitrary,
  literalArbitrary,
  qualifiedNameArbitrary,
  queryArbitrary,
  searchArbitrary,
  type SyntaxArbitraryOptions,
} from './syntax-arbitraries.js';
export {
  filterArbitrary,
  modelQueryArbitrary,
  rowsArbitrary,
  valueArbitrary,
  type ModelQueryOptions,
  type TestRow,
} from './model-arbitraries.js';
export { assertBackendMatchesMemory, compareResults, type BackendResult, type BackendRunner, type HarnessOptions } from './harness.js';
export { invalidQueryArbitrary, fuzzODataServer, type InvalidQuery, type InvalidQueryOptions, type FuzzServerOptions } from './fuzz.js';
