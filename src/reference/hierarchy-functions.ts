/**
 * The hierarchy functions of the Aggregation vocabulary (Data Aggregation 5.5.2.1) in the
 * reference: `isnode`, `isroot`, `isleaf`, `isdescendant`, `isancestor`, `issibling` of a node
 * identifier, over the rows of the hierarchy's entity set (reference/hierarchy.ts builds the
 * index once per set of rows; each closure is computed once per distinct other node).
 */
import type { BoundExpression, BoundHierarchyTest } from '../semantic/bound-ast.js';
import { HierarchyIndex, nodeKeyOf, type NodeKey } from './hierarchy.js';
import type { Evaluator, Row } from './rows.js';

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null) as Record<string, unknown>);

/** One index of the rows and its closures. */
interface Indexed {
  readonly index: HierarchyIndex;
  readonly keys: ReadonlySet<NodeKey>;
  readonly closures: Map<NodeKey, Set<NodeKey>>;
}

/**
 * The evaluator of a hierarchy function; `nodes` gives the rows of the hierarchy's entity set
 * (`undefined`: not at hand, then `missing` throws the refusal).
 */
export function hierarchyTestEvaluator(
  node: BoundHierarchyTest,
  compile: (expression: BoundExpression) => Evaluator,
  nodes: () => readonly Row[] | undefined,
  missing: () => never,
): Evaluator {
  const hierarchy = node.hierarchy;
  const keyOf = nodeKeyOf(hierarchy.node.type);
  const own = compile(hierarchy.node);
  const parent = compile(hierarchy.parent);
  const tested = compile(node.node);
  const other = node.other === undefined ? undefined : compile(node.other);
  let cached: { rows: readonly Row[]; indexed: Indexed } | undefined;
  const indexed = (): Indexed => {
    const rows = nodes() ?? missing();
    if (cached?.rows !== rows) {
      const index = new HierarchyIndex(
        rows,
        (row) => keyOf(own(row, NO_VARIABLES)),
        (row) => keyOf(parent(row, NO_VARIABLES)),
      );
      const keys = new Set<NodeKey>();
      for (const key of index.keyOf.values()) if (key !== undefined) keys.add(key);
      cached = { rows, indexed: { index, keys, closures: new Map() } };
    }
    return cached.indexed;
  };
  return (row, scope) => {
    const key = keyOf(tested(row, scope));
    if (key === undefined) return false;
    const { index, keys, closures } = indexed();
    switch (node.test) {
      case 'isnode':
        return keys.has(key);
      case 'isroot':
        return keys.has(key) && index.parentsOf(key).length === 0;
      case 'isleaf':
        return keys.has(key) && index.childrenOf(key).length === 0;
      case 'issibling': {
        const with_ = keyOf((other as Evaluator)(row, scope));
        if (with_ === undefined || with_ === key || !keys.has(key) || !keys.has(with_)) return false;
        const mine = index.parentsOf(key);
        const theirs = index.parentsOf(with_);
        return mine.length === 0 ? theirs.length === 0 : mine.some((p) => theirs.includes(p));
      }
      default: {
        const start = keyOf((other as Evaluator)(row, scope));
        if (start === undefined) return false;
        if (node.includeSelf && start === key) return true;
        let closure = closures.get(start);
        if (closure === undefined) closures.set(start, (closure = index.closure(new Set([start]), node.test === 'isancestor', node.distance, false)));
        return closure.has(key);
      }
    }
  };
}
