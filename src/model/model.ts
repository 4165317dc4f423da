/**
 * The runtime model: what the binder checks a query against. Built by {@link defineModel} from
 * TypeScript, or by {@link modelFromCsdl} from an OData CSDL JSON document. All lookups are
 * `Map`s, so `__proto__` and `constructor` are ordinary names.
 */

import type { CsdlJson, CsdlJsonObject } from './csdl-json-types.js';

/** EDM primitive type names. */
export const PRIMITIVE_TYPES = [
  'Edm.Binary',
  'Edm.Boolean',
  'Edm.Byte',
  'Edm.Date',
  'Edm.DateTimeOffset',
  'Edm.Decimal',
  'Edm.Double',
  'Edm.Duration',
  'Edm.Guid',
  'Edm.Int16',
  'Edm.Int32',
  'Edm.Int64',
  'Edm.SByte',
  'Edm.Single',
  'Edm.Stream',
  'Edm.String',
  'Edm.TimeOfDay',
  'Edm.Untyped',
  'Edm.Geography',
  'Edm.GeographyPoint',
  'Edm.GeographyLineString',
  'Edm.GeographyPolygon',
  'Edm.GeographyMultiPoint',
  'Edm.GeographyMultiLineString',
  'Edm.GeographyMultiPolygon',
  'Edm.GeographyCollection',
  'Edm.Geometry',
  'Edm.GeometryPoint',
  'Edm.GeometryLineString',
  'Edm.GeometryPolygon',
  'Edm.GeometryMultiPoint',
  'Edm.GeometryMultiLineString',
  'Edm.GeometryMultiPolygon',
  'Edm.GeometryCollection',
] as const;

export type PrimitiveTypeName = (typeof PRIMITIVE_TYPES)[number];

const PRIMITIVES: ReadonlySet<string> = new Set(PRIMITIVE_TYPES);

export function isPrimitiveTypeName(name: string): name is PrimitiveTypeName {
  return PRIMITIVES.has(name);
}

/** An enumeration type; members map names to values. */
export interface EnumType {
  readonly kind: 'enum';
  readonly name: string;
  readonly qualifiedName: string;
  readonly underlyingType: 'Edm.Byte' | 'Edm.SByte' | 'Edm.Int16' | 'Edm.Int32' | 'Edm.Int64';
  readonly isFlags: boolean;
  readonly members: ReadonlyMap<string, bigint>;
  /**
   * What the type's CSDL JSON object says beyond the fields above, for the writers: its
   * annotations (`@Term#Qualifier`), its members' annotations (`Member@Term`); absent when
   * nothing (a model from `defineModel`). See {@link Model.schemas}.
   */
  readonly csdl?: CsdlJsonObject;
}

/** The type of a property, a parameter or an expression's element. */
export type TypeReference =
  | { readonly kind: 'primitive'; readonly name: PrimitiveTypeName }
  | { readonly kind: 'enum'; readonly type: EnumType }
  | { readonly kind: 'complex'; readonly type: StructuredType }
  | { readonly kind: 'entity'; readonly type: StructuredType };

/** A structural property. */
export interface Property {
  readonly kind: 'property';
  readonly name: string;
  readonly type: TypeReference;
  /** A collection of `type` values. */
  readonly collection: boolean;
  readonly nullable: boolean;
  /** Property-level capabilities; entity-set capabilities add to them. */
  readonly filterable: boolean;
  readonly sortable: boolean;
  readonly selectable: boolean;
  /**
   * The type facets CSDL declares for the property (CSDL 7.2), kept so that a model read from
   * metadata is written back with them; absent when none is declared. The engine does not
   * enforce them on values.
   */
  readonly facets?: PropertyFacets;
  /**
   * The type as the document declares it, when the engine maps it to another `type`: a type
   * definition (`type` is its underlying primitive type), or a built-in abstract or path type
   * that the engine does not query (`Edm.PrimitiveType`, `Edm.ComplexType`, `Edm.AnnotationPath`,
   * `Edm.PropertyPath`, `Edm.NavigationPropertyPath`, `Edm.AnyPropertyPath`,
   * `Edm.ModelElementPath`: `type` is `Edm.Untyped` or an abstract complex type, and the
   * property can be neither filtered nor sorted).
   */
  readonly declaredType?: string;
  /**
   * What the property's CSDL JSON object says beyond the fields above, for the writers: its
   * annotations (`@Term#Qualifier`, e.g. `@Core.Computed`), `$DefaultValue`, `$Unicode`, and the
   * type as written when it is alias-qualified (`$Type`); absent when nothing.
   */
  readonly csdl?: CsdlJsonObject;
}

