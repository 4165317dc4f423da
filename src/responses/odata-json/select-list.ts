/**
 * The select list of a context URL (PROT §10.7, §10.9, §10.10): what a projected or expanded
 * response holds, from the bound `$select`, `$expand`, `$compute` and `$apply` of one level.
 */
import type { NavigationProperty, Property, StructuredType } from '../../model/model.js';
import type { BoundExpandItem, BoundQueryOptions, BoundTransformation } from '../../semantic/bound-ast.js';
import type { ODataVersion } from './versions.js';

/** The type declaring `name` as `member` (`from` itself, or a type derived from it), if any. */
function declaringType(from: StructuredType, member: Property | NavigationProperty): StructuredType | undefined {
  const map: ReadonlyMap<string, unknown> = member.kind === 'property' ? from.properties : from.navigation;
  if (map.get(member.name) === member) return from;
  for (const derived of from.derivedTypes) {
    const found = declaringType(derived, member);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A member's name, prefixed with the qualified name of the derived type declaring it (`NS.Manager/Budget`). */
function memberName(from: StructuredType, member: Property | NavigationProperty): string {
  const declaring = declaringType(from, member);
  return declaring === undefined || declaring === from ? member.name : `${declaring.qualifiedName}/${member.name}`;
}

/** A selected property path in path syntax (`Address/City`), casts where a step is declared on a derived type. */
function propertyPath(path: readonly Property[], base: StructuredType): string {
  let type: StructuredType | undefined = base;
  const names: string[] = [];
  for (const property of path) {
    names.push(type === undefined ? property.name : memberName(type, property));
    type = property.type.kind === 'complex' || property.type.kind === 'entity' ? property.type.type : undefined;
  }
  return names.join('/');
}

/** The kinds of the steps of `groupby` paths (`Customer` → navigation), by the names of their output members. */
function groupingKinds(
  transformations: readonly BoundTransformation[],
  kinds = new Map<string, 'navigation' | 'complex'>(),
): Map<string, 'navigation' | 'complex'> {
  for (const transformation of transformations) {
    if (transformation.kind === 'groupby') {
      for (const key of transformation.keys) {
        let index = 0;
        for (const step of key.path.steps) {
          if (step.kind === 'typeCast') continue;
          if (index < key.names.length - 1) kinds.set(key.names.slice(0, index + 1).join('/'), step.kind === 'navigation' ? 'navigation' : 'complex');
          index++;
        }
      }
      groupingKinds(transformation.apply, kinds);
    } else if (transformation.kind === 'concat') for (const branch of transformation.branches) groupingKinds(branch, kinds);
  }
  return kinds;
}

/** The members of a `$apply` result type: grouping paths through navigation as `Customer(Country)`, through complex properties as `Address/City`. */
function applyMembers(type: StructuredType, kinds: ReadonlyMap<string, 'navigation' | 'complex'>, prefix = ''): string[] {
  const items: string[] = [];
  for (const property of type.properties.values()) {
    const path = prefix + property.name;
    // The nested types `$apply` makes for grouping paths are named after their path (`…/Customer`).
    if (property.type.kind === 'complex' && property.type.type.qualifiedName.includes('/')) {
      const inner = applyMembers(property.type.type, kinds, `${path}/`);
      if (kinds.get(path) === 'navigation') items.push(`${property.name}(${inner.join(',')})`);
      else items.push(...inner.map((item) => `${property.name}/${item}`));
    } else items.push(property.name);
  }
  return items;
}

/** The expansion of one navigation property, or `undefined` where the context URL does not show it. */
function expansion(item: BoundExpandItem, base: StructuredType, version: ODataVersion): string | undefined {
  // Expanded references and counts are not represented (PROT §10.9).
  if (item.form !== 'entities') return undefined;
  const name = memberName(base, item.navigation);
  const target = item.navigation.target;
  // `$levels` is bound as the same navigation expanded again inside: written `Nav+(…)` when each level selects alike.
  const child = item.options.expand.find((e) => e.navigation === item.navigation && e.form === 'entities');
  if (child !== undefined) {
    const own = (options: BoundQueryOptions): BoundQueryOptions => ({ ...options, expand: options.expand.filter((e) => e.navigation !== item.navigation) });
    const mine = selectItems(own(item.options), target, version);
    if (mine.join(',') === selectItems(own(child.options), target, version).join(',')) return `${name}+(${mine.join(',')})`;
  }
  const inner = selectItems(item.options, target, version);
  // A 4.0 response omits an expansion without nested $select or $expand (PROT §10.9).
  if (inner.length === 0 && version === '4.0') return undefined;
  return `${name}(${inner.join(',')})`;
}

function selectItems(query: BoundQueryOptions, base: StructuredType, version: ODataVersion): string[] {
  const select = query.select;
  const computed = select.computed ?? [];
  const items: string[] = [];
  if (query.apply !== undefined && !query.apply.entity) {
    if (select.all) items.push(...applyMembers(query.apply.output, groupingKinds(query.apply.transformations)));
    else items.push(...select.properties.map((item) => item.path.map((p) => p.name).join('/')));
    for (const name of computed) if (!items.includes(name)) items.push(name);
  } else {
    // Properties `compute` of `$apply` added to the entities, returned unless `$select` says otherwise.
    const added = query.apply === undefined || !select.all ? [] : [...query.apply.output.properties.keys()].filter((name) => !base.properties.has(name));
    for (const name of computed) if (!added.includes(name)) added.push(name);
    // All structural properties and more (computed ones, a navigation property selected): `*` first, as
    // a list of such names alone would mean those names only (PROT §10.9).
    if (select.all && (added.length > 0 || select.navigation.length > 0)) items.push('*');
    if (!select.all) items.push(...select.properties.map((item) => propertyPath(item.path, base)));
    items.push(...select.navigation.map((navigation) => memberName(base, navigation)));
    for (const name of added) if (!items.includes(name)) items.push(name);
  }
  for (const item of query.expand) {
    const text = expansion(item, base, version);
    if (text !== undefined) items.push(text);
  }
  return items;
}

/**
 * The select list a context URL appends to an entity set, a type or a singleton, for one level
 * of bound options: `(Name,Age)` for `$select`, paths into complex properties (`Address/City`),
 * names declared on derived types cast (`NS.Manager/Budget`), computed and selected dynamic
 * properties and selected navigation properties by name (after `*` when every structural
 * property is returned as well), expanded
 * navigation properties with their own list (`Friends(Name)`; 4.01: `Friends()` without nested
 * `$select`/`$expand`, omitted in 4.0; `DirectReports+(…)` for `$levels`); for `$apply` rows,
 * the grouping and aggregated properties (`Customer(Country),Total`). Empty when the response
 * holds every structural property and nothing else (PROT §10.7, §10.9; Data Aggregation §3).
 * Expanded references and counts are not listed.
 *
 * @param base the type the list is relative to (a type-cast segment's type), default the options' entity type
 * @example
 * ```ts
 * selectList(bindQuery('$select=FirstName,LastName&$expand=Friends($select=UserName)', { model, entitySet: 'People' }));
 * // '(FirstName,LastName,Friends(UserName))'
 * ```
 */
export function selectList(query: BoundQueryOptions, options: { readonly version?: ODataVersion; readonly base?: StructuredType } = {}): string {
  const items = selectItems(query, options.base ?? query.entityType, options.version ?? '4.01');
  return items.length === 0 ? '' : `(${items.join(',')})`;
}
