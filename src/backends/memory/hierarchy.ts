/**
 * `ancestors`, `descendants` and `traverse` in memory (Data Aggregation 6.2), over the rows of
 * the hierarchy's entity set (reference/hierarchy.ts has the closures and the walk):
 * - `ancestors`/`descendants`: the start pipeline runs on the input rows; the node identifiers of
 *   the rows it keeps are the start nodes; the output is the input rows (in input order) whose
 *   node identifier is in the closure.
 * - `traverse`: the start nodes are the hierarchy's nodes the start pipeline keeps (or its roots),
 *   in the order of the order items then the key, as are siblings; each visited node gives the
 *   input rows whose node identifier is its own, in input order.
 * A node path through a collection relates a row to each of its nodes: `ancestors`/`descendants`
 * start from all of them and keep a row when any is in the closure; `traverse` gives a row once per
 * node, with σ(x); `rolluprecursive` puts it into each portion once.
 */
import type { EntitySet, Property } from '../../model/model.js';
import type {
  BoundHierarchy,
  BoundHierarchyFilter,
  BoundPath,
  BoundPathStep,
  BoundRollupRecursive,
  BoundTransformation,
  BoundTraverse,
  NodePlacement,
} from '../../semantic/bound-ast.js';
import { fromReference } from '../../semantic/types.js';
import type { ReferenceCompiler } from '../../reference/evaluator.js';
import { HierarchyIndex, MAX_HIERARCHY_ROWS, nodeKeyOf, type NodeKey } from '../../reference/hierarchy.js';
import { propertyGetter, type Row } from '../../reference/rows.js';
import { domainOf } from '../../reference/values.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import { ODataError } from '../../errors/odata-error.js';
import { sortRows, type SortKey } from './ordering.js';

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null) as Record<string, unknown>);

type Step = (rows: readonly Row[]) => Row[];

/** The rows of an entity set (the hierarchy's nodes), or `undefined` when they are not at hand. */
export type NodeRows = (set: EntitySet) => readonly Row[] | undefined;

/**
 * How a node's parent's key is read, for the nodes `nodes`: the key of the node its parent
 * navigation property leads to (none when that node is missing, as for an orphan). Where the
 * navigation property is a referential constraint from one property to the node property, that
 * property is read and kept when a node has it (no navigation followed per node); else the
 * navigation property is followed.
 */
function parentReader(
  hierarchy: BoundHierarchy,
  compiler: ReferenceCompiler,
  own: (row: Row) => NodeKey | undefined,
): (nodes: readonly Row[]) => (row: Row) => NodeKey | undefined {
  const keyOf = nodeKeyOf(hierarchy.node.type);
  const [navigation, target] = hierarchy.parent.steps;
  const [property] = hierarchy.node.steps;
  const constraint =
    hierarchy.parent.steps.length === 2 &&
    hierarchy.node.steps.length === 1 &&
    navigation?.kind === 'navigation' &&
    target?.kind === 'property' &&
    property?.kind === 'property' &&
    target.property === property.property &&
    navigation.navigation.constraints.length === 1
      ? navigation.navigation.constraints.find((c) => c.referencedProperty === property.property.name)
      : undefined;
  if (constraint === undefined) {
    const parentId = compiler.compile(hierarchy.parent);
    return () => (row) => keyOf(parentId(row, NO_VARIABLES));
  }
  const foreign = propertyGetter(constraint.property);
  return (nodes) => {
    const keys = new Set<NodeKey>();
    for (const n of nodes) {
      const key = own(n);
      if (key !== undefined) keys.add(key);
    }
    return (row) => {
      const key = keyOf(foreign(row) ?? null);
      return key !== undefined && keys.has(key) ? key : undefined;
    };
  };
}

