/**
 * `defineModel`: a model written in TypeScript. The definition is checked by the compiler as
 * far as TypeScript can (key names, constraint names and entity-set restrictions autocomplete
 * from the declared properties) and at run time by `buildModel`.
 *
 * @example
 * ```ts
 * const model = defineModel({
 *   namespace: 'Assets',
 *   enumTypes: { AssetStatus: ['active', 'maintenance', 'retired'] },
 *   entityTypes: {
 *     Locality: { key: ['id'], properties: { id: 'Edm.Guid', name: 'Edm.String' } },
 *     Asset: {
 *       key: ['id'],
 *       properties: { id: 'Edm.Guid', code: 'Edm.String', name: 'Edm.String', localityId: 'Edm.Guid', status: 'AssetStatus' },
 *       navigation: { locality: { type: 'Locality', constraints: { localityId: 'id' } } },
 *     },
 *   },
 *   entitySets: { assets: { type: 'Asset', maxTop: 100 }, localities: { type: 'Locality' } },
 * });
 * ```
 */
import type { Capabilities, EnumType, Model, PrimitiveTypeName } from './model.js';
import { ODataError } from '../errors/odata-error.js';
import type { CsdlJsonObject } from './csdl-json-types.js';
import { buildModel, modelError, type EntitySetSpec, type EnumTypeSpec, type ModelSpec, type StructuredTypeSpec } from './build-model.js';

/** A property: a type name (`'Edm.String'`, `'AssetStatus'`, `'Collection(Edm.String)'`) or an object with options. */
export type PropertyDefinition<TypeName extends string = string> =
  | TypeName
  | {
      readonly type: TypeName;
      /** Default `true`; key properties are never null. */
      readonly nullable?: boolean;
      /** `false` rejects the property in `$filter`. */
      readonly filterable?: boolean;
      /** `false` rejects the property in `$orderby`. */
      readonly sortable?: boolean;
      /** `false` rejects the property in `$select`. */
      readonly selectable?: boolean;
    };

/** A navigation property to `type` (an entity type name) or `Collection(type)`. */
export interface NavigationDefinition<Properties extends string = string> {
  readonly type: string;
  readonly nullable?: boolean;
  /** Referential constraints: this type's property → the target's property. */
  readonly constraints?: Readonly<Partial<Record<Properties, string>>>;
  readonly partner?: string;
  /** The targets are contained in this entity (CSDL `ContainsTarget`): they have no entity set of their own. */
  readonly containsTarget?: boolean;
  /** `false` rejects paths through it in `$filter`. */
  readonly filterable?: boolean;
  /** `false` rejects it in `$expand`. */
  readonly expandable?: boolean;
}

type TypeNames = PrimitiveTypeName | `Collection(${PrimitiveTypeName})` | (string & {});

export interface StructuredTypeDefinition<P extends Record<string, PropertyDefinition<TypeNames>> = Record<string, PropertyDefinition<TypeNames>>> {
  readonly properties: P;
  readonly navigation?: Readonly<Record<string, NavigationDefinition<Extract<keyof P, string>>>>;
  readonly baseType?: string;
  readonly open?: boolean;
}

export interface EntityTypeDefinition<
  P extends Record<string, PropertyDefinition<TypeNames>> = Record<string, PropertyDefinition<TypeNames>>,
> extends StructuredTypeDefinition<P> {
  /** Key property names; may be omitted on a derived type. */
  readonly key?: readonly Extract<keyof P, string>[];
  /**
   * Recursive hierarchies of the type's entities, by qualifier (the `Aggregation.RecursiveHierarchy`
   * annotation, Data Aggregation 5.5.2): the property path of a node's identifier, and the
   * navigation property to its parent. `$apply`'s `ancestors`, `descendants` and `traverse` name them.
   */
  readonly recursiveHierarchies?: Readonly<Record<string, { readonly nodeProperty: string; readonly parentNavigationProperty: string }>>;
}

/** An enum: member names (values 0, 1, 2, …) or a name → value record, optionally flags. */
export type EnumDefinition =
  | readonly string[]
  | {
      readonly members: readonly string[] | Readonly<Record<string, number | bigint>>;
      readonly flags?: boolean;
      readonly underlyingType?: EnumType['underlyingType'];
    };

type PropertyNames<T> = T extends { readonly properties: infer P } ? Extract<keyof P, string> : never;
type NavigationNames<T> = T extends { readonly navigation?: infer N } ? (N extends object ? Extract<keyof N, string> : never) : never;

