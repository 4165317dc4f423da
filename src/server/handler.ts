/**
 * `createODataHandler`: a read-only OData service over a model and a source, as one function
 * from a web `Request` to a `Response` (web standards only: Node, Deno, Bun, edge runtimes and
 * service workers run it). It serves the service document, `$metadata`, collections, single
 * entities, navigation, type casts, properties, `/$count`, `/$value`, `/$ref` and `$entity?$id=`, in standard OData JSON
 * (context URLs, counts, server-driven paging with next links, metadata levels, version
 * negotiation), and every error as an OData JSON error body.
 */
import { ODataError } from '../errors/odata-error.js';
import { ALL_CAPABILITIES, type EntitySet, type Model, type Property } from '../model/model.js';
import { csdlJsonFromModel } from '../model/csdl-json-write.js';
import { csdlXmlFromModel } from '../model/csdl-xml-write.js';
import { errorResponse } from '../responses/responses.js';
import { contextUrl } from '../responses/odata-json/context-url.js';
import { keyPredicate } from '../responses/odata-json/key-predicate.js';
import { negotiateFormat, type NegotiatedFormat } from '../responses/odata-json/negotiate-format.js';
import { nextLinkUrl } from '../responses/odata-json/next-link.js';
import { parsePrefer, preferenceApplied } from '../responses/odata-json/prefer.js';
import { odataCollectionBody, odataEntityBody, odataPropertyBody } from '../responses/odata-json/bodies.js';
import { controlName, type ODataVersion } from '../responses/odata-json/versions.js';
import { bindQueryToSet } from '../semantic/bind-query.js';
import type { BoundExpression, BoundQuery } from '../semantic/bound-ast.js';
import { bindResourcePath } from '../semantic/resource-path/bind-resource-path.js';
import type { BoundResourcePath } from '../semantic/resource-path/bound-resource-path.js';
import { checkResourceQuery } from '../semantic/resource-path/resource-query.js';
import { DEFAULT_MAX_TOP, type BindSettings } from '../semantic/settings.js';
import type { ODataQuery } from '../syntax/ast.js';
import { parseQuery } from '../syntax/query-string.js';
import { readPlan, restrictPlan, type ReadPlan } from './read-plan.js';
import { crossJoinPlan, restrictCrossJoin, type CrossJoinPlan } from './crossjoin-plan.js';
import { checkCrossJoinRows } from '../semantic/resource-path/crossjoin.js';
import { continueAfter, keysetKeys, keysetValues } from '../paging/keyset.js';
import { answerBatch, DEFAULT_BATCH_LIMITS, type BatchLimits } from './batch.js';
import { deadlines } from './deadlines.js';
import { serviceDocument } from './service-document.js';
import type { ODataSource, SourceResult } from './source.js';

/** Options of {@link createODataHandler}. */
export interface ODataHandlerOptions {
  readonly model: Model;
  readonly source: ODataSource;
  /** The path the service is served under (`/odata`); default `/`. The service root is the request's origin and this path. */
  readonly basePath?: string;
  /** Limits and switches of binding (`maxTop`, `maxExpansionDepth`, `allowedQueryOptions`, …; see `ValidationSettings`). */
  readonly settings?: Omit<BindSettings, 'model' | 'entitySet'>;
  /** Server-driven paging: the most entities of a response (default 1000); `Prefer: odata.maxpagesize` asks for fewer. */
  readonly maxPageSize?: number;
  /**
   * Per-request restriction of an entity set's rows (a tenant, a permission), as `$filter` text
   * over the set (`TenantId eq 5`): applied to the rows of every level a request reads (the set it
   * starts from, each navigation property of its path, each expansion).
   */
  readonly scope?: (request: Request, entitySet: EntitySet) => string | undefined;
  /** The response version for clients that send no `OData-MaxVersion` (default `4.01`). */
  readonly defaultVersion?: ODataVersion;
  /**
   * Write control information with the `odata.` prefix in 4.01 responses too (`@odata.count`;
   * default `true`: many clients read only the prefixed names, and 4.01 clients read both).
   */
  readonly odataPrefix?: boolean;
  /**
   * The most navigation properties a resource path may follow (default 8): each is a level the
   * source joins (`People('a')/Friends('b')/Trips` follows 2). They do not count against
   * `settings.maxExpansionDepth`, which bounds the client's `$expand` below the last one.
   */
  readonly maxNavigations?: number;
  /** The longest a source may take for one read, in milliseconds (default 30 000; up to 50 ms more: reads that start together share a deadline): then 503, and the signal given to the source aborts. */
  readonly timeout?: number;
  /** Called with every error that is not the client's (a source failing): for logging. */
  readonly onError?: (error: unknown, request: Request) => void;
  /**
   * Requests bound before (the same path and query text) are a lookup: their parsed query, bound
   * path and read plan are kept, most recent first (default: 1 000 entries of texts up to 8 192
   * characters; `false`: none). The scope is applied to each request anew.
   */
  readonly planCache?: { readonly maxEntries?: number } | false;
  /** Limits of `$batch` (`POST /$batch`): its body's bytes (default 1 MiB) and requests (default 100). */
  readonly batch?: Partial<BatchLimits>;
}

