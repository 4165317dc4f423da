/**
 * The order of the rows `$apply` gives (Data Aggregation 3.3 `orderby`, 6.2.2 `traverse`, the
 * rankings of 3.2): `$top`, `$skip` and server-driven paging without `$orderby` take the rows in
 * that order (only ties, where a backend needs one, are broken by the key after it), as every
 * system query option is evaluated on the result of `$apply` (PROT 11.2.1). Without such an
 * order the rows have none, and paging orders them by the key (PROT 11.2.6.3).
 */
import type { Property, StructuredType } from '../../model/model.js';
import type { BoundPath, BoundTransformation } from '../bound-ast.js';
import { fromReference } from '../types.js';

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

/**
 * The keys of the entities a `join` or `outerjoin` held in the rows of `type` (its properties of an
 * entity type), each under its alias: the rows' key with them identifies a joined row (the rows'
 * own key repeats, once per related entity), so that `$top`, `$skip` and paging, which append the
 * key, take the same rows on every backend and every request. None where `type` has no key.
 */
export function joinedKeys(type: StructuredType): readonly { readonly alias: Property; readonly key: Property; readonly path: BoundPath }[] {
  if (type.key.length === 0) return [];
  const keys: { alias: Property; key: Property; path: BoundPath }[] = [];
  const span = { start: 0, end: 0 };
  for (const alias of type.properties.values()) {
    if (alias.collection || alias.type.kind !== 'entity') continue;
    const entity = alias.type.type;
    for (const name of entity.key) {
      const key = entity.properties.get(name);
      if (key === undefined) continue;
      const steps = [alias, key].map((property) => ({ kind: 'property' as const, property, span }));
      keys.push({ alias, key, path: { kind: 'path', root: { kind: 'it' }, steps, type: fromReference(key.type), span } });
    }
  }
  return keys;
}
