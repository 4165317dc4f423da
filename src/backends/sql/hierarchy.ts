/**
 * `ancestors`, `descendants` and `traverse` in SQL (Data Aggregation 6.2): recursive common table
 * expressions of the statement (`WITH RECURSIVE`, the dialect's `hierarchy` hooks) over the table
 * of the hierarchy's entity set, with the reference's semantics (reference/hierarchy.ts):
 *
 * - `ancestors`/`descendants`: the start nodes (the node identifiers of the input rows the start
 *   pipeline keeps) that are nodes, at distance 0, then their parents (children) at distance 1, …
 *   `UNION` keeps each (node, distance) once, and without a maximum distance every reached node
 *   has distance 1: the table is finite, so a cycle ends; with one, the walk also stops after as
 *   many levels as there are nodes (no node is farther). The output is the input rows whose node
 *   identifier was reached (or is a start node, with `keep start`).
 * - `traverse`: every node ranked among its siblings (`ROW_NUMBER() OVER (PARTITION BY parent …)`
 *   in the order items' order, then by key), the start nodes ranked among themselves; the walk
 *   (`UNION ALL`) extends a sort path of ten-digit ranks per level, does not enter its start node
 *   again and stops after as many levels as there are nodes. The input rows join the walk by node
 *   identifier and are ordered by the path (postorder: the path followed by `9999999999`, which
 *   sorts a node after its children), then by key.
 *
 * A node's parent identifier is read through the parent navigation property (null for a root or
 * an orphan whose parent is missing), except where the parent's foreign key holds the node
 * identifier itself: then `descendants` joins children by that column (an index on it serves).
 * Every value is a parameter; identifiers come from the model.
 */
import type { EntitySet, Property } from '../../model/model.js';
import type { BoundHierarchy, BoundHierarchyFilter, BoundPath, BoundTraverse } from '../../semantic/bound-ast.js';
import { isPrimitive } from '../../semantic/types.js';
import { navigationLink } from '../../storage/links.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { ApplyRelation, SqlApplyCompiler } from './apply.js';
import type { Scope } from './compiler.js';
import type { JsonEntry } from './dialect.js';
import { jsonEntries } from './expansion.js';

/** A scope over a table of the hierarchy's nodes, whose joins its expressions add. */
interface NodeScope {
  readonly scope: Scope;
  /** The FROM items, once the scope's expressions are compiled. */
  from(): string;
}

/** The rows a hierarchical transformation gives, read from `input`. */
export function hierarchyRelation(host: SqlApplyCompiler, node: BoundHierarchyFilter | BoundTraverse, input: ApplyRelation): ApplyRelation {
  const c = host.compiler;
  if (c.dialect.hierarchy === undefined) {
    throw unsupportedFeature('SQL', c.dialect.noHierarchy ?? `hierarchical transformations on ${c.dialect.displayName}`, { node, option: '$apply' });
  }
  return node.kind === 'traverse' ? traverse(host, node, input) : closure(host, node, input);
}

/** A scope over the hierarchy's table (restricted by the mapping's scope) under a fresh alias. */
function nodeScope(host: SqlApplyCompiler, set: EntitySet): NodeScope {
  const c = host.compiler;
  const alias = host.alias();
  const restricted = c.scopeCondition(alias);
  const table = restricted === '' ? `${c.table(set)} ${alias}` : `(SELECT ${alias}.* FROM ${c.table(set)} ${alias} WHERE ${restricted}) ${alias}`;
  const scope: Scope = { alias, type: set.type, set, variables: new Map(), joins: { clauses: [], scopes: new Map() } };
  return { scope, from: () => [table, ...(scope.joins?.clauses ?? [])].join(' ') };
}

/** `left = right` of node identifiers: strings by code point where the dialect's equality is not. */
export function equal(host: SqlApplyCompiler, node: { readonly hierarchy: BoundHierarchy }, left: string, right: string): string {
  const dialect = host.compiler.dialect;
  if (isPrimitive(node.hierarchy.node.type, 'Edm.String') && !dialect.binaryEquality) return `${dialect.binary(left)} = ${dialect.binary(right)}`;
  return `${left} = ${right}`;
}