/** What every hierarchical step reads: a node's key, its parent's, an input row's node key, and the nodes (or the refusal without them). */
function readers(node: BoundHierarchyFilter | BoundTraverse | BoundRollupRecursive, compiler: ReferenceCompiler, nodeRows: NodeRows) {
  const hierarchy = node.hierarchy;
  const keyOf = nodeKeyOf(hierarchy.node.type);
  const nodeId = compiler.compile(hierarchy.node);
  const rowIds = identifiers(node.path, compiler);
  const own = (row: Row): NodeKey | undefined => keyOf(nodeId(row, NO_VARIABLES));
  const set = hierarchy.nodes;
  return {
    set,
    nodeId,
    own,
    parentOf: parentReader(hierarchy, compiler, own),
    /** The keys of the nodes an input row is related to: one, or through a collection several (each once). */
    related: (row: Row): NodeKey[] => {
      const keys: NodeKey[] = [];
      for (const id of rowIds(row)) {
        const key = keyOf(id);
        if (key !== undefined && !keys.includes(key)) keys.push(key);
      }
      return keys;
    },
    nodesOf: (): readonly Row[] => {
      const rows = nodeRows(set);
      if (rows === undefined)
        throw unsupportedFeature('in-memory', `the hierarchy '${hierarchy.qualifier}' without the rows of '${set.name}' (give them in 'data')`, {
          node,
          option: '$apply',
        });
      return rows;
    },
  };
}

