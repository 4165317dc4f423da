/**
 * The lowering of conditions before SQL and MongoDB (src/passes/lower-conditions.ts): each rule
 * on bound filters, and the lowered tree's three-valued value checked against the reference
 * evaluator (the oracle, which does not lower) on every row of the fuzz data: De Morgan under
 * nesting, double negation, null literals on either side, navigation null, constants.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindQuery, type BoundExpression, type NavigationProperty } from '../../src/index.js';
import { ReferenceCompiler } from '../../src/reference/evaluator.js';
import type { Row } from '../../src/reference/rows.js';
import { complement, foldLowered, lowerCondition, type LoweredCondition } from '../../src/passes/lower-conditions.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';
import { notNullHeavyFilter } from '../fixtures/not-null-filters.js';

function filterOf(text: string): BoundExpression {
  const bound = bindQuery(`$filter=${text}`, { model: fuzzModel, entitySet: FUZZ_SET });
  if (bound.filter === undefined) throw new Error('no filter');
  return bound.filter;
}

const lower = (text: string): LoweredCondition => lowerCondition(filterOf(text));

/** The lowered tree with its bound nodes left out: kinds, operators, polarities and operands' paths. */
function shape(condition: LoweredCondition): unknown {
  const step = (s: Extract<BoundExpression, { kind: 'path' }>['steps'][number]): string =>
    s.kind === 'property' ? s.property.name : s.kind === 'navigation' ? s.navigation.name : s.kind;
  const name = (node: BoundExpression): string => (node.kind === 'path' ? node.steps.map(step).join('/') : node.kind);
  return foldLowered<unknown>(condition, {
    constant: (value) => value,
    and: (left, right) => ({ and: [left, right] }),
    or: (left, right) => ({ or: [left, right] }),
    null: (operand, isNull) => (isNull ? { isNull: name(operand) } : { notNull: name(operand) }),
    comparison: (c) => ({ [c.operator]: [name(c.left), name(c.right)], nulls: c.nulls, bothNull: c.bothNull, oneNull: c.oneNull, holdsWhen: c.holdsWhen }),
    leaf: (node, holdsWhen) => ({ leaf: node.kind, holdsWhen }),
  });
}

