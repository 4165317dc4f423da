/**
 * The collection routes: `GET /{collection}` with OData query options, and
 * `GET|PUT|DELETE /{collection}/{id}`, `POST /{collection}` on the records of one tenant.
 *
 * Lists go through the library: `parseQuery` on the raw query string (URL rules: `+` is a plus),
 * `bindQuery` against the model with the route's `$top` limit, and `toSql` for PostgreSQL with
 * `scope: { tenant_id }` (every table of the statement restricted to the tenant), run under
 * row-level security for the request's tenant as well: two independent layers. Single records use hand-written SQL that
 * names the tenant explicitly as well.
 */
import {
  bindQuery,
  continueAfter,
  createPlanCache,
  keysetKeys,
  keysetValues,
  listResponse,
  ODataError,
  parseQuery,
  readSqlRow,
  readSqlRows,
  restrictQuery,
  toSql,
  type BoundQuery,
  type EntitySet,
  type NavigationProperty,
  type ODataQuery,
  type Property,
} from 'odata-engine';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database, DbRow } from './db.js';
import { clientDataError, NotFoundError, sqlState, ValidationError } from './errors.js';
import { HOST_MAX_TOP, model, resources, tables, type Resource } from './model.js';
import { checkBody, isUuid, rowToRecord, withServiceCountNames } from './records.js';
import { snakeCase } from './schema.js';
import { nextLink, preferredPageSize, withoutSkipToken, type Continuation, type ListIdentity, type SkipTokens } from './paging.js';

/** Route-level settings read by the auth hook. */
export interface RouteAccess {
  /** Whether the route needs a tenant (the `Service-Tenant-Id` header). */
  readonly tenant: boolean;
  /** Whether the route writes (needs write permission). */
  readonly write: boolean;
}

/** The tenant of a request, set by the auth hook before the handler runs. */
export type TenantOf = (request: FastifyRequest) => string;

/**
 * How the query string is read: `+` is a space, as ASP.NET Core reads it and as `URLSearchParams`
 * and Python's `urlencode` send spaces; a plus sign is then sent as `%2B`.
 */
const QUERY_STRING = { plusAsSpace: true } as const;

/** The part of the URL after `?`, exactly as sent. */
export function rawQuery(url: string): string {
  const index = url.indexOf('?');
  return index < 0 ? '' : url.slice(index + 1);
}

/**
 * Bound and compiled list queries, kept by query text, settings and tenant (`createPlanCache`:
 * a plan never serves another collection or tenant); the model never changes while the service runs.
 */
const plans = createPlanCache({ maxEntries: 2000 });

/** PostgreSQL's largest `integer`: the SQL backend passes `$skip` as one. */
const MAX_SQL_INTEGER = 2_147_483_647;

/**
 * `$skip` above 2^31 − 1 is clamped to it: no tenant has that many records, so the page is empty
 * either way, and PostgreSQL would refuse the larger value as out of range for `integer`.
 */
function clampSkip<T extends { readonly skip?: number }>(bound: T): T {
  return bound.skip !== undefined && bound.skip > MAX_SQL_INTEGER ? { ...bound, skip: MAX_SQL_INTEGER } : bound;
}

/**
 * The query restricted to the records related to the record `id` through `partner` (the
 * navigation property back to it): `assetId eq <id>` when the partner's referential constraint is
 * the foreign key to `id` (no join), else `partner/id eq <id>` for a single-valued partner and
 * `partner/any(p: p/id eq <id>)` for a collection. Bound on its own (the client's node limits are
 * for the client's filter) and put in front of everything the query does by `restrictQuery`: before
 * `$apply` (so that `groupby`, `aggregate` and `topcount` see only the related records), else into `$filter`.
 */
function relatedTo(query: BoundQuery, partner: NavigationProperty, id: string): BoundQuery {
  const [constraint, ...more] = partner.constraints;
  const foreignKey = !partner.collection && more.length === 0 && constraint?.referencedProperty === 'id' ? constraint.property : undefined;
  const text =
    foreignKey !== undefined ? `${foreignKey} eq ${id}` : partner.collection ? `${partner.name}/any(p: p/id eq ${id})` : `${partner.name}/id eq ${id}`;
  const relation = bindQuery(parseQuery(`$filter=${encodeURIComponent(text)}`), {
    model,
    entitySet: query.entitySet.name,
    maxNodeCount: Number.MAX_SAFE_INTEGER,
  }).filter;
  if (relation === undefined) throw new Error('a relation filter binds to a filter');
  return restrictQuery(query, relation);
}

