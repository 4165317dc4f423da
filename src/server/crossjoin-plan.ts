/**
 * How a `$crossjoin(Set1,Set2,…)` request is read (URL Conventions §4.15): the client's options
 * bound against the virtual set of the join (semantic/resource-path/crossjoin.ts), so that any
 * source runs them as any query, with what the response needs added:
 * - an order ending in each set's key (`Products/ID,Sales/ID`) unless `$apply` groups the rows,
 *   so that pages follow one order on every source;
 * - each selected set the client does not expand, expanded to its key only: the response shows
 *   it as a navigation link to the entity (`"Products@navigationLink": "Products('P1')"`), as the
 *   text requires of a set that is not expanded;
 * - the service's scope of each set (a tenant) as a condition of the joined rows, and of every
 *   expansion, so that no combination includes a row the scope leaves out.
 */
import { ODataError } from '../errors/odata-error.js';
import type { EntitySet } from '../model/model.js';
import { bindQueryToSet } from '../semantic/bind-query.js';
import type { BoundExpression, BoundPath, BoundQuery } from '../semantic/bound-ast.js';
import { crossJoinOf, crossJoinSet, type CrossJoin } from '../semantic/resource-path/crossjoin.js';
import type { BoundResourcePath, BoundResourceSegment } from '../semantic/resource-path/bound-resource-path.js';
import { keyParts } from '../semantic/resource-path/keys.js';
import type { BindSettings } from '../semantic/settings.js';
import { transformExpression } from '../semantic/walk/index.js';
import type { Expression, ExpandItem, ODataQuery, OrderByItem, Span } from '../syntax/ast.js';
import { restrictPlan, type ReadPlan } from './read-plan.js';

/** How a cross join is read. */
export interface CrossJoinPlan {
  /** The read plan of the virtual set (no hops; its query restricted by the scope, see `restrictPlan`). */
  readonly plan: ReadPlan;
  readonly join: CrossJoin;
  /** The sets shown as navigation links: expanded to their key only. */
  readonly links: readonly EntitySet[];
}

const NO_SPAN: Span = { start: 0, end: 0 };

/** The virtual set of each bound `$crossjoin(…)` segment (a handler's plan cache keeps the segment). */
const VIRTUAL_SETS = new WeakMap<BoundResourceSegment, EntitySet>();

function virtualSet(segment: Extract<BoundResourceSegment, { kind: 'crossjoin' }>, settings: Omit<BindSettings, 'entitySet'>): EntitySet {
  let set = VIRTUAL_SETS.get(segment);
  if (set === undefined) VIRTUAL_SETS.set(segment, (set = crossJoinSet(settings.model, segment.entitySets, settings)));
  return set;
}

const member = (name: string) => ({ kind: 'member' as const, name, span: NO_SPAN });
const path = (names: readonly string[]): Expression => ({ kind: 'path', head: { kind: 'implicit' }, segments: names.map(member), span: NO_SPAN });

/** The names of a path of one or more members (`Products/ID`), or `undefined` for any other expression. */
function names(expression: Expression): string[] | undefined {
  if (expression.kind !== 'path' || expression.head.kind !== 'implicit') return undefined;
  const found: string[] = [];
  for (const segment of expression.segments) {
    if (segment.kind !== 'member') return undefined;
    found.push(segment.name);
  }
  return found;
}

/** `Set/key` of each set's key part the client does not order by already. */
function keyOrder(query: ODataQuery, sets: readonly EntitySet[]): OrderByItem[] {
  const ordered = new Set((query.orderBy ?? []).flatMap((item) => names(item.expression)?.join('/') ?? []));
  return sets.flatMap((set) =>
    keyParts(set.type)
      .map((part) => [set.name, ...part.steps.map((step) => step.name)])
      .filter((steps) => !ordered.has(steps.join('/')))
      .map((steps): OrderByItem => ({ kind: 'orderByItem', expression: path(steps), direction: 'asc', span: NO_SPAN })),
  );
}

/** The sets the response shows: every one, or those `$select` names (`$select=Products`). */
function selectedSets(query: ODataQuery, sets: readonly EntitySet[]): EntitySet[] {
  const items = query.select;
  if (items === undefined || items.some((item) => item.star !== undefined && item.path.length === 0)) return [...sets];
  const named = new Set(items.flatMap((item) => (item.path[0]?.kind === 'member' ? [item.path[0].name] : [])));
  return sets.filter((set) => named.has(set.name));
}

/** The sets the client expands (`$expand=*` expands every one). */
function expandedSets(query: ODataQuery, sets: readonly EntitySet[]): Set<string> {
  const items = query.expand ?? [];
  if (items.some((item) => item.path.length === 0)) return new Set(sets.map((set) => set.name));
  return new Set(items.flatMap((item) => (item.path[0]?.kind === 'member' ? [item.path[0].name] : [])));
}

