/**
 * Binds the hierarchical transformations of `$apply` (Data Aggregation 6): `ancestors`,
 * `descendants` and `traverse`. The hierarchy `(H, Q)` is an entity set `$root/Set` whose entity
 * type carries a `RecursiveHierarchy` annotation with qualifier `Q` (model/recursive-hierarchy.ts);
 * its `NodeProperty` and `ParentNavigationProperty` are bound against that type. The path `p` from
 * an input row to its node identifier is bound against the input rows.
 *
 * Refused with `unsupported_feature`: a hierarchy whose nodes are not an entity set, a collection-
 * valued `ParentNavigationProperty` (several parents per node: the general case of `traverse`
 * with `Aggregation.UpPath`). A path `p` through a collection (`p₁/…/pₖ/r`) is bound as the
 * collection of a row's node identifiers; `traverse` then puts σ(x) into its rows (`NodePlacement`).
 */
import type { ODataErrorCode as ErrorCode } from '../../errors/odata-error.js';
import type { ApplyTransformation, HierarchyReference, MemberPath, RollupElement, Span } from '../../syntax/ast.js';
import type { Property, StructuredType, TypeReference } from '../../model/model.js';
import { markMadeEntity, outputProperty, outputType, referenceOf } from './output-type.js';
import { navigationTarget } from '../../model/navigation.js';
import type { BoundHierarchy, BoundOrderByItem, BoundPath, BoundPathStep, BoundRollupRecursive, BoundTransformation, NodePlacement } from '../bound-ast.js';
import { fromReference, isNumeric, isOrderable, typeName } from '../types.js';
import type { ApplyContext, Input } from './apply-context.js';
import { resolveHierarchy } from '../hierarchy-reference.js';

/** A hierarchical transformation of the syntax tree. */
export type HierarchicalNode = Extract<ApplyTransformation, { readonly kind: 'ancestors' | 'descendants' | 'traverse' }>;

/** What binding a hierarchical transformation needs of the apply binder. */
export interface HierarchyBinder {
  readonly context: ApplyContext;
  fail(code: ErrorCode, reason: string, span: Span | undefined): never;
  unsupported(what: string, span: Span): never;
  pipeline(transformations: readonly ApplyTransformation[], input: Input, depth: number): [BoundTransformation[], Input];
}

/** The transformations that give a subset of their input (Data Aggregation 3.3 and 6.2): what a start pipeline may hold. */
const SUBSETTING: ReadonlySet<BoundTransformation['kind']> = new Set([
  'filter',
  'search',
  'orderby',
  'top',
  'skip',
  'identity',
  'rank',
  'ancestors',
  'descendants',
  'traverse',
]);

/** Binds `ancestors`, `descendants` or `traverse` over rows of `input`; its output rows are of the input's type. */
export function bindHierarchical(node: HierarchicalNode, input: Input, depth: number, binder: HierarchyBinder): BoundTransformation {
  const hierarchy = bindHierarchy(node, binder);
  const path = nodePath(node.hierarchy.path, input, hierarchy, binder);
  const nodesInput: Input = { type: hierarchy.nodes.type, set: hierarchy.nodes, capabilities: hierarchy.nodes.capabilities, entity: true };
  if (node.kind === 'traverse') {
    const start = node.apply.length === 0 ? undefined : subset(node.apply, nodesInput, depth, binder, 'traverse');
    const orderBy: BoundOrderByItem[] = node.orderBy.map((item) => {
      const expression = binder.context.binder(nodesInput, 'orderby').bind(item.expression, false);
      if (!isOrderable(expression.type) && expression.type.kind !== 'null') {
        binder.fail('type_mismatch', `The traverse() order item is of type '${typeName(expression.type)}', whose values cannot be sorted.`, item.span);
      }
      return { expression, direction: item.direction };
    });
    // Through a collection, a row comes once per node it is related to, with σ(x) (6.2.2).
    const into = path.type.kind === 'collection' ? nodePlacement(path, hierarchy) : undefined;
    return {
      kind: 'traverse',
      hierarchy,
      path,
      order: node.order,
      ...(start === undefined ? {} : { start }),
      orderBy,
      ...(into === undefined ? {} : { into }),
      output: into === undefined ? input.type : placedType(input.type, into, hierarchy),
      span: node.span,
    };
  }
  const start = subset(node.apply, input, depth, binder, node.kind);
  let distance: number | undefined;
  if (node.distance !== undefined) {
    if (node.distance === 0 || node.distance === 0n) binder.fail('invalid_option_value', `The distance of ${node.kind}() must be 1 or more`, node.span);
    // A distance beyond 2^53 − 1 is beyond every hierarchy's depth: no limit.
    if (typeof node.distance === 'number' && node.distance <= Number.MAX_SAFE_INTEGER) distance = node.distance;
  }
  return {
    kind: node.kind,
    hierarchy,
    path,
    start,
    ...(distance === undefined ? {} : { distance }),
    keepStart: node.keepStart,
    output: input.type,
    span: node.span,
  };
}

