/**
 * The reference semantics of recursive hierarchies (Data Aggregation 5.5.2 and 6.2): the closure
 * of ancestors or descendants of start nodes, and the preorder or postorder walk from start nodes.
 * Nodes are rows of the hierarchy's collection, each with a node identifier and its parent's (as
 * comparable keys, `undefined` for null); every loop is bounded, so that data the spec forbids
 * (a cycle, a node identifier used twice) ends too:
 * - the closures visit each node identifier once;
 * - a walk does not go back into its start node (the only way a walk with one parent per node can
 *   meet a cycle) and goes no deeper than there are nodes.
 */
import { isIntegerType, type ExpressionType } from '../semantic/types.js';
import { valueKey } from './aggregation.js';
import { domainOf } from './values.js';
import type { Row } from './rows.js';

/** The key of a node identifier (equal keys for equal identifiers), `undefined` for null: a safe integer itself, else text. */
export type NodeKey = string | number;

/**
 * The key of a node identifier of `type`: its normalized value as a map key (numbers and bigints,
 * a Date and its text, alike), `undefined` for null. One rule for the transformations and the
 * hierarchy functions.
 */
export function nodeKeyOf(type: ExpressionType): (value: unknown) => NodeKey | undefined {
  const domain = domainOf(type);
  return (value) => {
    if (value === null || value === undefined) return undefined;
    const normalized = domain.normalize(value);
    if (normalized === null || normalized === undefined) return undefined;
    // A safe integer is its own key (no text made per node); the integer domains normalize every form of it to the number.
    return typeof normalized === 'number' && Number.isSafeInteger(normalized) && isIntegerType(type) ? normalized : valueKey(normalized);
  };
}

/**
 * The most nodes a walk visits, and rows a hierarchical transformation gives, in memory: node
 * identifiers used more than once and cycles (which the spec forbids) multiply the paths, up to
 * exponentially in the nodes; past it the transformation is refused (`apply_fan_out_exceeded`).
 */
export const MAX_HIERARCHY_ROWS = 10_000_000;

/** The nodes of a hierarchy with their identifiers and their parents' identifiers. */
export class HierarchyIndex {
  /** The parents' keys of the nodes with a key. */
  private readonly parents = new Map<NodeKey, NodeKey[]>();
  /** The nodes whose parent has a key. */
  private readonly children = new Map<NodeKey, Row[]>();
  /** The key of each node. */
  readonly keyOf = new Map<Row, NodeKey | undefined>();

  constructor(
    readonly nodes: readonly Row[],
    key: (node: Row) => NodeKey | undefined,
    parent: (node: Row) => NodeKey | undefined,
  ) {
    for (const node of nodes) {
      const own = key(node);
      this.keyOf.set(node, own);
      const up = parent(node);
      if (up === undefined) continue;
      if (own !== undefined) push(this.parents, own, up);
      push(this.children, up, node);
    }
  }

  /** The nodes without a parent (an orphan's parent is missing: it has none). */
  roots(parent: (node: Row) => NodeKey | undefined): Row[] {
    return this.nodes.filter((node) => parent(node) === undefined);
  }

  /** The parents' identifiers of the nodes whose identifier is `key`. */
  parentsOf(key: NodeKey): readonly NodeKey[] {
    return this.parents.get(key) ?? [];
  }

  /** The nodes whose parent's identifier is `key`. */
  childrenOf(key: NodeKey): readonly Row[] {
    return this.children.get(key) ?? [];
  }

  /**
   * The keys of the ancestors (`up`) or descendants of the `start` keys within `distance` steps
   * (absent: any), with the start keys themselves when `keepStart` (a start key that is an
   * ancestor or descendant of another is in either way). Breadth first, each key expanded once.
   */
  closure(start: ReadonlySet<NodeKey>, up: boolean, distance: number | undefined, keepStart: boolean): Set<NodeKey> {
    const reached = new Set<NodeKey>(keepStart ? start : []);
    const expanded = new Set<NodeKey>(start);
    let frontier = [...start];
    for (let level = 1; frontier.length > 0 && (distance === undefined || level <= distance); level++) {
      const next: NodeKey[] = [];
      for (const key of frontier) {
        const found = up ? (this.parents.get(key) ?? []) : (this.children.get(key) ?? []).map((node) => this.keyOf.get(node));
        for (const other of found) {
          if (other === undefined) continue;
          reached.add(other);
          if (!expanded.has(other)) {
            expanded.add(other);
            next.push(other);
          }
        }
      }
      frontier = next;
    }
    return reached;
  }

  /**
   * The nodes in `order` from each of `starts` in turn, children in the order `sort` gives:
   * `preorder` a node before its children, `postorder` after them. A node reached from two start
   * nodes comes twice. A walk does not enter its start node again, nor go deeper than
   * `this.nodes.length` levels.
   */
  walk(starts: readonly Row[], order: 'preorder' | 'postorder', sort: (nodes: readonly Row[]) => readonly Row[], tooMany: () => never): Row[] {
    const result: Row[] = [];
    const limit = this.nodes.length;
    for (const start of starts) {
      const startKey = this.keyOf.get(start);
      // An explicit stack: a chain of 100 000 nodes is no deeper a recursion than one node.
      const stack: { node: Row; level: number; children?: readonly Row[]; next: number }[] = [{ node: start, level: 0, next: 0 }];
      while (stack.length > 0) {
        const top = stack[stack.length - 1] as (typeof stack)[number];
        if (top.children === undefined) {
          if (order === 'preorder' && result.push(top.node) > MAX_HIERARCHY_ROWS) tooMany();
          const key = this.keyOf.get(top.node);
          // A child without an identifier names no row; the start node again would be a cycle.
          const children =
            key === undefined || top.level + 1 >= limit
              ? []
              : this.childrenOf(key).filter((child) => {
                  const own = this.keyOf.get(child);
                  return own !== undefined && own !== startKey;
                });
          top.children = children.length > 1 ? sort(children) : children;
        }
        const child = top.children[top.next++];
        if (child !== undefined) {
          stack.push({ node: child, level: top.level + 1, next: 0 });
          continue;
        }
        if (order === 'postorder' && result.push(top.node) > MAX_HIERARCHY_ROWS) tooMany();
        stack.pop();
      }
    }
    return result;
  }
}

function push<V>(map: Map<NodeKey, V[]>, key: NodeKey, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