/** An entity set of entity type `TypeName`, with its query restrictions. */
export type EntitySetDefinition<Types extends Record<string, EntityTypeDefinition>> = {
  [TypeName in Extract<keyof Types, string>]: {
    readonly type: TypeName;
    /** Per-set maximum `$top` (the lower of this and the host-wide maximum wins). */
    readonly maxTop?: number;
    /** `false`: `$search` is rejected. Default `true`. */
    readonly searchable?: boolean;
    readonly filterable?: boolean;
    readonly sortable?: boolean;
    readonly expandable?: boolean;
    readonly countable?: boolean;
    readonly topSupported?: boolean;
    readonly skipSupported?: boolean;
    /** `false`: `$apply` is rejected. Default `true`. */
    readonly applySupported?: boolean;
    readonly maxLevels?: number;
    readonly nonFilterable?: readonly PropertyNames<Types[TypeName]>[];
    readonly nonSortable?: readonly PropertyNames<Types[TypeName]>[];
    readonly nonSelectable?: readonly PropertyNames<Types[TypeName]>[];
    readonly nonExpandable?: readonly NavigationNames<Types[TypeName]>[];
    readonly nonCountable?: readonly (PropertyNames<Types[TypeName]> | NavigationNames<Types[TypeName]>)[];
    /**
     * Navigation property bindings (CSDL `NavigationPropertyBinding`): navigation path → the
     * entity set of its targets. Needed when several entity sets have the target type; without a
     * binding the one entity set of the target type is used.
     */
    readonly bindings?: Readonly<Partial<Record<NavigationNames<Types[TypeName]>, string>> & Record<string, string>>;
    /**
     * Custom aggregates of the set (`Aggregation.CustomAggregate`, Data Aggregation 6.2): name →
     * the primitive type of its values. How each is computed is the service's:
     * `BindSettings.customAggregates` (docs/aggregation.md).
     */
    readonly customAggregates?: Readonly<Record<string, PrimitiveTypeName>>;
  };
}[Extract<keyof Types, string>];

export interface ModelDefinition<Types extends Record<string, EntityTypeDefinition> = Record<string, EntityTypeDefinition>> {
  readonly namespace: string;
  readonly enumTypes?: Readonly<Record<string, EnumDefinition>>;
  readonly complexTypes?: Readonly<Record<string, StructuredTypeDefinition>>;
  readonly entityTypes: Types;
  readonly entitySets: Readonly<Record<string, EntitySetDefinition<Types>>>;
}

/** A model with the names of its entity sets in its type, for autocompletion of `entitySet`. */
export interface TypedModel<EntitySetName extends string> extends Model {
  /** Phantom member carrying the entity set names; never set at run time. */
  readonly __entitySets?: EntitySetName;
}

function propertySpec(name: string, definition: PropertyDefinition, isKey: boolean) {
  const base = typeof definition === 'string' ? { type: definition } : definition;
  return { ...base, name, nullable: isKey ? false : (base.nullable ?? true) };
}

function structuredSpec(kind: 'entity' | 'complex', name: string, definition: EntityTypeDefinition): StructuredTypeSpec {
  const key = definition.key ?? [];
  return {
    kind,
    name,
    ...(definition.baseType === undefined ? {} : { baseType: definition.baseType }),
    ...(definition.open === undefined ? {} : { open: definition.open }),
    ...(definition.recursiveHierarchies === undefined
      ? {}
      : {
          csdl: Object.fromEntries(
            Object.entries(definition.recursiveHierarchies).map(([qualifier, h]) => [
              `@Aggregation.RecursiveHierarchy#${qualifier}`,
              { NodeProperty: { $PropertyPath: h.nodeProperty }, ParentNavigationProperty: { $NavigationPropertyPath: h.parentNavigationProperty } },
            ]),
          ),
        }),
    key,
    properties: Object.entries(definition.properties).map(([p, d]) => propertySpec(p, d, key.includes(p))),
    navigation: Object.entries(definition.navigation ?? {}).map(([n, d]) => ({
      name: n,
      type: d.type,
      ...(d.nullable === undefined ? {} : { nullable: d.nullable }),
      ...(d.constraints === undefined ? {} : { constraints: d.constraints as Record<string, string> }),
      ...(d.partner === undefined ? {} : { partner: d.partner }),
      ...(d.containsTarget === undefined ? {} : { containsTarget: d.containsTarget }),
      ...(d.filterable === undefined ? {} : { filterable: d.filterable }),
      ...(d.expandable === undefined ? {} : { expandable: d.expandable }),
    })),
  };
}

function enumSpec(name: string, definition: EnumDefinition): EnumTypeSpec {
  const asObject = Array.isArray(definition) ? { members: definition as readonly string[] } : (definition as Exclude<EnumDefinition, readonly string[]>);
  const flags = asObject.flags ?? false;
  const members: (readonly [string, bigint])[] = Array.isArray(asObject.members)
    ? (asObject.members as readonly string[]).map((member, index) => [member, flags ? 1n << BigInt(index) : BigInt(index)] as const)
    : Object.entries(asObject.members as Record<string, number | bigint>).map(([member, value]) => [member, BigInt(value)] as const);
  return { name, isFlags: flags, members, ...(asObject.underlyingType === undefined ? {} : { underlyingType: asObject.underlyingType }) };
}

