/**
 * The fan-out of `$apply` (issue 26): `concat` gives the sum of its branches' rows, so k chained
 * `concat(filter(…),identity)` give up to 2^k times the rows. The binder refuses more than
 * `maxApplyFanOut` (default 16) with `apply_fan_out_exceeded`, before any backend makes a row.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, validateQuery } from '../../src/index.js';
import { applyFanOut } from '../../src/semantic/apply/fan-out.js';
import { FUZZ_SET, fuzzModel } from '../fixtures/fuzz-data.js';
import { failure } from '../helpers/failure.js';

const settings = { model: fuzzModel, entitySet: FUZZ_SET };
const step = "concat(filter(name eq 'a'),identity)";
const chain = (k: number): string => `$apply=${Array.from({ length: k }, () => step).join('/')}`;

const errorOf = failure;

/** The fan-out the binder computes for an `$apply` text (with every limit raised). */
function fanOut(apply: string): number {
  const bound = bindQuery(`$apply=${apply}`, { ...settings, maxApplyFanOut: 2 ** 40, maxNodeCount: 10_000 });
  return applyFanOut(bound.apply?.transformations ?? [], Number.POSITIVE_INFINITY).peak;
}

describe('the fan-out of $apply is bounded by maxApplyFanOut', () => {
  it("the issue's k = 16 chain (598 characters) is refused, naming the setting and the first concat over it", () => {
    const query = chain(16);
    expect(query.length).toBe(598);
    const error = errorOf(() => bindQuery(query, settings));
    expect(error.code).toBe('apply_fan_out_exceeded');
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      "The fan-out limit of '16' for $apply has been exceeded: concat() can give up to 32 times the rows of the entity set. To increase the limit, set the 'maxApplyFanOut' setting.",
    );
    // The fifth concat is the first past 16 (2^5 = 32).
    expect(error.position).toBe(4 * (step.length + 1));
    expect(validateQuery(query, settings).map((d) => d.code)).toEqual(['apply_fan_out_exceeded']);
  });

  it('the limit falls exactly between 2^4 and 2^5 by default, and the setting moves it', () => {
    expect(() => bindQuery(chain(4), settings)).not.toThrow();
    expect(errorOf(() => bindQuery(chain(5), settings)).code).toBe('apply_fan_out_exceeded');
    expect(() => bindQuery(chain(5), { ...settings, maxApplyFanOut: 32 })).not.toThrow();
    expect(errorOf(() => bindQuery(chain(6), { ...settings, maxApplyFanOut: 32 })).code).toBe('apply_fan_out_exceeded');
    expect(errorOf(() => bindQuery(chain(2), { ...settings, maxApplyFanOut: 3 })).code).toBe('apply_fan_out_exceeded');
  });

  it('k = 33 (past 2^32) is an ODataError of the binder, whatever the node limit', () => {
    const error = errorOf(() => bindQuery(chain(33), { ...settings, maxNodeCount: 10_000 }));
    expect(error.code).toBe('apply_fan_out_exceeded');
  });

  it('counts rows as each transformation can give them: branches add up, chains multiply, nesting adds inside its branch', () => {
    expect(fanOut('filter(n32 gt 0)/orderby(id)/top(3)')).toBe(1);
    expect(fanOut('concat(identity,identity,identity)')).toBe(3);
    expect(fanOut('concat(identity,identity,identity)/concat(identity,identity)')).toBe(6);
    expect(fanOut('concat(concat(identity,identity),identity)')).toBe(3);
    expect(fanOut('concat(concat(identity,identity)/concat(identity,identity),identity)')).toBe(5);
    expect(fanOut('concat(concat(concat(identity,identity),identity),concat(identity,identity))/concat(identity,identity)')).toBe(10);
    // An aggregate is one row, whatever came in; the peak before it still counts.
    expect(fanOut('concat(identity,identity)/aggregate($count as n)/concat(identity,identity)')).toBe(2);
    expect(fanOut('concat(identity,identity,identity,identity)/aggregate($count as n)')).toBe(4);
    expect(fanOut('concat(aggregate($count as n),aggregate($count as n))')).toBe(2);
    // groupby: at most a group per row; its nested steps run on all the rows of its input.
    expect(fanOut('concat(identity,identity)/groupby((name),aggregate($count as n))')).toBe(2);
    expect(fanOut('groupby((name),concat(identity,identity,identity)/aggregate($count as n))')).toBe(3);
  });

  it('nested concat, groupby and aggregate are refused alike over the limit', () => {
    const nested = `$apply=concat(${Array.from({ length: 17 }, () => 'identity').join(',')})`;
    expect(errorOf(() => bindQuery(nested, settings)).code).toBe('apply_fan_out_exceeded');
    const inGroupby = `$apply=groupby((name),concat(identity,identity,identity,identity)/concat(identity,identity,identity,identity,identity)/aggregate($count as n))`;
    expect(errorOf(() => bindQuery(inGroupby, settings)).code).toBe('apply_fan_out_exceeded');
    const deep = '$apply=concat(concat(concat(concat(identity,identity),identity),identity),identity)/concat(identity,identity,identity,identity)';
    expect(errorOf(() => bindQuery(deep, settings)).message).toContain('up to 20 times');
  });
});