/** A request's path and query, parsed and bound, and its read plans by page size: what the plan cache keeps. */
interface Prepared {
  readonly query: ODataQuery;
  readonly path: BoundResourcePath;
  readonly plans: Map<number, ReadPlan>;
  /** `$crossjoin(…)`: its plans by page size, and the queries counting each set's rows. */
  readonly crossJoins?: Map<number, CrossJoinPlan>;
  counts?: readonly BoundQuery[];
}

/** A map that keeps its most recently used `max` entries. */
class Recent<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }
}

const MAX_CACHED_TEXT = 8192;

/** A read-only OData service: a web `Request` in, a `Response` out. */
export type ODataHandler = (request: Request) => Promise<Response>;

const DEFAULT_PAGE_SIZE = 1000;

/** The request, parsed and negotiated. */
interface Context {
  readonly request: Request;
  readonly url: URL;
  readonly root: string;
  readonly format: NegotiatedFormat;
  readonly naming: { readonly version: ODataVersion; readonly odataPrefix: boolean };
  readonly head: boolean;
}

/**
 * A read-only OData service over `model` and `source`. GET and HEAD are served; other methods are
 * 405 (route writes yourself), `POST /$batch` answers a batch of reads, functions and actions are 501.
 *
 * @example
 * ```ts
 * const handler = createODataHandler({ model, source: memorySource({ People: rows }), basePath: '/odata' });
 * const response = await handler(new Request('http://localhost/odata/People?$top=2&$count=true'));
 * await response.json(); // { '@odata.context': 'http://localhost/odata/$metadata#People', '@odata.count': 20, value: [...], '@odata.nextLink': ... }
 * ```
 */
