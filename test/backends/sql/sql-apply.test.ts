/**
 * `$apply` on the SQL backend (issue 16): every query must give the in-memory reference's rows and
 * count on PGlite, sql.js (SQLite), DuckDB, a live PostgreSQL and a live MariaDB (multisets: rows of
 * an aggregation have no key; with a final `$orderby` the order of the ordered-by values is checked
 * too). Each transformation; empty input; all-null values; nulls in group keys; Decimals; strings
 * differing only in case; grouping by and aggregating along navigation paths; the request's options
 * after `$apply`; and what is refused, with the position that `validateQuery` reports alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindQuery, defineModel, toSql, validateQuery, sqlTarget, type Row } from '../../../src/index.js';
import { runDifferential, type DifferentialTarget } from '../../../src/testing/index.js';
import { openTargets } from '../../fixtures/differential-targets.js';
import { pgliteDataDir } from '../../fixtures/pglite-data-dir.js';

const CI = process.env.CI === 'true';
const model = defineModel({
  namespace: 'Shop',
  entityTypes: {
    Sale: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        amount: { type: 'Edm.Decimal', nullable: true },
        qty: { type: 'Edm.Int32', nullable: true },
        big: { type: 'Edm.Int64', nullable: true },
        rate: { type: 'Edm.Double', nullable: true },
        region: { type: 'Edm.String', nullable: true },
        paid: { type: 'Edm.Boolean', nullable: true },
        productId: { type: 'Edm.Int32', nullable: true },
      },
      navigation: { product: { type: 'Product', constraints: { productId: 'id' } } },
    },
    Product: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        name: { type: 'Edm.String', nullable: true },
        price: { type: 'Edm.Double', nullable: true },
        category: { type: 'Edm.String', nullable: true },
      },
      navigation: { sales: { type: 'Sale', collection: true, partner: 'product' } },
    },
  },
  entitySets: { sales: { type: 'Sale', bindings: { product: 'products' } }, products: { type: 'Product', bindings: { sales: 'sales' } } },
} as never);

const sales: Row[] = [
  { id: 1, amount: '10.50', qty: 2, big: 9_000_000_000_000_000_000n, rate: 0.5, region: 'north', paid: true, productId: 1 },
  { id: 2, amount: '4', qty: 1, big: 9_000_000_000_000_000_000n, rate: 1.25, region: 'North', paid: false, productId: 2 },
  { id: 3, amount: '1.25', qty: null, big: 5n, rate: null, region: 'north', paid: null, productId: 1 },
  { id: 4, amount: null, qty: 5, big: null, rate: 2, region: null, paid: true, productId: 2 },
  { id: 5, amount: '0.75', qty: 3, big: -7n, rate: -1, region: 'south', paid: false, productId: null },
  { id: 6, amount: '2', qty: 4, big: 1n, rate: 4, region: null, paid: true, productId: 3 },
];
const products: Row[] = [
  { id: 1, name: 'milk', price: 1.5, category: 'food' },
  { id: 2, name: 'salt', price: 0.5, category: 'food' },
  { id: 3, name: 'Milk', price: null, category: null },
  { id: 4, name: 'soap', price: 3, category: 'home' },
];

let targets: DifferentialTarget[] = [];
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const opened = await openTargets(model, 'sales', sales, ['pglite', 'sqlite', 'duckdb', 'postgres', 'mysql'], undefined, { products });
  if (opened.skipped.length > 0) {
    if (CI) throw new Error(`CI needs ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL (missing: ${opened.skipped.join(', ')})`);
    console.warn(`[sql-apply] skipped without a URL: ${opened.skipped.join(', ')}`);
  }
  targets = opened.targets;
  close = opened.close;
}, 120_000);
afterAll(() => close());

/** A number as the drivers give it (a Decimal as text or a number). */
const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const show = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** Runs each query on every target; the findings as text (empty when all agree), and each target's row count. */
async function check(queries: readonly string[], orderedBy?: (row: Row) => unknown): Promise<string> {
  const problems: string[] = [];
  for (const text of queries) {
    const result = await runDifferential(text, { model, entitySet: 'sales', rows: sales, targets, data: { products } });
    if (result.bound === undefined) problems.push(`binder refused ${text}: ${result.reference.kind === 'odata' ? result.reference.message : ''}`);
    if (result.reference.kind !== 'rows') problems.push(`reference: ${text}: ${show(result.reference)}`);
    for (const f of result.findings) problems.push(`[${f.target}] ${f.class}: ${text}\n    ${f.detail.slice(0, 400)}`);
    for (const [name, outcome] of result.outcomes) {
      if (outcome.kind !== 'rows')
        problems.push(`[${name}] ${outcome.kind}: ${text}: ${outcome.kind === 'odata' ? outcome.message : String((outcome as { error: unknown }).error)}`);
      else if (orderedBy !== undefined && result.reference.kind === 'rows') {
        const expected = result.reference.result.value.map((row) => String(orderedBy(row)));
        const actual = outcome.result.value.map((row) => String(orderedBy(row)));
        if (show(expected) !== show(actual)) problems.push(`[${name}] order: ${text}: expected ${show(expected)}, got ${show(actual)}`);
      }
    }
  }
  return problems.join('\n');
}

