/**
 * What a resource path can name besides entity sets, read from the CSDL a model keeps
 * (`model.schemas`): singletons, function and action imports, and bound or unbound functions and
 * actions with their overloads. A model from `defineModel` has none of them.
 */
import { findType, type Model, type StructuredType } from '../../model/model.js';
import type { CsdlJson, CsdlJsonObject } from '../../model/csdl-json-types.js';

/** A type reference of an operation's parameter or return type. */
export interface OperationType {
  /** The qualified type name, aliases resolved where the model knows them. */
  readonly type: string;
  readonly collection: boolean;
}

/** One overload of a function or action. */
export interface OperationOverload {
  readonly kind: 'function' | 'action';
  /** The qualified name, `Namespace.Name`. */
  readonly name: string;
  readonly bound: boolean;
  /** The parameters, the binding parameter first when bound. */
  readonly parameters: readonly ({ readonly name: string } & OperationType)[];
  readonly returnType: OperationType | undefined;
}

/** A member of the entity container other than an entity set. */
export type ContainerElement =
  | { readonly kind: 'singleton'; readonly name: string; readonly type: StructuredType }
  | { readonly kind: 'functionImport'; readonly name: string; readonly overloads: readonly OperationOverload[] }
  | { readonly kind: 'actionImport'; readonly name: string; readonly overloads: readonly OperationOverload[] };

const isObject = (value: CsdlJson | undefined): value is CsdlJsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Schema aliases to namespaces, for names written with an alias. */
function aliases(model: Model): Map<string, string> {
  const map = new Map<string, string>();
  for (const schema of model.schemas ?? []) {
    const alias = schema.csdl.$Alias;
    if (typeof alias === 'string') map.set(alias, schema.namespace);
  }
  return map;
}

function unalias(model: Model, name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return name;
  const namespace = aliases(model).get(name.slice(0, dot));
  return namespace === undefined ? name : `${namespace}.${name.slice(dot + 1)}`;
}

function typeOf(model: Model, json: CsdlJson | undefined): OperationType {
  const object = isObject(json) ? json : {};
  const type = typeof object.$Type === 'string' ? unalias(model, object.$Type) : 'Edm.String';
  return { type, collection: object.$Collection === true };
}

function overloadsOf(model: Model, qualifiedName: string, json: CsdlJson): OperationOverload[] {
  if (!Array.isArray(json)) return [];
  const out: OperationOverload[] = [];
  for (const overload of json) {
    if (!isObject(overload) || (overload.$Kind !== 'Function' && overload.$Kind !== 'Action')) continue;
    const parameters = (Array.isArray(overload.$Parameter) ? overload.$Parameter : []).filter(isObject).map((p) => ({
      name: String(p.$Name),
      ...typeOf(model, p),
    }));
    out.push({
      kind: overload.$Kind === 'Function' ? 'function' : 'action',
      name: qualifiedName,
      bound: overload.$IsBound === true,
      parameters,
      returnType: overload.$ReturnType === undefined ? undefined : typeOf(model, overload.$ReturnType),
    });
  }
  return out;
}

/**
 * The overloads of the functions and actions named `name`: qualified (`NS.Fn`, or with the
 * schema's alias) or, as OData 4.01 allows, unqualified (then every schema's).
 */
export function operationsNamed(model: Model, name: string): OperationOverload[] {
  const qualified = unalias(model, name);
  const out: OperationOverload[] = [];
  for (const schema of model.schemas ?? []) {
    for (const [element, value] of schema.elements) {
      if (value.kind !== 'csdl') continue;
      const full = `${schema.namespace}.${element}`;
      if (full === qualified || (!name.includes('.') && element === name)) out.push(...overloadsOf(model, full, value.csdl));
    }
  }
  return out;
}

/** The singleton, function import or action import of the entity container named `name`. */
export function containerElement(model: Model, name: string): ContainerElement | undefined {
  for (const schema of model.schemas ?? []) {
    for (const element of schema.elements.values()) {
      if (element.kind !== 'container') continue;
      const member = element.container.members.get(name);
      if (member === undefined || member.kind !== 'csdl') continue;
      const json = member.csdl;
      if (typeof json.$Function === 'string') return { kind: 'functionImport', name, overloads: operationsNamed(model, json.$Function) };
      if (typeof json.$Action === 'string') return { kind: 'actionImport', name, overloads: operationsNamed(model, json.$Action) };
      if (typeof json.$Type === 'string' && json.$Collection !== true) {
        const type = findType(model, unalias(model, json.$Type));
        if (type !== undefined && type.kind === 'entity') return { kind: 'singleton', name, type };
      }
    }
  }
  return undefined;
}
