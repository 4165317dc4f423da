/**
 * Where a navigation property leads: the one rule every binder and backend uses for the entity set
 * of its targets, and for the pairs of properties that join the two sides.
 */
import type { EntitySet, Model, NavigationProperty } from './model.js';

/**
 * The entity set that holds the targets of `navigation`, followed from an entity of `from`:
 * 1. the navigation property binding of `from` for `bindingPath` (CSDL `NavigationPropertyBinding`:
 *    `address/city`, `NS.Derived/parent`), or else for the navigation property's own name;
 * 2. else the one entity set of the target type in the model;
 * 3. else, when several sets have that type, `from` itself if it has that type (a relationship
 *    that leads back into the set it starts from, such as `manager` of `Employees`);
 * 4. else none: the target is unknown, and a backend that must read the targets refuses the query.
 *
 * @example
 * ```ts
 * navigationTarget(model, model.entitySets.get('assets'), assetType.navigation.get('locality')!)?.name; // 'localities'
 * ```
 */
export function navigationTarget(
  model: Model,
  from: EntitySet | undefined,
  navigation: NavigationProperty,
  bindingPath: string = navigation.name,
): EntitySet | undefined {
  const bound = from?.bindings.get(bindingPath) ?? from?.bindings.get(navigation.name);
  const byBinding = bound === undefined ? undefined : model.entitySets.get(bound);
  if (byBinding !== undefined) return byBinding;
  let only: EntitySet | undefined;
  let several = false;
  for (const set of model.entitySets.values()) {
    if (set.type !== navigation.target) continue;
    if (only === undefined) only = set;
    else several = true;
  }
  if (!several) return only;
  return from !== undefined && from.type === navigation.target ? from : undefined;
}

/** One pair of a join: the property on the source side and the property on the target side. */
export interface JoinPair {
  /** The property of the entity the navigation starts from. */
  readonly local: string;
  /** The property of the target entity it equals. */
  readonly remote: string;
}

/**
 * The pairs of properties that relate the two sides of `navigation`: its referential
 * constraints, or else its partner's reversed (the other side holds the foreign key). Empty when
 * neither side declares a constraint.
 */
export function joinPairs(navigation: NavigationProperty): readonly JoinPair[] {
  if (navigation.constraints.length > 0) return navigation.constraints.map((c) => ({ local: c.property, remote: c.referencedProperty }));
  const partner = navigation.partner === undefined ? undefined : navigation.target.navigation.get(navigation.partner);
  return (partner?.constraints ?? []).map((c) => ({ local: c.referencedProperty, remote: c.property }));
}