/**
 * `rolluprecursive(H, Q, p[, S])` of a `groupby` over rows of `input` (Data Aggregation 6.3): the
 * hierarchy, `p`, `S` over the nodes, and where each row gets its node (σ(x) of 6.2.2: the whole
 * node when the rows are the nodes and `p` is the node property; the node at a navigation path
 * that ends in the node property; else the node identifier at `p`).
 */
export function bindRollupRecursive(element: RollupElement, input: Input, depth: number, binder: HierarchyBinder): BoundRollupRecursive {
  const reference = element.hierarchy as HierarchyReference;
  const hierarchy = bindHierarchy({ hierarchy: reference }, binder);
  const path = nodePath(reference.path, input, hierarchy, binder);
  const nodesInput: Input = { type: hierarchy.nodes.type, set: hierarchy.nodes, capabilities: hierarchy.nodes.capabilities, entity: true };
  const start = element.apply === undefined || element.apply.length === 0 ? undefined : subset(element.apply, nodesInput, depth, binder, 'rolluprecursive');
  const placement = nodePlacement(path, hierarchy);
  const into: BoundRollupRecursive['into'] =
    placement.kind === 'value' &&
    placement.collections === undefined &&
    path.steps.length === hierarchy.node.steps.length &&
    input.entity &&
    input.type === hierarchy.nodes.type &&
    samePath(path, hierarchy.node)
      ? { kind: 'node' }
      : placement;
  return { hierarchy, path, ...(start === undefined ? {} : { start }), into, span: element.span };
}

/** Whether two paths name the same properties. */
function samePath(a: BoundPath, b: BoundPath): boolean {
  return (
    a.steps.length === b.steps.length &&
    a.steps.every((step, i) => step.kind === 'property' && b.steps[i]?.kind === 'property' && (b.steps[i] as typeof step).property.name === step.property.name)
  );
}

/**
 * Where σ(x) puts a node into a row related to it by `path` (6.2.2's three cases, the first left
 * to the caller): the node at a navigation path that ends in the node property (`entity`), else its
 * identifier at `path` (`value`); with the segments that are collection-valued.
 */
function nodePlacement(path: BoundPath, hierarchy: BoundHierarchy): NodePlacement {
  const named = path.steps.filter((step) => step.kind === 'navigation' || step.kind === 'property');
  const names = named.map((step) => (step.kind === 'navigation' ? step.navigation.name : step.property.name));
  const flags = named.map((step) => (step.kind === 'navigation' ? step.navigation.collection : step.property.collection));
  const collections = flags.some(Boolean) ? { collections: flags } : {};
  const own = hierarchy.node.steps.map((step) => (step.kind === 'property' ? step.property.name : ''));
  const tail = names.slice(names.length - own.length);
  const endsInNodeProperty = names.length > own.length && own.every((name, i) => name !== '' && tail[i] === name);
  const before = named[names.length - own.length - 1];
  if (endsInNodeProperty && named.length === path.steps.length && before?.kind === 'navigation' && before.navigation.target === hierarchy.nodes.type) {
    const n = names.length - own.length;
    return { kind: 'entity', names: names.slice(0, n), ...(flags.some(Boolean) ? { collections: flags.slice(0, n) } : {}) };
  }
  return { kind: 'value', names, ...collections };
}

