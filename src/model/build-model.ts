/**
 * Builds a checked {@link Model} from a neutral description. Both model front ends
 * (`defineModel` for TypeScript, `modelFromCsdl` for CSDL JSON) produce a {@link ModelSpec}
 * and call {@link buildModel}, so they resolve and check types the same way.
 */
import { ODataError } from '../errors/odata-error.js';
import {
  ALL_CAPABILITIES,
  isPrimitiveTypeName,
  type Capabilities,
  type EntitySet,
  type EnumType,
  type Model,
  type NavigationProperty,
  type Property,
  type PropertyFacets,
  type StructuredType,
  type TypeReference,
} from './model.js';
import { InheritedMap, MAX_DERIVATION_DEPTH } from './inherited-map.js';
import { recordDeclaringType } from './navigation.js';
import type { CsdlJsonObject } from './csdl-json-types.js';

export interface PropertySpec {
  readonly name: string;
  /** `Edm.String`, `Ns.Type`, a simple type name of the model, or `Collection(…)` of one. */
  readonly type: string;
  readonly nullable?: boolean;
  readonly filterable?: boolean;
  readonly sortable?: boolean;
  readonly selectable?: boolean;
  readonly facets?: PropertyFacets;
  /** See {@link Property.declaredType}. */
  readonly declaredType?: string;
  /** See {@link Property.csdl}. */
  readonly csdl?: CsdlJsonObject;
}

export interface NavigationSpec {
  readonly name: string;
  /** The target entity type, or `Collection(…)` of it. */
  readonly type: string;
  readonly nullable?: boolean;
  /** Dependent property → principal (target) property. */
  readonly constraints?: Readonly<Record<string, string>>;
  readonly partner?: string;
  readonly containsTarget?: boolean;
  readonly filterable?: boolean;
  readonly expandable?: boolean;
  /** See {@link NavigationProperty.csdl}. */
  readonly csdl?: CsdlJsonObject;
}

export interface StructuredTypeSpec {
  readonly kind: 'entity' | 'complex';
  readonly name: string;
  readonly baseType?: string;
  readonly open?: boolean;
  readonly abstract?: boolean;
  readonly hasStream?: boolean;
  readonly key?: readonly string[];
  readonly properties: readonly PropertySpec[];
  readonly navigation: readonly NavigationSpec[];
  /** See {@link StructuredType.csdl}. */
  readonly csdl?: CsdlJsonObject;
}

export interface EnumTypeSpec {
  readonly name: string;
  readonly underlyingType?: EnumType['underlyingType'];
  readonly isFlags?: boolean;
  readonly members: readonly (readonly [string, bigint | number])[];
  /** See {@link EnumType.csdl}. */
  readonly csdl?: CsdlJsonObject;
}

export interface EntitySetSpec {
  readonly name: string;
  readonly type: string;
  readonly capabilities?: Partial<Capabilities>;
  readonly bindings?: Readonly<Record<string, string>>;
  /** See {@link EntitySet.csdl}. */
  readonly csdl?: CsdlJsonObject;
}

export interface ModelSpec {
  readonly namespace: string;
  readonly alias?: string;
  readonly enums: readonly EnumTypeSpec[];
  readonly structuredTypes: readonly StructuredTypeSpec[];
  readonly entitySets: readonly EntitySetSpec[];
}

export function modelError(reason: string): ODataError {
  return new ODataError({ code: 'invalid_model', status: 500, reason });
}

interface MutableStructured {
  kind: 'entity' | 'complex';
  name: string;
  qualifiedName: string;
  baseType: StructuredType | undefined;
  derivedTypes: StructuredType[];
  open: boolean;
  abstract?: true;
  hasStream?: true;
  csdl?: CsdlJsonObject;
  key: readonly string[];
  properties: InheritedMap<Property>;
  navigation: InheritedMap<NavigationProperty>;
}

const COLLECTION = /^Collection\((.+)\)$/;

/**
 * The built-in abstract primitive type and the path types of vocabulary terms (CSDL 4.01 4.3,
 * 4.4): a property of such a type is read as `Edm.Untyped` that can be neither filtered nor
 * sorted (the engine does not query them).
 */
