/**
 * odata-engine: an OData v4.01 query-language engine.
 *
 * Parsing: {@link parseQuery} for a whole query string, or one function per option.
 * Printing: {@link printQuery} and {@link printExpression} give canonical text back.
 * Errors: everything that goes wrong with a query is an {@link ODataError}.
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
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_LENGTH,
  type ParseOptions,
} from './syntax/parse.js';
export { printQuery, printExpression, printSearch } from './syntax/printer.js';
export type { SearchMode } from './syntax/parser.js';
export type * from './syntax/ast.js';
export { CANONICAL_FUNCTIONS } from './syntax/ast.js';
export { defineModel, type ModelDefinition, type EntityTypeDefinition, type PropertyDefinition, type NavigationDefinition, type EnumDefinition, type TypedModel } from './model/define-model.js';
export type { Model, EntitySet, StructuredType, EnumType, Property, NavigationProperty, TypeReference, Capabilities, PrimitiveTypeName } from './model/model.js';
export { bindQuery } from './semantic/bind-query.js';
export type { BindSettings, ValidationSettings, QueryOptionName, LogicalOperatorName } from './semantic/settings.js';
export { DEFAULT_MAX_TOP } from './semantic/settings.js';
export type * from './semantic/bound-ast.js';
export type { ExpressionType } from './semantic/types.js';
export { modelFromCsdl } from './model/csdl-json.js';
export { odataQuery, type ODataQueryResult, type ODataQueryFailure } from './responses/odata-query.js';
export { errorResponse, listResponse, skipForPage, isLastPage, type ErrorResponse, type ListResponseOptions } from './responses/responses.js';
export { validateQuery, type Diagnostic, type ValidateSettings, type QueryTarget } from './validation/validate-query.js';
export { compileQuery, dataResolver, type CompiledQuery, type MemoryBackendOptions, type QueryResult } from './backends/memory/compile-query.js';
export type { Row, NavigationResolver } from './reference/evaluator.js';
export { defaultSearch, type SearchFunction } from './reference/search.js';
export { toSql, type SqlQuery, type SqlStatement, type ToSqlOptions, type SqlSearchHook } from './backends/sql/to-sql.js';
export type { SqlMapping } from './backends/sql/mapping.js';
export { createTableSql, columnType } from './backends/sql/ddl.js';
export { readSqlRows, readSqlRow, type SqlRow } from './backends/sql/read-rows.js';
export { sqlTemplate } from './backends/sql/template.js';
export { jsonRecord, jsonValue, type JsonValueOptions } from './responses/json-values.js';
export { toMongo, toMongoDocument, fromMongoDocument, escapeRegex, mongoValue, type MongoFind, type MongoPipeline, type MongoDocument, type MongoMapping, type ToMongoOptions, type MongoSearchHook } from './backends/mongo/to-mongo.js';
export type { Dialect, DialectName } from './backends/sql/dialect.js';
export { DIALECTS } from './backends/sql/dialects/index.js';
export { sqlTarget } from './backends/sql/target.js';
export { mongoTarget } from './backends/mongo/target.js';
