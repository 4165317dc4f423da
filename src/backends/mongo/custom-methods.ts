/**
 * Custom aggregation methods defined per backend (semantic/apply/custom-aggregates.ts) on MongoDB:
 * the host's expression (`CustomAggregationMethod.mongo`) with the array of the values that are
 * not null in place of each string `'{values}'`; null when there is none, as on every backend. A
 * method without one is refused with `unsupported_feature`.
 */
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { BoundCustomMethod } from '../../semantic/bound-ast.js';

/** A copy of `template` with `values` in place of each string `'{values}'`. */
function fill(template: unknown, values: unknown): unknown {
  if (template === '{values}') return values;
  if (Array.isArray(template)) return template.map((item) => fill(item, values));
  if (template === null || typeof template !== 'object') return template;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(template as Record<string, unknown>)) copy[key] = fill(item, values);
  return copy;
}

/**
 * The value of `method` over `values`, an expression of the array of the values (nulls among them
 * are left out here), or the refusal at `node` of `option`.
 */
export function customMongoAggregate(method: BoundCustomMethod, values: unknown, node: { readonly span: { readonly start: number } }, option: string): unknown {
  const template = method.definition.mongo;
  if (template === undefined)
    throw unsupportedFeature('MongoDB', `the custom aggregation method '${method.name}' (the service defines no MongoDB expression for it)`, { node, option });
  const present = { $filter: { input: values, as: 'odata_c', cond: { $ne: ['$$odata_c', null] } } };
  return { $let: { vars: { odata_cv: present }, in: { $cond: [{ $eq: [{ $size: '$$odata_cv' }, 0] }, null, fill(template, '$$odata_cv')] } } };
}
