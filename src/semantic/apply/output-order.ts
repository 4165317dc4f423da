/**
 * The order of the rows `$apply` gives (Data Aggregation 3.3 `orderby`, 6.2.2 `traverse`, the
 * rankings of 3.2): `$top`, `$skip` and server-driven paging without `$orderby` take the rows in
 * that order (only ties, where a backend needs one, are broken by the key after it), as every
 * system query option is evaluated on the result of `$apply` (PROT 11.2.1). Without such an
 * order the rows have none, and paging orders them by the key (PROT 11.2.6.3).
 */
import type { BoundTransformation } from '../bound-ast.js';

/** Transformations whose output keeps the order of their input. */
const KEEPS_ORDER: ReadonlySet<BoundTransformation['kind']> = new Set(['filter', 'search', 'compute', 'identity', 'top', 'skip']);

/** Transformations whose output has an order of its own. */
const ORDERS: ReadonlySet<BoundTransformation['kind']> = new Set(['orderby', 'traverse', 'rank']);

/** Whether the rows of `transformations` come in an order they define (the last that orders, followed only by steps that keep order). */
export function orderedByApply(transformations: readonly BoundTransformation[]): boolean {
  for (let i = transformations.length - 1; i >= 0; i--) {
    const t = transformations[i] as BoundTransformation;
    if (ORDERS.has(t.kind)) return true;
    if (!KEEPS_ORDER.has(t.kind)) return false;
  }
  return false;
}