describe('the lowering of conditions', () => {
  it('makes comparisons with null null tests, on either side, navigation and complex values included', () => {
    expect(shape(lower('n32 eq null'))).toEqual({ isNull: 'n32' });
    expect(shape(lower('null eq n32'))).toEqual({ isNull: 'n32' });
    expect(shape(lower('n32 ne null'))).toEqual({ notNull: 'n32' });
    expect(shape(lower('null ne n32'))).toEqual({ notNull: 'n32' });
    // ge/le hold for two nulls: with a null literal, where the other side is null.
    expect(shape(lower('n32 ge null'))).toEqual({ isNull: 'n32' });
    expect(shape(lower('null le n32'))).toEqual({ isNull: 'n32' });
    // gt/lt are false with a null operand: never, and under not always.
    expect(shape(lower('n32 gt null'))).toBe(false);
    expect(shape(lower('null lt n32'))).toBe(false);
    expect(shape(lower('not (n32 gt null)'))).toBe(true);
    expect(shape(lower('parent eq null'))).toEqual({ isNull: 'parent' });
    expect(shape(lower('not (parent eq null)'))).toEqual({ notNull: 'parent' });
    expect(shape(lower('address ne null'))).toEqual({ notNull: 'address' });
  });

  it('folds null against null to constants, and Boolean literals with their polarity', () => {
    expect(['null eq null', 'null ge null', 'null le null', 'not (null ne null)'].map((t) => shape(lower(t)))).toEqual([true, true, true, true]);
    expect(['null ne null', 'null gt null', 'null lt null', 'not (null eq null)'].map((t) => shape(lower(t)))).toEqual([false, false, false, false]);
    expect(shape(lower('true'))).toBe(true);
    expect(shape(lower('not true'))).toBe(false);
    expect(shape(lower('not not false'))).toBe(false);
  });

  it('pushes not to the leaves by De Morgan, under nesting, and undoes double negation', () => {
    expect(shape(lower('not (flag and (n32 eq null or not (name ne null)))'))).toEqual({
      or: [{ leaf: 'path', holdsWhen: false }, { and: [{ notNull: 'n32' }, { notNull: 'name' }] }],
    });
    expect(shape(lower('not not flag'))).toEqual({ leaf: 'path', holdsWhen: true });
    expect(shape(lower('not not not flag'))).toEqual({ leaf: 'path', holdsWhen: false });
    expect(shape(lower('not (not (flag or n32 in (1,2)) and children/any())'))).toEqual({
      or: [
        {
          or: [
            { leaf: 'path', holdsWhen: true },
            { leaf: 'in', holdsWhen: true },
          ],
        },
        { leaf: 'lambda', holdsWhen: false },
      ],
    });
  });

  it('keeps not (a gt b) a comparison that holds where it is false, with its null rules as data', () => {
    // Not `a le b`: with a null or NaN operand both are false.
    expect(shape(lower('not (n32 gt n16)'))).toEqual({ gt: ['n32', 'n16'], nulls: ['maybe', 'maybe'], bothNull: false, oneNull: false, holdsWhen: false });
    expect(shape(lower('code le name'))).toEqual({ le: ['code', 'name'], nulls: ['column', 'maybe'], bothNull: true, oneNull: false, holdsWhen: true });
    expect(shape(lower('n32 ne 1'))).toEqual({ ne: ['n32', 'literal'], nulls: ['maybe', 'never'], bothNull: false, oneNull: true, holdsWhen: true });
    // A comparison is never null: as an operand, it is `never`.
    expect(shape(lower('(n32 gt 1) eq flag'))).toMatchObject({ nulls: ['never', 'maybe'], bothNull: true });
  });

  it('marks the and/or a not was pushed through, whose complement is the condition under not', () => {
    const negated = lower('not (flag and n32 eq null)');
    expect(negated).toMatchObject({ kind: 'or', negated: true });
    expect(complement(negated)).toMatchObject({ kind: 'and', negated: false });
    expect(shape(complement(negated))).toEqual(shape(lower('flag and n32 eq null')));
    expect(lower('flag or n32 ne null')).toMatchObject({ kind: 'or', negated: false });
    expect(lower('not (not (flag or n32 ne null))')).toMatchObject({ kind: 'or', negated: false });
    expect(shape(complement(complement(lower('not (flag or n32 gt 1)'))))).toEqual(shape(lower('not (flag or n32 gt 1)')));
  });

  /** The three-valued value of a lowered condition on a row, its leaves evaluated by the reference. */
  function valueOf(condition: LoweredCondition, value: (node: BoundExpression) => unknown): boolean | null {
    const not = (v: boolean | null): boolean | null => (v === null ? null : !v);
    return foldLowered<boolean | null>(condition, {
      constant: (v) => v,
      and: (l, r) => (l === false || r === false ? false : l === null || r === null ? null : true),
      or: (l, r) => (l === true || r === true ? true : l === null || r === null ? null : false),
      null: (operand, isNull) => (value(operand) === null) === isNull,
      comparison: (c) => (value(c.node) as boolean) === c.holdsWhen,
      leaf: (node, holdsWhen) => {
        const v = value(node) as boolean | null;
        return holdsWhen ? v : not(v);
      },
    });
  }

  /** The fuzz model's navigation: `parent` by `parentId`, `children` the rows whose parent a row is. */
  const resolve = (navigation: NavigationProperty, row: Row): Row | null | readonly Row[] =>
    navigation.name === 'parent' ? (fuzzRows.find((r) => r.id === row.parentId) ?? null) : fuzzRows.filter((r) => r.parentId === row.id);

  it('gives every generated not/null-heavy filter the reference value on every row, and its negation the negated value', () => {
    fc.assert(
      fc.property(notNullHeavyFilter(), (text) => {
        const node = filterOf(text);
        for (const row of fuzzRows) {
          const value = (n: BoundExpression): unknown => new ReferenceCompiler(resolve).compile(n)(row, {}) ?? null;
          const expected = value(node) as boolean | null;
          expect(valueOf(lowerCondition(node), value), `${text} on row ${String(row.id)}`).toBe(expected);
          expect(valueOf(lowerCondition(node, false), value), `not (${text}) on row ${String(row.id)}`).toBe(expected === null ? null : !expected);
        }
      }),
      { seed: 20261127, numRuns: 300 },
    );
  });
});