/** The Aggregation vocabulary's namespace (of `customAggregates`). */
const AGGREGATION = 'Org.OData.Aggregation.V1';

function setSpec(name: string, definition: EntitySetDefinition<Record<string, EntityTypeDefinition>>): EntitySetSpec {
  const capabilities: Partial<Capabilities> = {
    ...(definition.maxTop === undefined ? {} : { maxTop: definition.maxTop }),
    ...(definition.searchable === undefined ? {} : { searchable: definition.searchable }),
    ...(definition.filterable === undefined ? {} : { filterable: definition.filterable }),
    ...(definition.sortable === undefined ? {} : { sortable: definition.sortable }),
    ...(definition.expandable === undefined ? {} : { expandable: definition.expandable }),
    ...(definition.countable === undefined ? {} : { countable: definition.countable }),
    ...(definition.topSupported === undefined ? {} : { topSupported: definition.topSupported }),
    ...(definition.skipSupported === undefined ? {} : { skipSupported: definition.skipSupported }),
    ...(definition.maxLevels === undefined ? {} : { maxLevels: definition.maxLevels }),
    ...(definition.applySupported === undefined ? {} : { applySupported: definition.applySupported }),
    nonFilterableProperties: new Set(definition.nonFilterable ?? []),
    nonSortableProperties: new Set(definition.nonSortable ?? []),
    nonSelectableProperties: new Set(definition.nonSelectable ?? []),
    nonExpandableProperties: new Set(definition.nonExpandable ?? []),
    nonCountableProperties: new Set(definition.nonCountable ?? []),
  };
  // Custom aggregates: the annotations a CSDL document would have (model/custom-aggregates.ts reads them).
  const custom = Object.entries(definition.customAggregates ?? {}).map(([aggregate, type]) => [`@${AGGREGATION}.CustomAggregate#${aggregate}`, type]);
  return {
    name,
    type: definition.type,
    capabilities,
    ...(definition.bindings === undefined ? {} : { bindings: definition.bindings }),
    ...(custom.length === 0 ? {} : { csdl: Object.fromEntries(custom) as CsdlJsonObject }),
  };
}

/**
 * Defines a model in TypeScript. Type names may be simple (`'Asset'`) or qualified with the
 * namespace; primitive types are `Edm.*`; `Collection(…)` makes a collection.
 *
 * @throws {ODataError} `invalid_model` (status 500) when a name does not resolve or the definition
 *   is malformed (it may come from untyped input).
 */
export function defineModel<const Types extends Record<string, EntityTypeDefinition>>(
  definition: ModelDefinition<Types> & {
    readonly entityTypes: { readonly [K in keyof Types]: { readonly key?: readonly PropertyNames<Types[K]>[] } };
  },
): TypedModel<Extract<keyof typeof definition.entitySets, string>> {
  try {
    const model = buildModel(specOf(definition as ModelDefinition<Types>));
    for (const set of model.entitySets.values()) {
      for (const [path, target] of set.bindings) {
        const bound = model.entitySets.get(target);
        if (bound === undefined)
          throw modelError(`The binding '${path}' of entity set '${set.name}' names '${target}', which is not an entity set of the model`);
      }
    }
    return model;
  } catch (error) {
    // A definition read from untyped input (JSON, JavaScript) may have any shape: still an invalid_model.
    if (error instanceof ODataError) throw error;
    throw modelError(
      `The model definition is malformed (${error instanceof Error ? error.message : String(error)}); see the ModelDefinition type for its shape`,
    );
  }
}

function specOf<Types extends Record<string, EntityTypeDefinition>>(definition: ModelDefinition<Types>): ModelSpec {
  if (definition === null || typeof definition !== 'object') throw modelError('The model definition must be an object');
  if (typeof definition.namespace !== 'string' || definition.namespace === '') throw modelError('The model definition needs a namespace (a non-empty string)');
  return {
    namespace: definition.namespace,
    enums: Object.entries(definition.enumTypes ?? {}).map(([name, d]) => enumSpec(name, d)),
    structuredTypes: [
      ...Object.entries(definition.complexTypes ?? {}).map(([name, d]) => structuredSpec('complex', name, d)),
      ...Object.entries(definition.entityTypes).map(([name, d]) => structuredSpec('entity', name, d as EntityTypeDefinition)),
    ],
    entitySets: Object.entries(definition.entitySets).map(([name, d]) => setSpec(name, d as EntitySetDefinition<Record<string, EntityTypeDefinition>>)),
  };
}
