/**
 * The expressions of a whole bound query: `$apply`, `$compute`, `$filter`, `$orderby`, and the
 * same of every expansion, for the passes over bound queries.
 */
import { mapSame } from '../../util/same.js';
import type { BoundApply, BoundExpression, BoundQueryOptions } from '../bound-ast.js';
import { mapTransformationExpressions } from './transformations.js';

/** Which option an expression of a level comes from: `$expand` for every expression of an expansion's options. */
export type ExpressionOption = '$apply' | '$compute' | '$filter' | '$orderby' | '$expand';

/** `apply` with `rewrite` applied to the expressions of its transformations; itself when nothing changes. */
function mapApply(apply: BoundApply, rewrite: (node: BoundExpression) => BoundExpression): BoundApply {
  const transformations = mapTransformationExpressions(apply.transformations, rewrite);
  return transformations === apply.transformations ? apply : { ...apply, transformations };
}

/**
 * `query` with `rewrite` applied to each expression of its `$compute`, `$apply` (see
 * {@link mapTransformationExpressions}), `$filter` and `$orderby`, in that order, and of every
 * expansion's options (whose option is `$expand`). The query itself when every expression is
 * rewritten to itself (no copies). `rewrite` gets the roots: it walks them itself (with
 * `transformExpression` or `mapExpressionChildren`).
 */
export function mapQueryExpressions<T extends BoundQueryOptions>(
  query: T,
  rewrite: (node: BoundExpression, option: ExpressionOption) => BoundExpression,
  nested = false,
): T {
  const option = (name: ExpressionOption): ExpressionOption => (nested ? '$expand' : name);
  const compute =
    query.compute === undefined
      ? undefined
      : mapSame(query.compute, (item) => {
          const expression = rewrite(item.expression, option('$compute'));
          return expression === item.expression ? item : { ...item, expression };
        });
  const apply = query.apply === undefined ? undefined : mapApply(query.apply, (node) => rewrite(node, option('$apply')));
  const filter = query.filter === undefined ? undefined : rewrite(query.filter, option('$filter'));
  const orderBy =
    query.orderBy === undefined
      ? undefined
      : mapSame(query.orderBy, (item) => {
          const expression = rewrite(item.expression, option('$orderby'));
          return expression === item.expression ? item : { ...item, expression };
        });
  const expand = mapSame(query.expand, (item) => {
    const options = mapQueryExpressions(item.options, rewrite, true);
    return options === item.options ? item : { ...item, options };
  });
  if (apply === query.apply && compute === query.compute && filter === query.filter && orderBy === query.orderBy && expand === query.expand) return query;
  return {
    ...query,
    ...(query.apply === undefined ? {} : { apply }),
    ...(query.compute === undefined ? {} : { compute }),
    ...(query.filter === undefined ? {} : { filter }),
    ...(query.orderBy === undefined ? {} : { orderBy }),
    expand,
  };
}
