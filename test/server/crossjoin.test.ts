/**
 * `$crossjoin(Set1,Set2,…)` through `createODataHandler` (URL Conventions §4.15), over the Data
 * Aggregation text's model and data (test/fixtures/aggregation-spec.ts): on memory (the
 * reference), checked against answers computed here from the data; then the same requests on
 * PGlite, sql.js, DuckDB and the live PostgreSQL and MariaDB (ODATA_TEST_POSTGRES_URL,
 * ODATA_TEST_MYSQL_URL; required under CI=true) and mingo (MongoDB), which must give the memory
 * answers. The bound (`maxCrossJoinRows`) and the errors on every engine.
 */
import { Aggregator, Query } from 'mingo';
import 'mingo/init/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crossJoinOf, crossJoinSet, toMongoCollections, toSql, type Row } from '../../src/index.js';
import { bindQueryToSet } from '../../src/semantic/bind-query.js';
import { crossJoinRows } from '../../src/backends/memory/index.js';
import { createODataHandler, memorySource, mongoSource, sqlSource, type MongoDb, type ODataHandler, type ODataHandlerOptions } from '../../src/server/index.js';
import { specAggregation, specData, specModel } from '../fixtures/aggregation-spec.js';
import { mysqlPool, postgresPool, withoutBigints } from '../fixtures/differential-targets.js';
import { duckdb, pglite, sqlite, type Engine } from '../fixtures/sql-engines.js';
import { loadStoredTables } from '../fixtures/stored-tables.js';

const CI = process.env.CI === 'true';
const POSTGRES_URL = process.env.ODATA_TEST_POSTGRES_URL;
const MYSQL_URL = process.env.ODATA_TEST_MYSQL_URL;
const ROOT = 'http://localhost/service/';