export function createODataHandler(options: ODataHandlerOptions): ODataHandler {
  const basePath = `/${(options.basePath ?? '/').replace(/^\/+|\/+$/g, '')}`.replace(/^\/$/, '');
  const settings = { ...options.settings, model: options.model };
  const pageSize = options.maxPageSize ?? DEFAULT_PAGE_SIZE;
  const nextDeadline = deadlines(options.timeout ?? 30_000);
  const cache = options.planCache === false ? undefined : new Recent<Prepared>(options.planCache?.maxEntries ?? 1000);
  const prepare = (rawPath: string, rawQuery: string): Prepared => {
    const key = `${rawPath}?${rawQuery}`;
    const cached = key.length <= MAX_CACHED_TEXT ? cache?.get(key) : undefined;
    if (cached !== undefined) return cached;
    const query = parseQuery(rawQuery, { ...options.settings?.parse, allowId: true });
    const path = bindResourcePath(rawPath, {
      model: options.model,
      ...(query.aliases === undefined ? {} : { aliases: query.aliases }),
      bind: options.settings ?? {},
    });
    checkResourceQuery(path, query);
    const prepared: Prepared = { query, path, plans: new Map(), ...(path.shape === 'crossjoin' ? { crossJoins: new Map() } : {}) };
    if (key.length <= MAX_CACHED_TEXT) cache?.set(key, prepared);
    return prepared;
  };
  const handler: ODataHandler = async (request) => {
    let naming = { version: options.defaultVersion ?? '4.01', odataPrefix: options.odataPrefix ?? true } as Context['naming'];
    try {
      const url = new URL(request.url);
      const method = request.method.toUpperCase();
      if (method === 'POST' && url.pathname === `${basePath}/$batch`) {
        return await answerBatch(request, `${url.origin}${basePath}/`, handler, { ...DEFAULT_BATCH_LIMITS, ...options.batch });
      }
      if (method !== 'GET' && method !== 'HEAD') {
        throw new ODataError({
          code: 'method_not_allowed',
          status: 405,
          reason: `The method ${method} is not allowed: this service only reads (and takes POST for $batch)`,
          appendLocation: false,
        });
      }
      if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) {
        throw new ODataError({ code: 'resource_not_found', status: 404, reason: `No OData service is served at '${url.pathname}'`, appendLocation: false });
      }
      const rawPath = url.pathname.slice(basePath.length + 1);
      const rawQuery = url.search.startsWith('?') ? url.search.slice(1) : url.search;
      let prepared = prepare(rawPath, rawQuery);
      // `$entity?$id=People('x')`: the entity its id names, read as its canonical URL would be.
      if (prepared.path.shape === 'entityId') {
        const [idPath, idQuery, refuse] = entityOfId(prepared, rawQuery, `${url.origin}${basePath}/`);
        prepared = prepare(idPath, idQuery);
        if (prepared.path.shape !== 'entity') throw refuse('does not name one entity');
      }
      const { query, path } = prepared;
      const format = negotiateFormat(
        {
          accept: request.headers.get('accept'),
          format: query.passthrough?.$format,
          version: request.headers.get('odata-version'),
          maxVersion: request.headers.get('odata-maxversion'),
          resource: path.shape === 'metadata' ? 'metadata' : 'data',
        },
        { defaultVersion: naming.version },
      );
      naming = { version: format.version, odataPrefix: naming.odataPrefix };
      const context: Context = { request, url, root: `${url.origin}${basePath}/`, format, naming, head: method === 'HEAD' };
      const scope = (set: EntitySet): BoundExpression | undefined => {
        const text = options.scope?.(request, set);
        return text === undefined
          ? undefined
          : (bindQueryToSet(`$filter=${encodeURIComponent(text)}`, { model: options.model, entitySet: set.name }, set).filter as BoundExpression);
      };
      const read = async (query: BoundQuery): Promise<SourceResult> => {
        const deadline = nextDeadline();
        try {
          return await Promise.race([options.source.read(query, { ieee754Compatible: format.ieee754Compatible, signal: deadline.signal }), deadline.expired]);
        } catch (error) {
          if (error instanceof ODataError) throw error;
          options.onError?.(error, request);
          throw new ODataError({ code: 'service_unavailable', status: 503, reason: 'The data source failed', appendLocation: false });
        } finally {
          deadline.done();
        }
      };
      return await serve(prepared, context, {
        settings,
        pageSize,
        maxNavigations: options.maxNavigations,
        scope: options.scope === undefined ? undefined : scope,
        read,
        model: options.model,
      });
    } catch (error) {
      if (!(error instanceof ODataError)) options.onError?.(error, request);
      const { status, body } = errorResponse(error);
      const headers = { 'content-type': 'application/json', 'odata-version': naming.version, ...(status === 405 ? { allow: 'GET, HEAD' } : {}) };
      return new Response(request.method.toUpperCase() === 'HEAD' ? null : JSON.stringify(body), { status, headers });
    }
  };
  return handler;
}

/**
 * The path and query that read the entity an `$entity` request's `$id` names (URL Conventions
 * §4.1.1): the id resolved against the service root (absolute or relative), its path followed by
 * the request's type cast, the request's other options kept. An id outside the service, or one
 * that names no single entity, is the client's mistake (400).
 */
