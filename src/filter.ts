/**
 * `odata-engine/filter`: `$filter` alone, for a browser or an edge function that checks filters
 * (a filter box, an API explorer): parse, bind to a model, validate with diagnostics. The smallest
 * entry of the package: it leaves out the full grammar (`$select`, `$expand`, `$apply`, `$compute`,
 * the `$search` syntax), the other options' binders and every backend. A filter gets the same tree,
 * bound predicate and errors as through `odata-engine/core`, except the aggregate function in a path
 * and `$count(…)` with nested options, which need the full grammar and are refused here
 * (`unsupported_feature`, with their position).
 *
 * @packageDocumentation
 */
export { ODataError, type ODataErrorBody, type ODataErrorCode, type ODataErrorDetail } from './errors/odata-error.js';
export { parseFilterExpression as parseFilter } from './syntax/parse-filter.js';
export type { ParseOptions } from './syntax/parse-run.js';
export { bindFilter, type FilterSettings } from './semantic/bind-filter.js';
export { validateFilter, type ValidateFilterSettings } from './validation/validate-filter.js';
export type { Diagnostic } from './validation/diagnostic.js';
export { defineModel, type ModelDefinition, type TypedModel } from './model/define-model.js';
export { modelFromCsdl } from './model/csdl-json.js';
export type { Model, EntitySet, StructuredType, Property } from './model/model.js';
export type { ValidationSettings } from './semantic/settings.js';
export type * from './syntax/ast.js';
export type { BoundExpression } from './semantic/bound-ast.js';
