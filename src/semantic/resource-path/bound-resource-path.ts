/**
 * The bound form of a resource path: each segment with what the model says it is, and what the
 * whole path addresses (its shape). It needs nothing but the model to be read.
 */
import type { EntitySet, NavigationProperty, Property, StructuredType } from '../../model/model.js';
import type { SegmentArgument, Span } from '../../syntax/ast.js';
import type { BoundExpression } from '../bound-ast.js';
import type { OperationOverload } from './operations.js';

/** One key property and the value the path gives it. */
export interface BoundKeyValue {
  readonly property: Property;
  /** The literal (aliases resolved), as the binder types it. */
  readonly value: BoundExpression;
}

export type BoundResourceSegment =
  | { readonly kind: 'entitySet'; readonly entitySet: EntitySet; readonly span: Span }
  | { readonly kind: 'singleton'; readonly name: string; readonly type: StructuredType; readonly span: Span }
  /** A key predicate (`(1)`, `(A=1,B='x')`) or key-as-segment values; `filter` is `key eq value and …` over the entities before it. */
  | { readonly kind: 'key'; readonly values: readonly BoundKeyValue[]; readonly filter: BoundExpression; readonly span: Span }
  /** `entitySet`: the set of the targets (`navigationTarget`), unknown where the model does not say. */
  | { readonly kind: 'navigation'; readonly navigation: NavigationProperty; readonly entitySet: EntitySet | undefined; readonly span: Span }
  | { readonly kind: 'property'; readonly property: Property; readonly span: Span }
  | { readonly kind: 'typeCast'; readonly type: StructuredType; readonly span: Span }
  /** `$filter(…)` bound against the entities before it. */
  | { readonly kind: 'filter'; readonly filter: BoundExpression; readonly span: Span }
  /** An ordinal index into a collection of complex or primitive values (`/0`, `/-1` for the last). */
  | { readonly kind: 'index'; readonly index: number; readonly span: Span }
  /**
   * A function or action: an import at the start (`import` is its name) or bound to what is before
   * it; `parameters` as written (absent without parentheses: then from parameter aliases).
   */
  | {
      readonly kind: 'operation';
      readonly operation: 'function' | 'action';
      readonly overloads: readonly OperationOverload[];
      readonly import?: string;
      readonly parameters: readonly SegmentArgument[] | undefined;
      readonly span: Span;
    }
  | { readonly kind: 'crossjoin'; readonly entitySets: readonly EntitySet[]; readonly span: Span }
  | { readonly kind: 'count' | 'ref' | 'value' | 'each' | 'query' | 'metadata' | 'batch' | 'entity' | 'all'; readonly span: Span };

/** What a resource path addresses. */
export type ResourceShape =
  | 'serviceDocument'
  | 'metadata'
  | 'batch'
  /** `$entity?$id=…`: an entity by its id. */
  | 'entityId'
  | 'entityCollection'
  | 'entity'
  | 'complexCollection'
  | 'complex'
  | 'primitiveCollection'
  | 'primitive'
  /** A stream property, or an entity's media (`/$value` of a media entity). */
  | 'stream'
  /** `/$count` of a collection: a number as text. */
  | 'count'
  /** `/$value` of a primitive property: the raw value. */
  | 'value'
  /** `/$ref` of a collection of entities, and of one entity. */
  | 'references'
  | 'reference'
  /** The result of an action, or of a function called without parentheses, or after `$each`. */
  | 'operationResult'
  /** `/$query` (a query in a POST body) and `$crossjoin`, `$all`. */
  | 'query'
  | 'crossjoin'
  | 'all';

/** A resource path checked against a model. */
export interface BoundResourcePath {
  readonly kind: 'boundResourcePath';
  readonly segments: readonly BoundResourceSegment[];
  readonly shape: ResourceShape;
  /** The structured type at the end: of the entities or complex values addressed, or of the entities whose `$count`/`$ref` it is. */
  readonly type: StructuredType | undefined;
  /** The entity set of those entities, where the model says which. */
  readonly entitySet: EntitySet | undefined;
  /** The property at the end (a property path, its `$value` or `$count`). */
  readonly property: Property | undefined;
  /** Whether an operation segment takes part (a function or action: a service may refuse them). */
  readonly operation: boolean;
}