/** Type facets of a property (CSDL JSON `$MaxLength`, `$Precision`, `$Scale`, `$SRID`). */
export interface PropertyFacets {
  readonly maxLength?: number;
  readonly precision?: number;
  readonly scale?: number | 'variable' | 'floating';
  readonly srid?: number | 'variable';
}

/** A navigation property. */
export interface NavigationProperty {
  readonly kind: 'navigation';
  readonly name: string;
  readonly target: StructuredType;
  readonly collection: boolean;
  readonly nullable: boolean;
  /** Referential constraints: `property` of this type refers to `referencedProperty` of the target. */
  readonly constraints: readonly { readonly property: string; readonly referencedProperty: string }[];
  readonly partner: string | undefined;
  /**
   * `ContainsTarget` in CSDL: the targets are contained in the entity they are reached from
   * (they have no entity set of their own, and are stored with their container); present, as
   * `true`, only when declared.
   */
  readonly containsTarget?: true;
  readonly filterable: boolean;
  readonly expandable: boolean;
  /**
   * What the navigation property's CSDL JSON object says beyond the fields above, for the
   * writers: annotations, `$OnDelete`, annotated referential constraints, the type as written
   * (alias-qualified, or the abstract `Edm.EntityType`, which the engine neither filters nor
   * expands); absent when nothing.
   */
  readonly csdl?: CsdlJsonObject;
}

/** An entity or complex type. */
export interface StructuredType {
  readonly kind: 'entity' | 'complex';
  readonly name: string;
  readonly qualifiedName: string;
  readonly baseType: StructuredType | undefined;
  /** The types whose base type this one is. */
  readonly derivedTypes: readonly StructuredType[];
  readonly open: boolean;
  /** `Abstract` in CSDL (no instance is of this very type); present, as `true`, only when declared. */
  readonly abstract?: true;
  /** `HasStream` in CSDL (a media entity type); present, as `true`, only when declared. */
  readonly hasStream?: true;
  /** Key property names (entity types; inherited from the base type when absent). */
  readonly key: readonly string[];
  /**
   * Declared and inherited structural properties, by name; inherited ones first when iterated. A
   * model built by this library shares the base type's properties rather than copying them.
   */
  readonly properties: ReadonlyMap<string, Property>;
  /** Declared and inherited navigation properties, by name (shared with the base type, like `properties`). */
  readonly navigation: ReadonlyMap<string, NavigationProperty>;
  /**
   * What the type's CSDL JSON object says beyond the fields above, for the writers: annotations,
   * key aliases (`$Key`), the base type as written (`$BaseType` when alias-qualified); absent
   * when nothing.
   */
  readonly csdl?: CsdlJsonObject;
}

/** What an entity set allows (Capabilities vocabulary, and ASP.NET-style per-operation limits). */
export interface Capabilities {
  readonly searchable: boolean;
  readonly filterable: boolean;
  readonly nonFilterableProperties: ReadonlySet<string>;
  readonly sortable: boolean;
  readonly nonSortableProperties: ReadonlySet<string>;
  readonly nonSelectableProperties: ReadonlySet<string>;
  readonly expandable: boolean;
  readonly nonExpandableProperties: ReadonlySet<string>;
  /** `ExpandRestrictions/MaxLevels`; `undefined` means no model-level limit. */
  readonly maxLevels: number | undefined;
  readonly topSupported: boolean;
  readonly skipSupported: boolean;
  readonly countable: boolean;
  readonly nonCountableProperties: ReadonlySet<string>;
  /** A per-set maximum `$top` (lower than the host-wide one to matter). */
  readonly maxTop: number | undefined;
  /** Whether `$apply` is allowed (the Aggregation vocabulary's `ApplySupported`; default `true`). */
  readonly applySupported: boolean;
}

export interface EntitySet {
  readonly name: string;
  readonly type: StructuredType;
  readonly capabilities: Capabilities;
  /** Navigation property bindings: navigation path → target entity set name. */
  readonly bindings: ReadonlyMap<string, string>;
  /**
   * For the implicit set of contained entities (`containedSet`): the type that declares the
   * containment navigation property, and the property. Absent for the sets of the model.
   */
  readonly container?: { readonly type: StructuredType; readonly navigation: NavigationProperty };
  /**
   * What the set's CSDL JSON object says beyond the fields above, for the writers: all its
   * annotations as written (the Capabilities ones included; `capabilities` is read from them),
   * `$IncludeInServiceDocument`, bindings and type as written; absent when nothing.
   */
  readonly csdl?: CsdlJsonObject;
}