/** `value IN (list)` for a SELECT of node identifiers `n`: strings by code point where the dialect's equality is not. */
export function memberOf(host: SqlApplyCompiler, node: { readonly hierarchy: BoundHierarchy }, value: string, list: string): string {
  const dialect = host.compiler.dialect;
  if (!isPrimitive(node.hierarchy.node.type, 'Edm.String') || dialect.binaryEquality) return `${value} IN (${list})`;
  const alias = host.alias();
  return `${dialect.binary(value)} IN (SELECT ${dialect.binary(`${alias}.${dialect.quote('n')}`)} FROM (${list}) ${alias})`;
}

/**
 * The column of a node's row that holds its parent's node identifier, when the parent navigation
 * property is a foreign key to the node identifier's column (and no mapping scope restricts the
 * parents); `undefined` otherwise.
 */
export function parentColumn(host: SqlApplyCompiler, node: { readonly hierarchy: BoundHierarchy }, alias: string): string | undefined {
  const c = host.compiler;
  const hierarchy = node.hierarchy;
  const navigation = hierarchy.parent.steps[0];
  const own = hierarchy.node.steps;
  if (navigation?.kind !== 'navigation' || own.length !== 1 || own[0]?.kind !== 'property' || c.mapping.scope !== undefined) return undefined;
  const link = navigationLink(hierarchy.nodes.type, navigation.navigation, c.mapping);
  const pair = link?.kind === 'direct' && link.pairs.length === 1 ? link.pairs[0] : undefined;
  if (pair === undefined || pair.target.property !== own[0].property) return undefined;
  const source = pair.source;
  if (source.property !== undefined) {
    const property: Property | undefined = hierarchy.nodes.type.properties.get(source.property.name);
    return property === undefined ? undefined : c.column(hierarchy.nodes.type, property, alias);
  }
  return `${alias}.${c.dialect.quote(c.storedName(source.column))}`;
}

