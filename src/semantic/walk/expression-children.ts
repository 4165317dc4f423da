/**
 * The children of a bound expression, in one table: what every walk of the tree (transformers,
 * visitors, searches) reads, so that a new kind of expression is taught to the walks in one place.
 */
import { mapSame } from '../../util/same.js';
import type { BoundExpression, BoundLiteral, BoundPath } from '../bound-ast.js';

/** The kinds of bound expressions. */
export type BoundExpressionKind = BoundExpression['kind'];

/** The bound expression of one kind: `BoundExpressionOfKind<'call'>` is `BoundCall`. */
export type BoundExpressionOfKind<K extends BoundExpressionKind> = Extract<BoundExpression, { readonly kind: K }>;

/** A rewrite of one expression: the expression itself when it keeps it. */
export type ExpressionRewrite = (node: BoundExpression) => BoundExpression;

/** The result of rewriting a child that must stay a path (a lambda's or a count's collection, a grouping path). */
export function stayPath(rewritten: BoundExpression, was: BoundPath): BoundPath {
  if (rewritten.kind !== 'path') {
    throw new TypeError(`A rewrite turned the path at ${was.span.start} into a '${rewritten.kind}': this place only takes a path`);
  }
  return rewritten;
}

/** The result of rewriting an item of an `in` list, which must stay a literal. */
function stayLiteral(rewritten: BoundExpression, was: BoundLiteral): BoundLiteral {
  if (rewritten.kind !== 'literal') {
    throw new TypeError(`A rewrite turned the 'in' list item at ${was.span.start} into a '${rewritten.kind}': a list only takes literals`);
  }
  return rewritten;
}

/**
 * For each kind: the node with `rewrite` applied to each direct child, in text order (the node
 * itself when every child is rewritten to itself). Keyed by every kind, so that adding a kind to
 * {@link BoundExpression} does not compile until its children are listed here.
 */
const CHILDREN: { readonly [K in BoundExpressionKind]: (node: BoundExpressionOfKind<K>, rewrite: ExpressionRewrite) => BoundExpression } = {
  literal: (node) => node,
  path: (node) => node,
  rollupNode: (node) => node,
  binary: (node, rewrite) => {
    const left = rewrite(node.left);
    const right = rewrite(node.right);
    return left === node.left && right === node.right ? node : { ...node, left, right };
  },
  unary: (node, rewrite) => {
    const operand = rewrite(node.operand);
    return operand === node.operand ? node : { ...node, operand };
  },
  in: (node, rewrite) => {
    const left = rewrite(node.left);
    const was = node.right;
    const right =
      was.kind === 'list'
        ? ((items) => (items === was.items ? was : { ...was, items }))(mapSame(was.items, (item) => stayLiteral(rewrite(item), item)))
        : ((collection) => (collection === was.collection ? was : { ...was, collection }))(rewrite(was.collection));
    return left === node.left && right === was ? node : { ...node, left, right };
  },
  hierarchyTest: (node, rewrite) => {
    const tested = rewrite(node.node);
    const other = node.other === undefined ? undefined : rewrite(node.other);
    return tested === node.node && other === node.other ? node : { ...node, node: tested, ...(other === undefined ? {} : { other }) };
  },
  call: (node, rewrite) => {
    const args = mapSame(node.args, rewrite);
    return args === node.args ? node : { ...node, args };
  },
  lambda: (node, rewrite) => {
    const collection = stayPath(rewrite(node.collection), node.collection);
    if (node.predicate === undefined) return collection === node.collection ? node : { ...node, collection };
    const predicate = rewrite(node.predicate);
    return collection === node.collection && predicate === node.predicate ? node : { ...node, collection, predicate };
  },
  aggregateValue: (node, rewrite) => {
    const collection = node.collection === undefined ? undefined : stayPath(rewrite(node.collection), node.collection);
    const a = node.aggregate;
    const expression = a.kind === 'method' ? rewrite(a.expression) : undefined;
    if (collection === node.collection && (a.kind !== 'method' || expression === a.expression)) return node;
    return {
      ...node,
      ...(collection === undefined ? {} : { collection }),
      aggregate: a.kind === 'method' ? { ...a, expression: expression as BoundExpression } : a,
    };
  },
  defined: (node, rewrite) => {
    const path = stayPath(rewrite(node.path), node.path);
    return path === node.path ? node : { ...node, path };
  },
  count: (node, rewrite) => {
    const collection = stayPath(rewrite(node.collection), node.collection);
    if (node.filter === undefined) return collection === node.collection ? node : { ...node, collection };
    const filter = rewrite(node.filter);
    return collection === node.collection && filter === node.filter ? node : { ...node, collection, filter };
  },
  case: (node, rewrite) => {
    const branches = mapSame(node.branches, (branch) => {
      const when = rewrite(branch.when);
      const then = rewrite(branch.then);
      return when === branch.when && then === branch.then ? branch : { ...branch, when, then };
    });
    return branches === node.branches ? node : { ...node, branches };
  },
};

/**
 * `node` with `rewrite` applied to each of its direct children (operands, arguments, `in` list
 * items, a lambda's or a count's collection path and predicate or filter, `case` conditions and
 * values), in text order; the node itself when every child is rewritten to itself. The step of
 * every transformer: a top-down pass handles the nodes it cares about and calls this for the rest
 * with itself as `rewrite` (the role of `super.transformX` in Kysely's `OperationNodeTransformer`).
 *
 * A collection path must be rewritten to a path and an `in` list item to a literal
 * (`TypeError` otherwise: the bound tree has no other form for them).
 */
export function mapExpressionChildren(node: BoundExpression, rewrite: ExpressionRewrite): BoundExpression {
  return (CHILDREN[node.kind] as (node: BoundExpression, rewrite: ExpressionRewrite) => BoundExpression)(node, rewrite);
}

/**
 * Calls `visit` on each direct child of `node` in text order (the children of
 * {@link mapExpressionChildren}), without building anything.
 */
export function forEachChild(node: BoundExpression, visit: (child: BoundExpression) => void): void {
  mapExpressionChildren(node, (child) => {
    visit(child);
    return child;
  });
}

/** The direct sub-expressions of a bound expression, in text order (operands, arguments, lambda, count and `case` parts, `in` list items). */
export function expressionChildren(node: BoundExpression): readonly BoundExpression[] {
  const children: BoundExpression[] = [];
  forEachChild(node, (child) => children.push(child));
  return children;
}