function entityOfId(prepared: Prepared, rawQuery: string, serviceRoot: string): [string, string, (why: string) => ODataError] {
  const id = prepared.query.passthrough?.$id ?? prepared.query.custom?.id ?? '';
  const refuse = (why: string): ODataError =>
    new ODataError({ code: 'invalid_option_value', reason: `The entity id '${id.slice(0, 200)}' ${why}`, option: '$id', appendLocation: false });
  let target: URL;
  try {
    target = new URL(id, serviceRoot);
  } catch {
    throw refuse('is no URL');
  }
  const root = new URL(serviceRoot);
  if (target.origin !== root.origin || !target.pathname.startsWith(root.pathname) || target.search !== '' || target.hash !== '')
    throw refuse('is not an entity of this service');
  const cast = prepared.path.segments.find((segment) => segment.kind === 'typeCast');
  const path = target.pathname.slice(root.pathname.length);
  const kept = rawQuery
    .split('&')
    .filter((pair) => {
      const name = decodeURIComponent(pair.split('=')[0] ?? '').toLowerCase();
      return pair !== '' && name !== '$id' && name !== 'id';
    })
    .join('&');
  return [cast === undefined ? path : `${path}/${cast.type.qualifiedName}`, kept, refuse];
}

interface Services {
  readonly settings: Omit<BindSettings, 'entitySet'>;
  readonly maxNavigations: number | undefined;
  readonly pageSize: number;
  readonly scope: ((set: EntitySet) => BoundExpression | undefined) | undefined;
  readonly read: (query: BoundQuery) => Promise<SourceResult>;
  readonly model: Model;
}

function respond(context: Context, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const text = typeof body === 'string' ? body : body === undefined ? null : JSON.stringify(body);
  return new Response(context.head ? null : text, { status, headers: { ...context.format.headers, ...headers } });
}

async function serve(prepared: Prepared, context: Context, services: Services): Promise<Response> {
  const { format, naming, root } = context;
  const path = prepared.path;
  switch (path.shape) {
    case 'serviceDocument':
      return respond(context, 200, serviceDocument(services.model, root, naming));
    case 'metadata':
      return format.mediaType === 'application/xml'
        ? respond(context, 200, csdlXmlFromModel(services.model))
        : respond(context, 200, csdlJsonFromModel(services.model));
    case 'entityCollection':
    case 'entity':
    case 'count':
    case 'references':
    case 'reference':
    case 'primitive':
    case 'primitiveCollection':
    case 'complex':
    case 'complexCollection':
    case 'value':
      if (path.operation) break;
      return entities(prepared, context, services);
    case 'crossjoin':
      return crossJoin(prepared, context, services);
    default:
      break;
  }
  throw new ODataError({ code: 'not_implemented', status: 501, reason: `This service does not serve ${describeShape(path)}`, appendLocation: false });
}

function describeShape(path: BoundResourcePath): string {
  if (path.operation) return 'functions and actions';
  switch (path.shape) {
    case 'batch':
      return '$batch but by POST';
    case 'stream':
      return 'media resources and stream properties';
    case 'entityId':
      return '$entity (yet)';
    default:
      return `'${path.shape}' requests`;
  }
}

/** Follows the hops of a plan from a root row to the addressed entities. */
function descend(plan: ReadPlan, rows: readonly Record<string, unknown>[]): { entities: Record<string, unknown>[]; count: number | undefined; found: boolean } {
  let current: Record<string, unknown>[] = [...rows];
  let count: number | undefined;
  let found = !plan.rootSingle || current.length > 0;
  for (const hop of plan.hops) {
    const owner = current[0];
    if (owner === undefined) return { entities: [], count: undefined, found: false };
    const value = owner[hop.name];
    count = typeof owner[`${hop.name}@odata.count`] === 'number' ? (owner[`${hop.name}@odata.count`] as number) : undefined;
    current = Array.isArray(value) ? (value as Record<string, unknown>[]) : value === null || value === undefined ? [] : [value as Record<string, unknown>];
    found = hop.collection && !hop.keyed ? true : current.length > 0;
  }
  return { entities: current, count, found };
}