/** `ancestors` and `descendants`. */
function closure(host: SqlApplyCompiler, node: BoundHierarchyFilter, input: ApplyRelation): ApplyRelation {
  const c = host.compiler;
  const q = (name: string): string => c.dialect.quote(name);
  const hierarchy = node.hierarchy;
  // The input is read twice: by the start pipeline and by the output.
  const rows = host.shared(input);
  const start = host.pipeline(node.start, rows);
  const startScope = host.scope(start);
  // A node path through a collection (6.2.1's p₁/…/pₖ/r): a row's nodes are its related rows' values.
  const many = node.path.type.kind === 'collection';
  const startVia = many ? () => c.collectionValues(node.path, startScope) : undefined;
  const startId = many ? '' : c.expression(node.path, startScope);
  // The input rows are the hierarchy's nodes, each its own node: the start rows are the start nodes.
  const own = !many && rows.entity && rows.type === hierarchy.nodes.type && host.set === hierarchy.nodes && samePath(node.path, hierarchy.node);
  // Without a distance and with the start nodes kept, a node's distance does not matter: one column.
  const plain = node.distance === undefined && node.keepStart;
  // With a distance, each row carries the number of nodes too: no node is farther than that, and
  // the walk stops there (round a cycle it would otherwise go on to the distance, 10^9 levels say).
  const bounded = node.distance !== undefined;
  const total = (): string => `(SELECT COUNT(*) FROM ${tableOf(host, hierarchy.nodes)} ${host.alias()})`;
  const tagged = (distance: string, count?: string): string => (plain ? '' : `, ${distance}${bounded ? `, ${count ?? total()}` : ''}`);
  let starts: string | undefined;
  let anchorSql: string;
  if (own) anchorSql = `SELECT ${startId}${tagged('0')} FROM ${host.fromOf(start, startScope)}`;
  else {
    // Through a collection: every node of the start rows.
    const through = startVia === undefined ? undefined : startVia();
    starts = host.define(
      ['n'],
      through === undefined
        ? `SELECT ${startId} FROM ${host.fromOf(start, startScope)} WHERE ${startId} IS NOT NULL`
        : `SELECT ${through.value} FROM ${host.fromOf(start, startScope)}, ${through.from} WHERE ${through.where} AND ${through.value} IS NOT NULL`,
    );
    // Distance 0: the start nodes that are nodes.
    const anchor = nodeScope(host, hierarchy.nodes);
    const anchorId = c.expression(hierarchy.node, anchor.scope);
    anchorSql = `SELECT ${anchorId}${tagged('0')} FROM ${anchor.from()} WHERE ${memberOf(host, node, anchorId, `SELECT ${q('n')} FROM ${starts}`)}`;
  }
  // One step up or down from a reached node.
  const step = nodeScope(host, hierarchy.nodes);
  const walked = host.alias();
  const reached = `${walked}.${q('n')}`;
  const distance = node.distance !== undefined ? `${walked}.${q('d')} + 1` : '1';
  const within =
    node.distance !== undefined ? ` WHERE ${walked}.${q('d')} < ${c.value(node.distance, 'integer')} AND ${walked}.${q('d')} < ${walked}.${q('m')}` : '';
  const carried = `${walked}.${q('m')}`;
  let stepSql: (self: string) => string;
  if (node.kind === 'descendants') {
    const column = parentColumn(host, node, step.scope.alias);
    const childId = c.expression(hierarchy.node, step.scope);
    const parentId = column ?? c.expression(hierarchy.parent, step.scope);
    stepSql = (self) =>
      `SELECT ${childId}${tagged(distance, carried)} FROM ${step.from()} JOIN ${self} ${walked} ON ${equal(host, node, parentId, reached)}${within}`;
  } else {
    const ownId = c.expression(hierarchy.node, step.scope);
    const parentId = c.expression(hierarchy.parent, step.scope);
    stepSql = (self) =>
      `SELECT ${parentId}${tagged(distance, carried)} FROM ${step.from()} JOIN ${self} ${walked} ON ${equal(host, node, ownId, reached)}${within}`;
  }
  const name = host.define(plain ? ['n'] : bounded ? ['n', 'd', 'm'] : ['n', 'd'], (self) => `${anchorSql} UNION ${stepSql(self)}`, true);
  // The reached nodes; with `keep start` the start nodes too (distance 0), and the start identifiers that are no nodes.
  let members = `SELECT ${q('n')} FROM ${name}${node.keepStart ? '' : ` WHERE ${q('d')} > 0`}`;
  if (node.keepStart && starts !== undefined) members += ` UNION SELECT ${q('n')} FROM ${starts}`;
  const scope = host.scope(rows);
  let kept: string;
  if (many) {
    // A row related to several nodes: kept when one of them is.
    const through = c.collectionValues(node.path, scope);
    kept = `EXISTS (SELECT 1 FROM ${through.from} WHERE ${through.where} AND ${memberOf(host, node, through.value, members)})`;
  } else kept = memberOf(host, node, c.expression(node.path, scope), members);
  // No order of its own: the input's, if any, is kept (as in the reference, which keeps the input order).
  return { ...rows, from: `(SELECT ${scope.alias}.* FROM ${host.fromOf(rows, scope)} WHERE ${kept})` };
}

/** Whether two paths read the same properties. */
function samePath(a: BoundPath, b: BoundPath): boolean {
  return (
    a.root.kind === 'it' &&
    b.root.kind === 'it' &&
    a.steps.length === b.steps.length &&
    a.steps.every((step, i) => {
      const other = b.steps[i];
      return step.kind === 'property' && other?.kind === 'property' && step.property === other.property;
    })
  );
}

