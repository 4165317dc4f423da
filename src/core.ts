/**
 * `odata-engine/core`: the OData v4.01 query language without a backend: parsing and printing,
 * models, binding with limits, validation with diagnostics, and responses. The package's root
 * (`odata-engine`) is this plus every backend; a bundle for a browser or an edge function that
 * needs one backend takes this entry and that backend's (`odata-engine/memory`, `/sql`, `/mongo`).
 *
 * Parsing: {@link parseQuery} for a whole query string, or one function per option.
 * Printing: {@link printQuery} and {@link printExpression} give canonical text back.
 * Errors: everything that goes wrong with a query is an {@link ODataError}.
 * Walking the bound tree for your own passes: {@link transformExpression}, {@link mapExpressionChildren},
 * {@link visitExpression}, {@link someExpression}, {@link mapQueryExpressions} and their kin.
 *
 * @packageDocumentation
 */
export { ODataError, type ODataErrorBody, type ODataErrorCode, type ODataErrorDetail } from './errors/odata-error.js';
export { parseQuery, type ParseQueryOptions } from './syntax/query-string.js';
export {
  parseFilter,
  parseOrderBy,
  parseSelect,
  parseExpand,
  parseSearch,
  parseCompute,
  parseApply,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_LENGTH,
  type ParseOptions,
} from './syntax/parse.js';
export { printQuery, printExpression, printSearch } from './syntax/printer.js';
export type { SearchMode } from './syntax/parser.js';
export type * from './syntax/ast.js';
export { CANONICAL_FUNCTIONS } from './syntax/ast.js';
export {
  defineModel,
  type ModelDefinition,
  type EntityTypeDefinition,
  type PropertyDefinition,
  type NavigationDefinition,
  type EnumDefinition,
  type TypedModel,
} from './model/define-model.js';
export type {
  Model,
  EntitySet,
  StructuredType,
  EnumType,
  Property,
  PropertyFacets,
  NavigationProperty,
  TypeReference,
  Capabilities,
  PrimitiveTypeName,
  Schema,
  SchemaElement,
  EntityContainer,
  ContainerMember,
} from './model/model.js';
export { bindQuery } from './semantic/bind-query.js';
export { parseResourcePath } from './syntax/resource-path.js';
export { bindResourcePath, type ResourcePathSettings } from './semantic/resource-path/bind-resource-path.js';
export { checkResourceQuery } from './semantic/resource-path/resource-query.js';
export { checkCrossJoinRows, crossJoinOf, crossJoinSet, type CrossJoin } from './semantic/resource-path/crossjoin.js';
export type * from './semantic/resource-path/bound-resource-path.js';
export type { OperationOverload, OperationType } from './semantic/resource-path/operations.js';
export { restrictQuery } from './semantic/restrict-query.js';
export { createPlanCache, type PlanCache, type PlanCacheOptions } from './cache/plan-cache.js';
export type { BindSettings, ValidationSettings, QueryOptionName, LogicalOperatorName } from './semantic/settings.js';
export { DEFAULT_MAX_TOP } from './semantic/settings.js';
export type { CustomAggregateDefinitions, CustomAggregationMethod, CustomAggregationMethods } from './semantic/apply/custom-aggregate-settings.js';
export type { CustomTransformation, CustomTransformations } from './semantic/apply/custom-transformation-settings.js';
export { declaredCustomAggregates, declaredCustomAggregationMethods, type DeclaredCustomAggregate } from './model/custom-aggregates.js';
export type * from './semantic/bound-ast.js';
export {
  mapExpressionChildren,
  expressionChildren,
  forEachChild,
  transformExpression,
  forEachExpression,
  someExpression,
  everyExpression,
  visitExpression,
  foldExpression,
  mapTransformationExpressions,
  transformationExpressions,
  forEachTransformation,
  someTransformation,
  mapQueryExpressions,
  type BoundExpressionKind,
  type BoundExpressionOfKind,
  type ExpressionRewrite,
  type ExpressionVisitor,
  type PartialExpressionVisitor,
  type BoundTransformationKind,
  type BoundTransformationOfKind,
  type ExpressionOption,
} from './semantic/walk/index.js';
export type { ExpressionType } from './semantic/types.js';
// For a backend of one's own: the function registry and the shape of a complete function table,
// the lowering of conditions the SQL and MongoDB backends compile, and the classes of casts.
export { FUNCTIONS, FUNCTION_NAMES, type CanonicalFunction, type NullBehaviour } from './semantic/functions.js';
export { refuse, isRefusal, FOLDED, type FunctionTable, type Refusal } from './semantic/function-table.js';
export {
  lowerCondition,
  foldLowered,
  complement,
  type LoweredCondition,
  type LoweredComparison,
  type LoweredCases,
  type OperandNulls,
} from './passes/lower-conditions.js';
export { castClass, classifyCast, type CastClass } from './passes/cast-classes.js';
export { modelFromCsdl, ODATA_ENGINE_VOCABULARY } from './model/csdl-json.js';
export { modelFromCsdlXml, csdlJsonFromXml, DEFAULT_MAX_CSDL_XML_LENGTH, type CsdlXmlOptions } from './model/csdl-xml.js';
export { csdlJsonFromModel, type CsdlWriteOptions } from './model/csdl-json-write.js';
export { csdlXmlFromJson, csdlXmlFromModel } from './model/csdl-xml-write.js';
export type { CsdlJson, CsdlJsonObject } from './model/csdl-json-types.js';
export { navigationTarget, containedSet, declaringType } from './model/navigation.js';
export type { StorageMapping, NavigationStorage } from './storage/storage-mapping.js';
export { navigationLink, reverseLink, storedKey, type StoredLink, type DirectLink, type TableLink, type StoredColumn } from './storage/links.js';
export { storedTables, entityTable, type StoredTable, type EntityTable, type LinkTable, type HiddenColumn } from './storage/tables.js';
export { dynamicColumn, DYNAMIC_PROPERTIES } from './storage/dynamic-properties.js';
export { keysetKeys, keysetValues, keysetFilter, continueAfter, type KeysetKey } from './paging/keyset.js';
export { odataQuery, type ODataQueryResult, type ODataQueryFailure } from './responses/odata-query.js';
export { jsonRecord, jsonValue, type JsonValueOptions } from './responses/json-values.js';
export { errorResponse, listResponse, skipForPage, isLastPage, type ErrorResponse, type ListResponseOptions } from './responses/responses.js';
export { validateQuery, type Diagnostic, type ValidateSettings, type QueryTarget } from './validation/validate-query.js';
export { completeQuery, type Completion, type CompletionKind, type CompleteSettings } from './language/complete-query.js';
export { describeQuery, type QueryDescription } from './language/describe-query.js';
export { signatureHelp, type Signature, type SignatureHelp } from './language/signature-help.js';
export { quickFixes, type QuickFix, type TextEdit } from './language/quick-fixes.js';
export type { TextRange } from './language/cursor.js';
export * from './responses/odata-json/index.js';