function notFound(): ODataError {
  return new ODataError({ code: 'resource_not_found', status: 404, reason: 'No entity has this key', appendLocation: false });
}

/** A `$skiptoken` of this service: an offset (digits), or the keyset values of the last entity before the page (`k.` and base64url JSON). */
type Token = { readonly kind: 'offset'; readonly skip: number } | { readonly kind: 'keyset'; readonly values: readonly unknown[] };

function badToken(token: string): ODataError {
  return new ODataError({
    code: 'invalid_option_value',
    reason: `Unable to parse the skiptoken value '${token.slice(0, 200)}'. Skiptoken value should always be server generated.`,
    option: '$skiptoken',
    appendLocation: false,
  });
}

function base64url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64url(text: string): string {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

function tokenOf(query: ODataQuery): Token {
  const token = query.passthrough?.$skiptoken;
  if (token === undefined) return { kind: 'offset', skip: 0 };
  if (/^\d{1,15}$/.test(token)) return { kind: 'offset', skip: Number(token) };
  if (token.startsWith('k.') && token.length <= 8192) {
    try {
      const values: unknown = JSON.parse(fromBase64url(token.slice(2)));
      if (Array.isArray(values)) return { kind: 'keyset', values };
    } catch {
      // not one of ours
    }
  }
  throw badToken(token);
}

/**
 * The keyset token after `last` (the last entity of a page), when the page can be continued so:
 * the entities of a set itself (no navigation), no `$count` (the continuation would change it), an
 * order of the entity's own properties, and their values in the entity, exact.
 */
function keysetToken(plan: ReadPlan, client: ODataQuery, last: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (last === undefined || plan.hops.length > 0 || client.count === true) return undefined;
  const keys = keysetKeys(plan.query);
  if (keys === undefined || keys.some(({ property }) => !Object.hasOwn(last, property.name))) return undefined;
  const values = keysetValues(keys, last);
  if (values.some((value) => typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value))) return undefined;
  return `k.${base64url(JSON.stringify(values))}`;
}

/**
 * The `$top` limit of the entity set a path's collection belongs to (the host's and the set's
 * maximum): the client's `$top` is checked against it, not the handler's own page read.
 */
function topLimit(path: BoundResourcePath, settings: Omit<BindSettings, 'entitySet'>): number {
  let set: EntitySet | undefined;
  for (const segment of path.segments) {
    if (segment.kind === 'entitySet') set = segment.entitySet;
    else if (segment.kind === 'navigation') set = segment.entitySet;
  }
  return Math.min(settings.maxTop ?? DEFAULT_MAX_TOP, set?.capabilities.maxTop ?? Number.POSITIVE_INFINITY);
}

/**
 * The `$top` the handler reads a page with: one entity more than the page (to know whether another
 * follows), within the client's `$top`. A client's `$top` over the limit is read as it is, so that
 * the binder refuses it with its own error (the page's read alone would hide it).
 */
function pageTop(wanted: number | undefined, pageSize: number, limit: number): number {
  if (wanted !== undefined && wanted > limit) return wanted;
  return Math.min(wanted ?? Number.POSITIVE_INFINITY, pageSize + 1, limit);
}