/**
 * A member of a schema read from CSDL, in document order: a type of {@link Model.types}, the
 * entity container, or any other element in its CSDL JSON form (a type definition, a term, the
 * overloads of an action or function as an array).
 */
export type SchemaElement =
  | { readonly kind: 'type'; readonly type: EnumType | StructuredType }
  | { readonly kind: 'container'; readonly container: EntityContainer }
  | { readonly kind: 'csdl'; readonly csdl: CsdlJson };

/** A member of an entity container, in document order: an entity set of {@link Model.entitySets}, or another member (a singleton, an action or function import) in its CSDL JSON form. */
export type ContainerMember = { readonly kind: 'entitySet'; readonly entitySet: EntitySet } | { readonly kind: 'csdl'; readonly csdl: CsdlJsonObject };

/** The entity container of a schema read from CSDL. */
export interface EntityContainer {
  readonly name: string;
  /** Its members by name, in document order (singletons, action and function imports in CSDL JSON form). */
  readonly members: ReadonlyMap<string, ContainerMember>;
  /** The rest of its CSDL JSON object: annotations, `$Extends`. */
  readonly csdl: CsdlJsonObject;
}

/** A schema of a model read from CSDL: every element it declares, in document order. */
export interface Schema {
  readonly namespace: string;
  /** Its elements by name, in document order. */
  readonly elements: ReadonlyMap<string, SchemaElement>;
  /**
   * The rest of its CSDL JSON object: `$Alias`, its own annotations (`@Term`), and its
   * annotations with external targeting (`$Annotations`, by target path, as CSDL JSON merges
   * the XML `<Annotations>` blocks of one target).
   */
  readonly csdl: CsdlJsonObject;
}

/** A resolved, checked model. */
export interface Model {
  readonly namespace: string;
  /** Alias of the namespace, if any (CSDL `$Alias`). */
  readonly alias: string | undefined;
  /** Enum, complex and entity types by qualified name. */
  readonly types: ReadonlyMap<string, EnumType | StructuredType>;
  readonly entitySets: ReadonlyMap<string, EntitySet>;
  /** The CSDL version of the document the model was read from (`4.0` or `4.01`); absent for a model from `defineModel`. */
  readonly version?: '4.0' | '4.01';
  /** `$EntityContainer`: the qualified name of the document's entity container, as written. */
  readonly entityContainer?: string;
  /** The document's references to other documents (`edmx:Reference`, with their includes and annotations), in CSDL JSON form (`$Reference`). */
  readonly references?: CsdlJsonObject;
  /**
   * Every schema of the document the model was read from, in document order, with every element
   * (types, type definitions, terms, actions and functions with their overloads, the entity
   * container with its singletons and imports) and every annotation, inline or external. The
   * writers write a model read from CSDL from them; absent for a model from `defineModel`.
   */
  readonly schemas?: readonly Schema[];
}

export const ALL_CAPABILITIES: Capabilities = Object.freeze({
  searchable: true,
  filterable: true,
  nonFilterableProperties: new Set<string>(),
  sortable: true,
  nonSortableProperties: new Set<string>(),
  nonSelectableProperties: new Set<string>(),
  expandable: true,
  nonExpandableProperties: new Set<string>(),
  maxLevels: undefined,
  topSupported: true,
  skipSupported: true,
  countable: true,
  nonCountableProperties: new Set<string>(),
  maxTop: undefined,
  applySupported: true,
});

/**
 * Finds a type by qualified name, by the namespace alias, or by its simple name when that is
 * unambiguous in the model.
 */
export function findType(model: Model, name: string): EnumType | StructuredType | undefined {
  const direct = model.types.get(name);
  if (direct !== undefined) return direct;
  if (model.alias !== undefined && name.startsWith(`${model.alias}.`)) {
    return model.types.get(`${model.namespace}.${name.slice(model.alias.length + 1)}`);
  }
  if (!name.includes('.')) return model.types.get(`${model.namespace}.${name}`);
  return undefined;
}

/**
 * Whether an instance that names its own type `name` (a payload's `@odata.type`, `#` optional,
 * qualified by the namespace) is of `type`: the name is `type`'s or a type's derived from it.
 */
export function namesInstanceOf(name: string, type: StructuredType): boolean {
  const bare = name.startsWith('#') ? name.slice(1) : name;
  const visit = (t: StructuredType): boolean => t.qualifiedName === bare || t.derivedTypes.some(visit);
  return visit(type);
}

/** True if `type` is `base` or derives from it. */
export function derivesFrom(type: StructuredType, base: StructuredType): boolean {
  for (let current: StructuredType | undefined = type; current !== undefined; current = current.baseType) {
    if (current === base) return true;
  }
  return false;
}