describe('$apply on SQL gives the reference rows', () => {
  it('aggregate: each method, empty input, all-null values, exact Decimal and Int64 sums', async () => {
    const aggregates = [
      'amount with sum as s,amount with average as a,amount with min as lo,amount with max as hi,amount with countdistinct as d,$count as n',
      'qty with sum as s,qty with average as a,qty with min as lo,qty with max as hi,qty with countdistinct as d',
      'rate with sum as s,rate with average as a,rate with min as lo,rate with max as hi',
      'region with min as lo,region with max as hi,region with countdistinct as d',
      'paid with min as lo,paid with max as hi,paid with countdistinct as d',
      'big with sum as s,big with min as lo,big with max as hi,big with average as a',
    ];
    const queries = aggregates.flatMap((items) => [
      `$apply=aggregate(${items})`,
      `$apply=filter(id lt 0)/aggregate(${items})`,
      `$apply=filter(region eq null)/aggregate(${items})`,
      `$apply=filter(id ge 3)/aggregate(${items})`,
    ]);
    queries.push('$apply=filter(id eq 1 or id eq 2)/aggregate(big with sum as s)', '$apply=aggregate((amount mul 2) with sum as s,(qty add 1) with sum as t)');
    expect(await check(queries)).toBe('');
  }, 180_000);

  it('groupby: nulls and case-differing strings as groups of their own, with and without aggregate, nested filters and computes', async () => {
    const queries = [
      '$apply=groupby((region))',
      '$apply=groupby((region,paid))',
      '$apply=groupby((region),aggregate($count as n,amount with sum as s,qty with average as a))',
      '$apply=groupby((paid),aggregate(region with countdistinct as d,region with min as lo,region with max as hi))',
      '$apply=groupby((region),filter(qty gt 2)/aggregate($count as n,amount with sum as s))',
      '$apply=groupby((region),compute(qty mul 2 as q2)/filter(q2 ge 4)/aggregate(q2 with sum as s,$count as n))',
      '$apply=filter(id gt 100)/groupby((region),aggregate($count as n))',
      '$apply=groupby((qty),aggregate(big with sum as s))',
      '$apply=groupby((region),aggregate($count as n))/filter(n gt 1)',
      '$apply=groupby((region),aggregate($count as n))/groupby((n),aggregate($count as regions))',
      '$apply=groupby((region),aggregate(amount with sum as s))/aggregate(s with sum as total,s with max as hi)',
    ];
    expect(await check(queries)).toBe('');
  }, 180_000);

  it('navigation: grouping by related properties (joins), aggregating along a path counts each related entity once', async () => {
    const queries = [
      '$apply=groupby((product/name))',
      '$apply=groupby((product/category,region),aggregate($count as n,amount with sum as s))',
      '$apply=aggregate(product/price with sum as p,product/$count as products,product/price with average as a,product/name with countdistinct as d)',
      '$apply=groupby((region),aggregate(product/price with sum as p,product/$count as c,$count as n))',
      '$apply=groupby((paid),filter(qty ge 2)/aggregate(product/price with sum as p,$count as n))',
      '$apply=filter(id lt 0)/aggregate(product/price with sum as p,product/$count as c)',
      '$apply=groupby((product/name),aggregate(product/price with max as p))&$orderby=product/name',
    ];
    expect(await check(queries)).toBe('');
  }, 180_000);

  it('filter, search, compute, orderby, top, skip, identity, concat, topcount, bottomcount, toppercent, bottompercent, topsum and bottomsum', async () => {
    const queries = [
      '$apply=identity',
      '$apply=filter(qty gt 1)',
      '$apply=filter(qty gt 1)/filter(region ne null)&$select=id,region',
      '$apply=compute(qty mul 2 as double2)&$select=id,double2',
      '$apply=orderby(qty desc)/top(2)&$select=id,qty',
      '$apply=orderby(amount,id desc)/skip(2)/top(2)',
      '$apply=top(3)',
      '$apply=concat(filter(qty gt 2),filter(region eq null))',
      '$apply=concat(aggregate($count as n),groupby((region),aggregate($count as n)))',
      '$apply=concat(groupby((region)),aggregate(amount with sum as s))',
      '$apply=topcount(2,qty)',
      '$apply=bottomcount(2,rate)',
      '$apply=groupby((region),aggregate(amount with sum as s))/topcount(2,s)',
      '$apply=search(north)',
      '$apply=toppercent(50,qty)',
      '$apply=bottompercent(30,rate)',
      '$apply=topsum(5,qty)',
      '$apply=bottomsum(2.5,amount)',
      '$apply=topsum(0,qty)',
      '$apply=toppercent(100,qty)/topcount(2,id)',
      '$apply=groupby((region),aggregate(amount with sum as s))/topsum(3,s)',
      '$apply=filter(id lt 0)/toppercent(50,qty)',
    ];
    expect(await check(queries)).toBe('');
  }, 180_000);

  it("the request's $filter, $orderby, $top, $skip, $count and $select read the rows $apply gives", async () => {
    const group = '$apply=groupby((region,product/name),aggregate(amount with sum as total,$count as n))';
    expect(
      await check(
        [
          `${group}&$filter=n ge 1&$orderby=total desc,region,product/name&$count=true`,
          `${group}&$orderby=total desc,region,product/name&$top=2&$skip=1&$count=true`,
          `${group}&$filter=product/name eq 'milk'&$select=total`,
        ],
        (row) => show([num(row.total), row.region, (row.product as Row | null)?.name]),
      ),
    ).toBe('');
    expect(
      await check([
        `${group}&$select=product&$filter=total ne null`,
        `${group}&$compute=n mul 2 as twice&$select=region,twice`,
        `$apply=filter(qty gt 1)&$compute=qty add 1 as q1&$filter=q1 gt 3`,
      ]),
    ).toBe('');
    expect(await check(['$apply=groupby((region),aggregate(amount with sum as s))&$orderby=s desc'], (row) => show(num(row.s)))).toBe('');
    expect(await check(['$apply=groupby((region),aggregate(amount with sum as s))/orderby(s)'], (row) => show(num(row.s)))).toBe('');
  }, 180_000);
});

