/**
 * `ancestors`, `descendants` and `traverse` in memory (Data Aggregation 6.2), over the rows of
 * the hierarchy's entity set (reference/hierarchy.ts has the closures and the walk):
 * - `ancestors`/`descendants`: the start pipeline runs on the input rows; the node identifiers of
 *   the rows it keeps are the start nodes; the output is the input rows (in input order) whose
 *   node identifier is in the closure.
 * - `traverse`: the start nodes are the hierarchy's nodes the start pipeline keeps (or its roots),
 *   in the order of the order items then the key, as are siblings; each visited node gives the
 *   input rows whose node identifier is its own, in input order.
 */
import type { EntitySet, Property } from '../../model/model.js';
import type { BoundHierarchyFilter, BoundRollupRecursive, BoundTransformation, BoundTraverse } from '../../semantic/bound-ast.js';
import { fromReference } from '../../semantic/types.js';
import type { ReferenceCompiler } from '../../reference/evaluator.js';
import { HierarchyIndex, nodeKeyOf, type NodeKey } from '../../reference/hierarchy.js';
import { propertyGetter, type Row } from '../../reference/rows.js';
import { domainOf } from '../../reference/values.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import { sortRows, type SortKey } from './ordering.js';

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null) as Record<string, unknown>);

type Step = (rows: readonly Row[]) => Row[];

/** The rows of an entity set (the hierarchy's nodes), or `undefined` when they are not at hand. */
export type NodeRows = (set: EntitySet) => readonly Row[] | undefined;

/** Compiles a hierarchical transformation; `pipeline` compiles its start transformations. */
export function hierarchyStep(
  node: BoundHierarchyFilter | BoundTraverse,
  compiler: ReferenceCompiler,
  pipeline: (transformations: readonly BoundTransformation[]) => Step,
  nodeRows: NodeRows,
): Step {
  const hierarchy = node.hierarchy;
  const keyOf = nodeKeyOf(hierarchy.node.type);
  const nodeId = compiler.compile(hierarchy.node);
  const parentId = compiler.compile(hierarchy.parent);
  const rowId = compiler.compile(node.path);
  const own = (row: Row): NodeKey | undefined => keyOf(nodeId(row, NO_VARIABLES));
  const parent = (row: Row): NodeKey | undefined => keyOf(parentId(row, NO_VARIABLES));
  const related = (row: Row): NodeKey | undefined => keyOf(rowId(row, NO_VARIABLES));
  const set = hierarchy.nodes;
  const nodesOf = (): readonly Row[] => {
    const rows = nodeRows(set);
    if (rows === undefined)
      throw unsupportedFeature('in-memory', `the hierarchy '${hierarchy.qualifier}' without the rows of '${set.name}' (give them in 'data')`, {
        node,
        option: '$apply',
      });
    return rows;
  };
  const start = node.start === undefined ? undefined : pipeline(node.start);

  if (node.kind !== 'traverse') {
    const up = node.kind === 'ancestors';
    return (rows) => {
      const index = new HierarchyIndex(nodesOf(), own, parent);
      const starts = new Set<NodeKey>();
      for (const row of (start as Step)(rows)) {
        const key = related(row);
        if (key !== undefined) starts.add(key);
      }
      const keys = index.closure(starts, up, node.distance, node.keepStart);
      return rows.filter((row) => {
        const key = related(row);
        return key !== undefined && keys.has(key);
      });
    };
  }

  // Siblings (and start nodes) by the order items, then by the nodes' key.
  const keys: SortKey[] = node.orderBy.map((item) => ({
    evaluate: compiler.compile(item.expression),
    domain: domainOf(item.expression.type),
    descending: item.direction === 'desc',
  }));
  for (const name of set.type.key) {
    const property = set.type.properties.get(name) as Property;
    const get = propertyGetter(name);
    keys.push({ evaluate: (row) => get(row) ?? null, domain: domainOf(fromReference(property.type)), descending: false });
  }
  const sort = (nodes: readonly Row[]): Row[] => sortRows(keys, nodes);
  return (rows) => {
    const nodes = nodesOf();
    const index = new HierarchyIndex(nodes, own, parent);
    const starts = start === undefined ? index.roots(parent) : start(nodes);
    const byNode = new Map<NodeKey, Row[]>();
    for (const row of rows) {
      const key = related(row);
      if (key === undefined) continue;
      const list = byNode.get(key);
      if (list === undefined) byNode.set(key, [row]);
      else list.push(row);
    }
    const result: Row[] = [];
    for (const visited of index.walk(sort(starts), node.order, sort)) {
      const key = index.keyOf.get(visited);
      const matching = key === undefined ? undefined : byNode.get(key);
      if (matching !== undefined) for (const row of matching) result.push(row);
    }
    return result;
  };
}

