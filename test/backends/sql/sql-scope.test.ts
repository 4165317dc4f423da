/**
 * Row scoping (`scope`, e.g. multi-tenancy) on real engines: two tenants' rows in the same tables,
 * with the same names and codes and a cross-tenant reference; with `scope: { tenantId: A }`, every
 * query (filters, navigation, lambdas, counts, expansions) must give exactly what the in-memory
 * reference gives on tenant A's rows alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, toSql } from '../../../src/index.js';
import { compareResults } from '../../../src/testing/index.js';
import { assetModel } from '../../fixtures/asset-model.js';
import { NAVIGATION_CASES, navigationData, twoTenants } from '../../fixtures/navigation-data.js';
import { engines, load, run, type Engine } from '../../fixtures/sql-engines.js';

const { A, B, tenantA, tenantB } = twoTenants();

const ENGINES = engines();

const CASES: [string, string][] = [
  ...NAVIGATION_CASES,
  ['assets', '$count=true&$orderby=code&$top=2&$skip=1'],
  ['assets', "$filter=tickets/any(t:t/priority eq 'critical')&$expand=tickets($count=true)"],
  ['maintenance-tickets', '$filter=asset ne null&$orderby=code'],
  ['localities', '$expand=assets/$count'],
];

for (const [name, open, skip] of ENGINES) {
  describe.skipIf(skip)(`${name}: scope`, () => {
    let engine: Engine;
    beforeAll(async () => {
      engine = await open();
      const created = new Set<string>();
      for (const set of Object.keys(navigationData)) await load(engine, assetModel, set, [...tenantA[set]!, ...tenantB[set]!], created);
    });
    afterAll(async () => {
      await engine.close();
    });
    for (const [set, query] of CASES) {
      it(`${set}?${query}`, async () => {
        const bound = bindQuery(query, { model: assetModel, entitySet: set, maxAnyAllExpressionDepth: 3 });
        const expected = compileQuery(bound, { data: tenantA }).apply(tenantA[set]!);
        const actual = await run(engine, bound, { scope: { tenantId: A } });
        expect(compareResults(bound, expected, actual)).toBeUndefined();
        expect(actual.count).toBe(expected.count);
      });
    }

    it('without a scope, both tenants are read (the data really holds both)', async () => {
      const bound = bindQuery('$count=true&$top=0', { model: assetModel, entitySet: 'assets' });
      expect((await run(engine, bound)).count).toBe(tenantA.assets!.length + tenantB.assets!.length);
      expect((await run(engine, bound, { scope: { tenantId: B } })).count).toBe(tenantB.assets!.length);
    });
  });
}

describe('scope in the SQL text', () => {
  it('every table gets the condition, as a parameter; the where piece carries it too', () => {
    const bound = bindQuery("$filter=locality/name eq 'Oslo' and tickets/any()&$expand=tickets", { model: assetModel, entitySet: 'assets' });
    const sql = toSql(bound, { dialect: 'postgres', scope: { tenantId: A } });
    expect(sql.sql.match(/"tenantId" = \$\d+::uuid/g)?.length).toBe(4);
    expect(sql.params.filter((p) => p === A)).toHaveLength(4);
    expect(sql.sql).not.toContain(A);
    expect(toSql(bindQuery('$top=1', { model: assetModel, entitySet: 'assets' }), { dialect: 'sqlite', scope: { tenantId: A } }).where).toEqual({
      sql: 't0."tenantId" = ?',
      params: [A],
    });
  });
});