/** `Set($select=key)`: the set's key only, for its navigation link. */
function keyExpansion(set: EntitySet): ExpandItem {
  const select = [...new Set(keyParts(set.type).map((part) => (part.steps[0] as { name: string }).name))].map((name) => ({
    kind: 'selectItem' as const,
    path: [member(name)],
    span: NO_SPAN,
  }));
  return { kind: 'expandItem', path: [member(set.name)], options: { kind: 'nestedOptions', select, span: NO_SPAN }, span: NO_SPAN };
}

/**
 * `restriction` (bound against the entities of the set of `navigation`) as a condition of the
 * join's rows: every path from the entity (`TenantId`, `$it`) starts at the navigation property.
 */
function throughNavigation(restriction: BoundExpression, step: Extract<BoundPath['steps'][number], { kind: 'navigation' }>): BoundExpression {
  return transformExpression(restriction, (node) => (node.kind === 'path' && node.root.kind === 'it' ? { ...node, steps: [step, ...node.steps] } : node));
}

/** The conjunction of `parts` (`undefined` for none). */
function conjunction(parts: readonly BoundExpression[]): BoundExpression | undefined {
  return parts.reduce<BoundExpression | undefined>(
    (left, right) =>
      left === undefined ? right : { kind: 'binary', operator: 'and', left, right, type: right.type, operandType: right.type, span: left.span },
    undefined,
  );
}

/** A clearer error than the binder's for a path that does not start with one of the joined sets. */
function explained(error: unknown, set: EntitySet, join: CrossJoin): unknown {
  if (!(error instanceof ODataError) || error.code !== 'unknown_property' || !error.reason.includes(`on type '${set.type.name}'`)) return error;
  return new ODataError({
    code: error.code,
    status: error.status,
    reason: `${error.reason} A path of a cross join starts with one of its entity sets (${join.sets.map((s) => s.name).join(', ')}), as in '${join.sets[0]?.name ?? ''}/…'.`,
    ...(error.option === undefined ? {} : { option: error.option }),
    ...(error.position === undefined ? {} : { position: error.position }),
    appendLocation: false,
  });
}

/**
 * The plan of `$crossjoin(…)` (`path`) with the client's options (`client`, paging already in
 * it), before any scope ({@link restrictCrossJoin} applies it anew for each request).
 */
export function crossJoinPlan(path: BoundResourcePath, client: ODataQuery, settings: Omit<BindSettings, 'entitySet'>): CrossJoinPlan {
  const segment = path.segments[0] as Extract<BoundResourceSegment, { kind: 'crossjoin' }>;
  const set = virtualSet(segment, settings);
  const join = crossJoinOf(set) as CrossJoin;
  let query = client;
  let links: EntitySet[] = [];
  let added = 0;
  // (A client over the $orderby limit gets no key order: it is refused with the limit as it is.)
  if (client.apply === undefined && (client.orderBy?.length ?? 0) <= (settings.maxOrderByNodeCount ?? 5)) {
    const order = keyOrder(client, join.sets);
    added = order.length;
    const expanded = expandedSets(client, join.sets);
    links = selectedSets(client, join.sets).filter((s) => !expanded.has(s.name));
    query = {
      ...client,
      ...(order.length === 0 ? {} : { orderBy: [...(client.orderBy ?? []), ...order] }),
      ...(links.length === 0 ? {} : { expand: [...(client.expand ?? []), ...links.map(keyExpansion)] }),
    };
  }
  let bound: BoundQuery;
  try {
    // The key order is the service's: it does not count against the client's clauses.
    const maxOrderByNodeCount = (settings.maxOrderByNodeCount ?? 5) + added;
    bound = bindQueryToSet(query, { ...settings, maxOrderByNodeCount, entitySet: set.name }, set);
  } catch (error) {
    throw explained(error, set, join);
  }
  const plan: ReadPlan = {
    query: bound,
    hops: [],
    rootSingle: false,
    level: bound,
    entitySet: set,
    type: set.type,
    path: set.name,
    properties: [],
    levels: [{ predicates: [], set }],
  };
  return { plan, join, links };
}

/**
 * The plan over only the rows `scope` keeps: each joined set's restriction as a condition of the
 * combinations (through its navigation property), and each expansion's as for any request.
 */
export function restrictCrossJoin(plan: CrossJoinPlan, scope: (set: EntitySet) => BoundExpression | undefined): CrossJoinPlan {
  const { join } = plan;
  const virtual = plan.plan.entitySet;
  const restriction = (set: EntitySet): BoundExpression | undefined => {
    if (set !== virtual) return scope(set);
    const parts = join.sets.flatMap((joined, i) => {
      const own = scope(joined);
      const navigation = join.navigation[i] as CrossJoin['navigation'][number];
      return own === undefined ? [] : [throughNavigation(own, { kind: 'navigation', navigation, entitySet: joined, span: own.span })];
    });
    return conjunction(parts);
  };
  return { ...plan, plan: restrictPlan(plan.plan, restriction) };
}