const ABSTRACT_PRIMITIVE_TYPES: ReadonlySet<string> = new Set([
  'Edm.PrimitiveType',
  'Edm.AnnotationPath',
  'Edm.PropertyPath',
  'Edm.NavigationPropertyPath',
  'Edm.AnyPropertyPath',
  'Edm.ModelElementPath',
]);

/** The built-in abstract structured types (CSDL 4.01 4.3): a structured type without members that the engine neither filters, sorts nor expands. */
function abstractStructuredType(kind: 'entity' | 'complex'): StructuredType {
  const name = kind === 'entity' ? 'EntityType' : 'ComplexType';
  return {
    kind,
    name,
    qualifiedName: `Edm.${name}`,
    baseType: undefined,
    derivedTypes: [],
    open: false,
    abstract: true,
    key: [],
    properties: new InheritedMap<Property>(undefined),
    navigation: new InheritedMap<NavigationProperty>(undefined),
  };
}

/** Resolves and checks a model description. Throws an `invalid_model` ODataError (status 500). */
export function buildModel(spec: ModelSpec): Model {
  const { namespace, alias } = spec;
  const types = new Map<string, EnumType | StructuredType>();
  const qualify = (name: string): string => {
    if (alias !== undefined && name.startsWith(`${alias}.`)) return `${namespace}.${name.slice(alias.length + 1)}`;
    return name.includes('.') ? name : `${namespace}.${name}`;
  };

  for (const e of spec.enums) {
    const members = new Map<string, bigint>();
    let next = 0n;
    for (const [name, value] of e.members) {
      members.set(name, value === undefined ? next : BigInt(value));
      next = (members.get(name) as bigint) + 1n;
    }
    const type: EnumType = {
      kind: 'enum',
      name: simpleName(e.name),
      qualifiedName: qualify(e.name),
      underlyingType: e.underlyingType ?? 'Edm.Int32',
      isFlags: e.isFlags ?? false,
      members,
      ...(e.csdl === undefined ? {} : { csdl: e.csdl }),
    };
    addType(types, type);
  }
  const shells = new Map<string, MutableStructured>();
  for (const s of spec.structuredTypes) {
    const shell: MutableStructured = {
      kind: s.kind,
      name: simpleName(s.name),
      qualifiedName: qualify(s.name),
      baseType: undefined,
      derivedTypes: [],
      open: s.open ?? false,
      ...(s.abstract === true ? { abstract: true as const } : {}),
      ...(s.hasStream === true ? { hasStream: true as const } : {}),
      ...(s.csdl === undefined ? {} : { csdl: s.csdl }),
      key: s.key ?? [],
      properties: new InheritedMap<Property>(undefined),
      navigation: new InheritedMap<NavigationProperty>(undefined),
    };
    shells.set(shell.qualifiedName, shell);
    addType(types, shell as StructuredType);
  }

  const abstractTypes = new Map<'entity' | 'complex', StructuredType>();
  const abstractType = (kind: 'entity' | 'complex'): StructuredType => {
    let type = abstractTypes.get(kind);
    if (type === undefined) abstractTypes.set(kind, (type = abstractStructuredType(kind)));
    return type;
  };
  const resolve = (name: string, where: string): TypeReference => {
    if (isPrimitiveTypeName(name)) return { kind: 'primitive', name };
    if (ABSTRACT_PRIMITIVE_TYPES.has(name)) return { kind: 'primitive', name: 'Edm.Untyped' };
    if (name === 'Edm.ComplexType') return { kind: 'complex', type: abstractType('complex') };
    if (name === 'Edm.EntityType') return { kind: 'entity', type: abstractType('entity') };
    const type = types.get(qualify(name));
    if (type === undefined) throw modelError(`Unknown type '${name}' in ${where}`);
    if (type.kind === 'enum') return { kind: 'enum', type };
    return type.kind === 'entity' ? { kind: 'entity', type } : { kind: 'complex', type };
  };

  // Base types first, in dependency order, so that inherited members come before declared ones.
  // Each type is resolved once, without recursion: the walk up from a type stops at the first
  // resolved base type, and the members of a base type are shared, not copied (InheritedMap).
  const specs = new Map(spec.structuredTypes.map((t) => [qualify(t.name), t]));
  const depths = new Map<MutableStructured, number>();
  /** Types in the order they were resolved: each after its base type. */
  const ordered: [MutableStructured, StructuredTypeSpec][] = [];
  for (const s of spec.structuredTypes) {
    const start = shells.get(qualify(s.name)) as MutableStructured;
    if (depths.has(start)) continue;
    // The types up to the first resolved one (or a type without a base type), derived ones first.
    const pending: [MutableStructured, StructuredTypeSpec][] = [];
    const onTrail = new Set<MutableStructured>();
    let current: [MutableStructured, StructuredTypeSpec] | undefined = [start, specs.get(start.qualifiedName) as StructuredTypeSpec];
    while (current !== undefined && !depths.has(current[0])) {
      const [shell, currentSpec] = current;
      if (onTrail.has(shell)) throw modelError(`Type '${shell.qualifiedName}' derives from itself`);
      onTrail.add(shell);
      pending.push(current);
      if (currentSpec.baseType === undefined) break;
      const base = shells.get(qualify(currentSpec.baseType));
      if (base === undefined) throw modelError(`Unknown base type '${currentSpec.baseType}' of '${shell.qualifiedName}'`);
      current = [base, specs.get(base.qualifiedName) as StructuredTypeSpec];
    }
    for (let i = pending.length - 1; i >= 0; i--) {
      const [shell, s] = pending[i] as [MutableStructured, StructuredTypeSpec];
      const base = s.baseType === undefined ? undefined : (shells.get(qualify(s.baseType)) as MutableStructured);
      const depth = base === undefined ? 0 : (depths.get(base) as number) + 1;
      if (depth > MAX_DERIVATION_DEPTH) {
        throw modelError(
          `Type '${shell.qualifiedName}' has more than ${MAX_DERIVATION_DEPTH} base types above it (a chain of derived types deeper than the limit of ${MAX_DERIVATION_DEPTH})`,
        );
      }
      depths.set(shell, depth);
      shell.properties = new InheritedMap(base?.properties);
      shell.navigation = new InheritedMap(base?.navigation);
      if (base !== undefined) {
        shell.baseType = base as StructuredType;
        base.derivedTypes.push(shell as StructuredType);
        if (shell.key.length === 0) shell.key = base.key;
        shell.open ||= base.open;
      }
      ordered.push([shell, s]);
      fillProperties(shell, s);
    }
  }

  function fillProperties(shell: MutableStructured, s: StructuredTypeSpec): void {
    // Key properties are never null (CSDL 8.3.1), unless stated otherwise.
    const keyNames = new Set(s.key ?? []);
    for (const p of s.properties) {
      const where = `property '${p.name}' of '${shell.qualifiedName}'`;
      if (shell.properties.has(p.name) || shell.navigation.has(p.name)) throw modelError(`Duplicate member '${p.name}' in '${shell.qualifiedName}'`);
      const match = COLLECTION.exec(p.type);
      const typeName = match ? (match[1] as string) : p.type;
      const type = resolve(typeName, where);
      if (type.kind === 'entity') throw modelError(`${where} has an entity type; use a navigation property`);
      // A built-in abstract type: read, but not queried.
      const abstract = ABSTRACT_PRIMITIVE_TYPES.has(typeName) || typeName === 'Edm.ComplexType';
      const declaredType = p.declaredType ?? (ABSTRACT_PRIMITIVE_TYPES.has(typeName) ? typeName : undefined);
      shell.properties.declare(p.name, {
        kind: 'property',
        name: p.name,
        type,
        collection: match !== null,
        nullable: p.nullable ?? !keyNames.has(p.name),
        filterable: abstract ? false : (p.filterable ?? true),
        sortable: abstract ? false : (p.sortable ?? true),
        selectable: p.selectable ?? true,
        ...(p.facets === undefined ? {} : { facets: p.facets }),
        ...(declaredType === undefined ? {} : { declaredType }),
        ...(p.csdl === undefined ? {} : { csdl: p.csdl }),
      });
    }
  }

  // Navigation properties after all structural ones, so that constraints can be checked; base
  // types before derived ones, so that a name declared by both is found.
  for (const [shell, s] of ordered) {
    for (const n of s.navigation) {
      const where = `navigation property '${n.name}' of '${shell.qualifiedName}'`;
      if (shell.properties.has(n.name) || shell.navigation.has(n.name)) throw modelError(`Duplicate member '${n.name}' in '${shell.qualifiedName}'`);
      const match = COLLECTION.exec(n.type);
      const target = resolve(match ? (match[1] as string) : n.type, where);
      if (target.kind !== 'entity') throw modelError(`${where} must target an entity type`);
      const abstract = target.type === abstractTypes.get('entity');
      const constraints = Object.entries(n.constraints ?? {}).map(([property, referencedProperty]) => {
        if (!shell.properties.has(property)) throw modelError(`${where}: constraint property '${property}' does not exist`);
        if (!target.type.properties.has(referencedProperty)) {
          throw modelError(`${where}: referenced property '${referencedProperty}' does not exist on '${target.type.qualifiedName}'`);
        }
        return { property, referencedProperty };
      });
      const declared: NavigationProperty = {
        kind: 'navigation',
        name: n.name,
        target: target.type,
        collection: match !== null,
        nullable: n.nullable ?? match === null,
        constraints,
        partner: n.partner,
        ...(n.containsTarget === true ? { containsTarget: true as const } : {}),
        filterable: abstract ? false : (n.filterable ?? true),
        expandable: abstract ? false : (n.expandable ?? true),
        ...(n.csdl === undefined ? {} : { csdl: n.csdl }),
      };
      shell.navigation.declare(n.name, declared);
      recordDeclaringType(declared, shell);
    }
  }

  for (const shell of shells.values()) {
    // An inherited key was checked on the type that declares it.
    if (shell.kind !== 'entity' || shell.key === shell.baseType?.key) continue;
    for (const key of shell.key) {
      // A key property may be a property of a complex property (a path `info/number`, CSDL 6.5).
      let property: Property | undefined;
      let owner: StructuredType | undefined = shell as StructuredType;
      for (const segment of key.split('/')) {
        property = owner?.properties.get(segment);
        owner = property !== undefined && !property.collection && property.type.kind === 'complex' ? property.type.type : undefined;
      }
      if (property === undefined) throw modelError(`Key property '${key}' does not exist on '${shell.qualifiedName}'`);
      if (property.collection || property.type.kind === 'complex')
        throw modelError(`Key property '${key}' of '${shell.qualifiedName}' must be primitive or enum`);
    }
  }

  const entitySets = new Map<string, EntitySet>();
  for (const set of spec.entitySets) {
    const type = typeof set.type === 'string' ? types.get(qualify(set.type)) : undefined;
    if (type === undefined || type.kind !== 'entity') throw modelError(`Entity set '${set.name}' has unknown entity type '${set.type}'`);
    if (type.key.length === 0) throw modelError(`Entity type '${type.qualifiedName}' of entity set '${set.name}' has no key`);
    if (entitySets.has(set.name)) throw modelError(`Duplicate entity set '${set.name}'`);
    const capabilities: Capabilities = { ...ALL_CAPABILITIES, ...set.capabilities };
    for (const [list, what] of [
      [capabilities.nonFilterableProperties, 'NonFilterableProperties'],
      [capabilities.nonSortableProperties, 'NonSortableProperties'],
      [capabilities.nonSelectableProperties, 'NonSelectableProperties'],
      [capabilities.nonExpandableProperties, 'NonExpandableProperties'],
      [capabilities.nonCountableProperties, 'NonCountableProperties'],
    ] as const) {
      for (const path of list) {
        const first = path.split('/')[0] as string;
        if (!type.properties.has(first) && !type.navigation.has(first)) {
          throw modelError(`${what} of entity set '${set.name}' names '${path}', which '${type.qualifiedName}' does not have`);
        }
      }
    }
    if (capabilities.maxTop !== undefined && (!Number.isSafeInteger(capabilities.maxTop) || capabilities.maxTop < 0)) {
      throw modelError(`maxTop of entity set '${set.name}' must be a non-negative integer`);
    }
    entitySets.set(set.name, {
      name: set.name,
      type,
      capabilities,
      bindings: new Map(Object.entries(set.bindings ?? {})),
      ...(set.csdl === undefined ? {} : { csdl: set.csdl }),
    });
  }

  return { namespace, alias, types, entitySets };
}

function simpleName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function addType(types: Map<string, EnumType | StructuredType>, type: EnumType | StructuredType): void {
  if (types.has(type.qualifiedName)) throw modelError(`Duplicate type '${type.qualifiedName}'`);
  types.set(type.qualifiedName, type);
}
