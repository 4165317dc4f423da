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
export { DYNAMIC_PROPERTY_NAMES, generateStoredData, storedDataArbitrary, type StoredDataOptions } from './stored-data.js';
export { filterArbitrary, modelQueryArbitrary, rowsArbitrary, valueArbitrary, type ModelQueryOptions, type TestRow } from './model-arbitraries.js';
export { assertBackendMatchesMemory, compareResults, type BackendResult, type BackendRunner, type CompareOptions, type HarnessOptions } from './harness.js';
export { applyQueryArbitrary, concatArbitrary } from './apply-arbitraries.js';
export {
  EDGE_LITERALS,
  typedExpressionArbitrary,
  typedFilterArbitrary,
  typedQueryArbitrary,
  type GeneratedQuery,
  type TypedArbitraryOptions,
} from './typed-arbitraries.js';
export {
  DEVIATION_EXCEPTIONS,
  DatabaseError,
  differentialSettings,
  compareJson,
  judge,
  orderIsDefined,
  queryExpressions,
  queryFeatures,
  runDifferential,
  type DeviationContext,
  type DeviationException,
  type DifferentialOptions,
  type DifferentialResult,
  type DifferentialTarget,
  type Finding,
  type FindingClass,
  type Outcome,
} from './differential.js';
export { invalidQueryArbitrary, type InvalidQuery, type InvalidQueryOptions } from './fuzz.js';
export { fuzzODataServer, type FuzzServerOptions, type FuzzServerResult, type KnownDeviation, type MetDeviation } from './fuzz-server.js';
export { diffODataServers, type DiffEndpoint, type DiffServersOptions, type DiffServersResult } from './diff-servers.js';
export type { Endpoint } from './server-requests.js';
export { fuzzDifferential, type CampaignOptions, type CampaignReport, type DistinctFinding, type TargetStats } from './campaign.js';
export {
  MODEL_SHAPES,
  generateModel,
  generateModelCsdl,
  generatedModelShapes,
  modelArbitrary,
  type ModelGeneratorOptions,
  type ModelShape,
} from './model-generator.js';
