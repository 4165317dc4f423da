/**
 * `contextUrl`: the context URL of a response (PROT §10): the metadata document URL, and a
 * fragment saying what the payload holds. The fragment is never percent-encoded (JSON Format
 * §4.5.1): key values in it are in canonical form as they are (`People('O''Neil')`).
 */
import type { StructuredType } from '../../model/model.js';
import type { BoundQueryOptions } from '../../semantic/bound-ast.js';
import { selectList } from './select-list.js';
import type { ODataVersion } from './versions.js';

/**
 * What a response holds, for its context URL. `path` is the canonical path of an entity set or
 * of a containment navigation property (`People`, `People('russellwhyte')/Trips`), key values
 * in canonical form without percent-encoding (`keyPredicate` without `encode`); `cast` a
 * type-cast segment (a type derived from the set's, or its qualified name); `query` the bound options whose
 * `$select`, `$expand`, `$compute` and `$apply` shape the entities (see {@link selectList}).
 */
export type ContextTarget =
  /** The service document: the metadata document URL alone (PROT §10.1). */
  | { readonly kind: 'service' }
  /** A collection of entities of one set (`#People`, `#People/NS.Employee(Name)`). */
  | { readonly kind: 'collection'; readonly path: string; readonly cast?: StructuredType | string; readonly query?: BoundQueryOptions }
  /** One entity of a set (`#People/$entity`), or a singleton or single-valued containment (`single: true`: no `/$entity`). */
  | {
      readonly kind: 'entity';
      readonly path: string;
      readonly cast?: StructuredType | string;
      readonly query?: BoundQueryOptions;
      readonly single?: boolean;
    }
  /**
   * A property of an entity (`#People('russellwhyte')/FirstName`, `#People('x')/AddressInfo`):
   * `entity` the entity's canonical path, `property` the path to the property (casts included);
   * `select` the properties selected inside a complex value.
   */
  | { readonly kind: 'property'; readonly entity: string; readonly property: string; readonly select?: readonly string[] }
  /** A value or collection of values of a type not bound to an entity or set (`#Edm.String`, `#Collection(NS.Address)`). */
  | { readonly kind: 'type'; readonly type: string; readonly collection?: boolean; readonly query?: BoundQueryOptions }
  /** A collection of entity references (`#Collection($ref)`). */
  | { readonly kind: 'references' }
  /** One entity reference (`#$ref`). */
  | { readonly kind: 'reference' };

/** The metadata document URL of a service root (`http://host/service/` → `http://host/service/$metadata`). */
function metadataUrl(serviceRoot: string): string {
  return `${serviceRoot.endsWith('/') ? serviceRoot : `${serviceRoot}/`}$metadata`;
}

function castSegment(cast: StructuredType | string | undefined): string {
  return cast === undefined ? '' : `/${typeof cast === 'string' ? cast : cast.qualifiedName}`;
}

/** The type a cast names: itself, or the type of that name derived from `from`. */
function castType(from: StructuredType, cast: StructuredType | string | undefined): StructuredType | undefined {
  if (cast === undefined || typeof cast === 'object') return cast;
  if (from.qualifiedName === cast) return from;
  for (const derived of from.derivedTypes) {
    const found = castType(derived, cast);
    if (found !== undefined) return found;
  }
  return undefined;
}

function list(query: BoundQueryOptions | undefined, cast: StructuredType | string | undefined, version: ODataVersion): string {
  if (query === undefined) return '';
  const base = castType(query.entityType, cast);
  return selectList(query, { version, ...(base === undefined ? {} : { base }) });
}

/**
 * The context URL of a response (PROT §10): `{service root}$metadata#{fragment}`, the fragment
 * built from what the response holds (see {@link ContextTarget}) and, for entities, the select
 * list of the bound options (see {@link selectList}).
 *
 * @param serviceRoot the service root URL (`https://host/service/`, a trailing `/` added when missing)
 * @param options `version`: the response's OData version (4.0 omits expansions without nested
 *   options from the select list; default `4.01`)
 * @example
 * ```ts
 * contextUrl('https://host/trippin/', { kind: 'collection', path: 'People' });
 * // 'https://host/trippin/$metadata#People'
 * contextUrl('https://host/trippin/', { kind: 'entity', path: 'People', query: bindQuery('$select=FirstName', { model, entitySet: 'People' }) });
 * // 'https://host/trippin/$metadata#People(FirstName)/$entity'
 * contextUrl('https://host/trippin/', { kind: 'property', entity: "People('russellwhyte')", property: 'FirstName' });
 * // "https://host/trippin/$metadata#People('russellwhyte')/FirstName"
 * ```
 */
export function contextUrl(serviceRoot: string, target: ContextTarget, options: { readonly version?: ODataVersion } = {}): string {
  const version = options.version ?? '4.01';
  const base = metadataUrl(serviceRoot);
  switch (target.kind) {
    case 'service':
      return base;
    case 'collection':
      return `${base}#${target.path}${castSegment(target.cast)}${list(target.query, target.cast, version)}`;
    case 'entity':
      return `${base}#${target.path}${castSegment(target.cast)}${list(target.query, target.cast, version)}${target.single === true ? '' : '/$entity'}`;
    case 'property':
      return `${base}#${target.entity}/${target.property}${target.select === undefined || target.select.length === 0 ? '' : `(${target.select.join(',')})`}`;
    case 'type': {
      const name = target.collection === true ? `Collection(${target.type})` : target.type;
      return `${base}#${name}${list(target.query, undefined, version)}`;
    }
    case 'references':
      return `${base}#Collection($ref)`;
    case 'reference':
      return `${base}#$ref`;
  }
}
