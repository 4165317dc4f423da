/**
 * A bound resource path and the client's query options as one bound query on an entity set the
 * path starts from, so that any source runs it as it runs any query: the first set (or singleton),
 * its key as a restriction of its rows, each navigation property of the path as a nested
 * `$expand` of the entity before it (its key and `$filter(…)` segments as restrictions of that
 * level), and the client's options at the last level. The rows then hold what the path addresses,
 * one expansion inside another (see `descend`).
 */
import { ODataError } from '../errors/odata-error.js';
import { ALL_CAPABILITIES, type EntitySet, type Property, type StructuredType } from '../model/model.js';
import { bindQueryToSet } from '../semantic/bind-query.js';
import type { BoundExpression, BoundQuery, BoundQueryOptions } from '../semantic/bound-ast.js';
import type { BindSettings } from '../semantic/settings.js';
import type { BoundResourcePath, BoundResourceSegment } from '../semantic/resource-path/bound-resource-path.js';
import { keyParts } from '../semantic/resource-path/keys.js';
import { keyLiteral } from '../responses/odata-json/key-predicate.js';
import { RESOURCE_PATH } from '../syntax/parse.js';
import type { ExpandItem, Expression, NestedOptions, ODataQuery, OrderByItem, Span } from '../syntax/ast.js';

/** One navigation step of the rows: a property of the entity before it, one entity or many. */
export interface Hop {
  readonly name: string;
  readonly collection: boolean;
  /** A key picked one entity of the collection. */
  readonly keyed: boolean;
}

/** How a path is read. */
export interface ReadPlan {
  /** The query the source runs. */
  readonly query: BoundQuery;
  /** The navigation properties from the root rows to the addressed entities. */
  readonly hops: readonly Hop[];
  /** The root rows are one entity (a key or a singleton). */
  readonly rootSingle: boolean;
  /** The options the addressed entities were read with (the last level). */
  readonly level: BoundQueryOptions;
  /** The entity set of the addressed entities, where the model says which. */
  readonly entitySet: EntitySet | undefined;
  readonly type: StructuredType;
  /** The canonical path of the addressed entities' collection (`People('x')/Trips`), for context URLs and ids. */
  readonly path: string;
  /** The type cast of the addressed entities (`People/NS.Employee`), for the context URL. */
  readonly cast?: StructuredType;
  /** The properties after the entity (`AddressInfo`, `0`, `City`) for a property path. */
  readonly properties: readonly (Property | number)[];
  /** Each level's restrictions from the path (keys, `$filter(…)`) and its entity set (for `scope`). */
  readonly levels: readonly { readonly predicates: readonly BoundExpression[]; readonly set: EntitySet | undefined }[];
  /** The query before any restriction (see {@link restrictPlan}). */
  readonly unrestricted?: BoundQuery;
}

const NO_SPAN: Span = { start: 0, end: 0 };

/** The most navigation properties a path may follow (see `ODataHandlerOptions.maxNavigations`). */
export const DEFAULT_MAX_NAVIGATIONS = 8;

/** The most `$filter(…)` segments a path may have (a database nests their conjunction: PostgreSQL's parser ran out of stack at 7 000). */
const MAX_PATH_FILTERS = 8;

/** The set a query starts from: the path's first set, or a stand-in for a singleton. */
function rootSet(first: BoundResourceSegment): EntitySet {
  if (first.kind === 'entitySet') return first.entitySet;
  if (first.kind === 'singleton') return { name: first.name, type: first.type, capabilities: ALL_CAPABILITIES, bindings: new Map() };
  throw new ODataError({ code: 'not_implemented', status: 501, reason: 'This resource is not served', appendLocation: false });
}

const member = (name: string): Expression => ({ kind: 'path', head: { kind: 'implicit' }, segments: [{ kind: 'member', name, span: NO_SPAN }], span: NO_SPAN });

/**
 * The client's `$orderby` ending in the key (when it does not already, and no `$apply` groups the
 * rows), so that pages follow one order.
 */
