/**
 * `$crossjoin(Set1,Set2,…)` (URL Conventions §4.15): the Cartesian product of entity sets, as a
 * collection of instances of a virtual complex type with one non-nullable, single-valued
 * navigation property per joined set, named as the set, whose target is the set's entity type.
 *
 * {@link crossJoinSet} makes that type and an entity set of it (the virtual set), so that the
 * query options bind against it as against any set (`Products/ID eq Sales/Product/ID`,
 * `$expand=Products($select=Name)`, `$apply=groupby((Products/Name),…)`) and every backend runs
 * the bound query as any other: a virtual row holds the stored key of each joined entity
 * (`Products_ID`, `Sales_ID`: the columns a single-valued navigation property without a
 * referential constraint is stored in, storage/links.ts), and each navigation property leads
 * from it to the joined set's row. The backends build the virtual rows ({@link crossJoinOf}
 * says which sets): memory lazily, SQL as `CROSS JOIN`, MongoDB as `$lookup`s unwound.
 */
import { ODataError } from '../../errors/odata-error.js';
import { recordDeclaringType } from '../../model/navigation.js';
import type { Capabilities, EntitySet, Model, NavigationProperty, StructuredType } from '../../model/model.js';
import { RESOURCE_PATH } from '../../syntax/parse.js';
import { DEFAULT_MAX_CROSS_JOIN_ROWS, type ValidationSettings } from '../settings.js';

/** What a virtual set joins: the sets, and the navigation property of each (in the same order). */
export interface CrossJoin {
  readonly sets: readonly EntitySet[];
  readonly navigation: readonly NavigationProperty[];
  /** The most combinations of rows the join may consider (`maxCrossJoinRows`). */
  readonly maxRows: number;
}

const CROSS_JOINS = new WeakMap<EntitySet, CrossJoin>();

/** The sets a virtual set of {@link crossJoinSet} joins, or `undefined` for any other set. */
export function crossJoinOf(set: EntitySet): CrossJoin | undefined {
  return CROSS_JOINS.get(set);
}

/** The capabilities of the virtual set: what every joined set allows (`$top`'s limit the lowest). */
function joinedCapabilities(sets: readonly EntitySet[]): Capabilities {
  const every = (name: 'searchable' | 'filterable' | 'sortable' | 'expandable' | 'topSupported' | 'skipSupported' | 'countable' | 'applySupported'): boolean =>
    sets.every((set) => set.capabilities[name]);
  const maxTops = sets.flatMap((set) => (set.capabilities.maxTop === undefined ? [] : [set.capabilities.maxTop]));
  const levels = sets.flatMap((set) => (set.capabilities.maxLevels === undefined ? [] : [set.capabilities.maxLevels]));
  // A joined set's restrictions on its properties hold for their paths through its navigation property.
  const prefixed = (
    name: 'nonFilterableProperties' | 'nonSortableProperties' | 'nonSelectableProperties' | 'nonExpandableProperties' | 'nonCountableProperties',
  ) => new Set(sets.flatMap((set) => [...set.capabilities[name]].map((path) => `${set.name}/${path}`)));
  return {
    searchable: every('searchable'),
    filterable: every('filterable'),
    nonFilterableProperties: prefixed('nonFilterableProperties'),
    sortable: every('sortable'),
    nonSortableProperties: prefixed('nonSortableProperties'),
    nonSelectableProperties: prefixed('nonSelectableProperties'),
    expandable: every('expandable'),
    nonExpandableProperties: new Set([...prefixed('nonExpandableProperties'), ...sets.filter((set) => !set.capabilities.expandable).map((set) => set.name)]),
    maxLevels: levels.length === 0 ? undefined : Math.min(...levels),
    topSupported: every('topSupported'),
    skipSupported: every('skipSupported'),
    countable: every('countable'),
    nonCountableProperties: prefixed('nonCountableProperties'),
    maxTop: maxTops.length === 0 ? undefined : Math.min(...maxTops),
    applySupported: every('applySupported'),
  };
}

/**
 * The virtual entity set of `$crossjoin(…)` of `sets` (of `model`): its type is a complex type
 * named `$crossjoin(Set1,Set2)` whose navigation properties are the sets. A set named twice is
 * the client's mistake (400): the type would have two properties of one name.
 *
 * @example
 * ```ts
 * const set = crossJoinSet(model, [model.entitySets.get('Products')!, model.entitySets.get('Sales')!]);
 * bindQueryToSet('$filter=Products/ID eq Sales/Product/ID', { model, entitySet: set.name }, set);
 * ```
 */
export function crossJoinSet(model: Model, sets: readonly EntitySet[], settings: Pick<ValidationSettings, 'maxCrossJoinRows'> = {}): EntitySet {
  const names = sets.map((set) => set.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) {
    throw new ODataError({
      code: 'invalid_option_value',
      reason: `'$crossjoin(…)' names the entity set '${twice}' twice`,
      option: RESOURCE_PATH,
      appendLocation: false,
    });
  }
  const name = `$crossjoin(${names.join(',')})`;
  const navigation = new Map<string, NavigationProperty>();
  const type: StructuredType = {
    kind: 'complex',
    name,
    qualifiedName: `${model.namespace}.${name}`,
    baseType: undefined,
    derivedTypes: [],
    open: false,
    key: [],
    properties: new Map(),
    navigation,
  };
  const properties = sets.map((set): NavigationProperty => ({
    kind: 'navigation',
    name: set.name,
    target: set.type,
    collection: false,
    nullable: false,
    constraints: [],
    partner: undefined,
    filterable: set.capabilities.filterable,
    expandable: set.capabilities.expandable,
  }));
  for (const property of properties) {
    navigation.set(property.name, property);
    recordDeclaringType(property, type);
  }
  const set: EntitySet = { name, type, capabilities: joinedCapabilities(sets), bindings: new Map(names.map((n) => [n, n])) };
  CROSS_JOINS.set(set, { sets, navigation: properties, maxRows: settings.maxCrossJoinRows ?? DEFAULT_MAX_CROSS_JOIN_ROWS });
  return set;
}

/**
 * Throws `crossjoin_limit_exceeded` (400) when the sets' numbers of rows (`counts`, in the order
 * of `join.sets`) make more combinations than the join may consider: before any row is joined.
 */
export function checkCrossJoinRows(join: CrossJoin, counts: readonly number[]): void {
  let product = 1;
  for (const count of counts) product *= count;
  if (product <= join.maxRows) return;
  const sizes = join.sets.map((set, i) => `${set.name} (${counts[i] ?? 0})`).join(', ');
  throw new ODataError({
    code: 'crossjoin_limit_exceeded',
    reason: `The limit of '${join.maxRows}' for $crossjoin has been exceeded: the rows of ${sizes} make ${product} combinations. To increase the limit, set the 'maxCrossJoinRows' setting.`,
    option: RESOURCE_PATH,
    appendLocation: false,
  });
}
