/**
 * Custom aggregation methods defined per backend (semantic/apply/custom-aggregates.ts) in memory
 * and in the reference: the host's `memory` reducer over the values that are not null, in their
 * order, as rows store them; null when there is none. A method without one is refused with
 * `unsupported_feature`.
 */
import { ODataError } from '../errors/odata-error.js';
import { unsupportedFeature } from '../passes/unsupported.js';
import type { BoundCustomMethod } from '../semantic/bound-ast.js';
import { decimalToString, type Decimal } from '../util/decimal.js';

/** One aggregation of values given one at a time (aggregation.ts's `Accumulator`). */
interface Accumulator {
  add(value: unknown): void;
  result(): unknown;
}

/** The values a reducer sees: as rows store them (a Decimal object as its text). */
function stored(value: unknown): unknown {
  return typeof value === 'object' && value !== null && 'coefficient' in value && 'scale' in value ? decimalToString(value as Decimal) : value;
}

/** The host's reducer of `method`, or the refusal. */
function reducer(method: BoundCustomMethod): (values: readonly unknown[]) => unknown {
  const reduce = method.definition.memory;
  if (reduce === undefined) throw unsupportedFeature('in-memory', `the custom aggregation method '${method.name}' (the service defines no reducer for it)`);
  return (values) => {
    // Null when no value is not null, as on every backend.
    if (values.length === 0) return null;
    let result: unknown;
    try {
      result = reduce(values);
    } catch (error) {
      // The host's code failed: a service error, never another exception.
      if (error instanceof ODataError) throw error;
      const reason = `The service's custom aggregation method '${method.name}' failed: ${error instanceof Error ? error.message : String(error)}`;
      throw new ODataError({ code: 'invalid_result', status: 500, reason, appendLocation: false });
    }
    return result === undefined ? null : result;
  };
}

/** `aggregation` of a custom method: the reducer over the items' values. */
export function customAggregation<T>(method: BoundCustomMethod): (items: readonly T[], read: (item: T) => unknown) => unknown {
  const reduce = reducer(method);
  return (items, read) => {
    const values: unknown[] = [];
    for (let i = 0; i < items.length; i++) {
      const value = read(items[i] as T);
      if (value !== null && value !== undefined) values.push(stored(value));
    }
    return reduce(values);
  };
}

/** `accumulator` of a custom method: the values collected, the reducer over them at the end. */
export function customAccumulator(method: BoundCustomMethod): () => Accumulator {
  const reduce = reducer(method);
  return () => {
    const values: unknown[] = [];
    return {
      add(value: unknown): void {
        if (value !== null && value !== undefined) values.push(stored(value));
      },
      result: () => reduce(values),
    };
  };
}
