/**
 * Entities `$apply` writes into its rows (Data Aggregation 3.2.3.1: a grouped single-valued
 * navigation property with its key; 6.3: the node `rolluprecursive` writes through a navigation
 * path), expanded with options: `/$ref`, nested `$select`, `$expand` (two levels), `$filter`. Each
 * is the entity of its set that its key identifies, its navigation read from the data. On the
 * example service of the Data Aggregation text (test/fixtures/aggregation-spec.ts): the reference's
 * answers checked by hand, then every engine (PGlite, sql.js, DuckDB, mingo, and the live
 * PostgreSQL and MariaDB) against the reference. Hierarchy node paths through a collection
 * (`Sales/SalesOrganization/ID` from products, 6.2.1): their answers checked by hand in memory, and
 * every engine gives them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDifferential, type DifferentialResult } from '../../src/testing/index.js';
import { ALL_TARGETS, openStoredTargets } from '../fixtures/differential-targets.js';
import { specAggregation, specData, specModel } from '../fixtures/aggregation-spec.js';

const ROLLUP = 'rolluprecursive($root/SalesOrganizations,SalesOrgHierarchy,SalesOrganization/ID)';
const THROUGH_SALES = '$root/SalesOrganizations,SalesOrgHierarchy,Sales/SalesOrganization/ID';

/** `$apply` inside `$expand` (MariaDB runs it without a derived table reading the expanded row). */
const APPLY_IN_EXPAND =
  '$apply=groupby((Product),aggregate($count as n))&$expand=Product($select=ID;$expand=Sales($apply=aggregate(Amount with sum as Total)))';

/** Queries of Sales whose rows every engine must give as the reference does. */
const CASES: readonly string[] = [
  // Example 87's shape: a grouped entity as its reference, beside $these/aggregate.
  '$apply=groupby((Customer),aggregate(Amount with sum as A))/compute(A divby $these/aggregate(A with sum) as Share)&$expand=Customer/$ref',
  // Grouped by the key and another property only: still the whole entity of the set.
  '$apply=groupby((Customer/ID,Time/Year),aggregate(Amount with sum as A))&$expand=Customer($select=Name,Country;$expand=Sales($select=ID;$orderby=ID desc;$top=2))&$select=A',
  // A nested $filter: null where the entity fails it.
  "$apply=groupby((Customer),aggregate($count as n))&$expand=Customer($filter=Country eq 'USA';$select=Name)",
  // rolluprecursive's node: example 107 without its descendants, and two levels down.
  `$apply=groupby((${ROLLUP}),aggregate(Amount with sum as Total))&$expand=SalesOrganization($expand=Superordinate/$ref)`,
  `$apply=groupby((${ROLLUP}),aggregate($count as n))&$expand=SalesOrganization($select=ID;$expand=Superordinate($select=Name;$expand=Superordinate/$ref))&$select=n`,
  // Rows of rollup's coarser level have no key: no entity (null).
  '$apply=groupby((rollup(Customer/Country,Customer/ID)),aggregate(Amount with sum as A))&$expand=Customer/$ref',
  // $apply inside the expansion of the entity (every engine, MariaDB too).
  APPLY_IN_EXPAND,
];

const options = { model: specModel, entitySet: 'Sales', rows: specData.Sales as readonly Record<string, unknown>[], data: specData, settings: specAggregation };

/** The reference's rows (no targets), sorted by their JSON (no order is defined on groupby rows). */
async function referenceRows(query: string, entitySet = 'Sales'): Promise<unknown[]> {
  const result = await runDifferential(query, { ...options, entitySet, rows: specData[entitySet] as never, targets: [] });
  if (result.reference.kind !== 'rows') throw new Error(`${query}: ${result.reference.kind === 'odata' ? result.reference.message : result.reference.kind}`);
  return result.reference.result.value as unknown[];
}

/** Rows as sorted JSON texts (counts, Int64 values, as numbers). */
const sorted = (rows: readonly unknown[]): string[] =>
  rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value))).sort();

