/**
 * Where a navigation property leads: the one rule every binder and backend uses for the entity set
 * of its targets, and for the pairs of properties that join the two sides.
 */
import { ALL_CAPABILITIES, type EntitySet, type Model, type NavigationProperty, type StructuredType } from './model.js';

/** The type that declares each navigation property of a model built by this library (derived types share the object). */
const DECLARING = new WeakMap<NavigationProperty, StructuredType>();

/** The containment navigation properties that lead to each type (recorded by the model builder). */
const CONTAINING = new WeakMap<StructuredType, NavigationProperty[]>();

/** Records the type that declares `navigation` (the model builder calls it for every navigation property), and a containment. */
export function recordDeclaringType(navigation: NavigationProperty, type: StructuredType): void {
  DECLARING.set(navigation, type);
  if (navigation.containsTarget === true) {
    const list = CONTAINING.get(navigation.target);
    if (list === undefined) CONTAINING.set(navigation.target, [navigation]);
    else list.push(navigation);
  }
}

/**
 * The one containment navigation property whose targets are of `type` (or of a base type), with
 * the type that declares it: `undefined` when none is, or when several are (the entities are then
 * identified by their own key; see docs/storage.md).
 */
export function containerOf(type: StructuredType): { readonly type: StructuredType; readonly navigation: NavigationProperty } | undefined {
  const found: NavigationProperty[] = [];
  for (let current: StructuredType | undefined = type; current !== undefined; current = current.baseType) found.push(...(CONTAINING.get(current) ?? []));
  const [only] = found;
  if (only === undefined || found.length > 1) return undefined;
  const declaring = DECLARING.get(only);
  return declaring === undefined ? undefined : { type: declaring, navigation: only };
}

/**
 * The type that declares `navigation`: recorded by the model builder, or else found from `from` (a
 * type that has the property) up its base types. `undefined` for a hand-made property reached from nowhere.
 */
export function declaringType(navigation: NavigationProperty, from?: StructuredType): StructuredType | undefined {
  const recorded = DECLARING.get(navigation);
  if (recorded !== undefined) return recorded;
  let declaring: StructuredType | undefined;
  for (let type = from; type !== undefined && type.navigation.get(navigation.name) === navigation; type = type.baseType) declaring = type;
  return declaring;
}

const CONTAINED = new WeakMap<NavigationProperty, EntitySet>();

/**
 * The implicit entity set of the entities a containment navigation property (`ContainsTarget`)
 * holds: named `{DeclaringType}_{navigation}` (TripPin's `Person_Trips`), with every capability.
 * Backends store its rows as a table (or collection) of its own, each row with the key of its
 * container (see `odata-engine`'s storage mapping). The same object for every call, so that plans
 * and indexes keyed by entity set are shared. `undefined` when the declaring type is unknown.
 */
export function containedSet(navigation: NavigationProperty, from?: StructuredType): EntitySet | undefined {
  const known = CONTAINED.get(navigation);
  if (known !== undefined) return known;
  const declaring = declaringType(navigation, from);
  if (declaring === undefined) return undefined;
  const set: EntitySet = {
    name: `${declaring.name}_${navigation.name}`,
    type: navigation.target,
    capabilities: ALL_CAPABILITIES,
    bindings: new Map(),
    container: { type: declaring, navigation },
  };
  CONTAINED.set(navigation, set);
  return set;
}

/**
 * The entity set that holds the targets of `navigation`, followed from an entity of `from`:
 * 0. for a containment navigation property (`ContainsTarget`), its implicit set ({@link containedSet});
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
  if (navigation.containsTarget === true) return containedSet(navigation, from?.type);
  // A binding by the property's name alone only where the set's type has this very navigation
  // property (not one of the same name on a type held inside its rows: a join alias's, campaign seed 3109).
  const own = from !== undefined && ownNavigation(from.type, navigation);
  const bound = from?.bindings.get(bindingPath) ?? (own ? from?.bindings.get(navigation.name) : undefined);
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

/** Whether `navigation` is a navigation property of `type`, of a type it derives from, or of one derived from it. */
function ownNavigation(type: StructuredType, navigation: NavigationProperty): boolean {
  for (let at: StructuredType | undefined = type; at !== undefined; at = at.baseType) if (at.navigation.get(navigation.name) === navigation) return true;
  const below = [...type.derivedTypes];
  for (let i = 0; i < below.length && i < 10_000; i++) {
    const derived = below[i] as StructuredType;
    if (derived.navigation.get(navigation.name) === navigation) return true;
    below.push(...derived.derivedTypes);
  }
  return false;
}
