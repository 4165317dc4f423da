/**
 * `Aggregation.rollupnode()` for backends that hold a portion's node in a column or field of each
 * portion row (SQL, MongoDB: ../../backends/*\/rollup-recursive.ts): each key of the node read as
 * that property of the row. The node identifier must be the nodes' one key property, which those
 * backends require of `rolluprecursive`.
 */
import type { Property } from '../../model/model.js';
import type { BoundExpression, BoundPath, BoundTransformation } from '../bound-ast.js';
import { mapTransformationExpressions, someExpression, someTransformation, transformationExpressions, transformExpression } from '../walk/index.js';

/**
 * `T` (a `rolluprecursive` groupby's transformations) with each `Aggregation.rollupnode()` key a
 * path to `property` of the row. Refused (`refuse`): a `rolluprecursive` nested in `T` (it has a
 * node of its own), and `rollupnode()` in the aggregate function's expression, whose `$it` is a
 * related entity, not the portion's row.
 */
export function rollupNodeAsPath(
  apply: readonly BoundTransformation[],
  property: Property,
  refuse: (at: { readonly span: { readonly start: number } }, what: string) => Error,
): readonly BoundTransformation[] {
  const isNode = (e: BoundExpression): boolean => e.kind === 'rollupNode';
  const roots = transformationExpressions(apply);
  if (!roots.some((root) => someExpression(root, isNode))) return apply;
  let nested: BoundTransformation | undefined;
  someTransformation(apply, (t) => {
    if (t.kind === 'groupby' && t.recursive !== undefined) nested = t;
    return nested !== undefined;
  });
  if (nested !== undefined) throw refuse(nested, 'rolluprecursive() inside the transformations of another one, with rollupnode()');
  for (const root of roots) {
    let inner: BoundExpression | undefined;
    someExpression(root, (e) => {
      if (e.kind === 'aggregateValue' && e.aggregate.kind === 'method' && someExpression(e.aggregate.expression, isNode)) inner = e;
      return inner !== undefined;
    });
    if (inner !== undefined) throw refuse(inner, 'rollupnode() inside the aggregate function');
  }
  return mapTransformationExpressions(apply, (root) =>
    transformExpression(root, (e) =>
      e.kind === 'rollupNode'
        ? ({ kind: 'path', root: { kind: 'it' }, steps: [{ kind: 'property', property, span: e.span }], type: e.type, span: e.span } as BoundPath)
        : e,
    ),
  );
}
