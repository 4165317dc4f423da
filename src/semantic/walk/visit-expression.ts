/**
 * Visitors of bound expressions: one method per kind (the role of OData.net's
 * `QueryNodeVisitor<T>`), and a fold that combines the children's results bottom-up.
 */
import type { BoundExpression } from '../bound-ast.js';
import { forEachChild, type BoundExpressionKind, type BoundExpressionOfKind } from './expression-children.js';

/** A method for every kind of bound expression: adding a kind fails to compile until each such visitor handles it. */
export type ExpressionVisitor<T> = { readonly [K in BoundExpressionKind]: (node: BoundExpressionOfKind<K>) => T };

/** Methods for some kinds, and `default` for the others. */
export type PartialExpressionVisitor<T> = Partial<ExpressionVisitor<T>> & { readonly default: (node: BoundExpression) => T };

/**
 * The method of `visitor` for `node`'s kind called on `node` (`default` when it has none). The
 * visitor decides whether and where to go deeper (calling `visitExpression` on the children it needs).
 */
export function visitExpression<T>(node: BoundExpression, visitor: ExpressionVisitor<T> | PartialExpressionVisitor<T>): T {
  const method = visitor[node.kind] as ((node: BoundExpression) => T) | undefined;
  return method === undefined ? (visitor as PartialExpressionVisitor<T>).default(node) : method(node);
}

/**
 * `combine` called on every node, after its children, with the children's results in text order:
 * a bottom-up fold (the size of a tree, its depth, the set of properties it reads).
 */
export function foldExpression<T>(node: BoundExpression, combine: (node: BoundExpression, children: readonly T[]) => T): T {
  const children: T[] = [];
  forEachChild(node, (child) => children.push(foldExpression(child, combine)));
  return combine(node, children);
}
