/**
 * The streaming `groupby` (issue 30): a group's rows folded into accumulators as they are read
 * give exactly what collecting the group's rows and aggregating them gives.
 * - `accumulator` (one value at a time, with its fast paths: Decimals as short plain text summed
 *   per scale in doubles, integers in doubles while safe) against `aggregation` (the whole set, in
 *   `bigint`s) on hard values: Decimals of mixed scales and many digits in every stored form, sums
 *   crossing 2^53, Int64 near its limits, NaN and infinities, nulls and values of no number.
 * - `compileApply` with and without streaming on the same rows: nested filter (groups left
 *   empty), compute, search, identity, rollup, no aggregate, grouping by a Decimal.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, defineModel, type Row } from '../../src/index.js';
import { compileApply } from '../../src/backends/memory/apply-pipeline.js';
import { accumulator, aggregation } from '../../src/reference/aggregation.js';
import { ReferenceCompiler } from '../../src/reference/evaluator.js';
import { defaultSearch } from '../../src/reference/search.js';
import type { AggregationMethod } from '../../src/semantic/bound-ast.js';
import type { PrimitiveTypeName } from '../../src/model/model.js';
import { primitive } from '../../src/semantic/types.js';

const METHODS: readonly AggregationMethod[] = ['sum', 'average', 'min', 'max', 'countdistinct'];

/** Both ways: all values at once (the reference), and one at a time. */
function both(method: AggregationMethod, type: PrimitiveTypeName, values: readonly unknown[]): [unknown, unknown] {
  const whole = aggregation<unknown>(method, primitive(type))(values, (v) => v);
  const one = accumulator(method, primitive(type))();
  for (const value of values) one.add(value);
  return [one.result(), whole];
}