async function entities(prepared: Prepared, context: Context, services: Services): Promise<Response> {
  const { format, naming, root } = context;
  const { path, query: client } = prepared;
  const collection = path.shape === 'entityCollection' || path.shape === 'references';
  const prefer = parsePrefer(context.request.headers.get('prefer'));
  const limit = collection ? topLimit(path, services.settings) : Number.POSITIVE_INFINITY;
  // (A set whose $top maximum is at or below the page size is paged one entity under it: the page's read stays within the maximum.)
  const pageSize = Math.min(services.pageSize, prefer.maxPageSize ?? Number.POSITIVE_INFINITY, limit > 1 ? limit - 1 : 1);
  // A page: the client's $skip and the token's offset, and one entity more than the page, to know whether another follows.
  const token = tokenOf(client);
  const skipped = token.kind === 'offset' ? token.skip : 0;
  let query: ODataQuery = client;
  if (collection) {
    const clientSkip = typeof client.skip === 'number' ? client.skip : 0;
    const wanted = typeof client.top === 'number' ? client.top : undefined;
    const top = pageTop(wanted, pageSize, limit);
    query = { ...client, skip: clientSkip + skipped, ...(Number.isFinite(top) ? { top } : {}) };
    if (path.shape === 'references') query = { ...query, select: undefined, expand: undefined };
  } else if (path.shape === 'count') {
    query = { ...client, count: true, top: 0 };
  }
  // The plan for this page size, bound once; the scope (per request) restricts it anew.
  let unscoped = prepared.plans.get(pageSize);
  if (unscoped === undefined) {
    // (The client's options checked as it wrote them; the page this handler added to them is its own.)
    const own = path.shape === 'references' ? { ...client, select: undefined, expand: undefined } : client;
    unscoped = readPlan(path, query, services.settings, undefined, { maxNavigations: services.maxNavigations, client: own });
    prepared.plans.set(pageSize, unscoped);
  }
  const scoped = services.scope === undefined ? unscoped : restrictPlan(unscoped, services.scope);
  // A keyset token continues after its entity (a filter every source runs as any other).
  if (token.kind === 'keyset' && (!collection || scoped.hops.length > 0 || client.count === true)) throw badToken(client.passthrough?.$skiptoken ?? '');
  const plan = token.kind === 'keyset' ? { ...scoped, query: continueAfter(scoped.query, token.values, services.model) } : scoped;
  const result = await services.read(plan.query);
  const { entities: found, count: nestedCount, found: exists } = descend(plan, result.value);
  if (!exists) throw notFound();
  const count = plan.hops.length === 0 ? result.count : nestedCount;
  const body = { ...naming, metadata: format.metadata, ieee754Compatible: format.ieee754Compatible, serviceRoot: root };
  switch (path.shape) {
    case 'count':
      return respond(context, 200, String(count ?? 0), { 'content-type': 'text/plain' });
    case 'entityCollection':
    case 'references': {
      const page = found.slice(0, pageSize);
      // (A set whose maximum is 1 is read one entity at a time: a full page may have a next one.)
      const more = found.length > pageSize || (limit === 1 && found.length === 1 && client.top === undefined);
      // Preference-Applied names the preference as the client did (`odata.maxpagesize` or `maxpagesize`).
      const prefixed = prefer.all.some((p) => p.name.toLowerCase() === 'odata.maxpagesize');
      const applied =
        more && prefer.maxPageSize !== undefined ? preferenceApplied({ maxPageSize: pageSize }, { version: prefixed ? '4.0' : naming.version }) : undefined;
      // (An offset counts from the first entity: the next link leaves the client's $skip out, so the offset takes it in.)
      const next = more
        ? (keysetToken(plan, client, page[page.length - 1]) ?? String((typeof client.skip === 'number' ? client.skip : 0) + skipped + pageSize))
        : undefined;
      const nextLink = next === undefined ? undefined : nextLinkUrl(context.url, { skiptoken: next, returned: pageSize });
      const headers: Record<string, string> = applied === undefined ? {} : { 'preference-applied': applied };
      if (path.shape === 'references') {
        const value = page.map((row) => ({ [controlName('id', body)]: `${root}${canonicalPath(plan, row)}` }));
        const references: Record<string, unknown> = {};
        if (format.metadata !== 'none') references[controlName('context', body)] = contextUrl(root, { kind: 'references' }, naming);
        if (client.count === true && count !== undefined) references[controlName('count', body)] = count;
        references.value = value;
        if (nextLink !== undefined) references[controlName('nextLink', body)] = nextLink;
        return respond(context, 200, references, headers);
      }
      const contextText = contextUrl(root, { kind: 'collection', path: contextPath(plan), query: plan.level }, naming);
      return respond(
        context,
        200,
        odataCollectionBody(page, {
          ...body,
          context: contextText,
          query: plan.level,
          path: plan.path,
          ...(client.count === true && count !== undefined ? { count } : {}),
          ...(nextLink === undefined ? {} : { nextLink }),
        }),
        headers,
      );
    }
    case 'entity':
    case 'reference': {
      const entity = found[0];
      if (entity === undefined) return respond(context, 204, undefined);
      if (path.shape === 'reference') {
        const reference: Record<string, unknown> = {};
        if (format.metadata !== 'none') reference[controlName('context', body)] = contextUrl(root, { kind: 'reference' }, naming);
        reference[controlName('id', body)] = `${root}${canonicalPath(plan, entity)}`;
        return respond(context, 200, reference);
      }
      const single = plan.hops.length > 0 ? !(plan.hops[plan.hops.length - 1] as { collection: boolean }).collection : path.segments[0]?.kind === 'singleton';
      const contextText = contextUrl(root, { kind: 'entity', path: contextPath(plan), query: plan.level, single }, naming);
      return respond(context, 200, odataEntityBody(entity, { ...body, context: contextText, query: plan.level, path: plan.path }));
    }
    default:
      return property(path, plan, found[0], context, body);
  }
}

