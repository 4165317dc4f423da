/**
 * The rows a query starts from, narrowed by the host: the related records of one entity
 * (`/assets/{id}/maintenanceTickets` is `maintenanceTickets` restricted to `asset/id eq {id}`), a
 * partition, a permission. The restriction comes before everything the query does, as OData's
 * resource path comes before its query options: before `$apply` when there is one (its first
 * transformation, so that `groupby`, `aggregate`, `topcount` and `concat` see only these rows),
 * else ANDed into `$filter`. Every backend runs it as it runs a `filter()` transformation or a
 * `$filter`, so the combination needs no support of its own.
 */
import { ODataError } from '../errors/odata-error.js';
import type { BoundExpression, BoundQuery } from './bound-ast.js';

/**
 * `query` over only the rows of its entity set that `predicate` keeps. `predicate` is a Boolean
 * expression bound against the entity set's type (e.g. the `$filter` of `bindQuery` on the host's
 * own text), not against the output of `$apply`: with `$apply` it becomes a `filter()` in front of
 * its transformations, without, it is ANDed into `$filter` (`$search`, `$compute` and the rest read
 * the same rows either way).
 *
 * ANDing a restriction into `$filter` by hand is wrong once `$apply` is present: `$filter` reads
 * the rows `$apply` gives (groups, aggregates, the top rows of all records), which may not even
 * have the properties the restriction names.
 *
 * @example
 * ```ts
 * const related = bindQuery(`$filter=asset/id eq ${id}`, { model, entitySet: 'maintenanceTickets' }).filter!;
 * const query = restrictQuery(bindQuery(clientText, { model, entitySet: 'maintenanceTickets' }), related);
 * toSql(query, { dialect: 'postgres' }); // `?$apply=groupby((status))` groups this asset's tickets only
 * ```
 * @throws {ODataError} `type_mismatch` when `predicate` is not Boolean.
 */
export function restrictQuery(query: BoundQuery, predicate: BoundExpression): BoundQuery {
  if (predicate.type.kind !== 'primitive' || predicate.type.name !== 'Edm.Boolean') {
    throw new ODataError({ code: 'type_mismatch', reason: 'A restriction of the rows of a query must be a Boolean expression', appendLocation: false });
  }
  if (query.apply !== undefined) {
    const first = { kind: 'filter', predicate, output: query.entityType, span: predicate.span } as const;
    return { ...query, apply: { ...query.apply, transformations: [first, ...query.apply.transformations] } };
  }
  const filter: BoundExpression =
    query.filter === undefined
      ? predicate
      : { kind: 'binary', operator: 'and', left: query.filter, right: predicate, type: predicate.type, operandType: predicate.type, span: query.filter.span };
  return { ...query, filter };
}
