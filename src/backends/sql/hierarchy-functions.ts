/**
 * The hierarchy functions of the Aggregation vocabulary (Data Aggregation 5.5.2.1) in SQL, with
 * the reference's semantics (reference/hierarchy-functions.ts): subqueries over the table of the
 * hierarchy's entity set (restricted by the mapping's scope), each TRUE or FALSE, never NULL (a
 * null `Node` is false):
 *
 * - `isnode`: the node identifier is one of the table's; `isroot`: and no node with it has a
 *   parent (an orphan's parent is missing: read through the parent navigation property, it is
 *   null); `isleaf`: and no node has it as its parent's identifier.
 * - `issibling`: both are nodes, they differ, and they are both roots or a node of the one and a
 *   node of the other have the same parent (no recursion; computed once where `Other` is a literal).
 * - `isdescendant`/`isancestor`: `Node IN` a recursive subquery (`WITH RECURSIVE` inside the
 *   subquery, so that the condition stands alone, as `where` of `toSql` does) of the descendants
 *   (ancestors) of the literal `Ancestor` (`Descendant`). Without `MaxDistance`, `UNION` keeps each
 *   node identifier once: the table is finite, so a cycle ends. With it, a row is a node and its
 *   distance, the walk stops at `MaxDistance` and at the number of nodes (no node is farther than
 *   that from the start; a cycle would otherwise go round until `MaxDistance`), and it does not
 *   expand the start node again (as the reference: a walk down from it meets a cycle only through
 *   it). An `Ancestor` that depends on the row would need a recursion per row (a correlated common
 *   table expression, which MariaDB refuses) or the closure of every node: refused.
 *
 * Every value is a parameter; identifiers come from the model.
 */
import type { EntitySet } from '../../model/model.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { BoundExpression, BoundHierarchyTest } from '../../semantic/bound-ast.js';
import { isPrimitive } from '../../semantic/types.js';
import type { Scope, SqlCompiler } from './compiler.js';

/** A scope over the hierarchy's table under a fresh alias, whose navigation its expressions join. */
interface NodeScope {
  readonly scope: Scope;
  /** The node identifier and the parent's (compiled in the scope, adding its joins). */
  readonly id: string;
  readonly up: string;
  /** The FROM items, once the scope's expressions are compiled. */
  from(): string;
}

/** `node` as an SQL condition: TRUE where it holds, FALSE elsewhere. */
export function hierarchyTestSql(c: SqlCompiler, node: BoundHierarchyTest, scope: Scope): string {
  const hooks = c.dialect.hierarchy;
  if (hooks === undefined) {
    throw unsupportedFeature('SQL', c.dialect.noHierarchy ?? `the hierarchy functions on ${c.dialect.displayName}`, {
      node,
      option: c.option ?? '$filter',
    });
  }
  const hierarchy = node.hierarchy;
  const set = hierarchy.nodes;
  const strings = isPrimitive(hierarchy.node.type, 'Edm.String') && !c.dialect.binaryEquality;
  /** A node identifier as compared: strings by code point where the dialect's equality is not. */
  const key = (sql: string): string => (strings ? c.dialect.binary(sql) : sql);
  // Each value as its own type: a Decimal `Ancestor` of integer identifiers compares as a Decimal (1.5 is no node), not cast.
  const value = (expression: BoundExpression): string | undefined =>
    expression.kind === 'literal' && expression.value === null ? undefined : c.expression(expression, scope);
  const tested = value(node.node);
  if (tested === undefined) return '1 = 0';
  const a = key(tested);
  const guard = `${tested} IS NOT NULL`;
  /** `a IN` the node identifiers of the table. */
  const isNode = (k: string): string => {
    const x = nodeScope(c, set, node);
    return `${k} IN (SELECT ${key(x.id)} FROM ${x.from()} WHERE ${x.id} IS NOT NULL)`;
  };
  /** No node with identifier `k` has a parent. */
  const noParent = (k: string): string => {
    const x = nodeScope(c, set, node);
    return `${k} NOT IN (SELECT ${key(x.id)} FROM ${x.from()} WHERE ${x.id} IS NOT NULL AND ${x.up} IS NOT NULL)`;
  };
  switch (node.test) {
    case 'isnode':
      return `(${guard} AND ${isNode(a)})`;
    case 'isroot':
      return `(${guard} AND ${isNode(a)} AND ${noParent(a)})`;
    case 'isleaf': {
      const x = nodeScope(c, set, node);
      return `(${guard} AND ${isNode(a)} AND ${a} NOT IN (SELECT ${key(x.up)} FROM ${x.from()} WHERE ${x.up} IS NOT NULL))`;
    }
    case 'issibling': {
      const otherSql = value(node.other as BoundExpression);
      if (otherSql === undefined) return '1 = 0';
      const b = key(otherSql);
      const x = nodeScope(c, set, node);
      const y = nodeScope(c, set, node);
      // The nodes whose parent is a parent of Other: uncorrelated (computed once) where Other is a literal.
      // One join of two derived tables, not nested IN subqueries (which MariaDB runs as a dependent subquery per row).
      const q = (name: string): string => c.dialect.quote(name);
      const [mine, theirs] = [c.freshAlias(), c.freshAlias()];
      const sameParent =
        `${a} IN (SELECT ${mine}.${q('n')} FROM ` +
        `(SELECT ${key(x.id)} AS ${q('n')}, ${key(x.up)} AS ${q('up')} FROM ${x.from()} WHERE ${x.id} IS NOT NULL AND ${x.up} IS NOT NULL) ${mine} JOIN ` +
        `(SELECT ${key(y.up)} AS ${q('up')} FROM ${y.from()} WHERE ${key(y.id)} = ${b} AND ${y.up} IS NOT NULL) ${theirs} ` +
        `ON ${mine}.${q('up')} = ${theirs}.${q('up')})`;
      return `(${guard} AND ${otherSql} IS NOT NULL AND NOT (${a} = ${b}) AND ${isNode(a)} AND ${isNode(b)} AND ((${noParent(a)} AND ${noParent(b)}) OR ${sameParent}))`;
    }
    default: {
      const other = node.other as BoundExpression;
      if (other.kind !== 'literal') {
        const name = node.test === 'isdescendant' ? 'Ancestor' : 'Descendant';
        throw unsupportedFeature(
          'SQL',
          `Aggregation.${node.test} with ${name === 'Ancestor' ? 'an' : 'a'} ${name} that is not a literal (a recursive subquery for every row)`,
          {
            node: other,
            option: c.option ?? '$filter',
          },
        );
      }
      const start = value(other);
      if (start === undefined) return '1 = 0';
      const self = node.includeSelf ? `${a} = ${key(start)} OR ` : '';
      return `(${guard} AND (${self}${a} IN (${closure(c, node, start, hooks.recursive, key)})))`;
    }
  }
}