function withKeyOrder(query: ODataQuery, type: StructuredType): ODataQuery {
  if (query.apply !== undefined || type.key.length === 0) return query;
  const items = [...(query.orderBy ?? [])];
  const named = new Set(
    items.flatMap((item) =>
      item.expression.kind === 'path' && item.expression.segments.length === 1 && item.expression.segments[0]?.kind === 'member'
        ? [item.expression.segments[0].name]
        : [],
    ),
  );
  const missing = keyParts(type).filter((part) => part.steps.length === 1 && !named.has(part.name));
  if (missing.length === 0) return query;
  const added: OrderByItem[] = missing.map((part) => ({ kind: 'orderByItem', expression: member(part.name), direction: 'asc', span: NO_SPAN }));
  return { ...query, orderBy: [...items, ...added] };
}

/** `options` over only the rows `predicates` keep (as `restrictQuery`, for any level). */
function restrictOptions<T extends BoundQueryOptions>(options: T, predicates: readonly BoundExpression[]): T {
  let result = options;
  for (const predicate of predicates) {
    if (result.apply !== undefined) {
      const first = { kind: 'filter', predicate, output: result.entityType, span: predicate.span } as const;
      result = { ...result, apply: { ...result.apply, transformations: [first, ...result.apply.transformations] } };
    } else {
      const filter: BoundExpression =
        result.filter === undefined
          ? predicate
          : {
              kind: 'binary',
              operator: 'and',
              left: result.filter,
              right: predicate,
              type: predicate.type,
              operandType: predicate.type,
              span: result.filter.span,
            };
      result = { ...result, filter };
    }
  }
  return result;
}

/**
 * The read plan of a path that addresses entities or their properties, with the client's
 * options (`client`) at its last level. `scope` gives each entity set's restriction (tenants).
 */
