/**
 * The bottom-up transformer of bound expressions: every node rewritten after its children, and
 * rebuilt only where something changed.
 */
import type { BoundExpression } from '../bound-ast.js';
import { mapExpressionChildren, type ExpressionRewrite } from './expression-children.js';

/**
 * `node` rewritten bottom-up: the children of each node first (in text order), then `rewrite` is
 * called on the node with its rewritten children. A node whose children all come back as
 * themselves is passed to `rewrite` as it is, so a rewrite that changes nothing returns `node`
 * itself (no copies). For a top-down pass (a node decided before its children, or a subtree left
 * alone), call {@link mapExpressionChildren} from the pass instead.
 */
export function transformExpression(node: BoundExpression, rewrite: ExpressionRewrite): BoundExpression {
  return rewrite(mapExpressionChildren(node, (child) => transformExpression(child, rewrite)));
}
