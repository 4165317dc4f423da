/**
 * The standard OData JSON response bodies (JSON Format §5–§12): a collection of entities
 * (`{ "@context", "@count", "value", "@nextLink" }`), one entity, and an individual property,
 * from rows already read as OData JSON (`jsonRecord`). The reference service's `listResponse`
 * (`{ value, count }`) is another contract and stays as it is.
 */
import type { Property } from '../../model/model.js';
import type { BoundQuery, BoundQueryOptions } from '../../semantic/bound-ast.js';
import { complexValueJson, entityJson, type EntityLevel, type EntityOptions } from './entity-json.js';
import { controlName, typeAnnotation } from './versions.js';

/** What every body needs. */
export interface BodyOptions extends EntityOptions {
  /** The context URL (`contextUrl`); not written with `metadata: 'none'`. */
  readonly context?: string;
  /**
   * The bound options the rows were read with (their type, expansions, computed and aggregated
   * properties); a `BoundQuery` also gives the entity set for ids and links.
   */
  readonly query?: BoundQueryOptions | BoundQuery;
  /**
   * The canonical path of the rows' set when it is not the query's entity set (`People('x')/Trips`),
   * as in a URL: key values percent-encoded (`keyPredicate(type, values, { encode: true })`).
   */
  readonly path?: string;
}

/** A collection body's extras. */
export interface CollectionBodyOptions extends BodyOptions {
  /** The total count (`$count=true`): `@count` (`@odata.count` in 4.0), a string with `ieee754Compatible`. */
  readonly count?: number;
  /** The next link (`nextLinkUrl`) of a partial result: `@nextLink`, after `value`. */
  readonly nextLink?: string;
}

function levelOf(options: BodyOptions): EntityLevel | undefined {
  const query = options.query;
  if (query === undefined) return undefined;
  const path = options.path ?? ('kind' in query && query.kind === 'boundQuery' ? query.entitySet.name : undefined);
  return { type: query.entityType, query, path };
}

function describe(row: Readonly<Record<string, unknown>>, options: BodyOptions): Record<string, unknown> {
  const level = levelOf(options);
  if (level !== undefined) return entityJson(row, level, options);
  // Without the query: the rows as they are, without a type marker where no metadata is wanted.
  if ((options.metadata ?? 'minimal') !== 'none') return { ...row };
  const { ['@odata.type']: _marker, ['@type']: _type, ...rest } = row;
  return rest;
}

function withContext(options: BodyOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if ((options.metadata ?? 'minimal') !== 'none' && options.context !== undefined) body[controlName('context', options)] = options.context;
  return body;
}

/**
 * A collection of entities (JSON Format §12): `@context` (not with `metadata: 'none'`), `@count`,
 * `value` with each entity and its control information (see `entityJson`), `@nextLink` last
 * (JSON Format §4.4 lets a next link follow its collection). Control information is named
 * `@odata.…` in a 4.0 response (or with `odataPrefix`), `@…` in 4.01.
 *
 * @example
 * ```ts
 * const query = bindQuery('$select=UserName&$count=true', { model, entitySet: 'People' });
 * odataCollectionBody([{ UserName: 'russellwhyte' }], { query, version: '4.0', count: 20,
 *   context: contextUrl(root, { kind: 'collection', path: 'People', query }, { version: '4.0' }),
 *   nextLink: nextLinkUrl(request.url, { skiptoken: '1', returned: 1 }) });
 * // { '@odata.context': '…$metadata#People(UserName)', '@odata.count': 20, value: [{ UserName: 'russellwhyte' }], '@odata.nextLink': '…' }
 * ```
 */
export function odataCollectionBody(rows: readonly Readonly<Record<string, unknown>>[], options: CollectionBodyOptions = {}): Record<string, unknown> {
  const body = withContext(options);
  if (options.count !== undefined) body[controlName('count', options)] = options.ieee754Compatible === true ? String(options.count) : options.count;
  body.value = rows.map((row) => describe(row, options));
  if (options.nextLink !== undefined) body[controlName('nextLink', options)] = options.nextLink;
  return body;
}

/**
 * One entity (JSON Format §6): `@context` first (not with `metadata: 'none'`), then the entity
 * with its control information (see `entityJson`).
 *
 * @example
 * ```ts
 * odataEntityBody({ UserName: 'russellwhyte', FirstName: 'Russell' }, { query, context: contextUrl(root, { kind: 'entity', path: 'People', query }) });
 * // { '@context': 'https://host/trippin/$metadata#People/$entity', UserName: 'russellwhyte', FirstName: 'Russell' }
 * ```
 */
export function odataEntityBody(row: Readonly<Record<string, unknown>>, options: BodyOptions = {}): Record<string, unknown> {
  return { ...withContext(options), ...describe(row, options) };
}

/**
 * An individual property (JSON Format §7, §8): a complex value as an object with `@context`
 * first, a primitive or enum value or a collection as `{ "@context", "value" }`. With the
 * model's `property`, a `full` response has the value's `@type` (`#Collection(String)`,
 * `#Int64`, `#NS.Location`) and a complex value's members are annotated as in an entity.
 * A null single value is no body: the service answers 204 No Content (PROT §11.2.4).
 *
 * @example
 * ```ts
 * odataPropertyBody('Russell', { context: contextUrl(root, { kind: 'property', entity: "People('russellwhyte')", property: 'FirstName' }) });
 * // { '@context': "https://host/trippin/$metadata#People('russellwhyte')/FirstName", value: 'Russell' }
 * ```
 */
export function odataPropertyBody(value: unknown, options: BodyOptions & { readonly property?: Property } = {}): Record<string, unknown> {
  const body = withContext(options);
  const property = options.property;
  const type = property?.type;
  const structured = type !== undefined && (type.kind === 'complex' || type.kind === 'entity') ? type.type : undefined;
  const data = structured === undefined ? value : complexValueJson(structured, value, options);
  if (property !== undefined && type !== undefined && options.metadata === 'full' && (property.collection || structured === undefined)) {
    const name = type.kind === 'primitive' ? type.name : type.type.qualifiedName;
    if (property.collection || !['Edm.String', 'Edm.Boolean', 'Edm.Int32', 'Edm.Double', 'Edm.Untyped'].includes(name)) {
      body[controlName('type', options)] = typeAnnotation(name, options, property.collection);
    }
  }
  if (!property?.collection && data !== null && typeof data === 'object' && !Array.isArray(data)) return { ...body, ...(data as Record<string, unknown>) };
  body.value = data;
  return body;
}
