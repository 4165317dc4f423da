/**
 * `csdlJsonFromModel`: writes a {@link Model} as a CSDL JSON document (4.01) that
 * `modelFromCsdl` reads back into an equal model: types, keys, properties, navigation with
 * partners and referential constraints, entity sets with their bindings, and the capabilities
 * as Capabilities vocabulary annotations (plus `ODataEngine.V1.MaxTop`).
 */
import {
  ALL_CAPABILITIES,
  type Capabilities,
  type EntitySet,
  type EnumType,
  type Model,
  type NavigationProperty,
  type Property,
  type StructuredType,
  type TypeReference,
} from './model.js';
import { ODATA_ENGINE_VOCABULARY } from './csdl-json.js';
import { declaredMembers } from './inherited-map.js';
import type { CsdlJson, CsdlJsonObject } from './csdl-json-types.js';
import { copyXmlDetails } from './csdl-xml-details.js';
import type { EntityContainer, Schema } from './model.js';

/** Options of {@link csdlJsonFromModel} (and `csdlXmlFromModel`). */
export interface CsdlWriteOptions {
  /** The simple name of the entity container, in the model's namespace (default `Container`). */
  readonly containerName?: string;
}

const CAPABILITIES = 'Org.OData.Capabilities.V1';
const CORE = 'Org.OData.Core.V1';
const AGGREGATION = 'Org.OData.Aggregation.V1';

