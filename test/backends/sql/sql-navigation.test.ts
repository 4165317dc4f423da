/**
 * Navigation in SQL: single-valued paths (correlated subqueries), any/all (EXISTS) and $count on
 * navigation collections, checked against the in-memory reference on related tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, type Row } from '../../../src/index.js';
import { compareResults } from '../../../src/testing/index.js';
import { assetModel } from '../../fixtures/asset-model.js';
import { load, mysqlServer, pglite, postgresServer, run, sqlite, type Engine } from '../../fixtures/sql-engines.js';

const L1 = '10000000-0000-0000-0000-000000000001';
const L2 = '10000000-0000-0000-0000-000000000002';
const A = (n: number): string => `a0000000-0000-0000-0000-00000000000${n}`;
const data: Record<string, Row[]> = {
  localities: [
    { id: L1, name: 'Oslo' },
    { id: L2, name: 'Bergen' },
  ],
  assets: [
    { id: A(1), code: 'A1', name: 'Pump', localityId: L1, status: 'active', createdAt: '2024-01-01T00:00:00Z' },
    { id: A(2), code: 'A2', name: 'Valve', localityId: L2, status: 'retired', createdAt: '2024-01-02T00:00:00Z' },
    { id: A(3), code: 'A3', name: 'Fan', localityId: null, status: null, createdAt: '2024-01-03T00:00:00Z' },
    { id: A(4), code: 'A4', name: 'Belt', localityId: L1, status: 'maintenance', createdAt: '2024-01-04T00:00:00Z' },
  ],
  'maintenance-tickets': [
    { id: 'b0000000-0000-0000-0000-000000000001', code: 'T1', assetId: A(1), priority: 'high', estimatedHours: 4 },
    { id: 'b0000000-0000-0000-0000-000000000002', code: 'T2', assetId: A(1), priority: 'low', estimatedHours: 12 },
    { id: 'b0000000-0000-0000-0000-000000000003', code: 'T3', assetId: A(2), priority: 'low', estimatedHours: null },
    { id: 'b0000000-0000-0000-0000-000000000004', code: 'T4', assetId: A(4), priority: 'critical', estimatedHours: 2 },
    { id: 'b0000000-0000-0000-0000-000000000005', code: 'T5', assetId: null, priority: 'high', estimatedHours: 1 },
  ],
};

const CASES: [string, string][] = [
  ['assets', "$filter=locality/name eq 'Oslo'"],
  ['assets', "$filter=locality/name ne 'Oslo'"],
  ['assets', "$filter=not (locality/name eq 'Oslo')"],
  ['assets', "$filter=tickets/any(t:t/priority eq 'high')"],
  ['assets', '$filter=tickets/all(t:t/estimatedHours lt 10)'],
  ['assets', '$filter=not tickets/all(t:t/estimatedHours lt 10)'],
  ['assets', '$filter=tickets/any()'],
  ['assets', '$filter=not tickets/any()'],
  ['assets', '$filter=tickets/$count ge 2'],
  ['assets', '$filter=tickets/$count eq 0'],
  ['assets', "$filter=tickets/any(t:t/asset/locality/name eq 'Oslo' and t/estimatedHours gt 3)"],
  ['assets', "$filter=locality/assets/any(a:a/code eq 'A4')"],
  ['assets', '$orderby=locality/name desc,code&$top=3'],
  ['assets', "$filter=tickets/any(t:t/code in ('T3','T9'))&$count=true"],
  ['maintenance-tickets', "$filter=asset/locality/name eq 'Bergen'"],
  ['maintenance-tickets', "$filter=asset/code eq 'A1' or asset eq null"],
  ['maintenance-tickets', "$filter=asset/status eq 'active'"],
  ['maintenance-tickets', '$orderby=asset/createdAt desc,code'],
  ['localities', "$filter=assets/any(a:a/tickets/any(t:t/priority eq 'critical'))"],
  ['localities', "$filter=assets/$count($filter=status ne null) eq 2"],
  ['assets', '$expand=locality&$orderby=code'],
  ['assets', "$expand=tickets($filter=priority ne 'low';$orderby=code desc;$top=1;$count=true)&$orderby=code"],
  ['assets', '$expand=tickets/$count,locality($select=name)&$orderby=code'],
  ['localities', '$expand=assets($orderby=code;$expand=tickets($select=code;$orderby=code))&$orderby=name'],
  ['maintenance-tickets', "$expand=asset($filter=status eq 'active';$expand=locality)&$orderby=code"],
  ['localities', '$expand=assets/$ref&$orderby=name'],
  ['assets', '$expand=tickets($search=t1 OR NOT T2;$orderby=code)&$orderby=code'],
  ['localities', '$expand=assets($orderby=code;$expand=tickets($search="T4" OR t3;$orderby=code))&$orderby=name'],
];

const POSTGRES_URL = process.env.ODATA_TEST_POSTGRES_URL;
const MYSQL_URL = process.env.ODATA_TEST_MYSQL_URL;
const ENGINES: readonly (readonly [string, () => Promise<Engine>, boolean])[] = [
  ['PostgreSQL (PGlite)', pglite, false],
  ['SQLite (sql.js)', sqlite, false],
  ['PostgreSQL server', () => postgresServer(POSTGRES_URL as string), POSTGRES_URL === undefined],
  ['MySQL/MariaDB server', () => mysqlServer(MYSQL_URL as string), MYSQL_URL === undefined],
];

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
        const expected = compileQuery(bound, { data, model: assetModel }).apply(data[set] as Row[]);
        const actual = await run(engine, bound, assetModel);
        const ids = (rows: readonly Row[]): string[] => rows.map((row) => String(row.id).toLowerCase());
        if (bound.orderBy !== undefined) expect(ids(actual.value)).toEqual(ids(expected.value));
        else expect(ids(actual.value).sort()).toEqual(ids(expected.value).sort());
        expect(actual.count).toBe(expected.count);
        if (bound.expand.length > 0) expect(compareResults(bound, expected, actual)).toBeUndefined();
      });
    }
  });
}