type Options = Omit<ODataHandlerOptions, 'source'>;
const base: Options = { model: specModel, basePath: '/service', settings: specAggregation };

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function get(handler: ODataHandler, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await handler(new Request(ROOT + path.replaceAll(' ', '%20'), { headers }));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const rows = (answer: Answer): Record<string, unknown>[] => answer.body.value as Record<string, unknown>[];
const error = (answer: Answer): { code: string; message: string } => answer.body.error as { code: string; message: string };

// The data's pairs, computed here: each sale with its product (a sale's Product_ID is its product's key).
const products = specData.Products as readonly Row[];
const sales = specData.Sales as readonly Row[];
const customers = specData.Customers as readonly Row[];
const pairs = products.flatMap((p) => sales.filter((s) => s.Product_ID === p.ID).map((s) => ({ p, s })));
const byKeys = (a: { p: Row; s: Row }, b: { p: Row; s: Row }): number =>
  String(a.p.ID).localeCompare(String(b.p.ID)) || String(a.s.ID).localeCompare(String(b.s.ID));

/** The requests every engine answers as memory does. */
const REQUESTS = [
  '$crossjoin(Products,Sales)?$filter=Products/ID eq Sales/Product/ID',
  '$crossjoin(Products,Sales)?$expand=Products($select=Name),Sales($select=Amount;$expand=Customer($select=Name))&$filter=Products/ID eq Sales/Product/ID&$count=true',
  "$crossjoin(Products,Sales,Customers)?$filter=Products/ID eq Sales/Product/ID and Sales/Customer/ID eq Customers/ID and Customers/Country eq 'USA'&$orderby=Sales/Amount desc,Products/Name&$expand=Customers($select=Name)&$select=Customers,Sales",
  '$crossjoin(Products,Customers)?$orderby=Customers/Name desc&$top=5&$skip=2&$count=true',
  '$crossjoin(Products,Sales)?$apply=filter(Products/ID eq Sales/Product/ID)/groupby((Products/Name),aggregate(Sales/Amount with sum as Total))&$orderby=Products/Name',
  '$crossjoin(Customers,Sales)?$apply=filter(Sales/Customer/ID eq Customers/ID)/groupby((Customers/Country),aggregate($count as Sales))&$orderby=Customers/Country',
  '$crossjoin(Products,Sales)?$filter=Products/ID eq Sales/Product/ID and Sales/Amount gt 2&$expand=*&$orderby=Products/ID desc',
  '$crossjoin(Products,Sales)?$compute=Sales/Amount mul 2 as Twice&$select=Twice,Products&$filter=Products/ID eq Sales/Product/ID&$orderby=Twice desc',
  '$crossjoin(Products,Sales)?$search=Paper',
  '$crossjoin(Products,Sales)?$filter=ID eq 1',
  '$crossjoin(Products,Sales)?$filter=Products/ID eq Sales/ProductID',
  '$crossjoin(Products,Nope)',
  '$crossjoin(Products,Products)',
] as const;

describe('$crossjoin on memory', () => {
  const memory = createODataHandler({ ...base, source: memorySource(specData) });

  it('without $expand: a navigation link per set (the read URL of its entity), in a collection of complex instances', async () => {
    const answer = await get(memory, REQUESTS[0]);
    expect(answer.status).toBe(200);
    expect(answer.body['@odata.context']).toBe(`${ROOT}$metadata#Collection(Edm.ComplexType)`);
    expect(rows(answer)).toEqual(
      [...pairs].sort(byKeys).map(({ p, s }) => ({
        'Products@odata.navigationLink': `Products('${String(p.ID)}')`,
        'Sales@odata.navigationLink': `Sales('${String(s.ID)}')`,
      })),
    );
    // 4.01 names without the prefix when the service does not add it.
    const bare = createODataHandler({ ...base, odataPrefix: false, source: memorySource(specData) });
    const first = rows(await get(bare, `${REQUESTS[0]}&$top=1`))[0];
    expect(first).toEqual({ 'Products@navigationLink': "Products('P1')", 'Sales@navigationLink': "Sales('2')" });
  });

  it('$expand with nested options, $filter through navigation, $count', async () => {
    const answer = await get(memory, REQUESTS[1]);
    expect(answer.status).toBe(200);
    expect(answer.body['@odata.count']).toBe(pairs.length);
    const customerName = (s: Row) => customers.find((c) => c.ID === s.Customer_ID)?.Name;
    expect(rows(answer)).toEqual(
      [...pairs].sort(byKeys).map(({ p, s }) => ({ Products: { Name: p.Name }, Sales: { Amount: Number(s.Amount), Customer: { Name: customerName(s) } } })),
    );
  });

  it("$select of sets: the selected ones only (expanded or as links), ordered by the client and then by each set's key", async () => {
    const answer = await get(memory, REQUESTS[2]);
    expect(answer.status).toBe(200);
    const usa = new Set(customers.filter((c) => c.Country === 'USA').map((c) => c.ID));
    const expected = pairs
      .filter(({ s }) => usa.has(s.Customer_ID as string))
      .sort((a, b) => Number(b.s.Amount) - Number(a.s.Amount) || String(a.p.Name).localeCompare(String(b.p.Name)) || byKeys(a, b))
      .map(({ s }) => ({
        'Sales@odata.navigationLink': `Sales('${String(s.ID)}')`,
        Customers: { Name: customers.find((c) => c.ID === s.Customer_ID)?.Name },
      }));
    expect(expected.length).toBeGreaterThan(1);
    expect(rows(answer)).toEqual(expected);
  });

  it('metadata levels: the links at every level (the instance has nothing else), no type, id or links of the complex instance itself', async () => {
    const none = await get(memory, `${REQUESTS[0]}&$top=1`, { accept: 'application/json;odata.metadata=none' });
    expect(none.body).toEqual({ value: [{ 'Products@odata.navigationLink': "Products('P1')", 'Sales@odata.navigationLink': "Sales('2')" }] });
    const full = rows(await get(memory, `${REQUESTS[0]}&$top=1&$expand=Sales($select=ID)`, { accept: 'application/json;odata.metadata=full' }))[0];
    expect(Object.keys(full ?? {})).toEqual(['Products@odata.navigationLink', 'Sales']);
    expect(full?.Sales).toMatchObject({ '@odata.id': `${ROOT}Sales('2')`, ID: '2' });
  });

  it("$compute over the sets' properties; $search matches no combination (the complex type has no text)", async () => {
    const computed = await get(memory, REQUESTS[7]);
    expect(rows(computed).map((row) => row.Twice)).toEqual(pairs.map(({ s }) => 2 * Number(s.Amount)).sort((a, b) => b - a));
    expect(rows(await get(memory, REQUESTS[8]))).toEqual([]);
  });

  it('$top, $skip and $count over the whole product', async () => {
    const answer = await get(memory, REQUESTS[3]);
    expect(answer.body['@odata.count']).toBe(products.length * customers.length);
    const all = products
      .flatMap((p) => customers.map((c) => ({ p, c })))
      .sort(
        (a, b) =>
          String(b.c.Name).localeCompare(String(a.c.Name)) || String(a.p.ID).localeCompare(String(b.p.ID)) || String(a.c.ID).localeCompare(String(b.c.ID)),
      );
    expect(rows(answer)).toEqual(
      all.slice(2, 7).map(({ p, c }) => ({
        'Products@odata.navigationLink': `Products('${String(p.ID)}')`,
        'Customers@odata.navigationLink': `Customers('${String(c.ID)}')`,
      })),
    );
  });

  it("$apply groups by a set's property and aggregates another's (Data Aggregation section 4)", async () => {
    const answer = await get(memory, REQUESTS[4]);
    expect(answer.status).toBe(200);
    expect(answer.body['@odata.context']).toBe(`${ROOT}$metadata#Collection(Edm.ComplexType)`);
    const totals = new Map<string, number>();
    for (const { p, s } of pairs) totals.set(p.Name as string, (totals.get(p.Name as string) ?? 0) + Number(s.Amount));
    expect(rows(answer).map((row) => ({ Products: row.Products, Total: row.Total }))).toEqual(
      [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([Name, Total]) => ({ Products: { Name }, Total })),
    );
  });

  it('server-driven paging: the next links continue the order to the end', async () => {
    const paged = createODataHandler({ ...base, maxPageSize: 3, source: memorySource(specData) });
    const seen: unknown[] = [];
    let next: string | undefined = REQUESTS[0];
    while (next !== undefined) {
      const answer = await get(paged, next.replace(ROOT, ''));
      expect(rows(answer).length).toBeLessThanOrEqual(3);
      seen.push(...rows(answer));
      next = answer.body['@odata.nextLink'] as string | undefined;
    }
    expect(seen).toEqual(rows(await get(memory, REQUESTS[0])));
  });

  it('errors: a path not starting with a set, an unknown set, a set named twice', async () => {
    const notASet = await get(memory, REQUESTS[9]);
    expect(notASet.status).toBe(400);
    expect(error(notASet).code).toBe('unknown_property');
    expect(error(notASet).message).toMatch(/A path of a cross join starts with one of its entity sets \(Products, Sales\)/);
    const unknown = await get(memory, REQUESTS[11]);
    expect([unknown.status, error(unknown).code]).toEqual([404, 'resource_not_found']);
    expect(error(unknown).message).toMatch(/no entity set named 'Nope'/);
    const twice = await get(memory, REQUESTS[12]);
    expect([twice.status, error(twice).message]).toEqual([400, "'$crossjoin(…)' names the entity set 'Products' twice"]);
  });

  it("the bound: more combinations of rows than maxCrossJoinRows are refused before any is joined, in the request's scope", async () => {
    const product = products.length * sales.length;
    const limited = (max: number, scope?: ODataHandlerOptions['scope']) =>
      createODataHandler({
        ...base,
        settings: { ...specAggregation, maxCrossJoinRows: max },
        ...(scope === undefined ? {} : { scope }),
        source: memorySource(specData),
      });
    expect((await get(limited(product), REQUESTS[0])).status).toBe(200);
    const refused = await get(limited(product - 1), REQUESTS[0]);
    expect(refused.status).toBe(400);
    expect(error(refused)).toEqual({
      code: 'crossjoin_limit_exceeded',
      message: `The limit of '${product - 1}' for $crossjoin has been exceeded: the rows of Products (${products.length}), Sales (${sales.length}) make ${product} combinations. To increase the limit, set the 'maxCrossJoinRows' setting.`,
      target: 'the resource path',
      details: [],
    });
    // A scope counts only its rows, and no combination has a row outside it.
    const scope: ODataHandlerOptions['scope'] = (_request, set) => (set.name === 'Sales' ? "Customer/ID eq 'C1'" : undefined);
    const ownSales = sales.filter((s) => s.Customer_ID === 'C1');
    const scoped = await get(limited(products.length * ownSales.length, scope), REQUESTS[0]);
    expect(scoped.status).toBe(200);
    expect(rows(scoped).map((row) => row['Sales@odata.navigationLink'])).toEqual(
      pairs
        .filter(({ s }) => s.Customer_ID === 'C1')
        .sort(byKeys)
        .map(({ s }) => `Sales('${String(s.ID)}')`),
    );
  });

  it('memory makes the combinations one at a time: only those the leading filter keeps are held', () => {
    const set = crossJoinSet(specModel, [specModel.entitySets.get('Products')!, specModel.entitySets.get('Sales')!]);
    const join = crossJoinOf(set)!;
    const bind = (text: string) => bindQueryToSet(text, { model: specModel, entitySet: set.name }, set);
    expect(crossJoinRows(bind('$filter=Products/ID eq Sales/Product/ID'), join, { data: specData })).toHaveLength(pairs.length);
    expect(crossJoinRows(bind('$apply=filter(Products/ID eq Sales/Product/ID)/groupby((Products/Name))'), join, { data: specData })).toHaveLength(pairs.length);
    expect(crossJoinRows(bind('$top=1'), join, { data: specData })).toHaveLength(products.length * sales.length);
    // Past the set's own bound, refused before the first combination.
    const small = crossJoinOf(crossJoinSet(specModel, join.sets, { maxCrossJoinRows: 10 }))!;
    expect(() => crossJoinRows(bind('$top=1'), small, { data: specData })).toThrow(/limit of '10' for \$crossjoin/);
  });
});

describe('$crossjoin in SQL', () => {
  it("is a CROSS JOIN of the sets' tables, each restricted by the mapping's scope, every value a parameter", () => {
    const set = crossJoinSet(specModel, [specModel.entitySets.get('Products')!, specModel.entitySets.get('Sales')!]);
    const bound = bindQueryToSet("$filter=Products/Name eq 'Pa''per' and Sales/Amount gt 2", { model: specModel, entitySet: set.name }, set);
    for (const dialect of ['postgres', 'mysql', 'sqlite', 'mssql', 'duckdb'] as const) {
      const { sql, params } = toSql(bound, { dialect, scope: { tenant: 'acme' } });
      expect(sql, dialect).toMatch(/ CROSS JOIN /);
      expect(sql, dialect).not.toMatch(/Pa'?'?per|acme/);
      expect(params, dialect).toEqual(expect.arrayContaining(["Pa'per", 'acme']));
      // The scope restricts each joined table inside the derived table, and the joined rows.
      expect(params.filter((p) => p === 'acme').length, dialect).toBeGreaterThanOrEqual(4);
    }
  });
});

// ---------------------------------------------------------------------------------------------

/** mingo in the shape of the MongoDB driver's `Db` (as test/conformance/aggregation-examples.test.ts). */
function mingoDb(collections: Record<string, Record<string, unknown>[]>): MongoDb {
  const resolver = { collectionResolver: (name: string) => collections[name] ?? [] };
  return {
    collection: (name) => {
      const documents = collections[name] ?? [];
      return {
        find: (filter, options) => ({ toArray: async () => new Query(filter).find(documents, options.projection).all() as Record<string, unknown>[] }),
        aggregate: (pipeline) => ({ toArray: async () => new Aggregator(pipeline, resolver).run(documents) as Record<string, unknown>[] }),
        countDocuments: async (filter) => new Query(filter).find(documents).count(),
      };
    },
  };
}

const mongoCollections = (data: Readonly<Record<string, readonly Row[]>>) =>
  withoutBigints(toMongoCollections(specModel, data)) as Record<string, Record<string, unknown>[]>;

describe('$crossjoin on MongoDB (mingo)', () => {
  const memory = (options: Partial<Options> = {}) => createODataHandler({ ...base, ...options, source: memorySource(specData) });
  const mongo = (options: Partial<Options> = {}) =>
    createODataHandler({ ...base, ...options, source: mongoSource({ db: mingoDb(mongoCollections(specData)) }) });

  it.each(REQUESTS)('%s: as memory', async (request) => {
    const [got, want] = await Promise.all([get(mongo(), request), get(memory(), request)]);
    expect(got).toEqual(want);
  });

  it('the bound and the scope, as memory', async () => {
    const scope: ODataHandlerOptions['scope'] = (_request, set) => (set.name === 'Sales' ? "Customer/ID eq 'C1'" : undefined);
    for (const options of [{ settings: { ...specAggregation, maxCrossJoinRows: 31 } }, { scope }]) {
      const [got, want] = await Promise.all([get(mongo(options), REQUESTS[1]), get(memory(options), REQUESTS[1])]);
      expect(got).toEqual(want);
    }
  });

  it("the mapping's scope restricts every joined collection: the combinations of the scope's documents only", async () => {
    // Every document of tenant 'a', and a copy of each in tenant 'b' under another key.
    const tenants = Object.fromEntries(
      Object.entries(mongoCollections(specData)).map(([name, documents]) => [
        name,
        documents.flatMap((d) => [
          { ...d, tenant: 'a' },
          ...(name === 'Products' || name === 'Sales' ? [{ ...d, _id: `b-${String(d._id)}`, tenant: 'b' }] : []),
        ]),
      ]),
    );
    const scoped = createODataHandler({ ...base, source: mongoSource({ db: mingoDb(tenants), scope: { tenant: 'a' } }) });
    for (const request of [REQUESTS[0], REQUESTS[1], REQUESTS[4]]) {
      const [got, want] = await Promise.all([get(scoped, request), get(memory(), request)]);
      expect(got).toEqual(want);
    }
  });
});

const storedData = Object.fromEntries(Object.entries(specData).filter(([, r]) => r.length > 0));
const SQL_ENGINES: readonly (readonly [string, () => Promise<Engine>, boolean])[] = [
  ['PGlite', pglite, false],
  ['sql.js', sqlite, false],
  ['DuckDB', duckdb, false],
  ['PostgreSQL server', () => postgresPool(POSTGRES_URL as string), POSTGRES_URL === undefined],
  ['MariaDB server', () => mysqlPool(MYSQL_URL as string), MYSQL_URL === undefined],
];

describe.each(SQL_ENGINES)('$crossjoin on %s', (_name, open, missing) => {
  if (CI && missing) throw new Error('CI=true needs ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL');
  let engine: Engine | undefined;
  let handler: (options?: Partial<Options>) => ODataHandler;
  const memory = (options: Partial<Options> = {}) => createODataHandler({ ...base, ...options, source: memorySource(specData) });

  beforeAll(async () => {
    if (missing) return;
    engine = await open();
    await loadStoredTables(engine, specModel, storedData);
    const opened = engine;
    handler = (options = {}) =>
      createODataHandler({
        ...base,
        ...options,
        source: sqlSource({ dialect: opened.sqlDialect ?? opened.dialect, query: (sql, params) => opened.query(sql, params) }),
      });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });

  it.skipIf(missing).each(REQUESTS)('%s: as memory', async (request) => {
    const [got, want] = await Promise.all([get(handler(), request), get(memory(), request)]);
    expect(got).toEqual(want);
  });

  it.skipIf(missing)('the bound and the scope, as memory', async () => {
    const scope: ODataHandlerOptions['scope'] = (_request, set) => (set.name === 'Sales' ? "Customer/ID eq 'C1'" : undefined);
    for (const options of [
      { settings: { ...specAggregation, maxCrossJoinRows: 31 } },
      { scope },
      { scope, settings: { ...specAggregation, maxCrossJoinRows: 12 } },
    ]) {
      const [got, want] = await Promise.all([get(handler(options), REQUESTS[1]), get(memory(options), REQUESTS[1])]);
      expect(got).toEqual(want);
      expect(got.status).toBe(options.settings?.maxCrossJoinRows === 31 ? 400 : 200);
    }
  });
});