/** Where the standard vocabularies are published, and a URN for this project's own. */
const VOCABULARIES: readonly (readonly [namespace: string, alias: string, uri: string])[] = [
  [CAPABILITIES, 'Capabilities', 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.json'],
  [CORE, 'Core', 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.json'],
  [AGGREGATION, 'Aggregation', 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Aggregation.V1.json'],
  [ODATA_ENGINE_VOCABULARY, 'ODataEngine', 'urn:odata-engine:vocabulary:ODataEngine.V1'],
];

/** Sets a member whatever its name (`__proto__` stays an ordinary key). */
function put(object: CsdlJsonObject, key: string, value: CsdlJson): void {
  // Plain assignment keeps objects fast; `__proto__` would set the prototype instead.
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

function namespaceOf(qualifiedName: string): string {
  return qualifiedName.slice(0, qualifiedName.lastIndexOf('.'));
}

function typeName(type: TypeReference): string {
  return type.kind === 'primitive' ? type.name : type.type.qualifiedName;
}

/** Adds what an element's CSDL JSON said beyond its model fields (`csdl`), with the XML reader's details. */
function overlay(result: CsdlJsonObject, csdl: CsdlJsonObject | undefined): CsdlJsonObject {
  if (csdl === undefined) return result;
  for (const key of Object.keys(csdl)) put(result, key, csdl[key] as CsdlJson);
  copyXmlDetails(csdl, result);
  return result;
}

function enumJson(type: EnumType): CsdlJsonObject {
  const result: CsdlJsonObject = { $Kind: 'EnumType' };
  if (type.underlyingType !== 'Edm.Int32') put(result, '$UnderlyingType', type.underlyingType);
  if (type.isFlags) put(result, '$IsFlags', true);
  for (const [name, value] of type.members) put(result, name, Number.isSafeInteger(Number(value)) ? Number(value) : String(value));
  return overlay(result, type.csdl);
}

function propertyJson(property: Property, used: Set<string> | undefined): CsdlJsonObject {
  const result: CsdlJsonObject = {};
  const type = property.declaredType ?? typeName(property.type);
  if (type !== 'Edm.String') put(result, '$Type', type);
  if (property.collection) put(result, '$Collection', true);
  if (property.nullable) put(result, '$Nullable', true);
  const facets = property.facets;
  if (facets?.maxLength !== undefined) put(result, '$MaxLength', facets.maxLength);
  if (facets?.precision !== undefined) put(result, '$Precision', facets.precision);
  if (facets?.scale !== undefined) put(result, '$Scale', facets.scale);
  if (facets?.srid !== undefined) put(result, '$SRID', facets.srid);
  // Core.Permissions None: the property can be neither selected, filtered nor sorted (a model
  // read from CSDL has its annotations as written).
  if (used !== undefined && !property.selectable && !property.filterable && !property.sortable) {
    used.add(CORE);
    put(result, '@Core.Permissions', 'None');
  }
  return overlay(result, property.csdl);
}

function navigationJson(navigation: NavigationProperty): CsdlJsonObject {
  const result: CsdlJsonObject = { $Kind: 'NavigationProperty', $Type: navigation.target.qualifiedName };
  if (navigation.collection) put(result, '$Collection', true);
  else if (navigation.nullable) put(result, '$Nullable', true);
  if (navigation.partner !== undefined) put(result, '$Partner', navigation.partner);
  if (navigation.containsTarget === true) put(result, '$ContainsTarget', true);
  if (navigation.constraints.length > 0) {
    const constraints: CsdlJsonObject = {};
    for (const { property, referencedProperty } of navigation.constraints) put(constraints, property, referencedProperty);
    put(result, '$ReferentialConstraint', constraints);
  }
  return overlay(result, navigation.csdl);
}

function structuredJson(type: StructuredType, used: Set<string> | undefined): CsdlJsonObject {
  const base = type.baseType;
  const result: CsdlJsonObject = { $Kind: type.kind === 'entity' ? 'EntityType' : 'ComplexType' };
  if (base !== undefined) put(result, '$BaseType', base.qualifiedName);
  if (type.open && base?.open !== true) put(result, '$OpenType', true);
  if (type.abstract === true) put(result, '$Abstract', true);
  if (type.hasStream === true) put(result, '$HasStream', true);
  // A derived type inherits its base type's key (the same array); only a key of its own is written.
  if (type.kind === 'entity' && type.key.length > 0 && type.key !== base?.key) put(result, '$Key', [...type.key]);
  // Inherited members are the base type's own objects: only the declared ones are written here.
  for (const [name, property] of declaredMembers(type.properties, base?.properties)) put(result, name, propertyJson(property, used));
  for (const [name, navigation] of declaredMembers(type.navigation, base?.navigation)) put(result, name, navigationJson(navigation));
  return overlay(result, type.csdl);
}

function entitySetJson(set: EntitySet): CsdlJsonObject {
  const member: CsdlJsonObject = { $Collection: true, $Type: set.type.qualifiedName };
  if (set.bindings.size > 0) {
    const bindings: CsdlJsonObject = {};
    for (const [path, target] of set.bindings) put(bindings, path, target);
    put(member, '$NavigationPropertyBinding', bindings);
  }
  return member;
}

function containerJson(container: EntityContainer): CsdlJsonObject {
  const result: CsdlJsonObject = { $Kind: 'EntityContainer' };
  for (const [name, member] of container.members)
    put(result, name, member.kind === 'entitySet' ? overlay(entitySetJson(member.entitySet), member.entitySet.csdl) : member.csdl);
  return overlay(result, container.csdl);
}

/** A schema of a model read from CSDL: its elements in document order, from the model and their CSDL JSON. */
function schemaJson(schema: Schema): CsdlJsonObject {
  const result: CsdlJsonObject = {};
  if (schema.csdl.$Alias !== undefined) put(result, '$Alias', schema.csdl.$Alias);
  for (const [name, element] of schema.elements) {
    if (element.kind === 'type') put(result, name, element.type.kind === 'enum' ? enumJson(element.type) : structuredJson(element.type, undefined));
    else if (element.kind === 'container') put(result, name, containerJson(element.container));
    else put(result, name, element.csdl);
  }
  return overlay(result, schema.csdl);
}

const propertyPaths = (names: ReadonlySet<string>, kind: '$PropertyPath' | '$NavigationPropertyPath'): CsdlJson[] =>
  [...names].map((name) => ({ [kind]: name }));

/** The Capabilities annotations that say how `capabilities` differ from everything allowed. */
function capabilityAnnotations(set: EntitySet, target: CsdlJsonObject, used: Set<string>): void {
  const c: Capabilities = set.capabilities;
  const annotate = (namespace: string, term: string, value: CsdlJson): void => {
    used.add(namespace);
    const alias = VOCABULARIES.find(([n]) => n === namespace)?.[1] as string;
    put(target, `@${alias}.${term}`, value);
  };
  const restriction = (term: string, record: CsdlJsonObject): void => {
    if (Object.keys(record).length > 0) annotate(CAPABILITIES, term, record);
  };
  restriction('SearchRestrictions', c.searchable === ALL_CAPABILITIES.searchable ? {} : { Searchable: c.searchable });
  restriction('FilterRestrictions', {
    ...(c.filterable ? {} : { Filterable: false }),
    ...(c.nonFilterableProperties.size === 0 ? {} : { NonFilterableProperties: propertyPaths(c.nonFilterableProperties, '$PropertyPath') }),
  });
  restriction('SortRestrictions', {
    ...(c.sortable ? {} : { Sortable: false }),
    ...(c.nonSortableProperties.size === 0 ? {} : { NonSortableProperties: propertyPaths(c.nonSortableProperties, '$PropertyPath') }),
  });
  restriction('ExpandRestrictions', {
    ...(c.expandable ? {} : { Expandable: false }),
    ...(c.nonExpandableProperties.size === 0 ? {} : { NonExpandableProperties: propertyPaths(c.nonExpandableProperties, '$NavigationPropertyPath') }),
    ...(c.maxLevels === undefined ? {} : { MaxLevels: c.maxLevels }),
  });
  // The reader joins both lists; navigation paths are written as such.
  const navigationNames = new Set([...c.nonCountableProperties].filter((p) => set.type.navigation.has(p.split('/')[0] as string)));
  const propertyNames = new Set([...c.nonCountableProperties].filter((p) => !navigationNames.has(p)));
  restriction('CountRestrictions', {
    ...(c.countable ? {} : { Countable: false }),
    ...(propertyNames.size === 0 ? {} : { NonCountableProperties: propertyPaths(propertyNames, '$PropertyPath') }),
    ...(navigationNames.size === 0 ? {} : { NonCountableNavigationProperties: propertyPaths(navigationNames, '$NavigationPropertyPath') }),
  });
  if (!c.topSupported) annotate(CAPABILITIES, 'TopSupported', false);
  if (!c.skipSupported) annotate(CAPABILITIES, 'SkipSupported', false);
  if (c.maxTop !== undefined) annotate(ODATA_ENGINE_VOCABULARY, 'MaxTop', c.maxTop);
  // No transformation supported: $apply is off.
  if (!c.applySupported) annotate(AGGREGATION, 'ApplySupported', { Transformations: [] });
  // Custom aggregates of a set of `defineModel` (its `customAggregates`).
  for (const [key, value] of Object.entries(set.csdl ?? {})) {
    if (key.startsWith(`@${AGGREGATION}.CustomAggregate#`)) annotate(AGGREGATION, key.slice(AGGREGATION.length + 2), value);
  }
}

/**
 * Writes a model as a CSDL JSON document that `modelFromCsdl` reads back into an equal model.
 *
 * A model read from CSDL ({@link Model.schemas} present) is written as it was read: its version,
 * references, every schema with its elements in document order, its types from the model with
 * what their `csdl` fields kept (annotations, names as spelled), and its other elements and
 * annotations in their CSDL JSON form; `options` do not apply.
 *
 * A model built otherwise (`defineModel`) is written as CSDL JSON 4.01. Each namespace of the model's types is a schema (the model's own first, with its
 * alias); the entity sets are in one entity container (`Container`, or
 * {@link CsdlWriteOptions.containerName}) in the model's namespace. Capabilities that differ from
 * "everything allowed" are written as `Capabilities` vocabulary annotations on the sets (and a
 * per-set maximum `$top` as `ODataEngine.V1.MaxTop`), with `$Reference`s to the vocabularies.
 *
 * Not written, because no vocabulary term says them: the per-set list of non-selectable
 * properties, and property- or navigation-level restrictions other than `Core.Permissions`
 * `None` (a property that can be neither selected, filtered nor sorted).
 */
export function csdlJsonFromModel(model: Model, options: CsdlWriteOptions = {}): CsdlJsonObject {
  if (model.schemas !== undefined) {
    // A model read from CSDL: written as it was read.
    const document: CsdlJsonObject = { $Version: model.version ?? '4.01' };
    if (model.entityContainer !== undefined) put(document, '$EntityContainer', model.entityContainer);
    if (model.references !== undefined) put(document, '$Reference', model.references);
    for (const schema of model.schemas) put(document, schema.namespace, schemaJson(schema));
    return document;
  }
  const containerName = options.containerName ?? 'Container';
  const used = new Set<string>();
  const schemas = new Map<string, CsdlJsonObject>([[model.namespace, model.alias === undefined ? {} : { $Alias: model.alias }]]);
  const schema = (namespace: string): CsdlJsonObject => {
    let result = schemas.get(namespace);
    if (result === undefined) schemas.set(namespace, (result = {}));
    return result;
  };
  for (const type of model.types.values()) {
    put(schema(namespaceOf(type.qualifiedName)), type.name, type.kind === 'enum' ? enumJson(type) : structuredJson(type, used));
  }
  const container: CsdlJsonObject = { $Kind: 'EntityContainer' };
  for (const set of model.entitySets.values()) {
    const member = entitySetJson(set);
    capabilityAnnotations(set, member, used);
    put(container, set.name, member);
  }
  put(schema(model.namespace), containerName, container);

  const document: CsdlJsonObject = { $Version: '4.01', $EntityContainer: `${model.namespace}.${containerName}` };
  const references: CsdlJsonObject = {};
  for (const [namespace, alias, uri] of VOCABULARIES) {
    if (used.has(namespace)) put(references, uri, { $Include: [{ $Namespace: namespace, $Alias: alias }] });
  }
  if (Object.keys(references).length > 0) put(document, '$Reference', references);
  for (const [namespace, value] of schemas) put(document, namespace, value);
  return document;
}