/**
 * Rejects the query options this service does not implement: custom options and `$skiptoken`-like
 * ones (`$skiptoken` itself where `skipToken` allows it: the lists).
 */
function checkSupportedOptions(query: ODataQuery, skipToken = false): void {
  for (const name of Object.keys(query.custom ?? {})) {
    throw new ODataError({ code: 'unsupported_option', reason: `The query option '${name}' is not supported`, option: name, appendLocation: false });
  }
  for (const [name, value] of Object.entries(query.passthrough ?? {})) {
    if (name.replace(/^\$/, '').toLowerCase() === 'format' && /^(json|application\/json)(;.*)?$/i.test(value)) continue;
    if (skipToken && name.replace(/^\$/, '').toLowerCase() === 'skiptoken') continue;
    throw new ODataError({ code: 'unsupported_option', reason: `The query option '${name}' is not supported`, option: name, appendLocation: false });
  }
}

/**
 * List query texts already parsed and checked by {@link checkListOptions}, oldest first: a repeated
 * text (a grid, a dashboard) is then a lookup, as its plan is in the plan cache, instead of a parse.
 */
const checkedLists = new Set<string>();
const MAX_CHECKED_LISTS = 2000;

/** A list's query text parsed (its syntax errors thrown) and its options checked, once per text. */
function checkListOptions(raw: string): void {
  if (checkedLists.has(raw)) return;
  checkSupportedOptions(parseQuery(raw, QUERY_STRING), true);
  if (raw.length > 8192) return;
  if (checkedLists.size >= MAX_CHECKED_LISTS) checkedLists.delete(checkedLists.values().next().value as string);
  checkedLists.add(raw);
}

/** A single record takes only `$select` and `$expand`. */
function checkSingleRecordOptions(query: ODataQuery): void {
  const options = [query.filter, query.search, query.orderBy, query.compute, query.apply, query.top, query.skip, query.count];
  if (options.some((option) => option !== undefined)) {
    throw new ODataError({ code: 'unsupported_option', reason: 'A single record takes only $select and $expand', appendLocation: false });
  }
}

function entitySet(resource: Resource): EntitySet {
  const set = model.entitySets.get(resource.entitySet);
  if (set === undefined) throw new Error(`No entity set '${resource.entitySet}'`);
  return set;
}

/** The id from the URL, lowercased. @throws {ValidationError} when it is not a UUID */
function pathId(request: FastifyRequest): string {
  const { id } = request.params as { id: string };
  if (!isUuid(id)) throw new ValidationError(`The id '${id}' is not a UUID.`);
  return id.toLowerCase();
}

