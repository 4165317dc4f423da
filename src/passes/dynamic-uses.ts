/**
 * The uses of untyped values (dynamic properties of open types read as their JSON value) that the
 * SQL and MongoDB backends run (semantic/dynamic-values.ts): a comparison with null, a `$orderby`
 * key, a `groupby` key, a `countdistinct`, a value returned (`$select`). A dynamic property compared with a typed value, or
 * aggregated by `sum`/`average`/`min`/`max`, was bound as a typed read and is no untyped use.
 * Everything else (arithmetic, functions, two untyped values compared, `in`, a condition) is
 * refused here, before compiling, with `unsupported_feature`.
 */
import type { BoundExpression, BoundQueryOptions } from '../semantic/bound-ast.js';
import { isUntyped } from '../semantic/types.js';
import { untypedDynamic } from '../semantic/dynamic-values.js';
import { expressionChildren, forEachExpression, mapQueryExpressions, type ExpressionOption } from '../semantic/walk/index.js';
import { unsupportedFeature } from './unsupported.js';

/** Whether `child` of `parent` is an untyped operand compared with null (`Dyn eq null`). */
function comparedWithNull(parent: BoundExpression, child: BoundExpression): boolean {
  if (parent.kind !== 'binary' || (parent.operator !== 'eq' && parent.operator !== 'ne')) return false;
  const other = parent.left === child ? parent.right : parent.left;
  return other.kind === 'literal' && other.value === null;
}

/**
 * Throws `unsupported_feature` (for `backend`) at the first untyped value `query` uses other than
 * as a comparison with null, an order key, a grouping key or an aggregated value.
 */
export function refuseUntypedUses(query: BoundQueryOptions, backend: string): void {
  mapQueryExpressions(query, (root: BoundExpression, option: ExpressionOption) => {
    const refuse = (node: BoundExpression): never => {
      const step = node.kind === 'path' ? node.steps.find((s) => s.kind === 'dynamic') : undefined;
      const what = step?.kind === 'dynamic' ? `the dynamic property '${step.name}'` : 'an untyped value';
      throw unsupportedFeature(backend, `${what} here: only compared with null or with a string, number or Boolean value, ordered, grouped or aggregated`, {
        node,
        option,
      });
    };
    // A condition that is an untyped value itself (`$filter=Dyn`); a dynamic property in `$select`
    // is a computed value of its own (`$compute` of another untyped value is refused by the binder).
    if (isUntyped(root.type) && (option === '$filter' || (option !== '$orderby' && option !== '$apply' && untypedDynamic(root) === undefined))) refuse(root);
    forEachExpression(root, (node) => {
      if (node.kind === 'path' && node.steps.some((step, i) => step.kind === 'dynamic' && i < node.steps.length - 1)) refuse(node);
      for (const child of expressionChildren(node)) if (isUntyped(child.type) && !comparedWithNull(node, child)) refuse(child);
    });
    return root;
  });
}