/** `traverse`. */
function traverse(host: SqlApplyCompiler, node: BoundTraverse, input: ApplyRelation): ApplyRelation {
  const c = host.compiler;
  const q = (name: string): string => c.dialect.quote(name);
  const hooks = c.dialect.hierarchy as NonNullable<typeof c.dialect.hierarchy>;
  const hierarchy = node.hierarchy;
  const set = hierarchy.nodes;
  if (!identifiedByKey(hierarchy)) {
    throw unsupportedFeature(
      'SQL',
      `traverse() of a hierarchy whose node identifiers are not its nodes' key (they may repeat, and a walk through repeated identifiers has no bound in SQL)`,
      {
        node,
        option: '$apply',
      },
    );
  }
  const keyOrder = (scope: Scope): string =>
    set.type.key
      .map((name) => {
        const property = set.type.properties.get(name) as Property;
        const column = c.column(set.type, property, scope.alias);
        const text = property.type.kind === 'primitive' && property.type.name === 'Edm.String';
        return `${text ? c.dialect.binary(column) : column} ASC`;
      })
      .join(', ');
  const order = (scope: Scope): string => {
    const items = node.orderBy.length === 0 ? '' : `${host.orderItems(node.orderBy, scope)}, `;
    return `${items}${keyOrder(scope)}`;
  };

  // Every node with its parent's identifier and its rank among its siblings.
  const ranked = nodeScope(host, set);
  const id = c.expression(hierarchy.node, ranked.scope);
  const parentId = c.expression(hierarchy.parent, ranked.scope);
  const siblings = order(ranked.scope);
  const edges = host.define(
    ['n', 'up', 'rk', 'total'],
    `SELECT ${id}, ${parentId}, ROW_NUMBER() OVER (PARTITION BY ${parentId} ORDER BY ${siblings}), COUNT(*) OVER () FROM ${ranked.from()}`,
  );

  // The start nodes, ranked among themselves: the start pipeline's nodes, or the roots.
  const nodesRelation: ApplyRelation = { from: tableOf(host, set), type: set.type, entity: true };
  const startRelation = node.start === undefined ? nodesRelation : host.pipeline(node.start, nodesRelation);
  const startScope = host.scope(startRelation);
  const startId = c.expression(hierarchy.node, startScope);
  const roots = node.start === undefined ? ` WHERE ${c.expression(hierarchy.parent, startScope)} IS NULL` : '';
  const startOrder = order(startScope);
  const starts = host.define(
    ['n', 'rk'],
    `SELECT ${startId}, ROW_NUMBER() OVER (ORDER BY ${startOrder}) FROM ${host.fromOf(startRelation, startScope)}${roots}`,
  );

  // The walk: each visit its node, its start node, its level and its sort path.
  const w = host.alias();
  const e = host.alias();
  const s = host.alias();
  const path = `${hooks.rankText(`${s}.${q('rk')}`)}`;
  const anchor = `SELECT ${s}.${q('n')}, ${s}.${q('n')}, 0, ${hooks.widePath?.(path) ?? path} FROM ${starts} ${s} WHERE ${s}.${q('n')} IS NOT NULL`;
  const step = (self: string): string =>
    `SELECT ${e}.${q('n')}, ${w}.${q('start')}, ${w}.${q('lvl')} + 1, ${c.dialect.concat(`${w}.${q('path')}`, hooks.rankText(`${e}.${q('rk')}`))} ` +
    `FROM ${self} ${w} JOIN ${edges} ${e} ON ${equal(host, node, `${e}.${q('up')}`, `${w}.${q('n')}`)} ` +
    `WHERE ${w}.${q('lvl')} + 1 < ${e}.${q('total')} AND NOT (${equal(host, node, `${e}.${q('n')}`, `${w}.${q('start')}`)})`;
  const walk = host.define(['n', 'start', 'lvl', 'path'], (self) => `${anchor} UNION ALL ${step(self)}`, true);

  // The input rows, once per visit of their node, with the visit's sort key.
  const scope = host.scope(input);
  const visit = host.alias();
  const sortColumn = q(`~path ${visit}`);
  const sortKey = node.order === 'preorder' ? `${visit}.${q('path')}` : c.dialect.concat(`${visit}.${q('path')}`, c.value('9999999999', 'string'));
  const walkOrder = (outer: Scope): string => (hooks.orderByPath?.(`${outer.alias}.${sortColumn}`) ?? `${outer.alias}.${sortColumn}`) + ' ASC';
  if (node.path.type.kind !== 'collection') {
    const rowId = c.expression(node.path, scope);
    const from = `(SELECT ${scope.alias}.*, ${sortKey} AS ${sortColumn} FROM ${host.fromOf(input, scope)} JOIN ${walk} ${visit} ON ${equal(host, node, rowId, `${visit}.${q('n')}`)})`;
    return { ...input, from, order: walkOrder };
  }
  // A node path through a collection (6.2.1's p₁/…/pₖ/r): a row once per visit of each node one of
  // its related rows names (each once), with σ(x) in place of p₁ (6.2.2): a collection of one item
  // that holds the node (or its identifier) where p names it.
  const through = c.collectionValues(node.path, scope);
  const visits = `EXISTS (SELECT 1 FROM ${through.from} WHERE ${through.where} AND ${equal(host, node, through.value, `${visit}.${q('n')}`)})`;
  const placed =
    node.into === undefined
      ? []
      : [`${placement(host, node, node.into, `${visit}.${q('n')}`)} AS ${q(host.column(node.output, [node.into.names[0] as string]))}`];
  const from = `(SELECT ${[`${scope.alias}.*`, ...placed, `${sortKey} AS ${sortColumn}`].join(', ')} FROM ${host.fromOf(input, scope)} JOIN ${walk} ${visit} ON ${visits})`;
  return { ...input, from, type: node.output, order: walkOrder };
}

