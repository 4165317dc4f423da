/**
 * The fan-out of `$apply`: how many times the rows of the entity set its transformations can
 * multiply to. `concat` gives the sum of its branches' rows, so chained `concat`s multiply and
 * nested ones add up inside their branch: `k` steps of `concat(filter(…),identity)` give up to
 * 2^k times the rows. Bounding it (`maxApplyFanOut`) bounds the rows every backend makes and the
 * work of each, whatever the text's length.
 *
 * A bound, not an estimate: `filter`, `top`, `topcount`… may keep fewer rows, but never more; a
 * `groupby` gives at most a group per row and grouping set (`rollup`); an `aggregate` one row (of
 * any rows, none included).
 */
import type { BoundTransformation } from '../bound-ast.js';

/** The largest multiple of the input rows seen inside a pipeline, and the `concat` that first made it pass `limit`. */
export interface FanOut {
  /** The highest multiple of the input rows at any step (1 without `concat`). */
  readonly peak: number;
  /** The first `concat` (in text order) at which the multiple passed the limit. */
  readonly over?: BoundTransformation;
}

/**
 * The fan-out of `transformations` reading `input` times the rows of the entity set; the first
 * `concat` over `limit` is named in the result (the walk stops there: the numbers only grow).
 */
export function applyFanOut(transformations: readonly BoundTransformation[], limit: number, input = 1): FanOut {
  const walk = (steps: readonly BoundTransformation[], rows: number): { rows: number; peak: number; over?: BoundTransformation } => {
    let current = rows;
    let peak = rows;
    for (const step of steps) {
      if (step.kind === 'aggregate') current = 1;
      else if (step.kind === 'groupby') {
        // The nested steps run on each group's rows: together, the rows of the input.
        const nested = walk(step.apply, current);
        peak = Math.max(peak, nested.peak);
        if (nested.over !== undefined) return { rows: current, peak, over: nested.over };
        // rollup(…): each grouping set gives at most a group per row.
        if (step.sets !== undefined) {
          current *= step.sets.length;
          peak = Math.max(peak, current);
          if (peak > limit) return { rows: current, peak, over: step };
        }
      } else if (step.kind === 'concat') {
        let sum = 0;
        for (const branch of step.branches) {
          const result = walk(branch, current);
          peak = Math.max(peak, result.peak);
          if (result.over !== undefined) return { rows: current, peak, over: result.over };
          sum += result.rows;
        }
        current = sum;
        peak = Math.max(peak, current);
        if (peak > limit) return { rows: current, peak, over: step };
      }
    }
    return { rows: current, peak };
  };
  const { peak, over } = walk(transformations, input);
  return over === undefined ? { peak } : { peak, over };
}