describe('entities $apply wrote into the rows, expanded with options: the reference', () => {
  it('a grouped customer as its reference (the key only) and as the entity with a nested $expand of its own sales', async () => {
    expect(sorted(await referenceRows('$apply=groupby((Customer),aggregate(Amount with sum as A))&$expand=Customer/$ref&$select=A'))).toEqual(
      sorted([
        { A: '7', Customer: { ID: 'C1' } },
        { A: '12', Customer: { ID: 'C2' } },
        { A: '5', Customer: { ID: 'C3' } },
      ]),
    );
    const rows = await referenceRows('$apply=groupby((Customer/ID),aggregate($count as n))&$expand=Customer($select=Name;$expand=Sales($select=ID))&$select=n');
    expect(sorted(rows)).toEqual(
      sorted([
        { n: 3, Customer: { Name: 'Joe', Sales: [{ ID: '1' }, { ID: '2' }, { ID: '3' }] } },
        { n: 2, Customer: { Name: 'Sue', Sales: [{ ID: '4' }, { ID: '5' }] } },
        { n: 3, Customer: { Name: 'Sue', Sales: [{ ID: '6' }, { ID: '7' }, { ID: '8' }] } },
      ]),
    );
  });

  it("rolluprecursive's node expanded two levels up, and null where a nested $filter drops it or the row has no key", async () => {
    const rows = await referenceRows(
      `$apply=groupby((${ROLLUP}),aggregate($count as n))&$expand=SalesOrganization($select=ID;$expand=Superordinate($select=ID;$expand=Superordinate/$ref))&$select=n`,
    );
    const org = (n: number, ID: string, up: string | null, upper: string | null) => ({
      n,
      SalesOrganization: { ID, Superordinate: up === null ? null : { ID: up, Superordinate: upper === null ? null : { ID: upper } } },
    });
    expect(sorted(rows)).toEqual(
      sorted([
        org(8, 'Sales', null, null),
        org(5, 'US', 'Sales', null),
        org(3, 'US West', 'US', 'Sales'),
        org(2, 'US East', 'US', 'Sales'),
        org(3, 'EMEA', 'Sales', null),
        org(3, 'EMEA Central', 'EMEA', 'Sales'),
      ]),
    );
    const filtered = await referenceRows("$apply=groupby((Customer),aggregate($count as n))&$expand=Customer($filter=Country eq 'USA';$select=Name)&$select=n");
    expect(sorted(filtered)).toEqual(
      sorted([
        { n: 3, Customer: { Name: 'Joe' } },
        { n: 2, Customer: { Name: 'Sue' } },
        { n: 3, Customer: null },
      ]),
    );
    const rolled = await referenceRows('$apply=groupby((rollup(Customer/Country,Customer/ID)),aggregate($count as n))&$expand=Customer/$ref&$select=n');
    expect(sorted(rolled)).toEqual(
      sorted([
        { n: 3, Customer: { ID: 'C1' } },
        { n: 2, Customer: { ID: 'C2' } },
        { n: 3, Customer: { ID: 'C3' } },
        { n: 5, Customer: null },
        { n: 3, Customer: null },
      ]),
    );
  });

  it('refuses what is no entity of a set: a grouped value without its key, options on a collection alias', async () => {
    for (const query of [
      '$apply=groupby((Customer/Country),aggregate($count as n))&$expand=Customer/$ref',
      '$apply=groupby((Customer/Name),aggregate($count as n))&$expand=Customer($expand=Sales)',
    ]) {
      const result = await runDifferential(query, { ...options, targets: [] });
      expect(result.reference.kind === 'odata' && result.reference.code, query).toBe('unsupported_feature');
    }
    const joined = await runDifferential('$apply=addnested(Sales,filter(Amount gt 3) as Big)&$expand=Big/$ref', {
      ...options,
      entitySet: 'Products',
      rows: specData.Products as never,
      targets: [],
    });
    expect(joined.reference.kind === 'odata' && joined.reference.code).toBe('unsupported_feature');
  });
});