/** Registers the four routes of one collection; `tokens` seals the `$skiptoken`s of server-driven paging. */
export function registerCollection(app: FastifyInstance, db: Database, resource: Resource, tenantOf: TenantOf, tokens: SkipTokens): void {
  const set = entitySet(resource);
  const type = set.type;
  const properties = [...type.properties.values()] as Property[];
  const selectList = properties.map((p) => `"${snakeCase(p.name)}"`).join(', ');
  const table = `"${resource.table}"`;
  const foreignKey = properties.find((p) => p.name !== 'id' && p.type.kind === 'primitive' && p.type.name === 'Edm.Guid');
  const read: RouteAccess = { tenant: true, write: false };
  const write: RouteAccess = { tenant: true, write: true };
  const base = `/${resource.path}`;

  /** Runs a list statement (and its count statement) for the request's tenant. */
  const runList = async (request: FastifyRequest, list: ReturnType<typeof toSql>, counting: ReturnType<typeof toSql>['count']) =>
    db
      .withTenant(tenantOf(request), 'read', async (tx) => {
        const rows = await tx.query(list.sql, list.params);
        const counted = counting === undefined ? undefined : await tx.query(counting.sql, counting.params);
        return { rows, count: counted === undefined ? undefined : Number(counted[0]?.count) };
      })
      .catch((error: unknown) => {
        // Data exceptions (overflow, …) and program limits come from the query's values, not from
        // the server: they are the client's error, told in our words (PostgreSQL's stay in the log).
        const dataError = clientDataError(error);
        if (dataError !== undefined) request.log.info({ err: error }, 'database refused a value from the query');
        throw dataError ?? error;
      });

  app.get(base, { config: read }, async (request, reply) => {
    const raw = rawQuery(request.url);
    checkListOptions(raw);
    const maxTop = resource.maxTop ?? HOST_MAX_TOP;
    // The same query text again (a client's grid, a dashboard) is a lookup in the plan cache.
    const bound = clampSkip(plans.bind(raw, { model, entitySet: resource.entitySet, maxTop, parse: QUERY_STRING }));
    const preferred = preferredPageSize(request.headers.prefer);
    const { query: others, token } = withoutSkipToken(raw);
    if (preferred === undefined && token === undefined) {
      // No server-driven paging: the list as it always was.
      const compiled = toSql(bound, { dialect: 'postgres', naming: 'snake_case', tables, scope: { tenant_id: tenantOf(request) }, cache: plans });
      const { rows, count } = await runList(request, compiled, compiled.count);
      const value = readSqlRows(bound, compiled, rows).map(withServiceCountNames);
      return listResponse(value, count === undefined ? {} : { count });
    }
    return pagedList(request, reply, bound, { preferred, others, token, maxTop, list: resource.entitySet });
  });

  /**
   * One page of server-driven paging (see paging.ts): at most the page size, one record more read
   * to know whether another page follows; by keyset after the token's record, or by offset.
   */
  async function pagedList(
    request: FastifyRequest,
    reply: FastifyReply,
    bound: BoundQuery,
    paging: {
      readonly preferred: number | undefined;
      readonly others: string;
      readonly token: string | undefined;
      readonly maxTop: number;
      readonly list: string;
    },
  ): Promise<unknown> {
    const tenantId = tenantOf(request);
    const identity: ListIdentity = { tenantId, list: paging.list };
    const from: Continuation | undefined = paging.token === undefined ? undefined : tokens.open(paging.token, identity, paging.others);
    const pageSize = Math.min(paging.preferred ?? from?.pageSize ?? paging.maxTop, paging.maxTop);
    const remaining = from === undefined ? bound.top : from.remaining;
    const take = remaining === undefined ? pageSize : Math.min(pageSize, remaining);
    const keys = keysetKeys(bound);
    // The order keys must be read even when $select leaves them out (they are dropped again below).
    const extra =
      keys === undefined || bound.select.all
        ? []
        : keys.map((k) => k.property).filter((p) => !bound.select.properties.some((s) => s.path.length === 1 && s.path[0] === p));
    const reading: BoundQuery = {
      ...bound,
      select: { ...bound.select, properties: [...bound.select.properties, ...extra.map((p) => ({ path: [p], span: { start: 0, end: 0 } }))] },
    };
    const { skip: _skip, count: _count, ...unpaged } = reading;
    let page: BoundQuery;
    if (from === undefined) page = { ...reading, count: false, top: take + 1 };
    else if (from.after !== undefined && keys !== undefined) page = { ...continueAfter(unpaged as BoundQuery, from.after, model), top: take + 1 };
    else if (from.offset !== undefined && keys === undefined) page = { ...unpaged, skip: from.offset, top: take + 1 };
    else
      throw new ODataError({
        code: 'invalid_option_value',
        reason: 'The $skiptoken is not valid for this request',
        option: '$skiptoken',
        appendLocation: false,
      });
    const options = { dialect: 'postgres', naming: 'snake_case', tables, scope: { tenant_id: tenantId } } as const;
    const compiled = toSql(page, options);
    // The count is the whole result's: the request's own count statement, without the continuation.
    const counting = bound.count === true ? toSql(bound, options).count : undefined;
    const { rows, count } = await runList(request, compiled, counting);
    const records = readSqlRows(page, compiled, rows.slice(0, take)).map(withServiceCountNames);
    const more = rows.length > take && (remaining === undefined || remaining > take);
    const body: Record<string, unknown> = listResponse(
      records.map((record) =>
        extra.length === 0 ? record : Object.fromEntries(Object.entries(record).filter(([name]) => !extra.some((p) => p.name === name))),
      ),
      count === undefined ? {} : { count },
    );
    if (more) {
      const last = records[records.length - 1] as Record<string, unknown>;
      const position = keys === undefined ? { offset: (from?.offset ?? bound.skip ?? 0) + take } : { after: keysetValues(keys, last) };
      const next: Continuation = { ...position, ...(remaining === undefined ? {} : { remaining: remaining - take }), pageSize };
      body['@odata.nextLink'] = nextLink(
        request.url.slice(0, request.url.length - rawQuery(request.url).length).replace(/\?$/, ''),
        paging.others,
        tokens.seal(next, identity, paging.others),
      );
    }
    if (paging.preferred !== undefined) void reply.header('preference-applied', `odata.maxpagesize=${pageSize}`);
    return body;
  }

  // /{collection}/$count: the number of records that $filter (and $search where allowed) keep, as text.
  app.get(`${base}/$count`, { config: read }, async (request, reply) => {
    const query = parseQuery(rawQuery(request.url), QUERY_STRING);
    checkSupportedOptions(query);
    const options = [query.select, query.expand, query.orderBy, query.compute, query.apply, query.top, query.skip, query.count];
    if (options.some((option) => option !== undefined)) {
      throw new ODataError({ code: 'unsupported_option', reason: '/$count takes only $filter and $search', appendLocation: false });
    }
    const bound = bindQuery({ ...query, count: true }, { model, entitySet: resource.entitySet });
    const compiled = toSql(bound, { dialect: 'postgres', naming: 'snake_case', tables, scope: { tenant_id: tenantOf(request) } });
    const counting = compiled.count;
    if (counting === undefined) throw new Error('a counted query has a count statement');
    const rows = await db
      .withTenant(tenantOf(request), 'read', (tx) => tx.query(counting.sql, counting.params))
      .catch((error: unknown) => {
        throw clientDataError(error) ?? error;
      });
    reply.type('text/plain; charset=utf-8');
    return String(Number(rows[0]?.count ?? 0));
  });

  app.get(`${base}/:id`, { config: read }, async (request) => {
    const id = pathId(request);
    const query = parseQuery(rawQuery(request.url), QUERY_STRING);
    checkSupportedOptions(query);
    checkSingleRecordOptions(query);
    const tenantId = tenantOf(request);
    if (query.select === undefined && query.expand === undefined) {
      const rows = await db.withTenant(tenantId, 'read', (tx) =>
        tx.query(`SELECT ${selectList} FROM ${table} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
      );
      const row = rows[0];
      if (row === undefined) throw new NotFoundError(resource.label, id);
      return rowToRecord(type, row);
    }
    // $select and $expand through the library: the record is the one row that `id eq <id>` keeps
    // (the id is a checked UUID, so the filter is a literal), under the tenant's row-level security.
    const byId = parseQuery(`$filter=id eq ${id}`).filter;
    const bound = bindQuery({ ...query, filter: byId }, { model, entitySet: resource.entitySet });
    const compiled = toSql(bound, { dialect: 'postgres', naming: 'snake_case', tables, scope: { tenant_id: tenantOf(request) } });
    const rows = await db.withTenant(tenantId, 'read', (tx) => tx.query(compiled.sql, compiled.params));
    const row = rows[0];
    if (row === undefined) throw new NotFoundError(resource.label, id);
    return withServiceCountNames(readSqlRow(bound, compiled, row));
  });

  // /{collection}/{id}/{navigation}: the related records (a list with query options) or record
  // ($select and $expand), as OData addresses them; 404 when the record is not in this tenant.
  for (const navigation of type.navigation.values()) {
    const targetResource = resources.find((r) => r.entitySet === set.bindings.get(navigation.name));
    const partner = navigation.partner === undefined ? undefined : navigation.target.navigation.get(navigation.partner);
    if (targetResource === undefined || partner === undefined) continue;
    app.get(`${base}/:id/${navigation.name}`, { config: read }, async (request, reply) => {
      const id = pathId(request);
      const tenantId = tenantOf(request);
      const raw = rawQuery(request.url);
      const query = parseQuery(raw, QUERY_STRING);
      checkSupportedOptions(query, navigation.collection);
      if (!navigation.collection) checkSingleRecordOptions(query);
      const parent = await db.withTenant(tenantId, 'read', (tx) => tx.query(`SELECT 1 FROM ${table} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]));
      if (parent.length === 0) throw new NotFoundError(resource.label, id);
      const maxTop = targetResource.maxTop ?? HOST_MAX_TOP;
      const bound = relatedTo(clampSkip(bindQuery(query, { model, entitySet: targetResource.entitySet, maxTop })), partner, id);
      const preferred = preferredPageSize(request.headers.prefer);
      const { query: others, token } = withoutSkipToken(raw);
      if (navigation.collection && (preferred !== undefined || token !== undefined)) {
        // Server-driven paging as on the collections; a token continues this record's list only.
        return pagedList(request, reply, bound, { preferred, others, token, maxTop, list: `${resource.entitySet}/${id}/${navigation.name}` });
      }
      const compiled = toSql(bound, { dialect: 'postgres', naming: 'snake_case', tables, scope: { tenant_id: tenantId } });
      const { rows, count } = await runList(request, compiled, compiled.count);
      const records = readSqlRows(bound, compiled, rows).map(withServiceCountNames);
      if (navigation.collection) return listResponse(records, count === undefined ? {} : { count });
      if (records[0] === undefined) throw new NotFoundError(targetResource.label, `${id}/${navigation.name}`);
      return records[0];
    });
  }

  app.post(base, { config: write }, async (request, reply) => {
    const columns = checkBody(type, request.body, 'create');
    const tenantId = tenantOf(request);
    const names = ['tenant_id', ...columns.keys(), 'created_at', 'updated_at'];
    const values = [tenantId, ...columns.values()];
    const placeholders = [...values.map((_, i) => `$${i + 1}`), 'now()', 'now()'];
    await db
      .withTenant(tenantId, 'write', (tx) =>
        tx.query(`INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${placeholders.join(', ')})`, values),
      )
      .catch((error: unknown) => {
        throw writeError(error, resource, foreignKey, columns.get('id') as string, 'create');
      });
    await reply.code(200).send();
  });

  app.put(`${base}/:id`, { config: write }, async (request, reply) => {
    const id = pathId(request);
    const columns = checkBody(type, request.body, 'replace', id);
    const tenantId = tenantOf(request);
    const entries = [...columns.entries()].filter(([name]) => name !== 'id');
    const assignments = [...entries.map(([name], i) => `"${name}" = $${i + 3}`), 'updated_at = now()'];
    const rows: DbRow[] = await db
      .withTenant(tenantId, 'write', (tx) =>
        tx.query(`UPDATE ${table} SET ${assignments.join(', ')} WHERE tenant_id = $1 AND id = $2 RETURNING id`, [
          tenantId,
          id,
          ...entries.map(([, value]) => value),
        ]),
      )
      .catch((error: unknown) => {
        throw writeError(error, resource, foreignKey, id, 'replace');
      });
    if (rows.length === 0) throw new NotFoundError(resource.label, id);
    await reply.code(200).send();
  });

  app.delete(`${base}/:id`, { config: write }, async (request, reply) => {
    const id = pathId(request);
    const tenantId = tenantOf(request);
    const rows = await db
      .withTenant(tenantId, 'write', (tx) => tx.query(`DELETE FROM ${table} WHERE tenant_id = $1 AND id = $2 RETURNING id`, [tenantId, id]))
      .catch((error: unknown) => {
        throw writeError(error, resource, foreignKey, id, 'delete');
      });
    if (rows.length === 0) throw new NotFoundError(resource.label, id);
    await reply.code(200).send();
  });
}

/** A constraint violation as a validation error; anything else unchanged (a 500). */
function writeError(error: unknown, resource: Resource, foreignKey: Property | undefined, id: string, operation: 'create' | 'replace' | 'delete'): unknown {
  const state = sqlState(error);
  if (state === '23505' && operation === 'create') return new ValidationError(`A ${resource.label} with the id '${id}' already exists.`, { Id: id });
  if (state === '23503') {
    if (operation === 'delete')
      return new ValidationError(`The ${resource.label} '${id}' is still referenced by other records and cannot be deleted.`, { Id: id });
    const field = foreignKey?.name ?? 'id';
    return new ValidationError(`The '${field}' field refers to a record that does not exist.`, {
      Errors: [{ Field: field, Message: `The '${field}' field refers to a record that does not exist.` }],
    });
  }
  return clientDataError(error) ?? error;
}