describe('$apply on SQL refuses what it does not run, with the position validateQuery reports', () => {
  const refused = [
    '$apply=groupby((region),top(1)/aggregate($count as n))',
    '$apply=aggregate(id with min as m)/filter(m gt 0)&$expand=product($apply=identity)',
  ];
  it.each(refused)('%s', (text) => {
    let error: unknown;
    let bound;
    try {
      bound = bindQuery(text, { model, entitySet: 'sales' });
      toSql(bound, { dialect: 'postgres' });
    } catch (e) {
      error = e;
    }
    if (bound === undefined) return; // the binder's own refusal (not the SQL backend's)
    expect(error).toMatchObject({ code: 'unsupported_feature' });
    const diagnostics = validateQuery(text, { model, entitySet: 'sales', target: sqlTarget('postgres') });
    expect(diagnostics.filter((d) => d.code === 'unsupported_feature').map((d) => d.message)).toEqual([(error as Error).message]);
  });
});

describe('the harness compares $apply rows by value, as a multiset', () => {
  it('finds a wrong aggregate, a missing group, and accepts another order', async () => {
    const { compareResults } = await import('../../../src/testing/index.js');
    const bound = bindQuery('$apply=groupby((region),aggregate($count as n))', { model, entitySet: 'sales' });
    const expected = {
      value: [
        { region: 'a', n: 1n },
        { region: 'b', n: 2n },
      ],
    };
    expect(
      compareResults(bound, expected, {
        value: [
          { region: 'b', n: '2' },
          { region: 'a', n: 1 },
        ],
      }),
    ).toBeUndefined();
    expect(
      compareResults(bound, expected, {
        value: [
          { region: 'a', n: 1n },
          { region: 'b', n: 3n },
        ],
      }),
    ).toMatch(/no returned row equals/);
    expect(compareResults(bound, expected, { value: [{ region: 'a', n: 1n }] })).toMatch(/differ/);
  });
});