/**
 * σ(x) of `traverse` through a collection (Data Aggregation 6.2.2's a(ε, t, x)): a JSON array of
 * one object holding, at the placement's names after the first, the node whose identifier is
 * `id` (its properties, read from the hierarchy's table) or the identifier itself.
 */
export function placement(
  host: SqlApplyCompiler,
  node: { readonly hierarchy: BoundHierarchy; readonly span: BoundTraverse['span'] },
  into: NonNullable<BoundTraverse['into']>,
  id: string,
  /** The node's row, where the statement has it at hand (else read from the hierarchy's table by `id`). */
  row?: Scope,
): string {
  const c = host.compiler;
  const dialect = c.dialect;
  // One collection, the first segment (a collection deeper in, or a second, has no such column).
  if (into.collections?.[0] !== true || into.collections.slice(1).some(Boolean) || dialect.expandMany === undefined)
    throw unsupportedFeature('SQL', `a hierarchy node placed through the collection '${into.names.join('/')}' there`, { node, option: '$apply' });
  const inner = into.names.slice(1);
  const set = node.hierarchy.nodes;
  const key = (text: string): string => c.value(text, 'string');
  const all = { entityType: set.type, select: { all: true, properties: [], navigation: [] }, expand: [] } as never;
  const within = (scope: Scope): JsonEntry[] => jsonEntries(c, all, scope, false, true).map((entry) => ({ ...entry, path: [...inner, ...entry.path] }));
  if (into.kind === 'entity' && row === undefined) {
    const nodes = nodeScope(host, set);
    const nodeId = c.expression(node.hierarchy.node, nodes.scope);
    return dialect.expandMany({ entries: within(nodes.scope), from: nodes.from(), where: equal(host, node, nodeId, id), order: () => nodeId, paging: '' }, key);
  }
  // The identifier, or the row at hand: the dialect's array of one object, else an array over a
  // table of one row (ordered by a column of its own, so that MariaDB aggregates it there).
  const entries: JsonEntry[] = into.kind === 'entity' ? within(row as Scope) : [{ path: inner, value: id, kind: 'value' }];
  if (dialect.rowArray !== undefined) return dialect.rowArray(entries, key);
  const one = host.alias();
  const x = c.dialect.quote('x');
  return dialect.expandMany({ entries, from: `(SELECT 1 AS ${x}) ${one}`, where: '1 = 1', order: () => `${one}.${x}`, paging: '' }, key);
}

/** The hierarchy's table as a relation's FROM item (restricted by the mapping's scope). */
export function tableOf(host: SqlApplyCompiler, set: EntitySet): string {
  const c = host.compiler;
  const alias = host.alias();
  const restricted = c.scopeCondition(alias);
  return restricted === '' ? c.table(set) : `(SELECT ${alias}.* FROM ${c.table(set)} ${alias} WHERE ${restricted})`;
}

/**
 * Whether the hierarchy's node identifier is its nodes' key (one property): then identifiers do not
 * repeat, and a walk visits each node once per start node and level (a cycle is cut by the level
 * bound). Repeated identifiers (which the spec forbids) multiply the paths, up to exponentially.
 */
export function identifiedByKey(hierarchy: BoundTraverse['hierarchy']): boolean {
  const [step, more] = hierarchy.node.steps;
  const key = hierarchy.nodes.type.key;
  return more === undefined && step?.kind === 'property' && key.length === 1 && key[0] === step.property.name;
}