/**
 * `$crossjoin(Set1,Set2,…)` (URL Conventions §4.15): a collection of instances of a complex type
 * (`#Collection(Edm.ComplexType)`), each with one navigation property per joined set, expanded
 * where the client expands it and otherwise a navigation link to the entity
 * (`"Products@navigationLink": "Products('P1')"`); with `$apply`, the rows it gives. The sets'
 * rows are counted first (in the scope of the request): more combinations than
 * `maxCrossJoinRows` are refused before any row is joined.
 */
async function crossJoin(prepared: Prepared, context: Context, services: Services): Promise<Response> {
  const { format, naming, root } = context;
  const client = prepared.query;
  const prefer = parsePrefer(context.request.headers.get('prefer'));
  const pageSize = Math.min(services.pageSize, prefer.maxPageSize ?? Number.POSITIVE_INFINITY);
  const token = tokenOf(client);
  if (token.kind !== 'offset') throw badToken(client.passthrough?.$skiptoken ?? '');
  const wanted = typeof client.top === 'number' ? client.top : undefined;
  const top = Math.min(wanted ?? Number.POSITIVE_INFINITY, pageSize + 1);
  const query: ODataQuery = { ...client, skip: (typeof client.skip === 'number' ? client.skip : 0) + token.skip, ...(Number.isFinite(top) ? { top } : {}) };
  const plans = prepared.crossJoins as Map<number, CrossJoinPlan>;
  let unscoped = plans.get(pageSize);
  if (unscoped === undefined) plans.set(pageSize, (unscoped = crossJoinPlan(prepared.path, query, services.settings)));
  const scope = services.scope;
  const { plan, join, links } = scope === undefined ? unscoped : restrictCrossJoin(unscoped, scope);
  // The bound: each set's rows counted (as the request's scope restricts them) before any is joined.
  // (Counted by the service: of the set's rows with every capability, whatever the set allows the client.)
  prepared.counts ??= join.sets.map((set) =>
    bindQueryToSet('$top=0&$count=true', { model: services.model, entitySet: set.name }, { ...set, capabilities: ALL_CAPABILITIES }),
  );
  const counts = await Promise.all(
    prepared.counts.map(async (counting, i) => {
      const set = join.sets[i] as EntitySet;
      const restriction = scope?.(set);
      const restricted = restriction === undefined ? counting : { ...counting, filter: restriction };
      return (await services.read(restricted)).count ?? 0;
    }),
  );
  checkCrossJoinRows(join, counts);
  const result = await services.read(plan.query);
  const page = result.value.slice(0, pageSize);
  const more = result.value.length > pageSize;
  const prefixed = prefer.all.some((p) => p.name.toLowerCase() === 'odata.maxpagesize');
  const applied =
    more && prefer.maxPageSize !== undefined ? preferenceApplied({ maxPageSize: pageSize }, { version: prefixed ? '4.0' : naming.version }) : undefined;
  // (The offset takes the client's $skip in: the next link leaves it out.)
  const nextLink = more
    ? nextLinkUrl(context.url, { skiptoken: String((typeof client.skip === 'number' ? client.skip : 0) + token.skip + pageSize), returned: pageSize })
    : undefined;
  const body = { ...naming, metadata: format.metadata, ieee754Compatible: format.ieee754Compatible, serviceRoot: root };
  const described = odataCollectionBody(page, {
    ...body,
    context: contextUrl(root, { kind: 'type', type: 'Edm.ComplexType', collection: true }, naming),
    query: plan.level,
    path: plan.path,
    ...(client.count === true && result.count !== undefined ? { count: result.count } : {}),
    ...(nextLink === undefined ? {} : { nextLink }),
  });
  // The sets not expanded: a navigation link each, relative to the service root (`Products('P1')`).
  // An instance of the complex type has no type name, id or links of its own (full metadata).
  const own = new Set(['type', 'id', 'editLink', 'readLink', 'etag'].map((name) => controlName(name, body)));
  described.value = (described.value as Record<string, unknown>[]).map((row, i) => {
    const read = page[i] as Record<string, unknown>;
    const result: Record<string, unknown> = {};
    for (const set of links) {
      const entity = read[set.name];
      if (entity !== null && typeof entity === 'object')
        result[controlName('navigationLink', body, set.name)] = `${set.name}${keyPredicate(set.type, entity as Record<string, unknown>, { encode: true })}`;
    }
    for (const [name, value] of Object.entries(row)) {
      const owner = name.split('@')[0] as string;
      if (!own.has(name) && !links.some((set) => set.name === owner)) result[name] = value;
    }
    return result;
  });
  return respond(context, 200, described, applied === undefined ? {} : { 'preference-applied': applied });
}

