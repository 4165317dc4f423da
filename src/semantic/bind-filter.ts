/**
 * `bindFilter`: one `$filter` bound to an entity set, without the rest of a query, for
 * `odata-engine/filter`. It binds as `bindQuery` binds a query's `$filter` (the same binder, the
 * same limits and capabilities, the same errors); what it leaves out is everything a filter does not
 * need: the other options' binders, `$apply`, and the full grammar (see parse-filter.ts).
 */
import type { BoundExpression } from './bound-ast.js';
import type { Expression } from '../syntax/ast.js';
import type { ParseOptions } from '../syntax/parse-run.js';
import { parseFilterExpression } from '../syntax/parse-filter.js';
import { ExpressionBinder } from './bind-expression.js';
import { notAllowed, resolveSettings, unknownEntitySet, type BindSettings, type ValidationSettings } from './settings.js';

/** Settings of {@link bindFilter}: the model, the entity set, the limits of {@link ValidationSettings}. */
export interface FilterSettings extends ValidationSettings {
  readonly model: BindSettings['model'];
  /** The entity set the filter is for. */
  readonly entitySet: string;
  /** Length and depth limits of the text (`maxLength`, `maxDepth`). */
  readonly parse?: ParseOptions;
}

/**
 * Binds a `$filter` value (the text after `$filter=`, decoded, or its parsed tree) to an entity set
 * of the model: the bound, typed predicate, or the first problem as an `ODataError` whose position
 * is an offset into the text. The same answer as `bindQuery('$filter=…').filter`.
 *
 * @example
 * ```ts
 * import { bindFilter, defineModel } from 'odata-engine/filter';
 * const model = defineModel({
 *   namespace: 'Shop',
 *   entityTypes: { Product: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double' } } },
 *   entitySets: { products: { type: 'Product' } },
 * });
 * bindFilter("name eq 'Milk' and price lt 2", { model, entitySet: 'products' }).type; // { kind: 'primitive', name: 'Edm.Boolean' }
 * ```
 */
export function bindFilter(filter: string | Expression, settings: FilterSettings): BoundExpression {
  const set = settings.model.entitySets.get(settings.entitySet);
  if (set === undefined) throw unknownEntitySet(settings.entitySet);
  // In bindQuery's order: the entity set, the text, the allowed options, then the binding.
  const expression = typeof filter === 'string' ? parseFilterExpression(filter, settings.parse) : filter;
  const resolved = resolveSettings(settings);
  if (resolved.allowedQueryOptions !== undefined && !resolved.allowedQueryOptions.has('filter')) throw notAllowed('filter');
  return new ExpressionBinder({
    model: settings.model,
    settings: resolved,
    option: '$filter',
    offset: 0,
    purpose: 'filter',
    it: set.type,
    entitySet: set,
    capabilities: set.capabilities,
    aliases: undefined,
  }).bind(expression, true);
}
