/**
 * What a model declares of the Aggregation vocabulary's custom aggregates and custom aggregation
 * methods (OData Data Aggregation 4.0, sections 3.1.3 and 6.2):
 *
 * - `Aggregation.CustomAggregate#Name` with the qualified name of a primitive type as its value,
 *   on an entity type (inherited by its derived types), an entity set or the entity container
 *   (then for each of its entity sets), inline or in `<Annotations Target="…">`;
 * - the `CustomAggregationMethods` of `Aggregation.ApplySupported` (an entity set or type) and of
 *   `Aggregation.ApplySupportedDefaults` (the container; `ApplySupported` replaces its list).
 *
 * Terms and targets may be written with the namespace or its alias. A model from `defineModel`
 * declares what its entity sets' `customAggregates` say (written there as the same annotations).
 * How a custom aggregate or method is computed is the service's: see `BindSettings.customAggregates`.
 */
import type { CsdlJson, CsdlJsonObject } from './csdl-json-types.js';
import type { EntitySet, Model, StructuredType } from './model.js';

/** The Aggregation vocabulary's namespace. */
const AGGREGATION = 'Org.OData.Aggregation.V1';

/** A custom aggregate the model declares. */
export interface DeclaredCustomAggregate {
  /** Its name (the annotation's qualifier). */
  readonly name: string;
  /** The qualified name of its type as the annotation gives it (`Edm.Decimal`). */
  readonly type: string;
  /** Where it is declared: on the entity type (or a base type), the entity set, or the container. */
  readonly on: 'type' | 'set' | 'container';
}

/** The declarations of one model, read once. */
interface Index {
  /** Annotations by target (`Ns.Type`, `Ns.Container/Set`, `Ns.Container`, each namespace-qualified), terms namespace-qualified. */
  readonly external: ReadonlyMap<string, ReadonlyMap<string, CsdlJson>>;
  /** Alias → namespace, for terms and targets. */
  readonly aliases: ReadonlyMap<string, string>;
  /** Each entity set's container, namespace-qualified. */
  readonly containers: ReadonlyMap<EntitySet, string>;
}

const indexes = new WeakMap<Model, Index>();

function isObject(value: CsdlJson | undefined): value is CsdlJsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function indexOf(model: Model): Index {
  const known = indexes.get(model);
  if (known !== undefined) return known;
  const aliases = new Map<string, string>();
  if (model.alias !== undefined) aliases.set(model.alias, model.namespace);
  if (isObject(model.references)) {
    for (const reference of Object.values(model.references)) {
      const includes = isObject(reference) ? reference.$Include : undefined;
      if (!Array.isArray(includes)) continue;
      for (const include of includes) {
        if (isObject(include) && typeof include.$Namespace === 'string' && typeof include.$Alias === 'string') aliases.set(include.$Alias, include.$Namespace);
      }
    }
  }
  for (const schema of model.schemas ?? []) if (typeof schema.csdl.$Alias === 'string') aliases.set(schema.csdl.$Alias, schema.namespace);
  const unalias = (name: string): string => {
    const dot = name.lastIndexOf('.');
    const namespace = aliases.get(name.slice(0, dot));
    return namespace === undefined ? name : `${namespace}.${name.slice(dot + 1)}`;
  };
  const external = new Map<string, Map<string, CsdlJson>>();
  const containers = new Map<EntitySet, string>();
  for (const schema of model.schemas ?? []) {
    const blocks = schema.csdl.$Annotations;
    if (isObject(blocks)) {
      for (const [target, annotations] of Object.entries(blocks)) {
        if (!isObject(annotations)) continue;
        const slash = target.indexOf('/');
        const key = slash < 0 ? unalias(target) : `${unalias(target.slice(0, slash))}${target.slice(slash)}`;
        const terms = external.get(key) ?? new Map<string, CsdlJson>();
        for (const [term, value] of termsOf(annotations, unalias)) terms.set(term, value);
        external.set(key, terms);
      }
    }
    for (const [name, element] of schema.elements) {
      if (element.kind !== 'container') continue;
      const qualified = `${schema.namespace}.${name}`;
      const terms = external.get(qualified) ?? new Map<string, CsdlJson>();
      // Inline annotations of the container come before external ones of the same term.
      for (const [term, value] of termsOf(element.container.csdl, unalias)) if (!terms.has(term)) terms.set(term, value);
      external.set(qualified, terms);
      for (const member of element.container.members.values()) if (member.kind === 'entitySet') containers.set(member.entitySet, qualified);
    }
  }
  const index: Index = { external, aliases, containers };
  indexes.set(model, index);
  return index;
}

