/**
 * The hierarchy functions of the Aggregation vocabulary (Data Aggregation 5.5.2.1) on MongoDB, with
 * the reference's semantics (reference/hierarchy-functions.ts), for a hierarchy whose parent
 * navigation property is a foreign key to the node identifier's field (./hierarchy-nodes.ts):
 *
 * Each function is a condition (true or false, never null; a null `Node` is false) on the fields
 * that `$graphLookup` stages before it put into the documents (each walk once per documents, however
 * often the condition reads it):
 *
 * - a walk up from a value `v` (`startWith` v, `connectToField` the identifier, `connectFromField`
 *   the parent field, with the depth): the nodes whose identifier is `v` (depth 0), their parents
 *   (depth 1), …; `$graphLookup` visits a node once, so a cycle ends, and the walk stops at the
 *   distance: its cost is the nodes it reaches (an index on the identifier serves it);
 * - `isnode`: the walk from `Node` to depth 0 is not empty; `isroot`: and none of those nodes has a
 *   parent that is a node (depth 1; an orphan's missing parent is none); `isleaf`: and no node's
 *   parent field is `Node` (a `$graphLookup` down to depth 0);
 * - `issibling`: both are nodes, they differ, and their parents that are nodes are both none or meet;
 * - `isdescendant(Node, Ancestor, d)`: up from `Node` to depth `d`, `Ancestor` is reached and is the
 *   parent of a node at a depth below `d` (round a cycle, `Node` is its own descendant as in the
 *   reference); `isancestor(Node, Descendant, d)` the same walk up from `Descendant`. Unlike SQL, the
 *   other node may depend on the row (the walk is per document anyway).
 *
 * The walks are stages on the documents the condition reads, so its values must be theirs: inside a
 * lambda (or of an element of a collection) the functions are refused (`unsupported_feature`).
 */
import type { BoundExpression, BoundHierarchyTest } from '../../semantic/bound-ast.js';
import { someExpression } from '../../semantic/walk/index.js';
import { collectionOf, reservedField, type MongoDocument, type MongoMapping } from './mapping.js';
import { nodeFields } from './hierarchy-nodes.js';

/** The greatest `maxDepth` given to `$graphLookup` (a distance beyond any number of nodes walks them all). */
const MAX_DEPTH = 2 ** 31 - 1;

/** What compiling a hierarchy function needs of the expression compiler. */
export interface HierarchyTestHost {
  readonly mapping: MongoMapping;
  /** The value of an argument on the current document. */
  value(expression: BoundExpression): unknown;
  /** The field into which a `$graphLookup` (without `as`) before the condition puts its documents (one per distinct walk). */
  walk(graphLookup: MongoDocument): string;
  fail(what: string, node: BoundExpression): never;
}

/** Whether an argument reads a lambda variable (not a field of the current document). */
export function readsVariables(node: BoundHierarchyTest): boolean {
  const args = node.other === undefined ? [node.node] : [node.node, node.other];
  return args.some((arg) => someExpression(arg, (e) => e.kind === 'path' && e.root.kind === 'variable'));
}

/** `node` as an aggregation condition: true where it holds, false elsewhere. */
export function hierarchyTestCondition(node: BoundHierarchyTest, host: HierarchyTestHost): unknown {
  const hierarchy = node.hierarchy;
  const fields = nodeFields(hierarchy, host.mapping, (what) => host.fail(what, node));
  const collection = collectionOf(hierarchy.nodes, host.mapping);
  const depth = reservedField(hierarchy.nodes.type, host.mapping, 'depth');
  const nullable = (expression: BoundExpression): unknown => (expression.kind === 'literal' && expression.value === null ? null : host.value(expression));
  /** A start value: none (an empty array) for null. */
  const start = (v: unknown): unknown => ({ $cond: [{ $eq: [v, null] }, { $literal: [] }, v] });
  /** Up from `v`: the nodes with identifier v at depth 0, their parents at 1, … to `maxDepth`. */
  const up = (v: unknown, maxDepth: number | undefined): string => {
    const spec: MongoDocument = { from: collection, startWith: start(v), connectFromField: fields.parent, connectToField: fields.id, depthField: depth };
    if (maxDepth !== undefined) spec.maxDepth = Math.min(maxDepth, MAX_DEPTH);
    return host.walk(spec);
  };
  /** The nodes at depth 0 of a walk. */
  const own = (walk: string): unknown => ({ $filter: { input: `$${walk}`, cond: { $eq: [`$$this.${depth}`, 0] } } });
  const notEmpty = (array: unknown): unknown => ({ $gt: [{ $size: array }, 0] });
  /** The parents that are nodes of the nodes at depth 0 of a walk to depth 1. */
  const parents = (walk: string): unknown => ({
    $setIntersection: [
      { $map: { input: own(walk), in: { $ifNull: [`$$this.${fields.parent}`, null] } } },
      { $map: { input: `$${walk}`, in: `$$this.${fields.id}` } },
    ],
  });
  const x = nullable(node.node);
  if (x === null) return false;
  const present = (v: unknown): unknown => ({ $ne: [v, null] });
  switch (node.test) {
    case 'isnode':
      return notEmpty(`$${up(x, 0)}`);
    case 'isroot': {
      const walk = up(x, 1);
      return { $and: [notEmpty(own(walk)), { $eq: [{ $size: parents(walk) }, 0] }] };
    }
    case 'isleaf': {
      const down: MongoDocument = { from: collection, startWith: start(x), connectFromField: fields.id, connectToField: fields.parent, maxDepth: 0 };
      return { $and: [notEmpty(`$${up(x, 0)}`), { $eq: [{ $size: `$${host.walk(down)}` }, 0] }] };
    }
    case 'issibling': {
      const y = nullable(node.other as BoundExpression);
      if (y === null) return false;
      const mine = up(x, 1);
      const theirs = up(y, 1);
      const none = (walk: string): unknown => ({ $eq: [{ $size: parents(walk) }, 0] });
      return {
        $and: [
          present(x),
          present(y),
          { $ne: [x, y] },
          notEmpty(own(mine)),
          notEmpty(own(theirs)),
          { $cond: [none(mine), none(theirs), notEmpty({ $setIntersection: [parents(mine), parents(theirs)] })] },
        ],
      };
    }
    default: {
      const other = nullable(node.other as BoundExpression);
      if (other === null) return false;
      // isdescendant: up from Node to the Ancestor; isancestor: up from the Descendant to Node.
      const [from_, target] = node.test === 'isdescendant' ? [x, other] : [other, x];
      const walk = up(from_, node.distance);
      const below =
        node.distance === undefined
          ? { $eq: [`$$this.${fields.parent}`, target] }
          : { $and: [{ $eq: [`$$this.${fields.parent}`, target] }, { $lt: [`$$this.${depth}`, node.distance] }] };
      const reached = {
        $and: [
          present(target),
          { $in: [target, { $map: { input: `$${walk}`, in: `$$this.${fields.id}` } }] },
          { $anyElementTrue: [{ $map: { input: `$${walk}`, in: below } }] },
        ],
      };
      if (!node.includeSelf) return { $and: [present(x), reached] };
      return { $and: [present(x), { $or: [{ $and: [present(other), { $eq: [x, other] }] }, reached] }] };
    }
  }
}
