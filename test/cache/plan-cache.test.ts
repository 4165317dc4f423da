/**
 * The plan cache: a hit gives exactly what a fresh compile gives (bindQuery, toSql, toMongo), on
 * random queries over the full grammar; entries are bounded; and a plan never serves another
 * entity set, model, set of limits, dialect, scope (tenant) or mapping than its own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindQuery, createPlanCache, defineModel, ODataError, toMongo, toSql, type BindSettings, type SqlQuery, type ToSqlOptions } from '../../src/index.js';
import { shapedOf } from '../../src/cache/shape-plan.js';
import { typedQueryArbitrary } from '../../src/testing/index.js';
import { FUZZ_SET, fuzzModel } from '../fixtures/fuzz-data.js';

/** Everything a SQL result holds, the lazily compiled pieces included. */
function sqlOf(query: SqlQuery): unknown {
  return {
    sql: query.sql,
    params: query.params,
    count: query.count,
    where: query.where,
    orderBy: query.orderBy,
    select: query.select,
    columns: query.columns,
    expansions: query.expansions,
  };
}

function outcome(compute: () => unknown): unknown {
  try {
    return { value: compute() };
  } catch (error) {
    if (error instanceof ODataError) return { error: error.code, message: error.message };
    throw error;
  }
}

describe('plan cache', () => {
  it('a hit gives what a fresh compile gives: bound queries, SQL (every dialect) and MongoDB queries of random queries', () => {
    const cache = createPlanCache({ maxEntries: 50 });
    const settings: BindSettings = { model: fuzzModel, entitySet: FUZZ_SET };
    fc.assert(
      fc.property(typedQueryArbitrary(fuzzModel, FUZZ_SET), ({ text }) => {
        const fresh = outcome(() => bindQuery(text, settings));
        const sizeBefore = cache.size;
        for (let round = 0; round < 2; round++) {
          const cached = outcome(() => cache.bind(text, settings));
          expect(cached).toEqual(fresh);
          if ('error' in (fresh as object)) {
            // Errors are not kept.
            expect(cache.size).toBe(sizeBefore);
            continue;
          }
          const bound = (cached as { value: ReturnType<typeof bindQuery> }).value;
          // The second bind of the same text is the same plan (a text served from its shape's plan, an equal one).
          if (shapedOf(bound) === undefined) expect(cache.bind(text, settings)).toBe(bound);
          else expect(cache.bind(text, settings)).toEqual(bound);
          for (const dialect of ['postgres', 'mysql', 'sqlite', 'mssql', 'duckdb'] as const) {
            const options: ToSqlOptions = { dialect, scope: { tenant_id: 'a' } };
            const expected = outcome(() => sqlOf(toSql(bound, options)));
            expect(outcome(() => sqlOf(toSql(bound, { ...options, cache })))).toEqual(expected);
          }
          expect(outcome(() => toMongo(bound, { cache }))).toEqual(outcome(() => toMongo(bound)));
        }
      }),
      { numRuns: 150 },
    );
    expect(cache.size).toBeLessThanOrEqual(50);
  });

  it('keeps at most maxEntries plans, the least recently used going first, and no long query text', () => {
    const cache = createPlanCache({ maxEntries: 10, maxQueryLength: 100 });
    const settings: BindSettings = { model: fuzzModel, entitySet: FUZZ_SET };
    const first = cache.bind('$top=0', settings);
    for (let i = 1; i <= 30; i++) {
      cache.bind(`$top=${i}`, settings);
      // Used again and again: stays.
      expect(cache.bind('$top=0', settings)).toBe(first);
    }
    expect(cache.size).toBe(10);
    const evicted = cache.bind('$top=1', settings);
    expect(evicted.top).toBe(1);
    expect(cache.bind('$top=1', settings)).toBe(evicted);
    const long = `$filter=${Array.from({ length: 20 }, (_, i) => `id eq ${i}`).join(' or ')}`;
    const size = cache.size;
    expect(cache.bind(long, settings)).not.toBe(cache.bind(long, settings));
    expect(cache.size).toBe(size);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('never serves a plan to another entity set, model, limit, dialect, tenant or mapping', () => {
    const make = (type: 'Edm.Int32' | 'Edm.String') =>
      defineModel({
        namespace: 'N',
        entityTypes: { A: { key: ['id'], properties: { id: 'Edm.Int32', v: type } }, B: { key: ['id'], properties: { id: 'Edm.Int32', v: type } } },
        entitySets: { as: { type: 'A' }, bs: { type: 'B', maxTop: 5 } },
      });
    const numbers = make('Edm.Int32');
    const texts = make('Edm.String');
    const cache = createPlanCache();
    const text = '$filter=v ne null&$top=10&$orderby=v';
    const cases: { settings: BindSettings; options: ToSqlOptions }[] = [
      { settings: { model: numbers, entitySet: 'as' }, options: { dialect: 'postgres', scope: { tenant_id: 't1' } } },
      { settings: { model: numbers, entitySet: 'as' }, options: { dialect: 'postgres', scope: { tenant_id: 't2' } } },
      { settings: { model: numbers, entitySet: 'as' }, options: { dialect: 'mysql', scope: { tenant_id: 't1' } } },
      { settings: { model: numbers, entitySet: 'as' }, options: { dialect: 'postgres', scope: { tenant_id: 't1' }, tables: { as: 'other_table' } } },
      { settings: { model: numbers, entitySet: 'as' }, options: { dialect: 'postgres', naming: 'snake_case' } },
      { settings: { model: numbers, entitySet: 'bs' }, options: { dialect: 'postgres', scope: { tenant_id: 't1' } } },
      { settings: { model: numbers, entitySet: 'as', maxTop: 5 }, options: { dialect: 'postgres', scope: { tenant_id: 't1' } } },
      { settings: { model: texts, entitySet: 'as' }, options: { dialect: 'postgres', scope: { tenant_id: 't1' } } },
    ];
    // Twice over, so that the second pass is served from the cache.
    for (let pass = 0; pass < 2; pass++) {
      for (const { settings, options } of cases) {
        const expected = outcome(() => sqlOf(toSql(bindQuery(text, settings), options)));
        const got = outcome(() => sqlOf(toSql(cache.bind(text, settings), { ...options, cache })));
        expect(got, JSON.stringify({ pass, entitySet: settings.entitySet, maxTop: settings.maxTop, options })).toEqual(expected);
      }
    }
    // Each tenant's statement carries its own tenant id.
    const t2 = toSql(cache.bind(text, { model: numbers, entitySet: 'as' }), { dialect: 'postgres', scope: { tenant_id: 't2' }, cache });
    expect(t2.params).toContain('t2');
    expect(t2.params).not.toContain('t1');
    // The same objects changed in place between requests: compared by content, never served stale.
    const settings: { model: typeof numbers; entitySet: string; maxTop?: number } = { model: numbers, entitySet: 'as' };
    const options: { dialect: 'postgres' | 'mysql'; scope: { tenant_id: string }; allowedFunctions?: Set<string> } = {
      dialect: 'postgres',
      scope: { tenant_id: 't1' },
    };
    const step = (): void => {
      const expected = outcome(() => sqlOf(toSql(bindQuery(text, settings), options)));
      expect(outcome(() => sqlOf(toSql(cache.bind(text, settings), { ...options, cache })))).toEqual(expected);
      expect(outcome(() => sqlOf(toSql(cache.bind(text, settings), Object.assign(options, { cache }))))).toEqual(expected);
      delete (options as { cache?: unknown }).cache;
    };
    step();
    settings.entitySet = 'bs';
    step();
    settings.maxTop = 5;
    step();
    options.scope.tenant_id = 't3';
    step();
    options.dialect = 'mysql';
    step();
    options.allowedFunctions = new Set(['a']);
    step();
    options.allowedFunctions.add('b');
    step();
    // A mutated `$top` limit in place: refused, as a fresh bind refuses it.
    settings.maxTop = 4;
    expect(outcome(() => cache.bind(text, settings))).toEqual(outcome(() => bindQuery(text, settings)));
    // Many tenants of one text: each its own statement, found again among the others.
    const many = createPlanCache({ maxEntries: 400 });
    const tenants = Array.from({ length: 300 }, (_, i) => `tenant-${i}`);
    for (let pass = 0; pass < 2; pass++) {
      for (const tenant of tenants) {
        const statement = toSql(many.bind(text, { model: numbers, entitySet: 'as' }), { dialect: 'postgres', scope: { tenant_id: tenant }, cache: many });
        expect(statement.params[0]).toBe(tenant);
      }
    }
    expect(many.size).toBe(301);
    // A bound query the cache did not give is compiled, not kept.
    const size = cache.size;
    toSql(bindQuery(text, { model: numbers, entitySet: 'as' }), { dialect: 'postgres', cache });
    expect(cache.size).toBe(size);
  });
});
