/**
 * Entities and complex values with their control information (JSON Format §4.5, §6, §7):
 * `type` where the value's type is derived from the declared one (every metadata level but
 * `none`) or always (`full`); `id`, `editLink` and `navigationLink` in `full`; `type` of a
 * property whose JSON form does not tell its type (`full` for declared properties, every level
 * but `none` for computed and dynamic ones); expanded entities and references; counts of
 * expansions under their version's name.
 */
import type { NavigationProperty, Property, StructuredType } from '../../model/model.js';
import type { BoundExpandItem, BoundQueryOptions } from '../../semantic/bound-ast.js';
import type { ExpressionType } from '../../semantic/types.js';
import { keyPredicate } from './key-predicate.js';
import { controlName, typeAnnotation, type ControlNaming, type MetadataLevel } from './versions.js';

/** How entities are described. */
export interface EntityOptions extends ControlNaming {
  /** Default `minimal`. */
  readonly metadata?: MetadataLevel;
  /** Counts of expansions (`Friends@count`) as strings (JSON Format §3.2). */
  readonly ieee754Compatible?: boolean;
  /** The service root: `@id` is absolute under it (relative to the context URL without it). */
  readonly serviceRoot?: string;
  /** `@editLink` in `full` (default `true`; the entity-id is the canonical URL, the edit link has the derived type's cast). */
  readonly editLink?: boolean;
  /**
   * The qualified name of a row's own type, when it may be derived from the declared type;
   * default: the row's `@odata.type` (or `@type`) member, as the in-memory backend marks rows.
   */
  readonly typeOf?: (row: Readonly<Record<string, unknown>>) => string | undefined;
}

/** Where entities are: their declared type, the bound options they were read with, and the path their ids start from. */
export interface EntityLevel {
  readonly type: StructuredType;
  readonly query?: BoundQueryOptions | undefined;
  /**
   * The canonical path of their set (`People`, `People('x')/Trips`), key values percent-encoded as
   * in a URL; no ids or links without it.
   */
  readonly path?: string | undefined;
  /** A single-valued containment: the path is the entity's own (no key predicate). */
  readonly single?: boolean;
}

/** The members a row may carry its own type's name in (as the in-memory backend marks rows); never copied. */
const isTypeMember = (key: string): boolean => key === '@odata.type' || key === '@type';