/**
 * The property σ(x) writes at the first of `placement.names` (a(ε, t, x) of 6.2.2): nested
 * values for the other names, a collection of one item where a segment is collection-valued; the
 * node (an entity value of its set) or its identifier at the last.
 */
export function placedProperty(placement: NodePlacement, hierarchy: BoundHierarchy, prefix: string): Property {
  const place = (i: number, at: string): Property => {
    const name = placement.names[i] as string;
    const leaf: TypeReference =
      i < placement.names.length - 1
        ? { kind: 'complex', type: outputType(`${at}/${name}`, [place(i + 1, `${at}/${name}`)]) }
        : placement.kind === 'entity'
          ? { kind: 'entity', type: hierarchy.nodes.type }
          : (referenceOf(hierarchy.node.type) as TypeReference);
    const property = { ...outputProperty(name, leaf), collection: placement.collections?.[i] === true };
    if (placement.kind === 'entity' && i === placement.names.length - 1 && !property.collection)
      markMadeEntity(property, { type: hierarchy.nodes.type, set: hierarchy.nodes });
    return property;
  };
  return place(0, prefix);
}

/** The rows of a `traverse` whose path goes through a collection: the input's, with σ(x) in place of the path's first segment. */
function placedType(input: StructuredType, placement: NodePlacement, hierarchy: BoundHierarchy): StructuredType {
  const property = placedProperty(placement, hierarchy, `${input.name}.traverse`);
  const properties = new Map(input.properties);
  properties.set(property.name, property);
  const navigation = new Map(input.navigation);
  navigation.delete(property.name);
  return { ...input, properties, navigation };
}

/** The transformations that pick the start nodes: each must give a subset of its input. */
function subset(apply: readonly ApplyTransformation[], input: Input, depth: number, binder: HierarchyBinder, name: string): BoundTransformation[] {
  const [bound, output] = binder.pipeline(apply, input, depth + 1);
  bound.forEach((t, i) => {
    if (!SUBSETTING.has(t.kind)) {
      binder.fail(
        'invalid_option_value',
        `The transformations of ${name}() must give a subset of their input (filter, search, orderby, top, skip, topcount…, ancestors, descendants, traverse), not '${t.kind}'`,
        apply[i]?.span,
      );
    }
  });
  if (output.type !== input.type) binder.fail('invalid_option_value', `The transformations of ${name}() must give a subset of their input`, apply[0]?.span);
  return bound;
}

/** The hierarchy `(H, Q)` of a transformation. */
function bindHierarchy(transformation: { readonly hierarchy: HierarchyReference }, binder: HierarchyBinder): BoundHierarchy {
  return resolveHierarchy(transformation.hierarchy.nodes, transformation.hierarchy.qualifier, {
    model: binder.context.model,
    fail: (code, reason, span) => binder.fail(code, reason, span),
    unsupported: (what, span) => binder.unsupported(what, span),
    bindOn: (set, path) => binder.context.binder({ type: set.type, set, capabilities: set.capabilities, entity: true }, 'filter').bind(path, false),
  });
}

/**
 * The node identifier path `p` of the input rows, ending in a primitive property of the node
 * identifier's kind: single-valued, or through collections (`p₁/…/pₖ/r` of 6.2.1, typed as a
 * collection of node identifiers: an input row is related to each).
 */
