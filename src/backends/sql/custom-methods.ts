/**
 * Custom aggregation methods defined per backend (semantic/apply/custom-aggregates.ts) in SQL: the
 * host's aggregate function template for the dialect (`CustomAggregationMethod.sql`, by the
 * dialect's `name`) with the compiled value in place of each `{value}`. The value is compiled
 * SQL (columns of the model, parameters): nothing of the request is put in as text. The result
 * is null when no value is not null, as on every backend; a dialect without a template is refused
 * with `unsupported_feature`.
 */
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { BoundCustomMethod } from '../../semantic/bound-ast.js';
import type { Dialect } from './dialect.js';

/** The aggregate of `method` over the compiled value `value`, for `dialect`. */
export function customSqlAggregate(
  method: BoundCustomMethod,
  dialect: Dialect,
  value: string,
  at: { readonly span: { readonly start: number } },
  option: string,
): string {
  const templates = method.definition.sql;
  const template = templates !== undefined && Object.hasOwn(templates, dialect.name) ? templates[dialect.name] : undefined;
  if (template === undefined || !template.includes('{value}')) {
    throw unsupportedFeature('SQL', `the custom aggregation method '${method.name}' on ${dialect.displayName} (the service defines no SQL for it there)`, {
      node: at,
      option,
    });
  }
  // Null when no value is not null, as on every backend.
  return `(CASE WHEN COUNT(${value}) = 0 THEN NULL ELSE ${template.replaceAll('{value}', `(${value})`)} END)`;
}
