/**
 * Reads the `RecursiveHierarchy` annotations of an entity type (OData Data Aggregation 5.5.2,
 * vocabulary `Org.OData.Aggregation.V1`): with a qualifier, a record of `NodeProperty` (a
 * property path to the node identifier) and `ParentNavigationProperty` (a navigation property
 * path to the parent nodes). SAP's `com.sap.vocabularies.Hierarchy.v1.RecursiveHierarchy` is read
 * too when its record names both. The annotation may be inline on the type (its `csdl`, as
 * `defineModel` and CSDL documents keep it) or external (`$Annotations` of a schema, targeting the
 * type by its namespace- or alias-qualified name), on the type or one of its base types.
 */
import type { CsdlJson, CsdlJsonObject } from './csdl-json-types.js';
import type { Model, StructuredType } from './model.js';

/** The two paths of a `RecursiveHierarchy` annotation, as written (`/`-separated). */
export interface RecursiveHierarchyAnnotation {
  readonly qualifier: string;
  readonly nodeProperty: string;
  readonly parentNavigationProperty: string;
}

const AGGREGATION = 'Org.OData.Aggregation.V1';
const SAP_HIERARCHY = 'com.sap.vocabularies.Hierarchy.v1';

const isObject = (value: CsdlJson | undefined): value is CsdlJsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The namespaces of the hierarchy vocabularies by every name a term may be prefixed with (alias or namespace). */
function vocabularyNames(model: Model): Map<string, string> {
  const names = new Map<string, string>([
    [AGGREGATION, AGGREGATION],
    ['Aggregation', AGGREGATION],
    [SAP_HIERARCHY, SAP_HIERARCHY],
    ['Hierarchy', SAP_HIERARCHY],
  ]);
  for (const reference of Object.values(model.references ?? {})) {
    if (!isObject(reference)) continue;
    const includes = reference.$Include;
    if (!Array.isArray(includes)) continue;
    for (const include of includes) {
      if (!isObject(include)) continue;
      const namespace = include.$Namespace;
      const alias = include.$Alias;
      if ((namespace === AGGREGATION || namespace === SAP_HIERARCHY) && typeof alias === 'string') names.set(alias, namespace);
    }
  }
  return names;
}

/** A path value of a record (`{ "$PropertyPath": "ID" }`, `{ "$NavigationPropertyPath": "Parent" }`, or a plain string). */
function pathValue(value: CsdlJson | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (!isObject(value)) return undefined;
  for (const key of ['$PropertyPath', '$NavigationPropertyPath', '$Path']) {
    const path = value[key];
    if (typeof path === 'string') return path;
  }
  return undefined;
}

/** The annotation objects that apply to `type` itself: inline, and external ones targeting it. */
function annotationObjects(model: Model, type: StructuredType): CsdlJsonObject[] {
  const found: CsdlJsonObject[] = [];
  if (type.csdl !== undefined) found.push(type.csdl);
  const simple = type.qualifiedName.slice(type.qualifiedName.lastIndexOf('.') + 1);
  const namespace = type.qualifiedName.slice(0, type.qualifiedName.lastIndexOf('.'));
  for (const schema of model.schemas ?? []) {
    const targets = schema.csdl.$Annotations;
    if (!isObject(targets)) continue;
    for (const [target, annotations] of Object.entries(targets)) {
      if (!isObject(annotations)) continue;
      const dot = target.lastIndexOf('.');
      if (dot < 0 || target.slice(dot + 1) !== simple) continue;
      const prefix = target.slice(0, dot);
      if (prefix === namespace || (model.alias !== undefined && prefix === model.alias && namespace === model.namespace) || schema.csdl.$Alias === prefix) {
        found.push(annotations);
      }
    }
  }
  return found;
}

/**
 * The `RecursiveHierarchy` annotation with `qualifier` on `type` (or a base type), or `undefined`
 * when there is none (or its record lacks one of the two paths).
 */
export function recursiveHierarchy(model: Model, type: StructuredType, qualifier: string): RecursiveHierarchyAnnotation | undefined {
  const vocabularies = vocabularyNames(model);
  for (let current: StructuredType | undefined = type; current !== undefined; current = current.baseType) {
    for (const annotations of annotationObjects(model, current)) {
      for (const [key, value] of Object.entries(annotations)) {
        const match = /^@(.+)\.RecursiveHierarchy#(.+)$/.exec(key);
        if (match === null || match[2] !== qualifier || !vocabularies.has(match[1] as string) || !isObject(value)) continue;
        const nodeProperty = pathValue(value.NodeProperty);
        const parentNavigationProperty = pathValue(value.ParentNavigationProperty);
        if (nodeProperty !== undefined && parentNavigationProperty !== undefined) return { qualifier, nodeProperty, parentNavigationProperty };
      }
    }
  }
  return undefined;
}

/** Every `RecursiveHierarchy` annotation on `type` (or a base type) that names both paths, the nearest first for a qualifier. */
export function recursiveHierarchies(model: Model, type: StructuredType): RecursiveHierarchyAnnotation[] {
  const qualifiers = new Set<string>();
  const vocabularies = vocabularyNames(model);
  for (let current: StructuredType | undefined = type; current !== undefined; current = current.baseType) {
    for (const annotations of annotationObjects(model, current)) {
      for (const key of Object.keys(annotations)) {
        const match = /^@(.+)\.RecursiveHierarchy#(.+)$/.exec(key);
        if (match !== null && vocabularies.has(match[1] as string)) qualifiers.add(match[2] as string);
      }
    }
  }
  return [...qualifiers].flatMap((qualifier) => recursiveHierarchy(model, type, qualifier) ?? []);
}
