/**
 * The types of the rows a `$apply` transformation gives (Data Aggregation 3): structured types
 * made for the request, whose properties are the grouping properties (nested for paths through
 * complex and navigation properties), the aggregates' and computed aliases, or the input type's
 * own properties. Later transformations and the request's `$filter`, `$orderby` and `$select` bind
 * against them like against a model type.
 */
import type { EntitySet, Property, StructuredType, TypeReference } from '../../model/model.js';
import type { ExpressionType } from '../types.js';

/** A nullable, filterable, sortable, selectable property of an output type. */
export function outputProperty(name: string, type: TypeReference): Property {
  return { kind: 'property', name, type, collection: false, nullable: true, filterable: true, sortable: true, selectable: true };
}

/** The type reference of a value of `type` (a primitive or enum value of an aggregate or computed alias). */
export function referenceOf(type: ExpressionType): TypeReference | undefined {
  switch (type.kind) {
    case 'primitive':
    case 'enum':
    case 'complex':
    case 'entity':
      return type;
    default:
      return undefined;
  }
}

/** A complex type of the given properties, named after `name` (messages name it). */
export function outputType(name: string, properties: readonly Property[]): StructuredType {
  return {
    kind: 'complex',
    name,
    qualifiedName: name,
    baseType: undefined,
    derivedTypes: [],
    open: false,
    key: [],
    properties: new Map(properties.map((property) => [property.name, property])),
    navigation: new Map(),
  };
}

/**
 * `input` with more properties (`compute`): the same kind, key and navigation properties, so that
 * an entity with computed properties stays one (its navigation properties can still be followed).
 */
export function extendedType(input: StructuredType, added: readonly Property[]): StructuredType {
  const properties = new Map(input.properties);
  for (const property of added) properties.set(property.name, property);
  return { ...input, properties };
}

/**
 * Properties for values written at nested `names` (`[Product, Category, Name]`): the first name of
 * each path at the top, with a complex type holding the rest, paths sharing a first name merged.
 */
export function nestedProperties(paths: readonly { readonly names: readonly string[]; readonly leaf: TypeReference }[], prefix: string): Property[] {
  const order: string[] = [];
  const groups = new Map<string, { names: readonly string[]; leaf: TypeReference }[]>();
  const leaves = new Map<string, TypeReference>();
  for (const path of paths) {
    const [first, ...rest] = path.names as [string, ...string[]];
    if (!groups.has(first) && !leaves.has(first)) order.push(first);
    if (rest.length === 0) leaves.set(first, path.leaf);
    else groups.set(first, [...(groups.get(first) ?? []), { names: rest, leaf: path.leaf }]);
  }
  return order.map((name) => {
    const leaf = leaves.get(name);
    if (leaf !== undefined) return outputProperty(name, leaf);
    const nested = outputType(`${prefix}/${name}`, nestedProperties(groups.get(name) ?? [], `${prefix}/${name}`));
    return outputProperty(name, { kind: 'complex', type: nested });
  });
}

/** The collection-valued properties whose items come in no defined order (see {@link isUnordered}). */
const unordered = new WeakSet<Property>();

/**
 * Marks a collection-valued property of an output type whose items come in no defined order: the
 * rows of a `nest` or `addnested` pipeline that does not end in `orderby`, `top`, `skip` or a
 * ranking (Data Aggregation leaves the order of groups undefined). Returns the property.
 */
export function markUnordered(property: Property): Property {
  unordered.add(property);
  return property;
}

/** Whether a collection-valued property's items come in no defined order (compared as a multiset). */
export function isUnordered(property: Property): boolean {
  return unordered.has(property);
}

/**
 * What a structured property of an output type holds when it is an entity `$apply` wrote into the
 * row (a grouped single-valued navigation property with its key, Data Aggregation 3.2.3.1; the
 * node `rolluprecursive` puts into each row, 6.3): the entity's type and entity set. `$expand` of
 * such a property with options treats it as that entity of its set, identified by its key.
 */
export interface MadeEntity {
  readonly type: StructuredType;
  readonly set: EntitySet | undefined;
}

const madeEntities = new WeakMap<Property, MadeEntity>();

/** Marks `property` of an output type as holding an entity of `entity.type` (see {@link MadeEntity}). Returns the property. */
export function markMadeEntity(property: Property, entity: MadeEntity): Property {
  madeEntities.set(property, entity);
  return property;
}

/** The entity a property of an output type holds (see {@link MadeEntity}), if it holds one. */
export function madeEntity(property: Property): MadeEntity | undefined {
  return madeEntities.get(property);
}

/**
 * Marks the properties at `names` in `properties` (nested as {@link nestedProperties} places them)
 * that hold the entity `entity`: its value there has every key property of its type.
 */
export function markMadeEntityAt(properties: readonly Property[], names: readonly string[], entity: MadeEntity): void {
  let level: ReadonlyMap<string, Property> = new Map(properties.map((property) => [property.name, property]));
  for (const [i, name] of names.entries()) {
    const property = level.get(name);
    if (property === undefined || property.collection) return;
    const type = property.type;
    if (i === names.length - 1) {
      if (type.kind === 'entity' && type.type === entity.type) markMadeEntity(property, entity);
      else if (type.kind === 'complex' && entity.type.key.length > 0 && entity.type.key.every((key) => type.type.properties.has(key)))
        markMadeEntity(property, entity);
      return;
    }
    if (type.kind !== 'complex') return;
    level = type.type.properties;
  }
}