/**
 * `groupby` with `rolluprecursive(H, Q, p[, S])` (Data Aggregation 6.3): `H′` is the hierarchy's
 * nodes after `S`; for each node `x` reached from the roots of `H′` (a node whose parent is not in
 * `H′`), in preorder, `portion` (the other grouping properties and the nested transformations)
 * runs on the input rows whose node is `x` or a descendant of it in `H′`, an empty portion too, and
 * every row it gives gets `x` (σ(x)). Each row's node is walked up once (each node identifier
 * once, so a cycle ends): the work is the rows times the depth of their nodes.
 */
export function rollupRecursiveStep(
  node: BoundRollupRecursive,
  portion: Step,
  grouped: readonly string[],
  compiler: ReferenceCompiler,
  pipeline: (transformations: readonly BoundTransformation[]) => Step,
  nodeRows: NodeRows,
): Step {
  const hierarchy = node.hierarchy;
  const keyOf = nodeKeyOf(hierarchy.node.type);
  const nodeId = compiler.compile(hierarchy.node);
  const parentId = compiler.compile(hierarchy.parent);
  const rowId = compiler.compile(node.path);
  const own = (row: Row): NodeKey | undefined => keyOf(nodeId(row, NO_VARIABLES));
  const parent = (row: Row): NodeKey | undefined => keyOf(parentId(row, NO_VARIABLES));
  const related = (row: Row): NodeKey | undefined => keyOf(rowId(row, NO_VARIABLES));
  const set = hierarchy.nodes;
  const start = node.start === undefined ? undefined : pipeline(node.start);
  const into = node.into;
  /** The row `made` of node `x`'s portion with `x` written into it; the grouping properties (`grouped`) stay the group's. */
  const place = (made: Row, x: Row): Row => {
    if (into.kind === 'node') {
      const out: Record<string, unknown> = { ...made, ...x };
      for (const name of grouped) if (Object.hasOwn(made, name)) out[name] = made[name];
      return out;
    }
    const out: Record<string, unknown> = { ...made };
    let target = out;
    for (const name of into.names.slice(0, -1)) {
      const next = target[name];
      target[name] = typeof next === 'object' && next !== null ? { ...(next as Record<string, unknown>) } : {};
      target = target[name] as Record<string, unknown>;
    }
    target[into.names[into.names.length - 1] as string] = into.kind === 'entity' ? { ...x } : (nodeId(x, NO_VARIABLES) ?? null);
    return out;
  };
  return (rows) => {
    const all = nodeRows(set);
    if (all === undefined)
      throw unsupportedFeature('in-memory', `the hierarchy '${hierarchy.qualifier}' without the rows of '${set.name}' (give them in 'data')`, {
        node,
        option: '$apply',
      });
    const nodes = start === undefined ? all : start(all);
    const index = new HierarchyIndex(nodes, own, parent);
    const present = new Set<NodeKey>();
    for (const n of nodes) {
      const key = index.keyOf.get(n);
      if (key !== undefined) present.add(key);
    }
    // The nodes of H′ a node identifier is, or descends from (itself first), each once.
    const lines = new Map<NodeKey, NodeKey[]>();
    const line = (key: NodeKey): NodeKey[] => {
      let found = lines.get(key);
      if (found !== undefined) return found;
      found = [];
      const seen = new Set<NodeKey>();
      let frontier = present.has(key) ? [key] : [];
      while (frontier.length > 0) {
        const next: NodeKey[] = [];
        for (const k of frontier) {
          if (seen.has(k)) continue;
          seen.add(k);
          found.push(k);
          for (const up of index.parentsOf(k)) if (present.has(up) && !seen.has(up)) next.push(up);
        }
        frontier = next;
      }
      lines.set(key, found);
      return found;
    };
    const portions = new Map<NodeKey, Row[]>();
    for (const row of rows) {
      const key = related(row);
      if (key === undefined) continue;
      for (const x of line(key)) {
        const list = portions.get(x);
        if (list === undefined) portions.set(x, [row]);
        else list.push(row);
      }
    }
    const roots = nodes.filter((n) => {
      const up = parent(n);
      return up === undefined || !present.has(up);
    });
    const result: Row[] = [];
    for (const x of index.walk(roots, 'preorder', (children) => children)) {
      const key = index.keyOf.get(x);
      const rowsOf = key === undefined ? [] : (portions.get(key) ?? []);
      for (const made of portion(rowsOf)) result.push(place(made, x));
    }
    return result;
  };
}