/** The path of the plan's collection in a context URL: with its type cast (`People/NS.Employee`). */
function contextPath(plan: ReadPlan): string {
  return plan.cast === undefined ? plan.path : `${plan.path}/${plan.cast.qualifiedName}`;
}

/** The canonical URL path of an entity of the plan's collection (`People('x')`), key values percent-encoded. */
function canonicalPath(plan: ReadPlan, row: Readonly<Record<string, unknown>>): string {
  return `${plan.path}${keyPredicate(plan.type, row, { encode: true })}`;
}

function property(
  path: BoundResourcePath,
  plan: ReadPlan,
  entity: Record<string, unknown> | undefined,
  context: Context,
  body: { readonly version: ODataVersion; readonly odataPrefix: boolean; readonly metadata: NegotiatedFormat['metadata']; readonly ieee754Compatible: boolean },
): Response {
  if (entity === undefined) throw notFound();
  let value: unknown = entity;
  let declared: Property | undefined;
  const names: string[] = [];
  for (const step of plan.properties) {
    if (typeof step === 'number') {
      const items = Array.isArray(value) ? value : [];
      value = items[step < 0 ? items.length + step : step];
      names.push(String(step));
      if (value === undefined) throw new ODataError({ code: 'resource_not_found', status: 404, reason: `No item at index ${step}`, appendLocation: false });
    } else {
      value = value === null || typeof value !== 'object' ? null : (value as Record<string, unknown>)[step.name];
      declared = step;
      names.push(step.name);
    }
  }
  if (value === null || value === undefined) return respond(context, 204, undefined);
  if (path.shape === 'value') {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return respond(context, 200, text, { 'content-type': 'text/plain' });
  }
  // A context URL is not percent-encoded (an id is).
  const entityPath = `${plan.path}${keyPredicate(plan.type, entity)}`;
  const contextText = contextUrl(context.root, { kind: 'property', entity: entityPath, property: names.join('/') }, context.naming);
  return respond(context, 200, odataPropertyBody(value, { ...body, context: contextText, ...(declared === undefined ? {} : { property: declared }) }));
}
