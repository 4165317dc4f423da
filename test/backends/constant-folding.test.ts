/** Constant folding: subexpressions without paths become literals with the reference's value. */
import { describe, expect, it } from 'vitest';
import { bindQuery, defineModel } from '../../src/index.js';
import { foldConstants, foldQuery } from '../../src/reference/constant-folding.js';
import type { BoundExpression, BoundTransformation } from '../../src/semantic/bound-ast.js';

const model = defineModel({
  namespace: 'N',
  entityTypes: {
    E: { key: ['id'], properties: { id: 'Edm.Int32', at: 'Edm.DateTimeOffset', day: 'Edm.Date', span: 'Edm.Duration', n: 'Edm.Int32', text: 'Edm.String' } },
  },
  entitySets: { es: { type: 'E' } },
});
const filter = (text: string): BoundExpression => bindQuery(`$filter=${encodeURIComponent(text)}`, { model, entitySet: 'es' }).filter!;
/** The right operand of a comparison, after folding. */
const folded = (text: string) => {
  const node = foldConstants(filter(text));
  if (node.kind !== 'binary') throw new Error('not a comparison');
  return node.right;
};

describe('foldConstants', () => {
  it.each([
    ["at gt 2024-01-01T00:00:00Z add duration'PT1H30M'", 'Edm.DateTimeOffset', '2024-01-01T01:30:00Z'],
    ["at gt 2024-01-01T00:30:00+01:00 sub duration'P1D'", 'Edm.DateTimeOffset', '2023-12-31T00:30:00+01:00'],
    ["day ge 2024-03-01 sub duration'P1D'", 'Edm.Date', '2024-02-29'],
    ["span eq duration'P1D' add duration'PT12H'", 'Edm.Duration', 'P1DT12H'],
    ["span eq duration'PT1S' sub duration'PT1.5S'", 'Edm.Duration', '-PT0.5S'],
    ['n gt 1 add 2 mul 3', 'Edm.Int32', 7],
    ['n gt -(4)', 'Edm.Int32', -4],
  ])('%s', (text, type, value) => {
    const right = folded(text);
    expect(right).toMatchObject({ kind: 'literal', value });
    expect(right.type).toMatchObject({ kind: 'primitive', name: type });
  });

  it.each([
    ['startswith(null,substring(text,n))', 'Edm.Boolean'],
    ['endswith(text,null)', 'Edm.Boolean'],
    ['contains(trim(null),text)', 'Edm.Boolean'],
    ['indexof(text,null) eq 1', 'Edm.Int32'],
    ["concat(null,text) eq 'a'", 'Edm.String'],
    ['length(substring(text,null)) eq 1', 'Edm.Int32'],
    ['matchesPattern(null,text)', 'Edm.Boolean'],
  ])('a string function of a null literal is a null of its type, whatever its other argument: %s', async (text, type) => {
    const node = foldConstants(filter(text));
    const call = node.kind === 'binary' ? node.left : node;
    expect(call).toMatchObject({ kind: 'literal', value: null, type: { kind: 'primitive', name: type } });
    // As the reference computes it on a row.
    const { compileQuery } = await import('../../src/index.js');
    const rows = [{ id: 1, text: 'abc', n: 1 }];
    const bound = bindQuery(`$filter=${encodeURIComponent(text)}`, { model, entitySet: 'es' });
    expect(compileQuery(bound, { data: { es: rows } }).apply(rows).value).toEqual([]);
  });

  it('now() becomes the current instant, computed once', () => {
    const before = Date.now();
    const right = folded("at lt now() sub duration'P7D'");
    expect(right.kind).toBe('literal');
    const ms = Date.parse(String((right as { value: unknown }).value));
    expect(ms).toBeGreaterThanOrEqual(before - 7 * 86_400_000 - 5);
    expect(ms).toBeLessThanOrEqual(Date.now() - 7 * 86_400_000 + 5);
  });

  it('folds the expressions of $apply too (filter, compute, aggregated and ranked values, nested in groupby and concat)', () => {
    const bound = bindQuery(
      `$apply=${encodeURIComponent('concat(groupby((n),filter(at lt now())/aggregate((n add (1 add 2)) with sum as s)),compute(1 add 2 as three)/topcount(2,n mul (2 add 3)))')}`,
      { model, entitySet: 'es' },
    );
    const [concat] = foldQuery(bound).apply?.transformations ?? [];
    if (concat?.kind !== 'concat') throw new Error('not a concat');
    const [[groupby], [compute, topcount]] = concat.branches as [BoundTransformation[], BoundTransformation[]];
    if (groupby?.kind !== 'groupby' || compute?.kind !== 'compute' || topcount?.kind !== 'rank') throw new Error('unexpected pipeline');
    const [filtered, aggregated] = groupby.apply;
    expect(filtered).toMatchObject({ kind: 'filter', predicate: { right: { kind: 'literal' } } });
    expect(aggregated).toMatchObject({ kind: 'aggregate', aggregates: [{ expression: { right: { kind: 'literal', value: 3 } } }] });
    expect(compute.items[0]?.expression).toMatchObject({ kind: 'literal', value: 3 });
    expect(topcount.value).toMatchObject({ right: { kind: 'literal', value: 5 } });
  });

  it('a duration added to a DateTimeOffset moves to the constant side, where the shifted column stays in the years 1 to 9999', () => {
    // at + P1D is null from 9999-12-31 on: only the columns before compare.
    const moved = foldConstants(filter("at add duration'P1D' gt 2024-01-02T00:00:00Z"));
    expect(moved).toMatchObject({
      kind: 'binary',
      operator: 'and',
      left: { kind: 'binary', operator: 'gt', left: { kind: 'path' }, right: { kind: 'literal', value: '2024-01-01T00:00:00Z' } },
      right: { kind: 'binary', operator: 'lt', left: { kind: 'path' }, right: { kind: 'literal', value: '9999-12-31T00:00:00Z' } },
    });
    const mirrored = foldConstants(filter("2024-01-02T00:00:00Z le duration'PT1H' add at"));
    expect(mirrored).toMatchObject({
      operator: 'and',
      left: { kind: 'binary', operator: 'le', left: { kind: 'literal', value: '2024-01-01T23:00:00Z' }, right: { kind: 'path' } },
    });
    // Moved back: the first hour of the year 1 leaves it.
    const subtracted = foldConstants(filter("at sub duration'PT30M' eq 2024-01-01T00:00:00+01:00"));
    expect(subtracted).toMatchObject({
      operator: 'and',
      left: { right: { kind: 'literal', value: '2024-01-01T00:30:00+01:00' } },
      right: { operator: 'ge', right: { value: '0001-01-01T00:30:00Z' } },
    });
    // ne is true where the shift leaves the years (null ne a value).
    const different = foldConstants(filter("at add duration'P1D' ne 2024-01-02T00:00:00Z"));
    expect(different).toMatchObject({
      operator: 'or',
      left: { operator: 'ne' },
      right: { operator: 'or', left: { operator: 'ge' }, right: { operator: 'eq', right: { value: null } } },
    });
    // A duration longer than the years: nothing moves.
    expect(foldConstants(filter("at add duration'P3652060D' gt 2024-01-02T00:00:00Z"))).toMatchObject({
      operator: 'gt',
      left: { kind: 'binary', operator: 'add' },
    });
  });

  it('the duration stays where moving it leaves the years 1 to 9999 (the moved constant would be null)', () => {
    // at add P1D eq mindatetime() is false for every row (null for none): at eq null would keep the null rows.
    const kept = foldConstants(filter("at add duration'P1D' eq mindatetime()"));
    expect(kept).toMatchObject({
      kind: 'binary',
      operator: 'eq',
      left: { kind: 'binary', operator: 'add' },
      right: { kind: 'literal', value: '0001-01-01T00:00:00Z' },
    });
    expect(foldConstants(filter("at sub duration'P1D' gt maxdatetime()"))).toMatchObject({ left: { kind: 'binary', operator: 'sub' } });
  });

  it('paths, and what fails to evaluate, stay as they are', () => {
    expect(folded("at gt at add duration'P1D'").kind).toBe('binary');
    // A computed division by zero is null (failed operations yield null), and so is the comparison
    // (a filter keeps no row); a literal zero divisor is refused by the binder.
    expect(folded('n gt 1 div (1 sub 1)')).toMatchObject({ kind: 'literal', value: null });
    const node = filter('n gt 1');
    expect(foldConstants(node)).toBe(node);
  });
});
