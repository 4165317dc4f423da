/**
 * `groupby((rolluprecursive(H,Q,p[,S])[,P…]),T)` in SQL (Data Aggregation 6.3), with the
 * reference's semantics (memory/hierarchy.ts, `rollupRecursiveStep`): common table expressions of
 * the statement (the dialect's `hierarchy` hooks, as `ancestors`/`descendants`):
 *
 * - `H′`: the hierarchy's nodes the start pipeline `S` keeps (all without it), each with its node
 *   identifier and its parent's (read in the whole hierarchy: a parent foreign key that holds the
 *   node identifier directly, else through the parent navigation property).
 * - The nodes reached from the roots of `H′` (a node whose parent is not in `H′`: those without a
 *   parent, then the others by an anti-join, so that planners estimate them from the table's
 *   statistics), walked down: each
 *   node once (its identifier is the key, and it has one parent), and a cycle, which no root
 *   reaches, gives no portion; so `UNION ALL`, without the hash of `UNION` (which stays where the
 *   node identifier may be null).
 * - The portions: for each node identifier of an input row that was reached (every reached node
 *   where the input rows are the table of nodes), it and its ancestors up to its root: where the
 *   dialect has arrays (`hierarchy.paths`), the elements of the path from the root that the walk
 *   down carried to the node; elsewhere a walk up from the node (a walk that
 *   ends there; a root's parent outside `H′` is one more, whose group no node
 *   joins: with unique identifiers the ancestors of a reached node are reached); the input rows joined to those pairs are each row once per
 *   portion it is in, so the work is the reached nodes plus the rows of all portions (as the
 *   reference's). Without other grouping properties every reached node has a portion: where it
 *   has no group, `T` over no rows (one row of the aggregates over none).
 * - `T` (and `P`) is the `groupby`'s aggregation over those rows, grouped by the portion's node
 *   too; each group then joins its node `x` of `H′`, which goes into the row as `into` says: the
 *   whole node (its columns), the node as an entity value, or its identifier.
 *
 * The node identifiers must be the nodes' key (one property), so that none repeats, as the text
 * requires (else refused). Every value is a parameter; identifiers come from the model.
 */
import type { EntitySet, StructuredType } from '../../model/model.js';
import type { BoundAggregate, BoundRollupRecursive, BoundTransformation } from '../../semantic/bound-ast.js';
import { extendedType, outputProperty, referenceOf } from '../../semantic/apply/output-type.js';
import { portionRows } from '../../semantic/apply/rollup-portions.js';
import { isPrimitive } from '../../semantic/types.js';
import { rollupNodeAsPath } from '../../semantic/apply/rollup-node.js';
import { entityTable } from '../../storage/tables.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { ApplyRelation, SqlApplyCompiler } from './apply.js';
import type { Scope } from './compiler.js';
import { equal, identifiedByKey, memberOf, parentColumn, placement, tableOf } from './hierarchy.js';
import { dynamicColumnName } from './mapping.js';

type Groupby = Extract<BoundTransformation, { kind: 'groupby' }>;

/** The column of a row's portion node (and of the pairs' reached row), under names no OData identifier has. */
const NODE = '~node';
const IN = '~in';