describe('$apply over NaN and long Decimals', () => {
  const numbers = defineModel({
    namespace: 'Num',
    entityTypes: {
      Reading: { key: ['id'], properties: { id: 'Edm.Int32', value: { type: 'Edm.Double', nullable: true }, dec: { type: 'Edm.Decimal', nullable: true } } },
    },
    entitySets: { readings: { type: 'Reading' } },
  });
  const readings: Row[] = [
    { id: 1, value: Number.NaN, dec: '0.123456789012345678' },
    { id: 2, value: Number.NaN, dec: '12345678901234567.000000000000000001' },
    { id: 3, value: 1.5, dec: '1' },
    { id: 4, value: null, dec: null },
    { id: 5, value: -2, dec: '3' },
  ];
  it('NaN is one group and the lowest value (PostgreSQL, DuckDB); Decimal sums and averages exact (PostgreSQL, MariaDB)', async () => {
    // MariaDB stores no NaN: the Decimal queries run on rows without it.
    const finite = readings.map((row) => (Number.isNaN(row.value) ? { ...row, value: 7 } : row));
    const withNaN = await openTargets(numbers, 'readings', readings, ['pglite', 'duckdb', 'postgres']);
    const exact = await openTargets(numbers, 'readings', finite, ['pglite', 'postgres', 'mysql']);
    try {
      const skipped = [...withNaN.skipped, ...exact.skipped];
      if (skipped.length > 0 && CI) throw new Error(`CI needs the live servers (missing: ${skipped.join(', ')})`);
      const problems: string[] = [];
      const run = async (text: string, rows: Row[], on: DifferentialTarget[]): Promise<void> => {
        const result = await runDifferential(text, { model: numbers, entitySet: 'readings', rows, targets: on });
        for (const f of result.findings) problems.push(`[${f.target}] ${f.class}: ${text}\n    ${f.detail.slice(0, 300)}`);
        for (const [name, o] of result.outcomes) if (o.kind !== 'rows') problems.push(`[${name}] ${o.kind}: ${text}`);
      };
      for (const text of [
        '$apply=groupby((value),aggregate($count as n))',
        '$apply=aggregate(value with min as lo,value with max as hi,value with countdistinct as d)',
        '$apply=filter(id ge 3)/aggregate(value with min as lo,value with max as hi)',
        '$apply=filter(id eq 1)/aggregate(value with min as lo,value with max as hi)',
      ]) {
        await run(text, readings, withNaN.targets);
      }
      for (const text of ['$apply=aggregate(dec with sum as s,dec with average as a)', '$apply=groupby((value),aggregate(dec with sum as s))'])
        await run(text, finite, exact.targets);
      expect(problems.join('\n')).toBe('');
    } finally {
      await withNaN.close();
      await exact.close();
    }
  }, 120_000);
});

describe('readSqlRows reads $apply rows', () => {
  it('nests grouping paths again and types aggregates by the output type', async () => {
    const { PGlite } = await import('@electric-sql/pglite');
    const { createTableSql, readSqlRows } = await import('../../../src/index.js');
    const db = new PGlite(pgliteDataDir());
    try {
      await db.exec(createTableSql(model.entitySets.get('sales')!, 'postgres'));
      await db.exec(createTableSql(model.entitySets.get('products')!, 'postgres'));
      await db.exec(
        `INSERT INTO "products" ("id", "name") VALUES (1, 'milk'); INSERT INTO "sales" ("id", "amount", "productId", "region") VALUES (1, 2.5, 1, 'x'), (2, 1, 1, 'x')`,
      );
      const bound = bindQuery('$apply=groupby((region,product/name),aggregate(amount with sum as total,$count as n))', { model, entitySet: 'sales' });
      const compiled = toSql(bound, { dialect: 'postgres' });
      const rows = (await db.query<Record<string, unknown>>(compiled.sql, [...compiled.params])).rows;
      expect(readSqlRows(bound, compiled, rows, { ieee754Compatible: true })).toEqual([{ region: 'x', product: { name: 'milk' }, total: '3.5', n: '2' }]);
    } finally {
      await db.close();
    }
  }, 60_000);
});