function nodePath(path: MemberPath, input: Input, hierarchy: BoundHierarchy, binder: HierarchyBinder): BoundPath {
  const bound = throughCollection(path, input.type) ? collectionPath(path, input, binder) : binder.context.binder(input, 'filter').bind(path, false);
  if (bound.kind !== 'path' || bound.root.kind !== 'it')
    return binder.fail('type_mismatch', `The node identifier of a hierarchy must be a property path`, path.span);
  // Through collections (p₁/…/pₖ/r of 6.2.1): a collection of node identifiers.
  const leaf = bound.type.kind === 'collection' ? bound.type.element : bound.type;
  if (leaf.kind !== 'primitive' && leaf.kind !== 'enum') {
    return binder.fail('type_mismatch', `The node identifier path must end in a primitive property, but is of type '${typeName(bound.type)}'`, path.span);
  }
  const want = hierarchy.node.type;
  if (typeName(want) !== typeName(leaf) && !(isNumeric(want) && isNumeric(leaf))) {
    binder.fail(
      'type_mismatch',
      `The node identifier path is of type '${typeName(leaf)}', the hierarchy's node identifiers of type '${typeName(want)}'`,
      path.span,
    );
  }
  return bound;
}

/** Whether a segment of `path` before its last is a collection-valued property of the rows of `type`. */
function throughCollection(path: MemberPath, type: StructuredType): boolean {
  let at: StructuredType | undefined = type;
  for (const segment of path.segments.slice(0, -1)) {
    if (at === undefined || segment.kind !== 'member') return false;
    const navigation = at.navigation.get(segment.name);
    const property = at.properties.get(segment.name);
    if (navigation?.collection === true || property?.collection === true) return true;
    at = navigation?.target ?? (property?.type.kind === 'complex' ? property.type.type : undefined);
  }
  return false;
}

/**
 * A node identifier path through collections (`Sales/SalesOrganization/ID` from a product), bound
 * segment by segment: navigation and complex properties, then a primitive property; typed as the
 * collection of its values.
 */
function collectionPath(path: MemberPath, input: Input, binder: HierarchyBinder): BoundPath {
  if (path.head.kind !== 'implicit') binder.fail('type_mismatch', `The node identifier of a hierarchy must be a property path`, path.span);
  const steps: BoundPathStep[] = [];
  let at = input.type;
  let set = input.set;
  for (const [i, segment] of path.segments.entries()) {
    if (segment.kind !== 'member') return binder.fail('type_mismatch', `The node identifier of a hierarchy must be a property path`, segment.span);
    const navigation = at.navigation.get(segment.name);
    const property = at.properties.get(segment.name);
    const last = i === path.segments.length - 1;
    if (navigation !== undefined && !last) {
      if (!navigation.filterable) binder.fail('not_filterable', `The property '${navigation.name}' cannot be used in $apply.`, segment.span);
      const target = navigationTarget(binder.context.model, set, navigation);
      steps.push({ kind: 'navigation', navigation, entitySet: target, span: segment.span });
      at = navigation.target;
      set = target;
    } else if (property !== undefined && (last || property.type.kind === 'complex')) {
      steps.push({ kind: 'property', property, span: segment.span });
      if (last) {
        if (property.collection) binder.unsupported(`A hierarchy node path ending in a collection ('${property.name}')`, segment.span);
        return { kind: 'path', root: { kind: 'it' }, steps, type: { kind: 'collection', element: fromReference(property.type) }, span: path.span };
      }
      at = (property.type as { readonly type: StructuredType }).type;
      set = undefined;
    } else if (segment.name.includes('.')) {
      return binder.unsupported(`A type cast in a hierarchy node path through a collection ('${segment.name}')`, segment.span);
    } else {
      return binder.fail('unknown_property', `Could not find a property named '${segment.name}' on type '${at.name}'.`, segment.span);
    }
  }
  return binder.fail('type_mismatch', `The node identifier path must end in a primitive property`, path.span);
}