const digits = (max: bigint) => fc.bigInt({ min: 0n, max });
/** `coefficient` as decimal text with `scale` digits after the point (leading zeros kept: `0.050`). */
const text = (negative: boolean, coefficient: bigint, scale: number): string => {
  const padded = coefficient.toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${scale === 0 ? padded : `${padded.slice(0, -scale)}.${padded.slice(-scale)}`}`;
};
const decimalText = fc.oneof(
  // Short: the fast path (at most 15 digits).
  fc.tuple(fc.boolean(), digits(10n ** 15n - 1n), fc.integer({ min: 0, max: 14 })).map(([n, c, s]) => text(n, c, s)),
  // Near the fast path's edge and past it.
  fc.tuple(fc.boolean(), fc.bigInt({ min: 10n ** 14n, max: 10n ** 17n }), fc.integer({ min: 0, max: 17 })).map(([n, c, s]) => text(n, c, s)),
  // Many digits.
  fc.tuple(fc.boolean(), digits(10n ** 40n), fc.integer({ min: 0, max: 40 })).map(([n, c, s]) => text(n, c, s)),
  fc.constantFrom('1', '1.0', '1.00', '-0', '-0.00', '0.000', '999999999999999', '-999999999999999', '99999999999999.9', '0.000000000000001'),
  // Other forms toDecimal reads (or not): exponents, signs, spaces, no digits on one side of the point.
  fc.constantFrom('1e3', '1.5E-2', '+5', ' 2.5 ', '.5', '1.', '-', '', 'abc', '1.2.3', '--1', '0x10', 'NaN', 'INF'),
);
const decimalValue = fc.oneof(
  { weight: 6, arbitrary: decimalText },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 0.1, -0, 1e21, 5e-324) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 30 }))
      .map(([coefficient, scale]) => ({ coefficient, scale })),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, true, {}) },
);
const int64 = 2n ** 63n;
const integerValue = fc.oneof(
  { weight: 3, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, -(2 ** 53), 2 ** 62, 1e300, 0.5, -0, NaN, Infinity) },
  { weight: 2, arbitrary: fc.bigInt({ min: -int64, max: int64 - 1n }) },
  { weight: 2, arbitrary: fc.constantFrom(int64 - 1n, -int64, int64 - 2n, -int64 + 1n, 2n ** 53n + 1n) },
  { weight: 1, arbitrary: fc.bigInt({ min: -int64, max: int64 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, '1.5', 'x', { coefficient: 7n, scale: 0 }, { coefficient: 15n, scale: 1 }) },
);
const doubleValue = fc.oneof(
  { weight: 4, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, Number.MAX_VALUE, -Number.MAX_VALUE, 0.1, 0.2) },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, 'INF', '-INF', 'NaN', '1.5', ' ', 'x', 3n, { coefficient: 15n, scale: 1 }) },
);

describe('accumulator gives what aggregation gives', () => {
  for (const [type, value] of [
    ['Edm.Decimal', decimalValue],
    ['Edm.Int32', integerValue],
    ['Edm.Int64', integerValue],
    ['Edm.Double', doubleValue],
  ] as const) {
    it(`${type}: every method, any values`, () => {
      fc.assert(
        fc.property(fc.constantFrom(...METHODS), fc.array(value, { maxLength: 60 }), (method, values) => {
          const [one, whole] = both(method, type, values);
          expect(one).toEqual(whole);
        }),
        { numRuns: 400 },
      );
    });
  }

  it('sums crossing 2^53 many times, in every lane, stay exact', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('999999999999999', '-999999999999999', '99999999999999.9', '9999999999.99999', '0.000000000000001', '1'), {
          minLength: 20,
          maxLength: 400,
        }),
        (values) => {
          for (const method of ['sum', 'average'] as const) {
            const [one, whole] = both(method, 'Edm.Decimal', values);
            expect(one).toEqual(whole);
          }
        },
      ),
    );
    const many = Array.from({ length: 50_000 }, () => '999999999999999.9');
    expect(both('sum', 'Edm.Decimal', many)).toEqual(['49999999999999995000', '49999999999999995000']);
    // 1000 safe integers near 2^53 (the double lane spills every other value); 2000 of them pass Int64's range.
    const safe = Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? Number.MAX_SAFE_INTEGER : Number.MAX_SAFE_INTEGER - 1));
    const [sum, reference] = both('sum', 'Edm.Int64', safe);
    expect(sum).toBe(reference);
    expect(sum).toBe(500n * BigInt(Number.MAX_SAFE_INTEGER) + 500n * BigInt(Number.MAX_SAFE_INTEGER - 1));
    expect(both('sum', 'Edm.Int64', [...safe, ...safe])).toEqual([null, null]);
  });

  it('Int64: null past its range, exact when the total comes back inside', () => {
    expect(both('sum', 'Edm.Int64', [int64 - 1n, 1])).toEqual([null, null]);
    expect(both('sum', 'Edm.Int64', [int64 - 1n, 1, -1])).toEqual([int64 - 1n, int64 - 1n]);
    expect(both('sum', 'Edm.Int64', [-int64, -1n])).toEqual([null, null]);
    expect(both('average', 'Edm.Int64', [int64 - 1n, int64 - 1n])).toEqual([9223372036854775807, 9223372036854775807]);
  });

  it('NaN and infinities in Doubles, in input order', () => {
    expect(both('sum', 'Edm.Double', [1, NaN, 2])).toEqual([NaN, NaN]);
    expect(both('sum', 'Edm.Double', [Infinity, -Infinity])).toEqual([NaN, NaN]);
    expect(both('average', 'Edm.Double', [Infinity, 1])).toEqual([Infinity, Infinity]);
    expect(both('sum', 'Edm.Double', [0.1, 0.2, 0.3])).toEqual([0.6000000000000001, 0.6000000000000001]);
    expect(both('countdistinct', 'Edm.Double', [NaN, NaN, 1, 1.0])).toEqual([2n, 2n]);
  });

  it('countdistinct by value: 1.0, 1.00 and 1 are one Decimal', () => {
    expect(both('countdistinct', 'Edm.Decimal', ['1.0', '1.00', '1', 1, 1n, { coefficient: 100n, scale: 2 }, null])).toEqual([1n, 1n]);
    expect(both('min', 'Edm.Decimal', ['1.00', '1.0', '0.999'])).toEqual(['0.999', '0.999']);
    expect(both('max', 'Edm.Decimal', ['1.00', '1.0', '0.999'])).toEqual(['1.00', '1.00']);
  });

  it('no values, or only nulls', () => {
    for (const type of ['Edm.Decimal', 'Edm.Int32', 'Edm.Int64', 'Edm.Double'] as const) {
      for (const method of METHODS) {
        const [one, whole] = both(method, type, [null, undefined]);
        expect(one).toEqual(whole);
        expect(one).toEqual(method === 'countdistinct' ? 0n : null);
      }
    }
  });
});

const model = defineModel({
  namespace: 'Streaming',
  entityTypes: {
    Item: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        k: { type: 'Edm.String', nullable: true },
        flag: { type: 'Edm.Boolean', nullable: true },
        dec: { type: 'Edm.Decimal', nullable: true },
        n32: { type: 'Edm.Int32', nullable: true },
        n64: { type: 'Edm.Int64', nullable: true },
        dbl: { type: 'Edm.Double', nullable: true },
      },
    },
  },
  entitySets: { items: { type: 'Item' } },
});

const QUERIES = [
  'groupby((k),aggregate(dec with sum as s,dec with average as a,dec with min as lo,dec with max as hi,dec with countdistinct as d,$count as n))',
  'groupby((k),aggregate(n32 with sum as s,n32 with average as a,n64 with sum as s64,n64 with average as a64,n64 with countdistinct as d,n32 with min as lo))',
  'groupby((k),aggregate(dbl with sum as s,dbl with average as a,dbl with min as lo,dbl with max as hi,dbl with countdistinct as d))',
  // Groups whose rows the filter all drops are still groups: sums null, counts 0.
  'groupby((k),filter(flag)/aggregate(dec with sum as s,$count as n,n64 with sum as t,dbl with average as a))',
  'groupby((k,flag),compute(dec mul 2 as d2,n32 add 1 as m)/filter(m gt 0)/aggregate(d2 with sum as s,m with average as a,d2 with countdistinct as c))',
  "groupby((flag),identity/search(north)/filter(k ne 'b')/aggregate(dec with sum as s,$count as n))",
  'groupby((dec),aggregate($count as n,n32 with sum as s))',
  'groupby((k,flag))',
  'groupby((rollup(k,flag)),aggregate(dec with sum as s,n64 with average as a,$count as n))',
  'filter(id gt 3)/groupby((k),aggregate(dec with average as a))/filter(a ne null)',
];

const itemRow = fc.record({
  k: fc.constantFrom('a', 'b', 'north', 'North', null),
  flag: fc.constantFrom(true, false, null),
  dec: decimalValue,
  n32: fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.constant(null)),
  n64: integerValue,
  dbl: doubleValue,
});

function runBoth(query: string, rows: readonly Row[]): [Row[], Row[]] {
  const bound = bindQuery(`$apply=${query}`, { model, entitySet: 'items' });
  if (bound.apply === undefined) throw new Error(query);
  const apply = bound.apply;
  const run = (streaming: boolean) => compileApply(apply, new ReferenceCompiler(() => null), defaultSearch, { streaming })(rows);
  return [run(true), run(false)];
}

describe('a streaming groupby gives the rows of the collecting one', () => {
  for (const query of QUERIES) {
    it(query, () => {
      fc.assert(
        fc.property(fc.array(itemRow, { maxLength: 40 }), (drawn) => {
          const rows = drawn.map((row, i) => ({ id: i + 1, ...row }));
          const [streamed, collected] = runBoth(query, rows);
          expect(streamed).toEqual(collected);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('groups in first-row order, empty groups after a nested filter, grouping by Decimal value', () => {
    const rows: Row[] = [
      { id: 1, k: 'b', flag: false, dec: '1.0', n32: 1, n64: 2n, dbl: 0.5 },
      { id: 2, k: 'a', flag: true, dec: '1.00', n32: 2, n64: null, dbl: NaN },
      { id: 3, k: 'b', flag: false, dec: '1', n32: null, n64: 3n, dbl: 1 },
      { id: 4, k: null, flag: true, dec: '2.5', n32: 4, n64: 4n, dbl: Infinity },
    ];
    const query = 'groupby((k),filter(flag)/aggregate(dec with sum as s,dec with countdistinct as d,$count as n,dbl with sum as x))';
    const [streamed, collected] = runBoth(query, rows);
    expect(streamed).toEqual(collected);
    expect(streamed).toEqual([
      { k: 'b', s: null, d: 0n, n: 0n, x: null },
      { k: 'a', s: '1', d: 1n, n: 1n, x: NaN },
      { k: null, s: '2.5', d: 1n, n: 1n, x: Infinity },
    ]);
    const [byValue] = runBoth('groupby((dec),aggregate($count as n))', rows);
    expect(byValue).toEqual([
      { dec: '1.0', n: 3n },
      { dec: '2.5', n: 1n },
    ]);
  });

  it('compileQuery streams (same rows as the collecting pipeline, any size)', () => {
    const rows: Row[] = Array.from({ length: 30_000 }, (_, i) => ({
      id: i + 1,
      k: ['a', 'b', 'c'][i % 3],
      flag: i % 4 === 0,
      dec: i % 5 === 0 ? '99999999999999.99' : i % 7 === 0 ? null : `${i}.${i % 100}`,
      n32: i % 11 === 0 ? null : 2 ** 31 - 1 - (i % 3),
      n64: i % 2 === 0 ? 2n ** 62n : Number.MAX_SAFE_INTEGER,
      dbl: i / 7,
    }));
    const query =
      'groupby((k,flag),aggregate(dec with sum as s,dec with average as a,n32 with sum as t,n64 with sum as u,n64 with average as v,dbl with sum as w))';
    const [streamed, collected] = runBoth(query, rows);
    expect(streamed).toEqual(collected);
    expect(compileQuery(bindQuery(`$apply=${query}`, { model, entitySet: 'items' })).apply(rows).value).toEqual(collected);
  });
});
