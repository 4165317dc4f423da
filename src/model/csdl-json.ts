/**
 * `modelFromCsdl`: reads an OData CSDL JSON document (4.01, what `$metadata?$format=json`
 * returns) into a {@link Model}, with the Capabilities vocabulary annotations that restrict
 * queries per entity set.
 */
import type { Capabilities, ContainerMember, EntityContainer, Model, PropertyFacets, Schema, SchemaElement } from './model.js';
import { copyXmlDetails, hasXmlDetails } from './csdl-xml-details.js';
import type { CsdlJsonObject } from './csdl-json-types.js';
import {
  buildModel,
  modelError,
  type EntitySetSpec,
  type EnumTypeSpec,
  type NavigationSpec,
  type PropertySpec,
  type StructuredTypeSpec,
} from './build-model.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const CAPABILITIES = 'Org.OData.Capabilities.V1';
/** The Aggregation vocabulary: `ApplySupported` with an empty `Transformations` list turns `$apply` off. */
export const AGGREGATION = 'Org.OData.Aggregation.V1';
const CORE = 'Org.OData.Core.V1';

/**
 * The namespace of this project's own vocabulary: `ODataEngine.V1.MaxTop` (Edm.Int64, on an
 * entity set) is the set's largest accepted `$top`, which the standard Capabilities vocabulary
 * cannot say (it has only `TopSupported`). See docs/csdl.md.
 */
export const ODATA_ENGINE_VOCABULARY = 'ODataEngine.V1';

/** Sets a member whatever its name (`__proto__` stays an ordinary key). */
function put(object: JsonObject, key: string, value: Json): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/**
 * The members of an element's CSDL JSON object that its model fields do not hold (`typed`
 * says which they hold), with the XML reader's details: what the writers add back. `undefined`
 * when there is none.
 */
function extrasOf<C>(element: JsonObject, typed: (key: string, value: Json, context: C) => boolean, context: C): JsonObject | undefined {
  let extras: JsonObject | undefined;
  for (const key of Object.keys(element)) {
    const value = element[key] as Json;
    if (!typed(key, value, context)) put((extras ??= {}), key, value);
  }
  if (hasXmlDetails(element)) copyXmlDetails(element, (extras ??= {}));
  return extras;
}

/*
 * Which members of an element's CSDL JSON object its model fields hold (the rest are its
 * extras, written back as they are). Module functions with a context, not closures: they run
 * once per member of a large document.
 */

const FACET_KEYS: ReadonlyMap<string, keyof PropertyFacets> = new Map([
  ['$MaxLength', 'maxLength'],
  ['$Precision', 'precision'],
  ['$Scale', 'scale'],
  ['$SRID', 'srid'],
] as const);

/** A property: type, collection and nullability when `true` (an explicit `false` is kept as written), and the facets the model read. */
function propertyTyped(key: string, value: Json, facets: PropertyFacets | undefined): boolean {
  if (key === '$Collection' || key === '$Nullable') return value === true;
  if (key === '$Type') return true;
  const facet = FACET_KEYS.get(key);
  return facet !== undefined && facets?.[facet] !== undefined;
}

/** A navigation property (`flags`: 1 a collection, 2 constraints without annotations). */
function navigationTyped(key: string, value: Json, flags: number): boolean {
  switch (key) {
    case '$Kind':
    case '$Type':
      return true;
    case '$Collection':
      return value === true;
    case '$Nullable':
      return (flags & 1) === 0 && value === true;
    case '$Partner':
      return typeof value === 'string';
    case '$ContainsTarget':
      return value === true;
    case '$ReferentialConstraint':
      return isObject(value) && (flags & 2) !== 0;
    default:
      return false;
  }
}

/** An entity or complex type: its members; a key of property names only (one with aliases is written as it is); a base type named without an alias. */
function structuredTyped(name: string, value: Json, aliased: (name: string) => boolean): boolean {
  if (name === '$Kind') return true;
  if (name === '$Key') return Array.isArray(value) && value.every((k) => typeof k === 'string');
  if (name === '$BaseType') return typeof value === 'string' && !aliased(value);
  return !name.startsWith('$') && !name.includes('@') && isObject(value);
}