export function readPlan(
  path: BoundResourcePath,
  client: ODataQuery,
  settings: Omit<BindSettings, 'entitySet'>,
  scope: (set: EntitySet) => BoundExpression | undefined = () => undefined,
  limits: {
    readonly maxNavigations?: number;
    /** The client's own options, when `client` has the service's page in it: checked first, as written. */
    readonly client?: ODataQuery;
  } = {},
): ReadPlan {
  const segments = path.segments;
  const root = rootSet(segments[0] as BoundResourceSegment);
  // Levels: the root, then one per navigation property; each with its restrictions.
  const levels: { predicates: BoundExpression[]; hop?: Hop; set: EntitySet | undefined; type: StructuredType; cast?: StructuredType }[] = [
    { predicates: [], set: root, type: root.type },
  ];
  const properties: (Property | number)[] = [];
  let pathText = root.name;
  // The path of the last level's collection (without its key): `People`, `People('x')/Trips`.
  let collectionPath = pathText;
  for (const segment of segments.slice(1)) {
    const level = levels[levels.length - 1] as (typeof levels)[number];
    switch (segment.kind) {
      case 'key': {
        level.predicates.push(segment.filter);
        collectionPath = pathText;
        if (level.hop !== undefined) level.hop = { ...level.hop, keyed: true };
        pathText += `(${segment.values.map((v) => (segment.values.length === 1 ? '' : `${v.property.name}=`) + keyLiteral(v.property, literalValue(v.value))).join(',')})`;
        break;
      }
      case 'filter':
        level.predicates.push(segment.filter);
        break;
      case 'navigation':
        levels.push({
          predicates: [],
          hop: { name: segment.navigation.name, collection: segment.navigation.collection, keyed: false },
          set: segment.entitySet,
          type: segment.navigation.target,
        });
        pathText =
          segment.entitySet !== undefined && segment.navigation.containsTarget !== true ? segment.entitySet.name : `${pathText}/${segment.navigation.name}`;
        collectionPath = pathText;
        break;
      case 'typeCast': {
        // The entities of a derived type: those `isof` keeps, their options bound against it.
        if (properties.length > 0) throw notServed('a type cast of a property');
        if (levels.length > 1) throw notServed('a type cast after a navigation property');
        if (segment.type === level.type) break;
        level.predicates.push(isOf(level.set ?? root, level.type, segment.type, settings));
        level.type = segment.type;
        level.cast = segment.type;
        break;
      }
      case 'property':
        properties.push(segment.property);
        break;
      case 'index':
        properties.push(segment.index);
        break;
      case 'count':
      case 'value':
      case 'ref':
        break;
      default:
        throw notServed(`the resource path segment '${segment.kind}'`);
    }
  }
  const last = levels[levels.length - 1] as (typeof levels)[number];
  // Each navigation property is a level the source joins: bounded. The path's own levels do not
  // count against the client's $expand depth (`maxExpansionDepth`), which starts at the last one.
  const hops = levels.length - 1;
  const maxNavigations = limits.maxNavigations ?? DEFAULT_MAX_NAVIGATIONS;
  if (hops > maxNavigations) {
    throw new ODataError({
      code: 'too_deep',
      reason: `The resource path follows ${hops} navigation properties; the limit is ${maxNavigations}`,
      option: RESOURCE_PATH,
      appendLocation: false,
    });
  }
  // Each `$filter(…)` segment is bounded by the bind settings (`maxNodeCount`), their number here.
  const filters = segments.filter((segment) => segment.kind === 'filter').length;
  if (filters > MAX_PATH_FILTERS) {
    throw new ODataError({
      code: 'too_deep',
      reason: `The resource path has ${filters} '$filter' segments; the limit is ${MAX_PATH_FILTERS}`,
      option: RESOURCE_PATH,
      appendLocation: false,
    });
  }
  const paged = path.shape === 'entityCollection' || path.shape === 'count' || path.shape === 'references';
  // The syntax of a query: its options at the last level, nested in one expansion per hop.
  const nest = (query: ODataQuery): ODataQuery => {
    let syntax = query;
    for (let i = levels.length - 1; i >= 1; i--) {
      const hop = levels[i]?.hop as Hop;
      const options: NestedOptions = { ...syntax, kind: 'nestedOptions', span: NO_SPAN };
      // A cast of the entity before the navigation property is the cast of the $expand path (`NS.Employee/Reports`).
      const owner = levels[i - 1]?.cast;
      const path: ExpandItem['path'] = [
        ...(owner === undefined ? [] : [{ kind: 'member' as const, name: owner.qualifiedName, span: NO_SPAN }]),
        { kind: 'member', name: hop.name, span: NO_SPAN },
      ];
      const item: ExpandItem = { kind: 'expandItem', path, options, span: NO_SPAN };
      syntax = { kind: 'query', expand: [item], ...(client.aliases === undefined ? {} : { aliases: client.aliases }) };
    }
    return syntax;
  };
  // Cast at the root with nothing after it: the client's options are over the derived type.
  const rootCast = levels.length === 1 ? levels[0]?.cast : undefined;
  const bindSet = rootCast === undefined ? root : { ...root, type: rootCast };
  const depth = (settings.maxExpansionDepth ?? 2) + hops;
  const bind = (query: ODataQuery, pagedByService?: number): BoundQuery => {
    try {
      return bindQueryToSet(
        nest(query),
        { ...settings, maxExpansionDepth: depth, entitySet: root.name, ...(pagedByService === undefined ? {} : { pagedByService }) },
        bindSet,
      );
    } catch (error) {
      // A nested option in an expansion is named by its place there; the client wrote it at the top.
      if (error instanceof ODataError && levels.length > 1) throw error.relocate(error.option);
      throw error;
    }
  };
  // The service's own paging (a page and one more, its offset, the key after the client's order)
  // is not the client's: the client's options are checked as it wrote them, then the page is bound
  // without checking those three against the set's capabilities, the limits or the allowed options.
  // (Only where the page could be refused as the client's would be: one bind otherwise, as a
  // client's $top over the limit is in the page as it wrote it.)
  const query = paged ? withKeyOrder(client, last.type) : client;
  const capabilities = last.set?.capabilities;
  const unsortableKey = last.type.key.some(
    (name) => last.type.properties.get(name)?.sortable === false || capabilities?.sortable === false || capabilities?.nonSortableProperties.has(name) === true,
  );
  const refusable =
    capabilities?.topSupported === false ||
    capabilities?.skipSupported === false ||
    unsortableKey ||
    settings.allowedQueryOptions !== undefined ||
    (query.orderBy?.length ?? 0) > (settings.maxOrderByNodeCount ?? 5);
  let bound: BoundQuery;
  if (limits.client !== undefined && refusable) {
    bind(limits.client);
    bound = bind(query, hops);
  } else {
    bound = bind(query);
  }
  const unrestricted: ReadPlan = {
    query: bound,
    hops: levels.slice(1).map((level) => level.hop as Hop),
    rootSingle: segments[0]?.kind === 'singleton' || segments[1]?.kind === 'key',
    level: bound,
    entitySet: last.set,
    type: last.type,
    path: collectionPath,
    ...(last.cast === undefined ? {} : { cast: last.cast }),
    properties,
    levels: levels.map((level) => ({ predicates: level.predicates, set: level.set })),
  };
  return restrictPlan(unrestricted, scope);
}