/** A scope over the hierarchy's table, restricted by the mapping's scope, with its node and parent identifiers. */
function nodeScope(c: SqlCompiler, set: EntitySet, node: BoundHierarchyTest): NodeScope {
  const alias = c.freshAlias();
  const restricted = c.scopeCondition(alias);
  const table = restricted === '' ? `${c.table(set)} ${alias}` : `(SELECT ${alias}.* FROM ${c.table(set)} ${alias} WHERE ${restricted}) ${alias}`;
  const scope: Scope = { alias, type: set.type, set, variables: new Map(), joins: { clauses: [], scopes: new Map() } };
  const id = c.expression(node.hierarchy.node, scope);
  const up = c.expression(node.hierarchy.parent, scope);
  return { scope, id, up, from: () => [table, ...(scope.joins?.clauses ?? [])].join(' ') };
}

/**
 * `SELECT` of the node identifiers (as compared, never null) below (`isdescendant`) or above
 * (`isancestor`) `start` within the distance, as a recursive common table expression.
 */
function closure(c: SqlCompiler, node: BoundHierarchyTest, start: string, recursive: string, key: (sql: string) => string): string {
  const q = (name: string): string => c.dialect.quote(name);
  const set = node.hierarchy.nodes;
  const down = node.test === 'isdescendant';
  const name = q(`~h${c.freshAlias()}`);
  const w = c.freshAlias();
  const anchor = nodeScope(c, set, node);
  const step = nodeScope(c, set, node);
  // Down: the nodes whose parent is the start (the reached node); up: the parents of the nodes that are.
  const [anchorReached, anchorFrom] = down ? [anchor.id, anchor.up] : [anchor.up, anchor.id];
  const [stepReached, stepFrom] = down ? [step.id, step.up] : [step.up, step.id];
  const anchorWhere = `${key(anchorFrom)} = ${key(start)}${down ? '' : ` AND ${anchor.up} IS NOT NULL`}`;
  const stepOn = `${key(stepFrom)} = ${key(`${w}.${q('n')}`)}`;
  const stepWhere = down ? [] : [`${step.up} IS NOT NULL`];
  const where = (conditions: readonly string[]): string => (conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`);
  let body: string;
  let columns: string;
  if (node.distance === undefined) {
    columns = q('n');
    body =
      `SELECT ${anchorReached} FROM ${anchor.from()} WHERE ${anchorWhere} ` +
      `UNION SELECT ${stepReached} FROM ${step.from()} JOIN ${name} ${w} ON ${stepOn}${where(stepWhere)}`;
  } else {
    columns = [q('n'), q('d'), q('m')].join(', ');
    const count = c.freshAlias();
    const restricted = c.scopeCondition(count);
    const total = `(SELECT COUNT(*) FROM ${c.table(set)} ${count}${restricted === '' ? '' : ` WHERE ${restricted}`})`;
    body =
      `SELECT ${anchorReached}, 1, ${total} FROM ${anchor.from()} WHERE ${anchorWhere} ` +
      `UNION SELECT ${stepReached}, ${w}.${q('d')} + 1, ${w}.${q('m')} FROM ${step.from()} JOIN ${name} ${w} ON ${stepOn}` +
      where([
        `${w}.${q('d')} < ${c.value(node.distance, 'integer')}`,
        `${w}.${q('d')} < ${w}.${q('m')}`,
        `NOT (${key(`${w}.${q('n')}`)} = ${key(start)})`,
        ...stepWhere,
      ]);
  }
  return `WITH ${recursive}${name}(${columns}) AS (${body}) SELECT ${key(q('n'))} FROM ${name} WHERE ${q('n')} IS NOT NULL`;
}
