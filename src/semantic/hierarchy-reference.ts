/**
 * The hierarchy `(H, Q)` of the hierarchical transformations (apply/bind-hierarchy.ts) and of the
 * hierarchy functions (bind-expression.ts): the entity set of `$root/Set` and its type's
 * `RecursiveHierarchy` annotation with qualifier `Q`, its node and parent paths bound. A file of
 * its own so that both binders read it without reading each other.
 */
import type { EntitySet, Model, StructuredType } from '../model/model.js';
import { recursiveHierarchy } from '../model/recursive-hierarchy.js';
import type { ODataErrorCode as ErrorCode } from '../errors/odata-error.js';
import type { Expression, MemberPath, Span } from '../syntax/ast.js';
import type { BoundExpression, BoundHierarchy, BoundPath } from './bound-ast.js';

/** What resolving a hierarchy needs: the model, failing with a position, and binding a path on the nodes. */
export interface HierarchyResolver {
  readonly model: Model;
  fail(code: ErrorCode, reason: string, span: Span | undefined): never;
  unsupported(what: string, span: Span): never;
  /** Binds `path` against the entities of `set`. */
  bindOn(set: EntitySet, path: MemberPath): BoundExpression;
}

/**
 * The hierarchy `(H, Q)`: the entity set of `$root/Set` (`nodes`) and its type's
 * `RecursiveHierarchy` annotation with qualifier `Q`, its paths bound (the hierarchical
 * transformations' and the hierarchy functions').
 */
export function resolveHierarchy(nodes: Expression, qualifier: { readonly name: string; readonly span: Span }, binder: HierarchyResolver): BoundHierarchy {
  const reference = { qualifier };
  const model = binder.model;
  const segments = nodes.kind === 'path' && nodes.head.kind === '$root' ? nodes.segments : [];
  const first = segments[0];
  if (segments.length !== 1 || first?.kind !== 'member') {
    return binder.unsupported(`A hierarchy whose nodes are not an entity set ('$root/Set')`, nodes.span);
  }
  const set: EntitySet | undefined = model.entitySets.get(first.name);
  if (set === undefined) return binder.fail('unknown_property', `The entity set '${first.name}' of the hierarchy is not in the model`, first.span);
  const type = set.type;
  const annotation = recursiveHierarchy(model, type, reference.qualifier.name);
  if (annotation === undefined) {
    return binder.fail(
      'invalid_option_value',
      `The entity type '${type.qualifiedName}' has no RecursiveHierarchy annotation with the qualifier '${reference.qualifier.name}'`,
      reference.qualifier.span,
    );
  }
  const at = reference.qualifier.span;
  const bind = (path: string): BoundPath => {
    const parsed = memberPath(path, at);
    const bound = binder.bindOn(set, parsed);
    if (bound.kind !== 'path') return binder.fail('type_mismatch', `The hierarchy path '${path}' is not a property path`, at);
    return bound;
  };
  const node = bind(annotation.nodeProperty);
  if (node.type.kind !== 'primitive' && node.type.kind !== 'enum') {
    binder.fail(
      'type_mismatch',
      `The NodeProperty '${annotation.nodeProperty}' of the hierarchy '${reference.qualifier.name}' must be a primitive property`,
      at,
    );
  }
  if (node.steps.some((step) => step.kind === 'navigation' && step.navigation.collection)) {
    binder.fail('type_mismatch', `The NodeProperty '${annotation.nodeProperty}' of the hierarchy '${reference.qualifier.name}' must be single-valued`, at);
  }
  const names = annotation.parentNavigationProperty.split('/');
  const navigation = names.length === 1 ? type.navigation.get(names[0] as string) : undefined;
  if (navigation === undefined) {
    return binder.unsupported(
      `The ParentNavigationProperty '${annotation.parentNavigationProperty}' of the hierarchy '${reference.qualifier.name}' (a navigation property of '${type.name}' is needed)`,
      at,
    );
  }
  if (navigation.collection) {
    return binder.unsupported(`A hierarchy with several parents per node (the collection-valued ParentNavigationProperty '${navigation.name}')`, at);
  }
  if (!related(navigation.target, type)) {
    binder.fail(
      'type_mismatch',
      `The ParentNavigationProperty '${navigation.name}' of the hierarchy '${reference.qualifier.name}' must lead to '${type.name}'`,
      at,
    );
  }
  const parent = bind(`${navigation.name}/${annotation.nodeProperty}`);
  return { qualifier: reference.qualifier.name, nodes: set, node, parent };
}

/** Whether either type derives from the other. */
function related(a: StructuredType, b: StructuredType): boolean {
  const derives = (x: StructuredType, y: StructuredType): boolean => {
    for (let t: StructuredType | undefined = x; t !== undefined; t = t.baseType) if (t === y) return true;
    return false;
  };
  return derives(a, b) || derives(b, a);
}

/** A path of the annotation (`A/B`) as a syntax tree, placed at `span`. */
function memberPath(text: string, span: Span): MemberPath {
  return {
    kind: 'path',
    head: { kind: 'implicit' },
    segments: text.split('/').map((name) => ({ kind: 'member' as const, name, span })),
    span,
  };
}