/**
 * The plan's query over only the rows its levels keep: the path's keys and `$filter(…)` segments,
 * and `scope` of each level's entity set (per request: a tenant). A plan can be kept (a plan
 * cache) and restricted again for each request's scope.
 */
export function restrictPlan(plan: ReadPlan, scope: (set: EntitySet) => BoundExpression | undefined = () => undefined): ReadPlan {
  const levels = plan.levels;
  // The client's own expansions, at any depth, each restricted to its entity set's scope.
  const expansions = <T extends BoundQueryOptions>(options: T): T => {
    if (options.expand.length === 0) return options;
    const expand = options.expand.map((item) => {
      const scoped = item.entitySet === undefined ? undefined : scope(item.entitySet);
      return { ...item, options: expansions(restrictOptions(item.options, scoped === undefined ? [] : [scoped])) };
    });
    return { ...options, expand };
  };
  const restrict = <T extends BoundQueryOptions>(options: T, depth: number): T => {
    const level = levels[depth] as (typeof levels)[number];
    const scoped = level.set === undefined ? undefined : scope(level.set);
    const restricted = restrictOptions(options, [...level.predicates, ...(scoped === undefined ? [] : [scoped])]);
    if (depth + 1 >= levels.length) return expansions(restricted);
    const [item, ...rest] = restricted.expand;
    if (item === undefined) return restricted;
    return { ...restricted, expand: [{ ...item, options: restrict(item.options, depth + 1) }, ...rest] };
  };
  const unrestricted = plan.unrestricted ?? plan.query;
  const query = restrict(unrestricted, 0);
  let level: BoundQueryOptions = query;
  for (let i = 1; i < levels.length; i++) level = (level.expand[0] as BoundQueryOptions['expand'][number]).options;
  return { ...plan, query, level, unrestricted };
}

function notServed(what: string): ODataError {
  return new ODataError({ code: 'not_implemented', status: 501, reason: `This service does not serve ${what} yet`, appendLocation: false });
}

/** `isof(Cast)` of the entities of `set` (of type `type`): which of them are of the derived type. */
function isOf(set: EntitySet, type: StructuredType, cast: StructuredType, settings: Omit<BindSettings, 'entitySet'>): BoundExpression {
  // The path's own restriction: not subject to the client's limits on $filter.
  const standIn = { ...set, type, capabilities: ALL_CAPABILITIES };
  const bound = bindQueryToSet(`$filter=isof('${cast.qualifiedName}')`, { model: settings.model, entitySet: set.name }, standIn);
  return bound.filter as BoundExpression;
}

/** The value of a bound key literal in its JSON form (Int64 as text). */
function literalValue(value: BoundExpression): unknown {
  if (value.kind !== 'literal') return null;
  return typeof value.value === 'bigint' ? value.value.toString() : value.value;
}