/** An enumeration type: its members and their values. */
function enumTyped(name: string, value: Json): boolean {
  return name === '$Kind' || (!name.startsWith('$') && !name.includes('@') && (typeof value === 'number' || typeof value === 'string'));
}

/** An entity set: its type (named without an alias) and its bindings to sets of its container (targets written as paths are kept as written). */
function entitySetTyped(key: string, value: Json, aliased: (name: string) => boolean): boolean {
  if (key === '$Collection') return true;
  if (key === '$Type') return typeof value === 'string' && !aliased(value);
  if (key === '$NavigationPropertyBinding') return isObject(value) && Object.values(value).every((t) => typeof t === 'string' && !t.includes('/'));
  return false;
}

/** Adds a member to an element's extras (created when absent). */
function withExtra(extras: JsonObject | undefined, key: string, value: Json): JsonObject {
  const result = extras ?? {};
  put(result, key, value);
  return result;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own entries only: a document key `__proto__` stays an ordinary name. */
function entries(object: JsonObject): [string, Json][] {
  return Object.keys(object).map((key) => [key, object[key] as Json]);
}

/** Resolves annotation term names through `$Reference` aliases: `@Capabilities.X` → `Org.OData.Capabilities.V1.X`. */
function termResolver(document: JsonObject): (term: string) => string {
  const aliases = new Map<string, string>();
  const references = document.$Reference;
  if (isObject(references)) {
    for (const [, reference] of entries(references)) {
      if (!isObject(reference) || !Array.isArray(reference.$Include)) continue;
      for (const include of reference.$Include) {
        if (isObject(include) && typeof include.$Namespace === 'string' && typeof include.$Alias === 'string') aliases.set(include.$Alias, include.$Namespace);
      }
    }
  }
  return (term) => {
    const withoutQualifier = term.replace(/#.*$/, '');
    const dot = withoutQualifier.lastIndexOf('.');
    const namespace = withoutQualifier.slice(0, dot);
    return `${aliases.get(namespace) ?? namespace}.${withoutQualifier.slice(dot + 1)}`;
  };
}

/** Annotations of an element: `{ 'Org.OData.Capabilities.V1.SearchRestrictions': value }`. */
function annotationsOf(element: JsonObject, resolveTerm: (term: string) => string): Map<string, Json> {
  const result = new Map<string, Json>();
  for (const [key, value] of entries(element)) {
    if (key.startsWith('@')) result.set(resolveTerm(key.slice(1)), value);
  }
  return result;
}

/** A path value: `"name"`, `{ "$PropertyPath": "name" }` or `{ "$NavigationPropertyPath": "name" }`. */
function pathValue(value: Json): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value)) {
    const path = value.$PropertyPath ?? value.$NavigationPropertyPath ?? value.$Path;
    if (typeof path === 'string') return path;
  }
  return undefined;
}

function paths(value: Json | undefined): Set<string> {
  const result = new Set<string>();
  if (Array.isArray(value))
    for (const item of value) {
      const path = pathValue(item);
      if (path !== undefined) result.add(path);
    }
  return result;
}

