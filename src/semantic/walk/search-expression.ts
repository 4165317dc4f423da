/**
 * Read-only walks of a bound expression: every node in turn, or the first that satisfies a test
 * (the many "does the tree contain…" analyses of the passes and backends).
 */
import type { BoundExpression } from '../bound-ast.js';
import { forEachChild } from './expression-children.js';

/** Calls `visit` on `node` and every expression under it, each before its children (pre-order, text order). */
export function forEachExpression(node: BoundExpression, visit: (node: BoundExpression) => void): void {
  visit(node);
  forEachChild(node, (child) => forEachExpression(child, visit));
}

/**
 * Whether `predicate` holds for `node` or an expression under it, tried in pre-order (a node
 * before its children, children in text order); stops at the first that does.
 */
export function someExpression(node: BoundExpression, predicate: (node: BoundExpression) => boolean): boolean {
  let found = false;
  const visit = (current: BoundExpression): void => {
    if (found) return;
    if (predicate(current)) found = true;
    else forEachChild(current, visit);
  };
  visit(node);
  return found;
}

/** Whether `predicate` holds for `node` and every expression under it; stops at the first that fails (pre-order). */
export function everyExpression(node: BoundExpression, predicate: (node: BoundExpression) => boolean): boolean {
  return !someExpression(node, (current) => !predicate(current));
}
