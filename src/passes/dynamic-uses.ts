/**
 * The uses of dynamic properties of open types (read as their JSON value, type `Edm.Untyped`) that
 * the SQL and MongoDB backends run (semantic/dynamic-values.ts): a comparison with null, a
 * `$orderby` key, a `groupby` key, a `countdistinct`, a value returned (`$select`). A dynamic
 * property compared with a typed value, or aggregated by `sum`/`average`/`min`/`max`, was bound as
 * a typed read and is no untyped use. Everything else (arithmetic, functions, two untyped values
 * compared, a condition, and any use but `eq null` of a dynamic property grouped by, whose rows
 * hold its JSON text) is refused here, before compiling, with `unsupported_feature`. Declared
 * `Edm.Untyped` properties are not dynamic properties: they are left to the backends as before.
 */
import type { BoundExpression, BoundQueryOptions } from '../semantic/bound-ast.js';
import { isUntyped } from '../semantic/types.js';
import { groupedDynamic, untypedDynamic } from '../semantic/dynamic-values.js';
import { expressionChildren, forEachExpression, mapQueryExpressions, type ExpressionOption } from '../semantic/walk/index.js';
import { unsupportedFeature } from './unsupported.js';

/** Whether `child` of `parent` is an untyped operand compared with null (`Dyn eq null`). */
function comparedWithNull(parent: BoundExpression, child: BoundExpression): boolean {
  if (parent.kind !== 'binary' || (parent.operator !== 'eq' && parent.operator !== 'ne')) return false;
  const other = parent.left === child ? parent.right : parent.left;
  return other.kind === 'literal' && other.value === null;
}

/**
 * Throws `unsupported_feature` (for `backend`) at the first dynamic property `query` uses other
 * than as a comparison with null, an order key, a grouping key, an aggregated or a returned value.
 */
export function refuseUntypedUses(
  query: BoundQueryOptions,
  backend: string,
  /** Whether the backend orders a grouped dynamic property (MongoDB: by BSON order, the reference's). */
  ordersGrouped = false,
): void {
  const grouped = groupedDynamic(query.apply);
  /** A dynamic property, or one grouped by (after `$apply`, a property of its output rows). */
  const dynamic = (node: BoundExpression): boolean =>
    isUntyped(node.type) &&
    node.kind === 'path' &&
    (node.steps.some((step) => step.kind === 'dynamic') ||
      (grouped.size > 0 && node.steps[0]?.kind === 'property' && grouped.has(node.steps[0].property.name)));
  mapQueryExpressions(query, (root: BoundExpression, option: ExpressionOption) => {
    const refuse = (node: BoundExpression): never => {
      const step = node.kind === 'path' ? node.steps.find((s) => s.kind === 'dynamic') : undefined;
      const name = step?.kind === 'dynamic' ? step.name : node.kind === 'path' && node.steps[0]?.kind === 'property' ? node.steps[0].property.name : '?';
      throw unsupportedFeature(
        backend,
        `the dynamic property '${name}' here: only compared with null or with a string, number or Boolean value, ordered, grouped, aggregated or selected`,
        { node, option },
      );
    };
    // A dynamic property as a condition (`$filter=Dyn`), or a grouped one ordered or returned again.
    if (dynamic(root) && (option === '$filter' || (untypedDynamic(root) === undefined && !(ordersGrouped && option === '$orderby')))) refuse(root);
    forEachExpression(root, (node) => {
      if (node.kind === 'path' && node.steps.some((step, i) => step.kind === 'dynamic' && i < node.steps.length - 1)) refuse(node);
      for (const child of expressionChildren(node)) if (dynamic(child) && !comparedWithNull(node, child)) refuse(child);
    });
    return root;
  });
}