/** The rows of a `groupby` with `rolluprecursive`, read from `input`. */
export function rollupRecursiveRelation(host: SqlApplyCompiler, node: Groupby, input: ApplyRelation): ApplyRelation {
  const c = host.compiler;
  const recursive = node.recursive as BoundRollupRecursive;
  const fail = (what: string, at: { readonly span: { readonly start: number } }) => unsupportedFeature('SQL', what, { node: at, option: '$apply' });
  if (c.dialect.hierarchy === undefined) throw fail(c.dialect.noHierarchy ?? `rolluprecursive() on ${c.dialect.displayName}`, recursive);
  if (input.presence !== undefined) throw fail('rolluprecursive() over rows of different properties (after rollup() or concat())', recursive);
  // Repeated identifiers (which the spec forbids) would share a portion where the reference's walk multiplies them.
  if (!identifiedByKey(recursive.hierarchy))
    throw fail(`rolluprecursive() of a hierarchy whose node identifiers are not its nodes' key (they may repeat)`, recursive);
  // Aggregation.rollupnode() in T is the portion's node: its key (the node identifier) is the rows' NODE column.
  const apply = rollupNodeAsPath(node.apply, outputProperty(NODE, referenceOf(recursive.hierarchy.node.type) as never), (at, what) => fail(what, at));
  // T: row-wise steps, aggregate, then row-wise steps over its row (`aggregate(…)/compute(…)`, example 65).
  const at = apply.map((step) => step.kind).lastIndexOf('aggregate');
  const last = at < 0 ? undefined : (apply[at] as Extract<BoundTransformation, { kind: 'aggregate' }>);
  const after = apply.slice(at + 1);
  const unsupportedAfter = after.find((step) => step.kind !== 'compute' && step.kind !== 'filter' && step.kind !== 'identity');
  if (unsupportedAfter !== undefined || (last === undefined && apply.length > 0))
    throw fail('a groupby() whose nested transformations do not end with aggregate()', unsupportedAfter ?? (apply.at(-1) as BoundTransformation));
  const q = (name: string): string => c.dialect.quote(name);
  const hierarchy = recursive.hierarchy;
  const set = hierarchy.nodes;
  const eq = (left: string, right: string): string => equal(host, recursive, left, right);

  // H′: the nodes S keeps, named (read for their identifiers and again for the output's nodes).
  const all: ApplyRelation = { from: tableOf(host, set), type: set.type, entity: true };
  const kept = host.shared({ ...(recursive.start === undefined ? all : host.pipeline(recursive.start, all)), order: undefined });
  // (`withParent` false: the parent is not read, and its joins are not made.)
  const nodesOf = (withParent = true): { scope: Scope; id: string; up: string; from: () => string } => {
    const scope = nodeScope(host, set);
    const id = c.expression(hierarchy.node, scope);
    const up = withParent ? (parentColumn(host, recursive, scope.alias) ?? c.expression(hierarchy.parent, scope)) : '';
    return { scope, id, up, from: () => [`${kept.from} ${scope.alias}`, ...(scope.joins?.clauses ?? [])].join(' ') };
  };
  // The edges of H′ (node, parent), for the roots of nodes without an identifier.
  let edgesName: string | undefined;
  const edges = (): string => {
    if (edgesName === undefined) {
      const h = nodesOf();
      edgesName = host.define(['n', 'up'], `SELECT ${h.id}, ${h.up} FROM ${h.from()}`);
    }
    return edgesName;
  };

  // The roots of H′ (a node whose parent is not in H′), read from H′ itself in two disjoint parts
  // (no parent; a parent that is not a node of H′, an anti-join), so that the planner estimates
  // them from the table's statistics: an OR with a subquery is estimated as half the nodes, and
  // PostgreSQL multiplied that by the walks into estimates that JIT-compiled the statement (about
  // 250 ms at 10 000 nodes, five times the statement itself).
  // (`path` gives a column more: the root's path, from its identifier.)
  const rootNodes = (path?: (id: string) => string): string => {
    const [root, orphan, parent] = [nodesOf(), nodesOf(), nodesOf(false)];
    const also = (id: string): string => (path === undefined ? '' : `, ${path(id)} AS ${q('p')}`);
    return (
      `SELECT ${root.id} AS ${q('n')}${also(root.id)} FROM ${root.from()} WHERE ${root.up} IS NULL UNION ALL ` +
      `SELECT ${orphan.id} AS ${q('n')}${also(orphan.id)} FROM ${orphan.from()} WHERE ${orphan.up} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${parent.from()} WHERE ${eq(parent.id, orphan.up)})`
    );
  };
  // With identifiers that do not repeat and H′ without repeated nodes, each node is reached once
  // (from its one parent), and walks up from reached nodes end at their root: no step needs the
  // de-duplication of UNION (a hash of every row), and UNION ALL gives the same rows.
  // (Nodes without an identifier are roots whose one null row in the reached nodes stands for them all.)
  const nullable = hierarchy.node.steps.some((step) => step.kind !== 'property' || step.property.nullable);
  // (S gives a subset of the nodes, which the binder checks: no node twice.)
  const unique = !nullable;
  const union = unique ? 'UNION ALL' : 'UNION';

  // The input rows' nodes that were reached, each with itself and its ancestors (the portions it is in).
  const rows = host.shared({ ...input, order: undefined });
  const rowScope = host.scope(rows);
  // A node path through a collection (6.2.1's p₁/…/pₖ/r): a row's nodes are the values of its related rows or elements.
  const many = recursive.path.type.kind === 'collection';
  const through = many ? c.collectionValues(recursive.path, rowScope) : undefined;
  const rowId = through?.value ?? c.expression(recursive.path, rowScope);
  // The ancestor column holds node identifiers and parent foreign keys alike: one type for both (PostgreSQL).
  const nodeType = hierarchy.node.type;
  const asNode = (value: string): string =>
    nodeType.kind === 'primitive' && c.dialect.hierarchy?.nodeValue !== undefined ? c.dialect.hierarchy.nodeValue(value, nodeType.name) : value;
  // The input rows are the whole table of nodes: every reached node is one's.
  const everyNode = recursive.into.kind === 'node' && rows.from === all.from && !all.from.startsWith('(');

  // The nodes reached from the roots of H′; the recursive steps read H′ itself (the table, where S
  // is absent: an index on the parent column, or the key's, serves each level).
  // Where the dialect has arrays (and each node is reached once), each reached node carries its
  // path from its root: the portions it is in, without a walk up (on PostgreSQL, 10 000 nodes:
  // the walk down and up took 23 ms, the walk down with paths and their elements 16 ms).
  const paths = unique ? c.dialect.hierarchy.paths : undefined;
  const down = nodesOf();
  const r = host.alias();
  const reached = host.define(
    paths === undefined ? ['n'] : ['n', 'p'],
    (self) =>
      `${rootNodes(paths === undefined ? undefined : (id) => paths.start(asNode(id)))} ${union} ` +
      `SELECT ${down.id}${paths === undefined ? '' : `, ${paths.append(`${r}.${q('p')}`, asNode(down.id))}`} FROM ${down.from()} JOIN ${self} ${r} ON ${eq(down.up, `${r}.${q('n')}`)} WHERE ${down.id} IS NOT NULL`,
    true,
  );
  const [u, x] = [host.alias(), host.alias()];
  const own =
    through === undefined
      ? `SELECT ${rowId} AS ${q('n')} FROM ${host.fromOf(rows, rowScope)} WHERE ${rowId} IS NOT NULL`
      : `SELECT ${rowId} AS ${q('n')} FROM ${host.fromOf(rows, rowScope)}, ${through.from} WHERE ${through.where} AND ${rowId} IS NOT NULL`;
  const anchor = everyNode ? `${x}.${q('n')} IS NOT NULL` : memberOf(host, recursive, `${x}.${q('n')}`, own);
  let pairs: string;
  if (paths !== undefined) pairs = host.define(['d', 'a'], `SELECT ${x}.${q('n')}, ${paths.elements(`${x}.${q('p')}`)} FROM ${reached} ${x} WHERE ${anchor}`);
  else {
    const up = nodesOf();
    pairs = host.define(
      ['d', 'a'],
      (self) =>
        `SELECT ${x}.${q('n')}, ${asNode(`${x}.${q('n')}`)} FROM ${reached} ${x} WHERE ${anchor} ` +
        `${union} SELECT ${u}.${q('d')}, ${asNode(up.up)} FROM ${up.from()} JOIN ${self} ${u} ON ${eq(up.id, `${u}.${q('a')}`)} WHERE ${up.up} IS NOT NULL`,
      true,
    );
  }

  // Each input row once per portion it is in, its portion's node in a column of its own; T's rows
  // (grouped by it and P) of the type `made`: the node, P, and what T gives (the aggregates, and what compute adds after them).
  const { nodeProperty, key: nodeKey, made } = portionRows(node, NODE, (after.at(-1) ?? last)?.output);
  const madeByT = [...made.properties.values()].filter((p) => p !== nodeProperty && !node.keys.some((key) => key.names[0] === p.name));
  const joinedScope = host.scope(rows);
  const member = host.alias();
  let inPortions: string;
  if (!many) {
    const joinedId = c.expression(recursive.path, joinedScope);
    inPortions = `SELECT ${joinedScope.alias}.*, ${member}.${q('a')} AS ${q(IN)} FROM ${host.fromOf(rows, joinedScope)} JOIN ${pairs} ${member} ON ${eq(joinedId, `${member}.${q('d')}`)}`;
  } else {
    // Each row once in the portion of each node that is or is above one of its nodes: the pairs
    // (row key, portion node) without repeats, joined back to the rows by key.
    if (!input.entity || input.type.key.length === 0) throw fail('rolluprecursive() through a collection over rows without a key', recursive);
    const text = (sql: string, property: { readonly type: unknown }): string =>
      isPrimitive(property.type as never, 'Edm.String') && !c.dialect.binaryEquality ? c.dialect.binary(sql) : sql;
    const keys = input.type.key.map((name) => input.type.properties.get(name) as NonNullable<ReturnType<typeof input.type.properties.get>>);
    const keyName = (i: number): string => q(`~k${i}`);
    const pairScope = host.scope(rows);
    const values = c.collectionValues(recursive.path, pairScope);
    const p = host.alias();
    const distinct =
      `SELECT DISTINCT ${keys.map((k, i) => `${text(c.column(input.type, k, pairScope.alias), k)} AS ${keyName(i)}`).join(', ')}, ${p}.${q('a')} AS ${q('a')} ` +
      `FROM ${host.fromOf(rows, pairScope)}, ${values.from}, ${pairs} ${p} WHERE ${values.where} AND ${eq(values.value, `${p}.${q('d')}`)}`;
    const on = keys.map((k, i) => `${text(c.column(input.type, k, joinedScope.alias), k)} = ${member}.${keyName(i)}`).join(' AND ');
    inPortions = `SELECT ${joinedScope.alias}.*, ${member}.${q('a')} AS ${q(IN)} FROM ${host.fromOf(rows, joinedScope)} JOIN (${distinct}) ${member} ON ${on}`;
  }
  const type = extendedType(input.type, [nodeProperty]);
  const j = host.alias();
  let joined: ApplyRelation = { from: `(SELECT ${j}.*, ${j}.${q(IN)} AS ${q(NODE)} FROM (${inPortions}) ${j})`, type, entity: input.entity };
  if (input.with !== undefined) joined = { ...joined, with: input.with };

  // T over each portion, grouped by its node and P.
  const aggregates: readonly BoundAggregate[] = last?.aggregates ?? [];
  const before = apply.slice(0, Math.max(at, 0));
  let aggregated = host.aggregate([nodeKey, ...node.keys], before, aggregates, made, joined);
  if (node.keys.length === 0 && aggregates.length === 0) {
    // One row per reached node.
    const n = host.alias();
    aggregated = { from: `(SELECT ${n}.${q('n')} AS ${q(NODE)} FROM ${reached} ${n})`, type: made, entity: false };
  } else if (node.keys.length === 0 && !(everyNode && before.every((step) => step.kind === 'compute' || step.kind === 'identity'))) {
    // (Where every node is an input row and T keeps every row before its aggregate, no portion is
    // empty: a node's own row is in it.)
    // Every reached node has a portion, an empty one too: T over no rows where the node has no group
    // (the groups hashed first, then joined to the nodes: no sort of the portions' rows).
    const z = host.alias();
    const none: ApplyRelation = { from: `(SELECT ${z}.* FROM ${joined.from} ${z} WHERE 1 = 0)`, type, entity: input.entity };
    const empty = host.aggregate([], before, aggregates, made, none);
    const [n, k, v] = [host.alias(), host.alias(), host.alias()];
    const items = [
      `${n}.${q('n')} AS ${q(NODE)}`,
      ...aggregates.map((a) => {
        const column = q(host.column(made, [a.alias]));
        return `(CASE WHEN ${k}.${q(NODE)} IS NULL THEN ${v}.${column} ELSE ${k}.${column} END) AS ${column}`;
      }),
    ];
    aggregated = {
      from: `(SELECT ${items.join(', ')} FROM ${reached} ${n} LEFT JOIN ${aggregated.from} ${k} ON ${eq(`${k}.${q(NODE)}`, `${n}.${q('n')}`)} CROSS JOIN ${empty.from} ${v})`,
      type: made,
      entity: false,
    };
  }
  const groups = host.pipeline(after, { ...aggregated, type: made });

  // Each group with its node x of H′.
  const xs = nodesOf();
  const g = host.alias();
  const ownNames = new Set([...node.keys.map((key) => key.names[0] as string), ...madeByT.map((p) => p.name)]);
  const fromGroup = (names: readonly string[]): string => `${g}.${q(host.column(made, names))}`;
  const into = recursive.into;
  const columns: string[] = [];
  if (into.kind === 'node' && node.keys.length === 0) {
    columns.push(`${xs.scope.alias}.*`);
    for (const p of madeByT) columns.push(`${fromGroup([p.name])} AS ${q(host.column(node.output, [p.name]))}`);
  } else {
    const nodeColumns = nodeLeaves(host, set.type, xs.scope.alias);
    // σ(x) through a collection: the placed property a JSON array of one object holding the node.
    const placed = into.kind !== 'node' && into.collections?.some(Boolean) === true ? into.names[0] : undefined;
    if (placed !== undefined && into.kind !== 'node')
      columns.push(`${placement(host, recursive, into, xs.id, xs.scope)} AS ${q(host.column(node.output, [placed]))}`);
    for (const leaf of host.leaves(node.output)) {
      const names = leaf.path.map((p) => p.name);
      if (names[0] === placed) continue;
      let value: string;
      if (into.kind === 'node') value = ownNames.has(names[0] as string) ? fromGroup(names) : (nodeColumns.get(names.join('/')) as string);
      else if (startsWith(names, into.names)) value = into.kind === 'value' ? xs.id : (nodeColumns.get(names.slice(into.names.length).join('/')) as string);
      else value = fromGroup(names);
      columns.push(`${value} AS ${q(leaf.column)}`);
    }
    if (into.kind === 'node') {
      // The node's collections of complex values (a JSON column each, no leaves).
      for (const p of set.type.properties.values())
        if (p.collection && p.type.kind === 'complex' && !ownNames.has(p.name))
          columns.push(`${xs.scope.alias}.${q(host.column(set.type, [p.name]))} AS ${q(host.column(node.output, [p.name]))}`);
      // The node's columns that are no properties: foreign keys, dynamic properties.
      const named = new Set(host.leaves(node.output).map((leaf) => leaf.column));
      for (const hidden of entityTable(set, c.mapping).hidden) {
        const column = c.storedName(hidden.column);
        // A grouping path flattened to the name of one of the node's foreign keys (`Sensor/Value`, `Sensor_Value`).
        if (named.has(column))
          throw fail(
            `rolluprecursive() with the grouping property '${column.replace('_', '/')}', whose column the node's foreign key of the same name holds`,
            recursive,
          );
        columns.push(`${xs.scope.alias}.${q(column)}`);
      }
      const dynamic = dynamicColumnName(set.type, c.mapping);
      if (dynamic !== undefined) columns.push(`${xs.scope.alias}.${q(dynamic)}`);
    }
  }
  const strings = isPrimitive(hierarchy.node.type, 'Edm.String') && !c.dialect.binaryEquality;
  const key = (sql: string): string => (strings ? c.dialect.binary(sql) : sql);
  // An equality join (hashed), not IS NOT DISTINCT FROM (a nested loop that reads the groups once per node).
  let from = `SELECT ${columns.join(', ')} FROM ${xs.from()} JOIN ${groups.from} ${g} ON ${key(xs.id)} = ${key(`${g}.${q(NODE)}`)}`;
  if (node.keys.length === 0 && nullable) {
    // A node without an identifier is reached only as a root, with an empty portion (the reached nodes' null stands for those).
    const o = host.alias();
    const root = `${xs.up} IS NULL OR NOT EXISTS (SELECT 1 FROM ${edges()} ${o} WHERE ${eq(`${o}.${q('n')}`, xs.up)})`;
    from += ` UNION ALL SELECT ${columns.join(', ')} FROM ${xs.from()} JOIN ${groups.from} ${g} ON ${g}.${q(NODE)} IS NULL WHERE ${xs.id} IS NULL AND (${root})`;
  }
  from = `(${from})`;
  return { from, type: node.output, entity: into.kind === 'node', ...(input.with === undefined ? {} : { with: input.with }) };
}

/** A scope over the rows of the hierarchy's set (whose navigation its expressions join) under a fresh alias. */
function nodeScope(host: SqlApplyCompiler, set: EntitySet): Scope {
  return { alias: host.alias(), type: set.type, set, variables: new Map(), joins: { clauses: [], scopes: new Map() } };
}

/** The columns of a node's properties (complex values flattened), by the path of property names. */
function nodeLeaves(host: SqlApplyCompiler, type: StructuredType, alias: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const leaf of host.leaves(type)) found.set(leaf.path.map((p) => p.name).join('/'), `${alias}.${host.quote(leaf.column)}`);
  return found;
}

function startsWith(names: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((name, i) => names[i] === name);
}
