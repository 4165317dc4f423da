/**
 * The binders' side of completion (src/language/): the language service binds the query with a
 * probe, a name no query has, where the cursor is; the binder that meets it reports what it knows
 * there (the structured type whose members the name would be looked up in, the lambda variables
 * and computed properties in scope, the type the other operand of a comparison has) and stops.
 * Outside a probing bind, {@link probing} is false and the binders never look.
 */
import type { Capabilities, EntitySet, StructuredType } from '../model/model.js';
import type { ComputeItem } from '../syntax/ast.js';
import type { ExpressionType } from './types.js';

/** The name put at the cursor: a private-use character, which no OData identifier a person types has. */
export const PROBE_NAME = '\uE000';

/** Where in a query the probe was met. */
export type ProbeContext = 'filter' | 'orderby' | 'compute' | 'select' | 'expand' | 'groupby';

/** What a binder knows where it met the probe. */
export interface ProbeSite {
  readonly context: ProbeContext;
  /** The structured type whose members the name would be, or `undefined` after a primitive or collection value. */
  readonly type: StructuredType | undefined;
  /** Whether the path before the probe is a collection (`any`, `all` and `$count` continue it). */
  readonly collection?: boolean;
  /** Whether the probe is the first segment of its path (lambda variables, computed properties and functions may stand there). */
  readonly first: boolean;
  /** Lambda variables in scope, with their element types. */
  readonly variables?: ReadonlyMap<string, { readonly type: ExpressionType }>;
  /** `$compute` aliases in scope. */
  readonly computed?: ReadonlyMap<string, ComputeItem>;
  /** The type of the other operand when the probe is the right operand of an operator. */
  readonly expected?: ExpressionType;
  /** The operator it is the right operand of. */
  readonly operator?: string;
  /** The entity set's capabilities (properties it refuses to filter or sort by). */
  readonly capabilities?: Capabilities;
  /** The entity set the probe's path starts from, if known. */
  readonly entitySet?: EntitySet;
  /** Set after an aggregation: the rows are no longer entities of `type` (only its grouped and aggregated properties). */
  readonly aggregated?: boolean;
}

/**
 * Thrown by a binder at the probe, after reporting it: unwinds the bind. Not an `Error` (no stack
 * is captured: completion throws one per request); {@link probeWith} catches it, and nothing
 * else ever sees it.
 */
export class ProbeReached {
  readonly reason = 'The probe was reached';
}

const REACHED = new ProbeReached();

let sink: ((site: ProbeSite) => void) | undefined;

/** Whether a bind is probing (a binder checks names against {@link PROBE_NAME} only then). */
export function probing(): boolean {
  return sink !== undefined;
}

/** Reports the probe's site and stops the bind. */
export function reportProbe(site: ProbeSite): never {
  sink?.(site);
  throw REACHED;
}

/**
 * Runs `bind` (which binds a text holding {@link PROBE_NAME}) and returns the first site reported,
 * or `undefined` when the bind ended, failed or threw before reaching the probe.
 */
export function probeWith(bind: () => unknown): ProbeSite | undefined {
  let site: ProbeSite | undefined;
  const previous = sink;
  sink = (reported) => {
    site ??= reported;
  };
  try {
    bind();
  } catch {
    // The probe's own stop, or the text failed before it: whatever was reported is the answer.
  } finally {
    sink = previous;
  }
  return site;
}
