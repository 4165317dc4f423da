/**
 * What the `$apply` binders (bind-apply.ts, bind-hierarchy.ts) share: the rows a transformation
 * reads, and what they need of the query binder. A file of its own so that neither reads the other
 * for its types.
 */
import type { Capabilities, EntitySet, Model, StructuredType } from '../../model/model.js';
import type { ExpressionBinder, Purpose } from '../bind-expression.js';
import type { ResolvedSettings } from '../settings.js';

/** The rows a transformation reads: their type, and their entity set while they are still its entities. */
export interface Input {
  readonly type: StructuredType;
  readonly set: EntitySet | undefined;
  readonly capabilities: Capabilities | undefined;
  readonly entity: boolean;
  /** Rows of a `join` (each entity once per related instance): not joined again. */
  readonly joined?: boolean;
}

/** What the apply binder needs of the query binder. */
export interface ApplyContext {
  readonly settings: ResolvedSettings;
  readonly option: string;
  readonly model: Model;
  /**
   * An expression binder for rows of `input` (a fresh one per expression: it counts nodes);
   * `rollupNode`: inside a `rolluprecursive` portion's transformations, the hierarchy's nodes
   * (`Aggregation.rollupnode()`).
   */
  binder(input: Input, purpose: Purpose, rollupNode?: EntitySet): ExpressionBinder;
}