/** Compiles a hierarchical transformation; `pipeline` compiles its start transformations. */
export function hierarchyStep(
  node: BoundHierarchyFilter | BoundTraverse,
  compiler: ReferenceCompiler,
  pipeline: (transformations: readonly BoundTransformation[]) => Step,
  nodeRows: NodeRows,
): Step {
  const { set, own, parentOf, related, nodesOf, nodeId } = readers(node, compiler, nodeRows);
  const start = node.start === undefined ? undefined : pipeline(node.start);

  if (node.kind !== 'traverse') {
    const up = node.kind === 'ancestors';
    return (rows) => {
      const nodes = nodesOf();
      const index = new HierarchyIndex(nodes, own, parentOf(nodes));
      const starts = new Set<NodeKey>();
      for (const row of (start as Step)(rows)) for (const key of related(row)) starts.add(key);
      const keys = index.closure(starts, up, node.distance, node.keepStart);
      return rows.filter((row) => related(row).some((key) => keys.has(key)));
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
    const parent = parentOf(nodes);
    const index = new HierarchyIndex(nodes, own, parent);
    const starts = start === undefined ? index.roots(parent) : start(nodes);
    const byNode = new Map<NodeKey, Row[]>();
    for (const row of rows) {
      for (const key of related(row)) {
        const list = byNode.get(key);
        if (list === undefined) byNode.set(key, [row]);
        else list.push(row);
      }
    }
    const into = node.into;
    const result: Row[] = [];
    const tooMany = (): never => {
      throw new ODataError({
        code: 'apply_fan_out_exceeded',
        reason: `traverse() would give more than ${MAX_HIERARCHY_ROWS} rows (node identifiers used more than once, or cycles, multiply the paths through the hierarchy).`,
        option: '$apply',
        position: node.span.start,
        appendLocation: false,
      });
    };
    for (const visited of index.walk(sort(starts), node.order, sort, tooMany)) {
      const key = index.keyOf.get(visited);
      const matching = key === undefined ? undefined : byNode.get(key);
      if (matching === undefined) continue;
      // Through a collection, each row with σ(x), the node it comes for.
      for (const row of matching) if (result.push(into === undefined ? row : placed(row, into, visited, nodeId)) > MAX_HIERARCHY_ROWS) tooMany();
    }
    return result;
  };
}

/** What `rolluprecursive` gives for one node's portion, the rows `from` to `to` (excluded) of `rows`. */
export type Portion = (rows: readonly Row[], from: number, to: number) => Row[];

/** The most rows the portions of one `rolluprecursive` hold together (a row is in its node's and every ancestor's). */
export const MAX_PORTION_ROWS = MAX_HIERARCHY_ROWS;

/**
 * `groupby` with `rolluprecursive(H, Q, p[, S])` (Data Aggregation 6.3): `H′` is the hierarchy's
 * nodes after `S`; for each node `x` reached from the roots of `H′` (a node whose parent is not in
 * `H′`), in preorder, `portion` (the other grouping properties and the nested transformations)
 * runs on the input rows whose node is `x` or a descendant of it in `H′`, an empty portion too, and
 * every row it gives gets `x` (σ(x)). The nodes are walked once from the roots (a cycle ends: no
 * root reaches it); the rows, laid out in that preorder, make each portion one slice: the work is
 * the nodes, the rows, and the portions' rows, at most {@link MAX_PORTION_ROWS} in all (else
 * `apply_fan_out_exceeded`).
 */
export function rollupRecursiveStep(
  node: BoundRollupRecursive,
  portion: Portion,
  grouped: readonly string[],
  compiler: ReferenceCompiler,
  pipeline: (transformations: readonly BoundTransformation[]) => Step,
  nodeRows: NodeRows,
): Step {
  const { own, parentOf, related, nodesOf, nodeId } = readers(node, compiler, nodeRows);
  const start = node.start === undefined ? undefined : pipeline(node.start);
  const into = node.into;
  const several = node.path.type.kind === 'collection';
  /** The row `made` of node `x`'s portion with `x` written into it; the grouping properties (`grouped`) stay the group's. */
  const place = (made: Row, x: Row): Row => {
    if (into.kind === 'node') {
      const out: Record<string, unknown> = { ...made, ...x };
      for (const name of grouped) if (Object.hasOwn(made, name)) out[name] = made[name];
      return out;
    }
    if (into.collections !== undefined) return placed(made, into, x, nodeId);
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
    const all = nodesOf();
    const nodes = start === undefined ? all : start(all);
    const parent = parentOf(all);
    const index = new HierarchyIndex(nodes, own, parent);
    const present = new Set<NodeKey>();
    for (const n of nodes) {
      const key = index.keyOf.get(n);
      if (key !== undefined) present.add(key);
    }
    const roots = nodes.filter((n) => {
      const up = parent(n);
      return up === undefined || !present.has(up);
    });
    // The nodes reached from the roots in preorder: a node's subtree is the run of nodes after it,
    // `size` long; nodes no root reaches (a cycle, and what hangs below it) give no portion.
    const order = index.walk(
      roots,
      'preorder',
      (children) => children,
      () => {
        throw new ODataError({
          code: 'apply_fan_out_exceeded',
          reason: `rolluprecursive() would walk more than ${MAX_HIERARCHY_ROWS} nodes (node identifiers used more than once multiply the paths through the hierarchy).`,
          option: '$apply',
          position: node.span.start,
          appendLocation: false,
        });
      },
    );
    const count = order.length;
    const position = new Map<NodeKey, number>();
    const size = new Array<number>(count).fill(1);
    const keys = order.map((n) => index.keyOf.get(n));
    keys.forEach((key, i) => {
      if (key !== undefined && !position.has(key)) position.set(key, i);
    });
    for (let i = count - 1; i > 0; i--) {
      const key = keys[i];
      if (key === undefined) continue;
      // Its parent: the one reached before it (a root's is not in H′).
      for (const up of index.parentsOf(key)) {
        const at = position.get(up);
        if (at !== undefined && at < i) {
          (size as number[])[at] = (size[at] as number) + (size[i] as number);
          break;
        }
      }
    }
    // The input rows by node, laid out in preorder: a node's portion is one slice.
    const byNode = new Map<NodeKey, Row[]>();
    for (const row of rows) {
      for (const key of related(row)) {
        if (!position.has(key)) continue;
        const list = byNode.get(key);
        if (list === undefined) byNode.set(key, [row]);
        else list.push(row);
      }
    }
    const flat: Row[] = [];
    const offset = new Array<number>(count + 1);
    for (let i = 0; i < count; i++) {
      offset[i] = flat.length;
      const key = keys[i];
      const own = key === undefined || position.get(key) !== i ? undefined : byNode.get(key);
      if (own !== undefined) for (const row of own) flat.push(row);
    }
    offset[count] = flat.length;
    let members = 0;
    for (let i = 0; i < count; i++) members += (offset[i + (size[i] as number)] as number) - (offset[i] as number);
    if (members > MAX_PORTION_ROWS) {
      throw new ODataError({
        code: 'apply_fan_out_exceeded',
        reason: `rolluprecursive() would put ${members} rows into its portions, more than ${MAX_PORTION_ROWS} (each row is in its node's portion and every ancestor's): the hierarchy is too deep for these rows.`,
        option: '$apply',
        position: node.span.start,
        appendLocation: false,
      });
    }
    const result: Row[] = [];
    // Aggregation.rollupnode() in the portion's transformations is x.
    const outer = compiler.rollupNode;
    try {
      for (let i = 0; i < count; i++) {
        const x = order[i] as Row;
        compiler.rollupNode = x;
        const from = offset[i] as number;
        const to = offset[i + (size[i] as number)] as number;
        // A row related to several nodes of the subtree is in its portion once (F(x) is a filter).
        const rowsOfX = several ? [...new Set(flat.slice(from, to))] : undefined;
        for (const made of rowsOfX === undefined ? portion(flat, from, to) : portion(rowsOfX, 0, rowsOfX.length)) result.push(place(made, x));
      }
    } finally {
      compiler.rollupNode = outer;
    }
    return result;
  };
}

/**
 * The node identifiers of an input row at `path`: its one value, or through collection-valued
 * segments (`p₁/…/pₖ/r`) every value the path reaches (γ(u, p) of Data Aggregation 3.1.3).
 */
function identifiers(path: BoundPath, compiler: ReferenceCompiler): (row: Row) => unknown[] {
  if (path.type.kind !== 'collection') {
    const single = compiler.compile(path);
    return (row) => [single(row, NO_VARIABLES)];
  }
  // The path in parts, each ending in a collection-valued segment (the last in the primitive property).
  const parts: BoundPathStep[][] = [[]];
  for (const step of path.steps) {
    (parts[parts.length - 1] as BoundPathStep[]).push(step);
    if ((step.kind === 'navigation' && step.navigation.collection) || (step.kind === 'property' && step.property.collection)) parts.push([]);
  }
  const evaluators = parts.filter((steps) => steps.length > 0).map((steps) => compiler.compile({ ...path, steps }));
  return (row) => {
    let values: unknown[] = [row];
    for (const evaluate of evaluators) {
      values = values.flatMap((value) => {
        if (value === null || typeof value !== 'object') return [];
        const result = evaluate(value as Row, NO_VARIABLES);
        return Array.isArray(result) ? (result as unknown[]) : result === null || result === undefined ? [] : [result];
      });
    }
    return values;
  };
}

/**
 * `row` with σ(x) (Data Aggregation 6.2.2, a(ε, t, x)): at the placement's names the node `x`
 * (or its identifier), nested, a collection of one item where a segment is collection-valued.
 */
function placed(row: Row, into: NodePlacement, x: Row, nodeId: (row: Row, scope: Readonly<Record<string, unknown>>) => unknown): Row {
  const value = (i: number): unknown => {
    const inner =
      i < into.names.length - 1 ? { [into.names[i + 1] as string]: value(i + 1) } : into.kind === 'entity' ? { ...x } : (nodeId(x, NO_VARIABLES) ?? null);
    return into.collections?.[i] === true ? [inner] : inner;
  };
  const first = into.names[0] as string;
  const out: Record<string, unknown> = { ...row };
  out[first] = value(0);
  return out;
}