/** The type a value names as its own among `declared` and the types derived from it. */
function actualType(declared: StructuredType, value: Readonly<Record<string, unknown>>, options: EntityOptions): StructuredType {
  if (declared.derivedTypes.length === 0) return declared;
  const marked = typeof value['@odata.type'] === 'string' ? value['@odata.type'] : typeof value['@type'] === 'string' ? value['@type'] : undefined;
  const named = options.typeOf?.(value) ?? marked;
  if (typeof named !== 'string') return declared;
  const name = named.startsWith('#') ? named.slice(1) : named;
  const find = (type: StructuredType): StructuredType | undefined => {
    if (type.qualifiedName === name) return type;
    for (const derived of type.derivedTypes) {
      const found = find(derived);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return find(declared) ?? declared;
}

/** The qualified name of a property's item type. */
function typeName(type: Property['type']): string {
  return type.kind === 'primitive' ? type.name : type.type.qualifiedName;
}

/** Whether JSON shows the type of a declared primitive value (JSON Format §4.5.3; as OData.net: String, Boolean, Int32, finite Double). */
function declaredSelfEvident(name: string, value: unknown): boolean {
  return (
    name === 'Edm.String' || name === 'Edm.Boolean' || name === 'Edm.Int32' || name === 'Edm.Untyped' || (name === 'Edm.Double' && typeof value === 'number')
  );
}

/** Whether JSON shows the type of an undeclared value (JSON Format §4.5.3 heuristics: strings, Booleans, finite Doubles). */
function dynamicSelfEvident(name: string, value: unknown): boolean {
  return (
    (name === 'Edm.String' && typeof value === 'string') ||
    (name === 'Edm.Boolean' && typeof value === 'boolean') ||
    (name === 'Edm.Double' && typeof value === 'number') ||
    name === 'Edm.Untyped'
  );
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A complex value (or an item of a collection of them) with its control information. */
function complexJson(declared: StructuredType, value: unknown, options: EntityOptions): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const record = value as Readonly<Record<string, unknown>>;
  const metadata = options.metadata ?? 'minimal';
  const actual = actualType(declared, record, options);
  const out: Record<string, unknown> = {};
  if (metadata === 'full' || (metadata === 'minimal' && actual !== declared)) out[controlName('type', options)] = typeAnnotation(actual.qualifiedName, options);
  writeProperties(out, actual, record, options);
  return out;
}

/** A declared structural property's value, with its `type` in `full` where JSON does not show it. */
function propertyJson(out: Record<string, unknown>, property: Property, value: unknown, options: EntityOptions): void {
  const full = options.metadata === 'full';
  // The most common member: a primitive value, written as it is below `full`.
  if (!full && property.type.kind !== 'complex' && property.type.kind !== 'entity') {
    setOwn(out, property.name, value);
    return;
  }
  const name = typeName(property.type);
  const structured = property.type.kind === 'complex' || property.type.kind === 'entity' ? property.type.type : undefined;
  if (full && value !== null && value !== undefined) {
    if (property.collection) setOwn(out, controlName('type', options, property.name), typeAnnotation(name, options, true));
    else if (structured === undefined && !declaredSelfEvident(name, value))
      setOwn(out, controlName('type', options, property.name), typeAnnotation(name, options));
  }
  if (structured === undefined) setOwn(out, property.name, value);
  else setOwn(out, property.name, Array.isArray(value) ? value.map((item) => complexJson(structured, item, options)) : complexJson(structured, value, options));
}

/** The members of a structured value other than the type marker: declared properties annotated, the rest as they are. */
function writeProperties(out: Record<string, unknown>, type: StructuredType, record: Readonly<Record<string, unknown>>, options: EntityOptions): void {
  for (const [key, value] of Object.entries(record)) {
    if (isTypeMember(key)) continue;
    const property = type.properties.get(key);
    if (property !== undefined) propertyJson(out, property, value, options);
    else setOwn(out, key, value);
  }
}

/** What writing the entities of one level's options needs, worked out once per options and type. */
interface LevelPlan {
  readonly expansions: ReadonlyMap<string, BoundExpandItem>;
  readonly undeclared: ReadonlyMap<string, ExpressionType | Property>;
}

const NO_OPTIONS: LevelPlan = { expansions: new Map(), undeclared: new Map() };
const levelPlans = new WeakMap<BoundQueryOptions, Map<StructuredType, LevelPlan>>();

function levelPlan(query: BoundQueryOptions | undefined, type: StructuredType): LevelPlan {
  if (query === undefined) return NO_OPTIONS;
  let byType = levelPlans.get(query);
  if (byType === undefined) {
    byType = new Map();
    levelPlans.set(query, byType);
  }
  let plan = byType.get(type);
  if (plan === undefined) {
    plan = { expansions: new Map(query.expand.map((item) => [item.navigation.name, item])), undeclared: undeclaredTypes(query, type) };
    byType.set(type, plan);
  }
  return plan;
}

/** The types of the computed (`$compute`), aggregated and grouped (`$apply`) properties of a level. */
function undeclaredTypes(query: BoundQueryOptions | undefined, type: StructuredType): Map<string, ExpressionType | Property> {
  const types = new Map<string, ExpressionType | Property>();
  if (query === undefined) return types;
  for (const item of query.compute ?? []) types.set(item.name, item.type);
  if (query.apply !== undefined)
    for (const property of query.apply.output.properties.values()) if (!type.properties.has(property.name)) types.set(property.name, property);
  return types;
}

/** An undeclared (computed or aggregated) value, with its `type` where JSON does not show it. */
function undeclaredJson(out: Record<string, unknown>, key: string, value: unknown, type: ExpressionType | Property, options: EntityOptions): void {
  const reference = 'kind' in type && type.kind === 'property' ? type.type : (type as ExpressionType);
  const name =
    reference.kind === 'primitive'
      ? reference.name
      : reference.kind === 'enum' || reference.kind === 'complex' || reference.kind === 'entity'
        ? reference.type.qualifiedName
        : undefined;
  if (
    name !== undefined &&
    value !== null &&
    value !== undefined &&
    !dynamicSelfEvident(name, value) &&
    reference.kind !== 'complex' &&
    reference.kind !== 'entity'
  ) {
    setOwn(out, controlName('type', options, key), typeAnnotation(name, options));
  }
  setOwn(out, key, value);
}

/** The level of the entities an expansion holds. */
function expandedLevel(item: BoundExpandItem, parent: string | undefined): EntityLevel {
  const navigation: NavigationProperty = item.navigation;
  // Contained entities (their implicit set has a container) are addressed through their container.
  if (navigation.containsTarget === true || item.entitySet?.container !== undefined) {
    const path = parent === undefined ? undefined : `${parent}/${navigation.name}`;
    return { type: navigation.target, query: item.options, path, ...(navigation.collection ? {} : { single: true }) };
  }
  return { type: navigation.target, query: item.options, path: item.entitySet?.name };
}

/** The canonical path of an entity (`People('russellwhyte')`), or `undefined` when it has none or lacks a key value. */
function canonicalPath(level: EntityLevel, type: StructuredType, record: Readonly<Record<string, unknown>>): string | undefined {
  if (level.path === undefined) return undefined;
  if (level.single === true) return level.path;
  if (type.key.some((name) => record[name] === undefined || record[name] === null)) return undefined;
  return `${level.path}${keyPredicate(type, record, { encode: true })}`;
}

/** A count: a string with `IEEE754Compatible=true` (JSON Format §3.2). */
function countJson(value: unknown, options: EntityOptions): unknown {
  return options.ieee754Compatible === true && typeof value === 'number' ? String(value) : value;
}

function absolute(options: EntityOptions, path: string): string {
  const root = options.serviceRoot;
  return root === undefined ? path : `${root.endsWith('/') ? root : `${root}/`}${path}`;
}

/**
 * One entity (a record of `jsonRecord`) as OData JSON with its control information at
 * `options.metadata`: `@type` when its type is derived from `level.type` (all of it in `full`,
 * with `@id`, `@editLink`, `Prop@type` where JSON does not tell the type, and
 * `Nav@navigationLink` for each navigation property neither expanded nor left out by `$select`);
 * `Prop@type` for computed and aggregated values whose JSON form does not tell their type
 * (`minimal` and `full`); expanded entities likewise at their own level, expanded references
 * as `{ "@id": … }`, expansion counts as `Nav@count` (`Nav@odata.count` in 4.0). With `none`,
 * only the data and the counts. The type marker a row may carry (`@odata.type`) is not copied.
 *
 * @example
 * ```ts
 * entityJson({ UserName: 'russellwhyte', Age: 30 }, { type: person, path: 'People' }, { metadata: 'full', version: '4.0', serviceRoot: 'https://host/trippin/' });
 * // { '@odata.type': '#Trippin.Person', '@odata.id': "https://host/trippin/People('russellwhyte')",
 * //   '@odata.editLink': "People('russellwhyte')", UserName: 'russellwhyte', 'Age@odata.type': '#Int64', Age: 30,
 * //   'Friends@odata.navigationLink': "People('russellwhyte')/Friends", 'BestFriend@odata.navigationLink': …, 'Trips@odata.navigationLink': … }
 * ```
 */
export function entityJson(record: Readonly<Record<string, unknown>>, level: EntityLevel, options: EntityOptions = {}): Record<string, unknown> {
  const metadata = options.metadata ?? 'minimal';
  const full = metadata === 'full';
  const actual = actualType(level.type, record, options);
  const out: Record<string, unknown> = {};
  // Rows of an aggregation ($apply) are no entities: no type, id or links of one.
  const entity = level.query?.apply === undefined || level.query.apply.entity;
  if (entity && (full || (metadata === 'minimal' && actual !== level.type))) out[controlName('type', options)] = typeAnnotation(actual.qualifiedName, options);
  const canonical = full && entity ? canonicalPath(level, actual, record) : undefined;
  const edit = canonical === undefined ? undefined : actual === level.type ? canonical : `${canonical}/${actual.qualifiedName}`;
  if (canonical !== undefined && edit !== undefined) {
    out[controlName('id', options)] = absolute(options, canonical);
    if (options.editLink !== false) out[controlName('editLink', options)] = edit;
  }
  const query = level.query;
  const { expansions, undeclared } = levelPlan(query, actual);
  for (const [key, value] of Object.entries(record)) {
    if (isTypeMember(key)) continue;
    const property = actual.properties.get(key);
    const item = expansions.get(key);
    const computed = undeclared.get(key);
    // An entity $apply made, expanded with options, is its expansion (BoundExpandItem.made).
    if (property !== undefined && item?.made === undefined) {
      propertyJson(out, property, value, options);
    } else if (item !== undefined) {
      // A property's control information comes right before it (JSON Format §4.4): its count first.
      const count = `${key}@odata.count`;
      if (Object.hasOwn(record, count)) setOwn(out, controlName('count', options, key), countJson(record[count], options));
      const childLevel = expandedLevel(item, canonicalPath(level, actual, record));
      const one = (child: unknown): unknown => {
        if (child === null || typeof child !== 'object' || Array.isArray(child)) return child ?? null;
        const row = child as Readonly<Record<string, unknown>>;
        if (item.form !== '$ref') return entityJson(row, childLevel, options);
        const path = canonicalPath(childLevel, actualType(childLevel.type, row, options), row);
        return path === undefined ? row : { [controlName('id', options)]: absolute(options, path) };
      };
      setOwn(out, key, Array.isArray(value) ? value.map(one) : one(value));
    } else if (key.endsWith('@odata.count')) {
      const name = key.slice(0, -'@odata.count'.length);
      // Written before its expansion when the expansion is there.
      if (!(expansions.has(name) && Object.hasOwn(record, name))) setOwn(out, controlName('count', options, name), countJson(value, options));
    } else if (computed !== undefined && metadata !== 'none') {
      undeclaredJson(out, key, value, computed, options);
    } else setOwn(out, key, value);
  }
  if (full && edit !== undefined) {
    const select = query?.select;
    for (const navigation of actual.navigation.values()) {
      if (Object.hasOwn(record, navigation.name)) continue;
      if (select !== undefined && !select.all && !select.navigation.includes(navigation)) continue;
      setOwn(out, controlName('navigationLink', options, navigation.name), `${edit}/${navigation.name}`);
    }
  }
  return out;
}

/**
 * A complex value (or a collection of them) of declared type `type`, with its control
 * information: `@type` when derived (always in `full`), `Prop@type` of its properties in `full`.
 *
 * @example
 * ```ts
 * complexValueJson(location, { Address: '187 Suffolk Ln.', City: { Name: 'Boise' } }, { metadata: 'full' });
 * // { '@type': '#Trippin.Location', Address: '187 Suffolk Ln.', City: { '@type': '#Trippin.City', Name: 'Boise' } }
 * ```
 */
export function complexValueJson(type: StructuredType, value: unknown, options: EntityOptions = {}): unknown {
  return Array.isArray(value) ? value.map((item) => complexJson(type, item, options)) : complexJson(type, value, options);
}
