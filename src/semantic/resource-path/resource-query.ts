/**
 * Which query options a resource path allows (OData 4.01 URL Conventions §5.1, Protocol
 * §11.2): a collection allows them all; `/$count` only `$filter` and `$search`; one entity, a
 * property and a reference only `$select`, `$expand` and `$compute` (ASP.NET Core OData's
 * `NonSelectExpandOnSingleEntity`); `$entity` needs `$id`, and allows `$select` and `$expand` only
 * after a type cast; `$id` itself belongs to `$entity` and to references; the service document,
 * `$metadata` and `$batch` take only `$format` (and custom options).
 */
import { ODataError } from '../../errors/odata-error.js';
import type { ODataQuery } from '../../syntax/ast.js';
import type { BoundResourcePath } from './bound-resource-path.js';

/** ASP.NET Core OData's `NonSelectExpandOnSingleEntity`. */
export const NOT_A_COLLECTION =
  'The requested resource is not a collection. Query options $filter, $orderby, $count, $skip, and $top can be applied only on collections.';

/** The query options present, by their canonical names (`filter`, `orderby`, …, `id`). */
function present(query: ODataQuery): string[] {
  const names: string[] = [];
  const add = (name: string, value: unknown): void => {
    if (value !== undefined) names.push(name);
  };
  add('filter', query.filter);
  add('orderby', query.orderBy);
  add('select', query.select);
  add('expand', query.expand);
  add('compute', query.compute);
  add('apply', query.apply);
  add('search', query.search);
  add('top', query.top);
  add('skip', query.skip);
  add('count', query.count);
  add('id', query.passthrough?.$id);
  add('skiptoken', query.passthrough?.$skiptoken);
  add('deltatoken', query.passthrough?.$deltatoken);
  return names;
}

function refuse(reason: string, option: string): ODataError {
  return new ODataError({ code: 'query_option_not_supported', reason, option: `$${option}` });
}

/**
 * Checks the query options of a request against what its resource path addresses; throws an
 * {@link ODataError} (400) for an option the path does not allow. Parse the query with
 * `parseQuery(text, { allowId: true })` so that `$id` reaches this check.
 *
 * @example
 * ```ts
 * const path = bindResourcePath("People('russellwhyte')", { model });
 * checkResourceQuery(path, parseQuery('$top=2')); // throws: not a collection
 * ```
 */
export function checkResourceQuery(path: BoundResourcePath, query: ODataQuery): void {
  const options = present(query);
  const only = (allowed: readonly string[], what: string): void => {
    const extra = options.find((name) => !allowed.includes(name));
    if (extra !== undefined) throw refuse(`The query option '$${extra}' is not allowed ${what}`, extra);
  };
  const id = query.passthrough?.$id ?? query.custom?.id;
  switch (path.shape) {
    case 'serviceDocument':
    case 'metadata':
    case 'batch':
      return only([], `on ${path.shape === 'serviceDocument' ? 'the service document' : path.shape === 'metadata' ? '$metadata' : '$batch'}`);
    case 'entityId': {
      if (id === undefined) throw new ODataError({ code: 'invalid_option_value', reason: `'$entity' needs the entity's id in '$id'`, option: '$id' });
      const cast = path.segments.some((segment) => segment.kind === 'typeCast');
      return only(
        cast ? ['id', 'select', 'expand'] : ['id'],
        cast ? `with '$entity/Type' (only $id, $select and $expand)` : `with '$entity' (only $id; $select and $expand after a type cast)`,
      );
    }
    case 'count':
      return only(['filter', 'search'], `with '/$count' (only $filter and $search)`);
    case 'references':
      return only(['filter', 'search', 'orderby', 'top', 'skip', 'count', 'id', 'skiptoken'], `with '/$ref'`);
    case 'entityCollection':
    case 'complexCollection':
    case 'primitiveCollection':
    case 'crossjoin':
    case 'all':
    case 'operationResult':
      return only(['filter', 'orderby', 'select', 'expand', 'compute', 'apply', 'search', 'top', 'skip', 'count', 'skiptoken', 'deltatoken'], 'here');
    default: {
      const extra = options.find((name) => !['select', 'expand', 'compute'].includes(name));
      if (extra === undefined) return;
      if (['filter', 'orderby', 'count', 'skip', 'top', 'search', 'apply'].includes(extra)) {
        throw new ODataError({ code: 'query_option_not_supported', reason: NOT_A_COLLECTION, option: `$${extra}`, appendLocation: false });
      }
      throw refuse(`The query option '$${extra}' is not allowed here`, extra);
    }
  }
}
