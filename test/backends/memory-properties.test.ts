/**
 * Properties of the in-memory backend on random rows and random valid queries, and of the
 * cross-backend harness itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, type BoundQuery } from '../../src/index.js';
import { ReferenceCompiler } from '../../src/reference/evaluator.js';
import { assertBackendMatchesMemory, filterArbitrary, modelQueryArbitrary, rowsArbitrary, type BackendRunner } from '../../src/testing/index.js';
import { assetModel } from '../fixtures/asset-model.js';
import { edgeModel } from '../fixtures/edge-data.js';

const settings = { model: edgeModel, entitySet: 'items', maxNodeCount: 10_000, maxAnyAllExpressionDepth: 4 } as const;
const rows = rowsArbitrary(edgeModel, 'items');
const filters = filterArbitrary(edgeModel, 'items');

describe('in-memory semantics, as properties', () => {
  it('not (A) selects exactly the rows where A is false (null rows are in neither)', () => {
    fc.assert(
      fc.property(rows, filters, (data, filter) => {
        const a = bindQuery(`$filter=${encodeURIComponent(filter)}`, settings);
        const notA = bindQuery(`$filter=${encodeURIComponent(`not (${filter})`)}`, settings);
        const evaluate = new ReferenceCompiler(() => null).compile(a.filter!);
        const expected = data.filter((row) => evaluate(row, {}) === false);
        expect(
          compileQuery(notA)
            .apply(data)
            .value.map((r) => r.id),
        ).toEqual(expected.map((r) => r.id));
      }),
      { numRuns: 300 },
    );
  });

  it('A or not A keeps every row where A is not null; A and not A keeps none', () => {
    fc.assert(
      fc.property(rows, filters, (data, filter) => {
        const evaluate = new ReferenceCompiler(() => null).compile(bindQuery(`$filter=${encodeURIComponent(filter)}`, settings).filter!);
        const known = data.filter((row) => evaluate(row, {}) !== null).map((r) => r.id);
        const both = bindQuery(`$filter=${encodeURIComponent(`(${filter}) or not (${filter})`)}`, settings);
        const neither = bindQuery(`$filter=${encodeURIComponent(`(${filter}) and not (${filter})`)}`, settings);
        expect(
          compileQuery(both)
            .apply(data)
            .value.map((r) => r.id),
        ).toEqual(known);
        expect(compileQuery(neither).apply(data).value).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('paging covers every row exactly once, in the order of the whole result', () => {
    fc.assert(
      fc.property(rows, modelQueryArbitrary(edgeModel, 'items'), fc.integer({ min: 1, max: 7 }), (data, query, size) => {
        const base = query
          .split('&')
          .filter((part) => part !== '' && !/^\$(top|skip|count)=/.test(part))
          .join('&');
        const all = compileQuery(bindQuery(`${base}${base ? '&' : ''}$top=1000`, settings))
          .apply(data)
          .value.map((r) => r.id);
        const pages: unknown[] = [];
        for (let skip = 0; skip < all.length + size; skip += size) {
          pages.push(
            ...compileQuery(bindQuery(`${base}${base ? '&' : ''}$top=${size}&$skip=${skip}`, settings))
              .apply(data)
              .value.map((r) => r.id),
          );
        }
        expect(pages).toEqual(all);
        expect(new Set(pages).size).toBe(pages.length);
      }),
      { numRuns: 150 },
    );
  });

  it('apply() agrees with predicate(), compare() and project() used by hand', () => {
    fc.assert(
      fc.property(rows, modelQueryArbitrary(edgeModel, 'items'), (data, query) => {
        const compiled = compileQuery(bindQuery(query, settings));
        const bound = bindQuery(query, settings);
        const matching = data.filter((row) => compiled.predicate(row));
        const sorted = [...matching].sort(compiled.compare);
        const skip = bound.skip ?? 0;
        const page = sorted.slice(skip, bound.top === undefined ? undefined : skip + bound.top).map(compiled.project);
        expect(compiled.apply(data).value).toEqual(page);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the cross-backend harness', () => {
  const honest: BackendRunner = (query, data) => compileQuery(query, { data: { [query.entitySet.name]: data } }).apply(data);

  it('passes a backend that computes the same result another way', async () => {
    const byHand: BackendRunner = (query: BoundQuery, data) => {
      const compiled = compileQuery(query, { data: { [query.entitySet.name]: data } });
      const skip = query.skip ?? 0;
      const matching = data.filter((row) => compiled.predicate(row));
      const value = [...matching]
        .sort(compiled.compare)
        .slice(skip, query.top === undefined ? undefined : skip + query.top)
        .map(compiled.project);
      return query.count === true ? { value, count: matching.length } : { value };
    };
    await assertBackendMatchesMemory({ model: assetModel, entitySet: 'assets', runner: byHand, numRuns: 60 });
    await assertBackendMatchesMemory({ model: edgeModel, entitySet: 'items', runner: honest, numRuns: 30 });
  });

  it('catches a backend that ignores $skip', async () => {
    const ignoresSkip: BackendRunner = (query, data) => compileQuery({ ...query, skip: undefined }, { data: { items: data } }).apply(data);
    const dropsExpansions: BackendRunner = (query, data) => compileQuery(query).apply(data);
    await expect(
      assertBackendMatchesMemory({
        model: edgeModel,
        entitySet: 'items',
        runner: dropsExpansions,
        queries: fc.constant('$expand=children'),
        numRuns: 100,
        seed: 3,
      }),
    ).rejects.toThrow(/rows of children of row/);
    await expect(assertBackendMatchesMemory({ model: edgeModel, entitySet: 'items', runner: ignoresSkip, numRuns: 200, seed: 1 })).rejects.toThrow(
      /rows.* differ/,
    );
  });

  it("catches a backend whose 'ne' drops null rows, as SQL's <> does", async () => {
    const sqlLikeNe: BackendRunner = (query, data) => {
      const result = compileQuery(query).apply(data);
      if (query.filter?.kind === 'binary' && query.filter.operator === 'ne' && query.filter.left.kind === 'path') {
        const name = query.filter.left.steps[0]?.kind === 'property' ? query.filter.left.steps[0].property.name : '';
        return { ...result, value: result.value.filter((row) => row[name] !== null) };
      }
      return result;
    };
    const queries = fc.constantFrom("$filter=name ne 'a'&$select=id,name", '$filter=price ne 1&$select=id,price');
    await expect(assertBackendMatchesMemory({ model: edgeModel, entitySet: 'items', runner: sqlLikeNe, queries, numRuns: 200, seed: 7 })).rejects.toThrow(
      /rows differ/,
    );
  });
});