describe('hierarchy node paths through a collection: the reference', () => {
  it('descendants and ancestors relate a product to every organization its sales name', async () => {
    // P1 is sold in US West and EMEA Central: the descendants of those are themselves, where P1, P2 and P3 are sold.
    const ids = async (query: string): Promise<string[]> => (await referenceRows(query, 'Products')).map((row) => (row as { ID: string }).ID).sort();
    expect(await ids(`$apply=descendants(${THROUGH_SALES},filter(ID eq 'P1'),keep start)&$select=ID`)).toEqual(['P1', 'P2', 'P3']);
    // Without keep start, the start nodes' proper descendants: none (they are leaves).
    expect(await ids(`$apply=descendants(${THROUGH_SALES},filter(ID eq 'P1'))&$select=ID`)).toEqual([]);
    // P4 has no sale: related to no organization.
    expect(await ids(`$apply=ancestors(${THROUGH_SALES},filter(ID ne 'P4'),keep start)&$select=ID`)).toEqual(['P1', 'P2', 'P3']);
    expect(await ids(`$apply=ancestors(${THROUGH_SALES},filter(ID eq 'P2'))&$select=ID`)).toEqual([]);
  });

  it('traverse gives a product once per organization it is sold in, in the tree order, with the organization', async () => {
    const rows = await referenceRows(`$apply=traverse(${THROUGH_SALES},postorder,Name desc)&$select=ID,Sales`, 'Products');
    const at = (ID: string, org: string) => ({
      ID,
      // The organization as its type has it (not its stored row's foreign key Superordinate_ID).
      Sales: [{ SalesOrganization: { ID: org, Name: org } }],
    });
    // Postorder, siblings by Name desc: US West, US East (under US), then EMEA Central (under EMEA).
    expect(rows).toEqual([
      at('P1', 'US West'),
      at('P2', 'US West'),
      at('P3', 'US West'),
      at('P2', 'US East'),
      at('P3', 'US East'),
      at('P1', 'EMEA Central'),
      at('P3', 'EMEA Central'),
    ]);
  });

  it("rolluprecursive puts a product into each organization's portion once", async () => {
    const rows = await referenceRows(
      `$apply=groupby((rolluprecursive(${THROUGH_SALES})),aggregate($count as n,ID with Custom.concat as SoldProducts))&$select=n,SoldProducts`,
      'Products',
    );
    expect(sorted(rows)).toEqual(
      sorted([
        { n: 3, SoldProducts: 'P1,P2,P3' },
        { n: 3, SoldProducts: 'P1,P2,P3' },
        { n: 3, SoldProducts: 'P1,P2,P3' },
        { n: 2, SoldProducts: 'P2,P3' },
        { n: 2, SoldProducts: 'P1,P3' },
        { n: 2, SoldProducts: 'P1,P3' },
      ]),
    );
  });
});

describe('entities $apply wrote into the rows on every engine', () => {
  let opened: Awaited<ReturnType<typeof openStoredTargets>>;
  beforeAll(async () => {
    opened = await openStoredTargets(specModel, Object.fromEntries(Object.entries(specData).filter(([, rows]) => rows.length > 0)), ALL_TARGETS);
    if (process.env.CI === 'true') expect(opened.skipped).toEqual([]);
  }, 60_000);
  afterAll(async () => {
    await opened?.close();
  });

  const findings = (result: DifferentialResult): string[] => result.findings.map((f) => `[${f.target}] ${f.class}: ${f.detail.slice(0, 300)}`);

  for (const query of CASES) {
    it(`Sales?${query}`, async () => {
      const result = await runDifferential(query, { ...options, targets: opened.targets });
      expect(result.reference.kind, result.reference.kind === 'odata' ? result.reference.message : '').toBe('rows');
      expect(findings(result)).toEqual([]);
      for (const [target, outcome] of result.outcomes) {
        expect(outcome.kind, `${target}: ${outcome.kind === 'odata' ? outcome.message : ''}`).toBe('rows');
      }
    }, 60_000);
  }

  for (const query of [
    `$apply=descendants(${THROUGH_SALES},filter(ID eq 'P1'),keep start)`,
    `$apply=traverse(${THROUGH_SALES},preorder,Name asc)`,
    `$apply=groupby((rolluprecursive(${THROUGH_SALES})),aggregate($count as n))`,
  ]) {
    it(`Products?${query}: every engine gives the reference's rows through the collection`, async () => {
      const result = await runDifferential(query, { ...options, entitySet: 'Products', rows: specData.Products as never, targets: opened.targets });
      expect(result.reference.kind).toBe('rows');
      expect(result.reference.kind === 'rows' && result.reference.result.value.length).toBeGreaterThan(0);
      expect(findings(result)).toEqual([]);
      for (const [target, outcome] of result.outcomes) expect(outcome.kind, `${target}: ${outcome.kind === 'odata' ? outcome.message : ''}`).toBe('rows');
    }, 60_000);
  }
});
