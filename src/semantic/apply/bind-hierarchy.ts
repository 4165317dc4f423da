/**
 * Binds the hierarchical transformations of `$apply` (Data Aggregation 6): `ancestors`,
 * `descendants` and `traverse`. The hierarchy `(H, Q)` is an entity set `$root/Set` whose entity
 * type carries a `RecursiveHierarchy` annotation with qualifier `Q` (model/recursive-hierarchy.ts);
 * its `NodeProperty` and `ParentNavigationProperty` are bound against that type. The path `p` from
 * an input row to its node identifier is bound against the input rows.
 *
 * Refused with `unsupported_feature`: a hierarchy whose nodes are not an entity set, a collection-
 * valued `ParentNavigationProperty` (several parents per node: the general case of `traverse`
 * with `Aggregation.UpPath`), a path `p` through a collection.
 */
import type { StructuredType } from '../../model/model.js';
import type { ODataErrorCode as ErrorCode } from '../../errors/odata-error.js';
import type { ApplyTransformation, HierarchyReference, MemberPath, RollupElement, Span } from '../../syntax/ast.js';
import type { BoundHierarchy, BoundOrderByItem, BoundPath, BoundRollupRecursive, BoundTransformation } from '../bound-ast.js';
import { isNumeric, isOrderable, typeName } from '../types.js';
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
    return {
      kind: 'traverse',
      hierarchy,
      path,
      order: node.order,
      ...(start === undefined ? {} : { start }),
      orderBy,
      output: input.type,
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
  const names = path.steps.map((step) => (step.kind === 'navigation' ? step.navigation.name : step.kind === 'property' ? step.property.name : ''));
  const own = hierarchy.node.steps.map((step) => (step.kind === 'property' ? step.property.name : ''));
  const tail = names.slice(names.length - own.length);
  const endsInNodeProperty = names.length >= own.length && own.every((name, i) => name !== '' && tail[i] === name);
  const prefix = path.steps.slice(0, names.length - own.length);
  let into: BoundRollupRecursive['into'] = { kind: 'value', names };
  if (endsInNodeProperty && prefix.length === 0 && input.entity && input.type === hierarchy.nodes.type) into = { kind: 'node' };
  else if (
    endsInNodeProperty &&
    prefix.length > 0 &&
    prefix.every((step) => step.kind === 'navigation' || step.kind === 'property') &&
    prefix.at(-1)?.kind === 'navigation' &&
    (prefix.at(-1) as Extract<(typeof prefix)[number], { kind: 'navigation' }>).navigation.target === hierarchy.nodes.type
  ) {
    into = { kind: 'entity', names: names.slice(0, prefix.length) };
  }
  return { hierarchy, path, ...(start === undefined ? {} : { start }), into, span: element.span };
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

/** The node identifier path `p` of the input rows: single-valued, ending in a primitive property of the node identifier's kind. */
function nodePath(path: MemberPath, input: Input, hierarchy: BoundHierarchy, binder: HierarchyBinder): BoundPath {
  // A collection on the way (p₁/…/pₖ/r of section 6.1: instances related to several nodes) is not bound.
  let type: StructuredType | undefined = input.type;
  for (const segment of path.segments.slice(0, -1)) {
    if (type === undefined || segment.kind !== 'member') break;
    const navigation = type.navigation.get(segment.name);
    const property = type.properties.get(segment.name);
    if (navigation?.collection === true || property?.collection === true) {
      return binder.unsupported(`A hierarchy node path through a collection ('${segment.name}')`, path.span);
    }
    type = navigation?.target ?? (property?.type.kind === 'complex' ? property.type.type : undefined);
  }
  const bound = binder.context.binder(input, 'filter').bind(path, false);
  if (bound.kind !== 'path' || bound.root.kind !== 'it')
    return binder.fail('type_mismatch', `The node identifier of a hierarchy must be a property path`, path.span);
  if (bound.type.kind === 'collection' || bound.steps.some((step) => step.kind === 'navigation' && step.navigation.collection)) {
    return binder.unsupported(`A hierarchy node path through a collection`, path.span);
  }
  if (bound.type.kind !== 'primitive' && bound.type.kind !== 'enum') {
    return binder.fail('type_mismatch', `The node identifier path must end in a primitive property, but is of type '${typeName(bound.type)}'`, path.span);
  }
  const want = hierarchy.node.type;
  if (typeName(want) !== typeName(bound.type) && !(isNumeric(want) && isNumeric(bound.type))) {
    binder.fail(
      'type_mismatch',
      `The node identifier path is of type '${typeName(bound.type)}', the hierarchy's node identifiers of type '${typeName(want)}'`,
      path.span,
    );
  }
  return bound;
}
