/**
 * Navigation in SQL: single-valued paths (correlated subqueries), any/all (EXISTS) and $count on
 * navigation collections, checked against the in-memory reference on related tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, type Row } from '../../../src/index.js';
import { compareResults } from '../../../src/testing/index.js';
import { assetModel } from '../../fixtures/asset-model.js';
import { NAVIGATION_CASES, navigationData } from '../../fixtures/navigation-data.js';
import { engines, load, run, type Engine } from '../../fixtures/sql-engines.js';

const data = navigationData;
const CASES = NAVIGATION_CASES;

const ENGINES = engines();

for (const [name, open, skip] of ENGINES) {
  describe.skipIf(skip)(`${name}: navigation`, () => {
    let engine: Engine;
    beforeAll(async () => {
      engine = await open();
      const created = new Set<string>();
      for (const [set, rows] of Object.entries(data)) await load(engine, assetModel, set, rows, created);
    });
    afterAll(async () => {
      await engine.close();
    });
    for (const [set, query] of CASES) {
      it(`${set}?${query}`, async () => {
        const bound = bindQuery(query, { model: assetModel, entitySet: set, maxAnyAllExpressionDepth: 3 });
        const expected = compileQuery(bound, { data }).apply(data[set] as Row[]);
        const actual = await run(engine, bound);
        const ids = (rows: readonly Row[]): string[] => rows.map((row) => String(row.id).toLowerCase());
        if (bound.orderBy !== undefined) expect(ids(actual.value)).toEqual(ids(expected.value));
        else expect(ids(actual.value).sort()).toEqual(ids(expected.value).sort());
        expect(actual.count).toBe(expected.count);
        if (bound.expand.length > 0) expect(compareResults(bound, expected, actual)).toBeUndefined();
      });
    }
  });
}