/** The annotations of a CSDL JSON object: `Ns.Term#Qualifier` (namespace-qualified) → value; annotations of annotations left out. */
function termsOf(object: CsdlJsonObject | undefined, unalias: (name: string) => string): Map<string, CsdlJson> {
  const result = new Map<string, CsdlJson>();
  if (object === undefined) return result;
  for (const [key, value] of Object.entries(object)) {
    if (!key.startsWith('@') || key.indexOf('@', 1) >= 0) continue;
    const hash = key.indexOf('#');
    const term = hash < 0 ? key.slice(1) : key.slice(1, hash);
    result.set(`${unalias(term)}${hash < 0 ? '' : key.slice(hash)}`, value);
  }
  return result;
}

/** The annotations that hold for rows of `type` in `set` (`set` undefined: a type's own), the most specific first. */
function annotationLayers(
  model: Model,
  set: EntitySet | undefined,
  type: StructuredType,
): { on: DeclaredCustomAggregate['on']; terms: Map<string, CsdlJson> }[] {
  const index = indexOf(model);
  const unalias = (name: string): string => {
    const dot = name.lastIndexOf('.');
    const namespace = index.aliases.get(name.slice(0, dot));
    return namespace === undefined ? name : `${namespace}.${name.slice(dot + 1)}`;
  };
  const layers: { on: DeclaredCustomAggregate['on']; terms: Map<string, CsdlJson> }[] = [];
  const container = set === undefined ? undefined : index.containers.get(set);
  if (set !== undefined) {
    const terms = termsOf(set.csdl, unalias);
    const outside = container === undefined ? undefined : index.external.get(`${container}/${set.name}`);
    for (const [term, value] of outside ?? []) if (!terms.has(term)) terms.set(term, value);
    layers.push({ on: 'set', terms });
  }
  for (let at: StructuredType | undefined = type; at !== undefined; at = at.baseType) {
    const terms = termsOf(at.csdl, unalias);
    for (const [term, value] of index.external.get(at.qualifiedName) ?? []) if (!terms.has(term)) terms.set(term, value);
    layers.push({ on: 'type', terms });
  }
  if (container !== undefined) layers.push({ on: 'container', terms: new Map(index.external.get(container)) });
  return layers;
}

/**
 * The custom aggregates declared for rows of `type` (entities of `set`, when known), by name: of
 * the set, the type and its base types, and the set's container; the most specific declaration
 * of a name wins.
 */
export function declaredCustomAggregates(model: Model, set: EntitySet | undefined, type: StructuredType): ReadonlyMap<string, DeclaredCustomAggregate> {
  const result = new Map<string, DeclaredCustomAggregate>();
  const prefix = `${AGGREGATION}.CustomAggregate#`;
  for (const { on, terms } of annotationLayers(model, set, type)) {
    for (const [term, value] of terms) {
      if (!term.startsWith(prefix) || typeof value !== 'string') continue;
      const name = term.slice(prefix.length);
      if (!result.has(name)) result.set(name, { name, type: value, on });
    }
  }
  return result;
}

/**
 * The custom aggregation methods the model declares for rows of `type` (entities of `set`): the
 * `CustomAggregationMethods` of the first `ApplySupported` of the set or type that lists them,
 * else of the container's `ApplySupportedDefaults`; qualified names as written.
 */
export function declaredCustomAggregationMethods(model: Model, set: EntitySet | undefined, type: StructuredType): ReadonlySet<string> {
  for (const { on, terms } of annotationLayers(model, set, type)) {
    const record = terms.get(`${AGGREGATION}.${on === 'container' ? 'ApplySupportedDefaults' : 'ApplySupported'}`);
    const methods = isObject(record) ? record.CustomAggregationMethods : undefined;
    if (Array.isArray(methods)) return new Set(methods.filter((m): m is string => typeof m === 'string'));
  }
  return new Set();
}