/** Capabilities from the Capabilities vocabulary annotations of one entity set. */
function capabilitiesFrom(annotations: Map<string, Json>): Partial<Capabilities> {
  const result: { -readonly [K in keyof Capabilities]?: Capabilities[K] } = {};
  const record = (term: string): JsonObject | undefined => {
    const value = annotations.get(`${CAPABILITIES}.${term}`);
    return isObject(value) ? value : undefined;
  };
  const search = record('SearchRestrictions');
  if (search !== undefined && typeof search.Searchable === 'boolean') result.searchable = search.Searchable;
  const filter = record('FilterRestrictions');
  if (filter !== undefined) {
    if (typeof filter.Filterable === 'boolean') result.filterable = filter.Filterable;
    result.nonFilterableProperties = paths(filter.NonFilterableProperties);
  }
  const sort = record('SortRestrictions');
  if (sort !== undefined) {
    if (typeof sort.Sortable === 'boolean') result.sortable = sort.Sortable;
    result.nonSortableProperties = paths(sort.NonSortableProperties);
  }
  const expand = record('ExpandRestrictions');
  if (expand !== undefined) {
    if (typeof expand.Expandable === 'boolean') result.expandable = expand.Expandable;
    result.nonExpandableProperties = paths(expand.NonExpandableProperties);
    if (typeof expand.MaxLevels === 'number' && expand.MaxLevels >= 0) result.maxLevels = expand.MaxLevels;
  }
  const count = record('CountRestrictions');
  if (count !== undefined) {
    if (typeof count.Countable === 'boolean') result.countable = count.Countable;
    result.nonCountableProperties = new Set([...paths(count.NonCountableProperties), ...paths(count.NonCountableNavigationProperties)]);
  }
  const top = annotations.get(`${CAPABILITIES}.TopSupported`);
  if (typeof top === 'boolean') result.topSupported = top;
  const skip = annotations.get(`${CAPABILITIES}.SkipSupported`);
  if (typeof skip === 'boolean') result.skipSupported = skip;
  const select = record('SelectSupport');
  if (select !== undefined && select.Supported === false) result.nonSelectableProperties = new Set();
  const apply = annotations.get(`${AGGREGATION}.ApplySupported`);
  if (isObject(apply) && Array.isArray(apply.Transformations) && apply.Transformations.length === 0) result.applySupported = false;
  const maxTop = annotations.get(`${ODATA_ENGINE_VOCABULARY}.MaxTop`);
  if (maxTop !== undefined) {
    if (typeof maxTop !== 'number' || !Number.isSafeInteger(maxTop) || maxTop < 0)
      throw modelError(`${ODATA_ENGINE_VOCABULARY}.MaxTop must be a non-negative integer, not ${JSON.stringify(maxTop)}`);
    result.maxTop = maxTop;
  }
  return result;
}

function mergeCapabilities(a: Partial<Capabilities>, b: Partial<Capabilities>): Partial<Capabilities> {
  return { ...a, ...b };
}

/** The type facets of a property (`$MaxLength`, `$Precision`, `$Scale`, `$SRID`), when it declares any. */
function facetsOf(member: JsonObject): PropertyFacets | undefined {
  const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);
  const maxLength = count(member.$MaxLength);
  const precision = count(member.$Precision);
  const scale = member.$Scale === 'variable' || member.$Scale === 'floating' ? member.$Scale : count(member.$Scale);
  const srid = member.$SRID === 'variable' ? member.$SRID : count(member.$SRID);
  if (maxLength === undefined && precision === undefined && scale === undefined && srid === undefined) return undefined;
  return {
    ...(maxLength === undefined ? {} : { maxLength }),
    ...(precision === undefined ? {} : { precision }),
    ...(scale === undefined ? {} : { scale }),
    ...(srid === undefined ? {} : { srid }),
  };
}

/** A property or navigation spec with its `$Type` as the document writes it. */
type RawSpec<T> = T & { readonly rawType?: string };

