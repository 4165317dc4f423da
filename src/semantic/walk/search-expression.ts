/**
 * Read-only walks of a bound expression: every node in turn, or the first that satisfies a test
 * (the many "does the tree contain…" analyses of the passes and backends).
 */
import type { BoundExpression } from '../bound-ast.js';
import { mapExpressionChildren } from './expression-children.js';

/** Calls `visit` on `node` and every expression under it, each before its children (pre-order, text order). */
export function forEachExpression(node: BoundExpression, visit: (node: BoundExpression) => void): void {
  // One closure per walk, none per node: the children's rewrite that returns each child itself.
  const step = (current: BoundExpression): BoundExpression => {
    visit(current);
    mapExpressionChildren(current, step);
    return current;
  };
  step(node);
}

/**
 * Whether `predicate` holds for `node` or an expression under it, tried in pre-order (a node
 * before its children, children in text order); stops at the first that does.
 */
export function someExpression(node: BoundExpression, predicate: (node: BoundExpression) => boolean): boolean {
  let found = false;
  const step = (current: BoundExpression): BoundExpression => {
    if (!found) {
      if (predicate(current)) found = true;
      else mapExpressionChildren(current, step);
    }
    return current;
  };
  step(node);
  return found;
}

/** Whether `predicate` holds for `node` and every expression under it; stops at the first that fails (pre-order). */
export function everyExpression(node: BoundExpression, predicate: (node: BoundExpression) => boolean): boolean {
  let failed = false;
  const step = (current: BoundExpression): BoundExpression => {
    if (!failed) {
      if (!predicate(current)) failed = true;
      else mapExpressionChildren(current, step);
    }
    return current;
  };
  step(node);
  return !failed;
}