function structuredSpec(
  kind: 'entity' | 'complex',
  qualifiedName: string,
  element: JsonObject,
  resolveTerm: (term: string) => string,
  aliased: (name: string) => boolean,
): StructuredTypeSpec & { readonly properties: readonly RawSpec<PropertySpec>[]; readonly navigation: readonly RawSpec<NavigationSpec>[] } {
  const properties: PropertySpec[] = [];
  const navigation: NavigationSpec[] = [];
  for (const [name, member] of entries(element)) {
    if (name.startsWith('$') || name.includes('@') || !isObject(member)) continue;
    const rawType = typeof member.$Type === 'string' ? member.$Type : undefined;
    const type = typeof member.$Type === 'string' ? member.$Type : 'Edm.String';
    const collection = member.$Collection === true;
    const nullable = member.$Nullable === true;
    const fullType = collection ? `Collection(${type})` : type;
    if (member.$Kind === 'NavigationProperty') {
      const constraints: Record<string, string> = {};
      let plainConstraints = true;
      if (isObject(member.$ReferentialConstraint)) {
        for (const [dependent, principal] of entries(member.$ReferentialConstraint)) {
          if (!dependent.includes('@') && typeof principal === 'string') constraints[dependent] = principal;
          else plainConstraints = false;
        }
      }
      const extras = extrasOf(member, navigationTyped, collection ? (plainConstraints ? 3 : 1) : plainConstraints ? 2 : 0);
      navigation.push({
        name,
        type: fullType,
        nullable: collection ? false : nullable,
        constraints,
        ...(typeof member.$Partner === 'string' ? { partner: member.$Partner } : {}),
        ...(member.$ContainsTarget === true ? { containsTarget: true } : {}),
        ...(extras === undefined ? {} : { csdl: extras as CsdlJsonObject }),
        ...(rawType === undefined ? {} : { rawType }),
      });
    } else {
      // Core.Permissions None hides a property; such a property cannot be selected.
      const permissions = annotationsOf(member, resolveTerm).get(`${CORE}.Permissions`);
      const facets = facetsOf(member);
      const extras = extrasOf(member, propertyTyped, facets);
      properties.push({
        name,
        type: fullType,
        nullable,
        ...(permissions === 'None' ? { selectable: false, filterable: false, sortable: false } : {}),
        ...(facets === undefined ? {} : { facets }),
        ...(extras === undefined ? {} : { csdl: extras as CsdlJsonObject }),
        ...(rawType === undefined ? {} : { rawType }),
      });
    }
  }
  const key = Array.isArray(element.$Key)
    ? element.$Key.flatMap((k) => (typeof k === 'string' ? [k] : isObject(k) ? entries(k).flatMap(([, v]) => (typeof v === 'string' ? [v] : [])) : []))
    : undefined;
  const extras = extrasOf(element, structuredTyped, aliased);
  return {
    kind,
    name: qualifiedName,
    ...(typeof element.$BaseType === 'string' ? { baseType: element.$BaseType } : {}),
    ...(element.$OpenType === true ? { open: true } : {}),
    ...(element.$Abstract === true ? { abstract: true } : {}),
    ...(element.$HasStream === true ? { hasStream: true } : {}),
    ...(key === undefined ? {} : { key }),
    properties,
    navigation,
    ...(extras === undefined ? {} : { csdl: extras as CsdlJsonObject }),
  };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An enumeration member's value: an integer (a JSON number, or a string for Int64 values beyond 2^53), within Int64. */
function memberValue(typeName: string, name: string, value: number | string): bigint {
  const integer = typeof value === 'number' ? (Number.isInteger(value) ? BigInt(value) : undefined) : /^[-+]?\d{1,19}$/.test(value) ? BigInt(value) : undefined;
  if (integer === undefined || integer < INT64_MIN || integer > INT64_MAX) {
    throw modelError(`The value of member '${name}' of enumeration type '${typeName}' must be an Int64 integer, not ${JSON.stringify(value).slice(0, 40)}`);
  }
  return integer;
}

function enumSpec(qualifiedName: string, element: JsonObject): EnumTypeSpec {
  const members: [string, bigint][] = [];
  for (const [name, value] of entries(element)) {
    if (name.startsWith('$') || name.includes('@')) continue;
    if (typeof value === 'number' || typeof value === 'string') members.push([name, memberValue(qualifiedName, name, value)]);
  }
  const underlying = typeof element.$UnderlyingType === 'string' ? element.$UnderlyingType : 'Edm.Int32';
  if (!['Edm.Byte', 'Edm.SByte', 'Edm.Int16', 'Edm.Int32', 'Edm.Int64'].includes(underlying)) {
    throw modelError(`Enumeration type '${qualifiedName}' has the invalid underlying type '${underlying}'`);
  }
  const extras = extrasOf(element, enumTyped, undefined);
  return {
    name: qualifiedName,
    isFlags: element.$IsFlags === true,
    underlyingType: underlying as EnumTypeSpec['underlyingType'] & string,
    members,
    ...(extras === undefined ? {} : { csdl: extras as CsdlJsonObject }),
  };
}

/**
 * Reads a CSDL JSON document (a parsed object or its text).
 *
 * Supported: entity, complex and enum types (with base types, open types, keys, collections,
 * nullability), navigation properties with referential constraints and partners, the entity
 * container's entity sets with navigation property bindings, and the Capabilities annotations
 * `SearchRestrictions/Searchable`, `FilterRestrictions`, `SortRestrictions`, `ExpandRestrictions`,
 * `CountRestrictions`, `TopSupported`, `SkipSupported`, and this project's
 * `ODataEngine.V1.MaxTop` (the set's largest `$top`), written inline or in `$Annotations`, with
 * the full vocabulary namespace or a `$Reference` alias. A property typed with a
 * `TypeDefinition` has its underlying primitive type. The built-in abstract and path types
 * (`Edm.PrimitiveType`, `Edm.ComplexType`, `Edm.EntityType`, `Edm.PropertyPath`, …) and types of
 * schemas included from referenced documents load as types that the binder refuses to filter,
 * sort or expand ({@link Property.declaredType} names them).
 *
 * The model keeps the whole document, for the writers: its version, references and schemas
 * ({@link Model.schemas}: every element in document order, terms, type definitions, operations,
 * the container's singletons and imports), and each element's annotations (`csdl` fields). A CSDL XML document is read by
 * `modelFromCsdlXml` (a separate function, so that the XML parser is bundled only where used).
 *
 * @throws {ODataError} `invalid_model` (status 500) for a document that is not a usable model
 */
export function modelFromCsdl(csdl: string | object): Model {
  let document: Json;
  if (typeof csdl === 'string' && /^\uFEFF?\s*</.test(csdl)) throw modelError('The CSDL document is XML: read it with modelFromCsdlXml');
  try {
    document = (typeof csdl === 'string' ? JSON.parse(csdl) : csdl) as Json;
  } catch (error) {
    throw modelError(`The CSDL document is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(document)) throw modelError('The CSDL document must be a JSON object');
  const resolveTerm = termResolver(document);
  const enums: EnumTypeSpec[] = [];
  const structuredTypes: ReturnType<typeof structuredSpec>[] = [];
  const entitySets: EntitySetSpec[] = [];
  /** The qualified name of each entity set's container: `$Annotations` target `Ns.Container/set`. */
  const containerOf = new Map<EntitySetSpec, string>();
  const setAnnotations = new Map<string, Partial<Capabilities>>();
  const aliases = new Map<string, string>();
  const typeDefinitions = new Map<string, string>();
  let firstNamespace: string | undefined;
  let firstAlias: string | undefined;

  /** Namespaces of schemas included from referenced documents (`$Reference`/`$Include`), with their aliases; not those the document defines itself. */
  const included = new Set<string>();
  if (isObject(document.$Reference)) {
    for (const [, reference] of entries(document.$Reference)) {
      if (!isObject(reference) || !Array.isArray(reference.$Include)) continue;
      for (const include of reference.$Include) {
        if (!isObject(include) || typeof include.$Namespace !== 'string') continue;
        included.add(include.$Namespace);
        if (typeof include.$Alias === 'string') aliases.set(include.$Alias, include.$Namespace);
      }
    }
  }
  for (const [namespace, schema] of entries(document)) {
    if (namespace.startsWith('$') || !isObject(schema)) continue;
    included.delete(namespace);
    if (typeof schema.$Alias === 'string') aliases.set(schema.$Alias, namespace);
  }
  const unalias = (name: string): string => {
    const dot = name.lastIndexOf('.');
    const prefix = name.slice(0, dot);
    return aliases.has(prefix) ? `${aliases.get(prefix)}.${name.slice(dot + 1)}` : name;
  };
  const aliased = (name: string): boolean => unalias(name) !== name;
  /** Each schema's elements in document order (kind, name, CSDL JSON), and the rest of its object. */
  const schemaParts: { namespace: string; elements: [name: string, kind: SchemaElement['kind'], json: Json][]; csdl: JsonObject }[] = [];

  for (const [namespace, schema] of entries(document)) {
    if (namespace.startsWith('$') || !isObject(schema)) continue;
    firstNamespace ??= namespace;
    if (firstNamespace === namespace && typeof schema.$Alias === 'string') firstAlias = schema.$Alias;
    const part: (typeof schemaParts)[number] = { namespace, elements: [], csdl: {} };
    schemaParts.push(part);
    copyXmlDetails(schema, part.csdl);
    for (const [name, element] of entries(schema)) {
      if (name.startsWith('$') || name.includes('@')) put(part.csdl, name, element);
      else if (!isObject(element)) part.elements.push([name, 'csdl', element]);
      else {
        const kind = element.$Kind;
        part.elements.push([
          name,
          kind === 'EntityType' || kind === 'ComplexType' || kind === 'EnumType' ? 'type' : kind === 'EntityContainer' ? 'container' : 'csdl',
          element,
        ]);
      }
      if (name === '$Annotations' && isObject(element)) {
        for (const [target, annotations] of entries(element)) {
          if (!isObject(annotations)) continue;
          const capabilities = capabilitiesFrom(annotationsOf(annotations, resolveTerm));
          const key = unalias(target);
          setAnnotations.set(key, mergeCapabilities(setAnnotations.get(key) ?? {}, capabilities));
        }
        continue;
      }
      if (name.startsWith('$') || !isObject(element)) continue;
      const qualifiedName = `${namespace}.${name}`;
      switch (element.$Kind) {
        case 'EntityType':
          structuredTypes.push(structuredSpec('entity', qualifiedName, element, resolveTerm, aliased));
          break;
        case 'ComplexType':
          structuredTypes.push(structuredSpec('complex', qualifiedName, element, resolveTerm, aliased));
          break;
        case 'EnumType':
          enums.push(enumSpec(qualifiedName, element));
          break;
        case 'TypeDefinition':
          if (typeof element.$UnderlyingType === 'string') typeDefinitions.set(qualifiedName, element.$UnderlyingType);
          break;
        case 'EntityContainer':
          for (const [setName, set] of entries(element)) {
            if (setName.startsWith('$') || setName.includes('@') || !isObject(set) || set.$Collection !== true || typeof set.$Type !== 'string') continue;
            const bindings: Record<string, string> = {};
            if (isObject(set.$NavigationPropertyBinding)) {
              for (const [path, target] of entries(set.$NavigationPropertyBinding))
                if (typeof target === 'string') bindings[path] = target.split('/').pop() as string;
            }
            const extras = extrasOf(set, entitySetTyped, aliased);
            const spec: EntitySetSpec = {
              name: setName,
              type: unalias(set.$Type),
              capabilities: capabilitiesFrom(annotationsOf(set, resolveTerm)),
              bindings,
              ...(extras === undefined ? {} : { csdl: extras as CsdlJsonObject }),
            };
            entitySets.push(spec);
            containerOf.set(spec, qualifiedName);
          }
          break;
        default:
          break;
      }
    }
  }
  if (firstNamespace === undefined) throw modelError('The CSDL document has no schema');
  // External annotations of a set target `Ns.Container/set` (by namespace or alias; before or
  // after the container). `Ns.Type/name` targets a property of a type, not a set of that name.
  for (const set of entitySets) {
    const external = setAnnotations.get(`${containerOf.get(set) as string}/${set.name}`);
    if (external !== undefined) Object.assign(set, { capabilities: mergeCapabilities(set.capabilities ?? {}, external) });
  }
  const underlying = (type: string): string => {
    const match = /^Collection\((.+)\)$/.exec(type);
    const element = typeDefinitions.get(match ? (match[1] as string) : type);
    return element === undefined ? type : match ? `Collection(${element})` : element;
  };
  const elementType = (type: string): string => (type.startsWith('Collection(') && type.endsWith(')') ? type.slice(11, -1) : type);
  /**
   * The type resolved through aliases and type definitions; the type definition as
   * `declaredType`; and `$Type` kept as written when the writers would not write it so.
   */
  /**
   * A type of a schema included from a referenced document, which the reader does not have: read
   * as the built-in abstract type (`Edm.EntityType` for a navigation property, else
   * `Edm.PrimitiveType`), which the engine does not query.
   */
  const external = (name: string): boolean => included.size > 0 && included.has(name.slice(0, name.lastIndexOf('.')));
  const resolveNames = <T extends { type: string; rawType?: string; csdl?: CsdlJsonObject; declaredType?: string }>(item: T, navigation: boolean): T => {
    const unaliased = unaliasType(item.type, unalias);
    const declared = elementType(unaliased);
    const type = external(declared) ? unaliased.replace(declared, navigation ? 'Edm.EntityType' : 'Edm.PrimitiveType') : underlying(unaliased);
    // The spec is this reader's own object: completed in place (a copy of each of the many
    // property specs costs more than the rest of this function). `rawType` stays on it; buildModel
    // does not read it.
    const result = item as { -readonly [K in keyof T]: T[K] };
    result.type = type;
    // What the writers write as `$Type`: the declared type of a property, the target of a navigation property.
    let written = elementType(type);
    if (type !== unaliased && !navigation) result.declaredType = written = declared;
    // The writers leave out `Edm.String` (the default): written out by the document, it is kept.
    if (item.rawType !== undefined && (item.rawType !== written || (!navigation && written === 'Edm.String')))
      result.csdl = withExtra(item.csdl as JsonObject | undefined, '$Type', item.rawType) as CsdlJsonObject;
    return result;
  };
  const model = buildModel({
    namespace: firstNamespace,
    ...(firstAlias === undefined ? {} : { alias: firstAlias }),
    enums,
    structuredTypes: structuredTypes.map((t) => ({
      ...t,
      ...(t.baseType === undefined ? {} : { baseType: unalias(t.baseType) }),
      properties: t.properties.map((p) => resolveNames(p, false)),
      navigation: t.navigation.map((n) => resolveNames(n, true)),
    })),
    entitySets,
  });
  const version = document.$Version === '4.0' || document.$Version === '4.01' ? document.$Version : undefined;
  const schemas: Schema[] = schemaParts.map((part) => {
    const elements = new Map<string, SchemaElement>();
    for (const [name, kind, json] of part.elements) {
      const qualifiedName = `${part.namespace}.${name}`;
      const type = kind === 'type' ? model.types.get(qualifiedName) : undefined;
      if (type !== undefined) elements.set(name, { kind: 'type', type });
      else if (kind === 'container' && isObject(json)) elements.set(name, { kind: 'container', container: containerOf_(name, json) });
      else elements.set(name, { kind: 'csdl', csdl: json as CsdlJsonObject });
    }
    return { namespace: part.namespace, elements, csdl: part.csdl as CsdlJsonObject };
  });
  function containerOf_(name: string, json: JsonObject): EntityContainer {
    const members = new Map<string, ContainerMember>();
    const rest: JsonObject = {};
    copyXmlDetails(json, rest);
    for (const [member, value] of entries(json)) {
      if (member.startsWith('$') || member.includes('@')) {
        if (member !== '$Kind') put(rest, member, value);
        continue;
      }
      const set = isObject(value) && value.$Collection === true ? model.entitySets.get(member) : undefined;
      if (set !== undefined) members.set(member, { kind: 'entitySet', entitySet: set });
      else members.set(member, { kind: 'csdl', csdl: value as CsdlJsonObject });
    }
    return { name, members, csdl: rest as CsdlJsonObject };
  }
  return {
    ...model,
    ...(version === undefined ? {} : { version }),
    ...(typeof document.$EntityContainer === 'string' ? { entityContainer: document.$EntityContainer } : {}),
    ...(isObject(document.$Reference) ? { references: document.$Reference as CsdlJsonObject } : {}),
    schemas,
  };
}

function unaliasType(type: string, unalias: (name: string) => string): string {
  const match = /^Collection\((.+)\)$/.exec(type);
  return match ? `Collection(${unalias(match[1] as string)})` : type.startsWith('Edm.') ? type : unalias(type);
}
