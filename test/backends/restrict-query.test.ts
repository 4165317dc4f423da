/**
 * `restrictQuery` (issue 26): the rows of a navigation of one entity (`/products/1/sales`) are the
 * entity set restricted to `product/id eq 1`, and every query option reads only them, `$apply`
 * included. The expected answer is the in-memory reference run on those rows alone (selected here
 * in JavaScript, not by the library); each backend runs the restricted query over all the rows:
 * the reference itself, PGlite, sql.js, DuckDB, MongoDB (mingo) and, with their URLs, a live
 * PostgreSQL and MariaDB. ANDing the restriction into `$filter` instead crashed the SQL backend
 * on `groupby`/`aggregate` and gave the top rows of all sales for `topcount`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Aggregator } from 'mingo';
import 'mingo/init/system';
import {
  bindQuery,
  compileQuery,
  createPlanCache,
  defineModel,
  fromMongoApplyDocument,
  fromMongoDocument,
  ODataError,
  restrictQuery,
  toMongo,
  toMongoDocument,
  toSql,
  type BoundExpression,
  type BoundQuery,
  type Row,
} from '../../src/index.js';
import { compareResults, type BackendResult } from '../../src/testing/harness.js';
import type { DifferentialTarget } from '../../src/testing/index.js';
import { openTargets, withoutBigints } from '../fixtures/differential-targets.js';

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
        region: { type: 'Edm.String', nullable: true },
        productId: { type: 'Edm.Int32', nullable: true },
      },
      navigation: { product: { type: 'Product', constraints: { productId: 'id' } } },
    },
    Product: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: { type: 'Edm.String', nullable: true }, price: { type: 'Edm.Double', nullable: true } },
      navigation: { sales: { type: 'Sale', collection: true, partner: 'product' } },
    },
  },
  entitySets: { sales: { type: 'Sale', bindings: { product: 'products' } }, products: { type: 'Product', bindings: { sales: 'sales' } } },
} as never);

const sales: Row[] = [
  { id: 1, amount: '10.50', qty: 2, region: 'north', productId: 1 },
  { id: 2, amount: '4', qty: 1, region: 'north', productId: 2 },
  { id: 3, amount: '1.25', qty: null, region: 'south', productId: 1 },
  { id: 4, amount: null, qty: 9, region: null, productId: 2 },
  { id: 5, amount: '0.75', qty: 3, region: 'south', productId: null },
  { id: 6, amount: '2', qty: 4, region: null, productId: 1 },
  { id: 7, amount: '8', qty: 7, region: 'north', productId: 3 },
];
const products: Row[] = [
  { id: 1, name: 'milk', price: 1.5 },
  { id: 2, name: 'salt', price: 0.5 },
  { id: 3, name: 'tea', price: null },
];

/** The sales of product 1, the navigation `products(1)/sales`: chosen here, not by the library. */
const related = sales.filter((row) => row.productId === 1);
const restriction = (): BoundExpression => bindQuery('$filter=product/id eq 1', { model, entitySet: 'sales' }).filter as BoundExpression;

/** Every transformation and option over a navigation list. */
const QUERIES = [
  '$apply=aggregate($count as n)',
  '$apply=aggregate(amount with sum as s,qty with max as m,$count as n)',
  '$apply=groupby((region))',
  '$apply=groupby((region),aggregate($count as n,qty with sum as q))',
  '$apply=groupby((product/name),aggregate($count as n))',
  '$apply=groupby((region),aggregate($count as n))&$filter=n ge 1&$orderby=region&$count=true',
  '$apply=filter(qty gt 1)',
  '$apply=identity&$count=true',
  '$apply=compute(qty mul 2 as q2)&$select=id,q2',
  '$apply=topcount(2,qty)',
  '$apply=bottomcount(1,amount)',
  '$apply=orderby(qty desc)/top(2)',
  '$apply=concat(aggregate($count as n),groupby((region),aggregate($count as n)))',
  '$apply=concat(filter(qty gt 2),filter(region eq null))',
  '$apply=aggregate(product/price with sum as p,product/$count as c)',
  '$filter=qty gt 1&$orderby=id&$count=true',
  '$orderby=id desc&$top=2&$skip=1&$count=true',
  '$compute=qty add 1 as q1&$filter=q1 gt 2&$select=id,q1',
  '$select=id,region&$expand=product',
  '$search=north',
];

let targets: DifferentialTarget[] = [];
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const opened = await openTargets(model, 'sales', sales, ['pglite', 'sqlite', 'duckdb', 'postgres', 'mysql'], undefined, { products });
  if (opened.skipped.length > 0) {
    if (CI) throw new Error(`CI needs ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL (missing: ${opened.skipped.join(', ')})`);
    console.warn(`[restrict-query] skipped without a URL: ${opened.skipped.join(', ')}`);
  }
  targets = [{ name: 'memory', run: (query) => compileQuery(query, { data: { sales, products } }).apply(sales) }, mingo(), ...opened.targets];
  close = opened.close;
}, 120_000);
afterAll(() => close());

/** mingo running what toMongo compiles, with both collections (the restriction follows `product`). */
function mingo(): DifferentialTarget {
  const type = model.entitySets.get('sales')!.type;
  const collections: Record<string, Record<string, unknown>[]> = {
    sales: sales.map((row) => withoutBigints(toMongoDocument(row, type))),
    products: products.map((row) => withoutBigints(toMongoDocument(row, model.entitySets.get('products')!.type))),
  };
  return {
    name: 'MongoDB (mingo)',
    run: (query: BoundQuery): BackendResult => {
      const compiled = withoutBigints(toMongo(query));
      const options = { collectionResolver: (name: string) => collections[name] ?? [] };
      const pipeline =
        compiled.kind === 'pipeline'
          ? compiled.pipeline
          : [
              { $match: compiled.filter },
              ...(compiled.sort === undefined ? [] : [{ $sort: compiled.sort }]),
              ...(compiled.skip === undefined ? [] : [{ $skip: compiled.skip }]),
              ...(compiled.limit === undefined ? [] : [{ $limit: compiled.limit }]),
              ...(compiled.projection === undefined ? [] : [{ $project: compiled.projection }]),
            ];
      const raw = new Aggregator([...pipeline], options).run(collections.sales!) as Record<string, unknown>[];
      const value = raw.map(
        (d) => (query.apply === undefined ? fromMongoDocument(d, type, {}, query.expand, query.select.computed) : fromMongoApplyDocument(d, query)) as Row,
      );
      if (compiled.count === undefined) return { value };
      const counting = compiled.kind === 'pipeline' ? [...compiled.count] : [{ $match: compiled.count }, { $count: 'count' }];
      return { value, count: (new Aggregator(counting, options).run(collections.sales!) as { count: number }[])[0]?.count ?? 0 };
    },
  };
}

describe('restrictQuery: the query options read only the restricted rows', () => {
  it('every backend gives the reference answer over the rows of products(1)/sales, $apply included', async () => {
    const problems: string[] = [];
    for (const text of QUERIES) {
      const bound = bindQuery(text, { model, entitySet: 'sales' });
      const expected = compileQuery(bound, { data: { sales: related, products } }).apply(related);
      const restricted = restrictQuery(bound, restriction());
      const ordered = /\$orderby|\$top|\$skip|topcount|bottomcount|top\(/.test(text);
      for (const target of targets) {
        try {
          const difference = compareResults(bound, expected, await target.run(restricted), { ordered });
          if (difference !== undefined) problems.push(`[${target.name}] ${text}\n    ${difference.slice(0, 400)}`);
        } catch (error) {
          problems.push(`[${target.name}] ${text}\n    threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
        }
      }
    }
    expect(problems.join('\n')).toBe('');
  }, 180_000);

  it('puts the restriction in front of $apply, and into $filter without $apply', () => {
    const grouped = restrictQuery(bindQuery('$apply=groupby((region))&$filter=region ne null', { model, entitySet: 'sales' }), restriction());
    expect(grouped.apply?.transformations.map((t) => t.kind)).toEqual(['filter', 'groupby']);
    expect(grouped.filter?.kind).toBe('binary');
    const plain = restrictQuery(bindQuery('$filter=qty gt 1', { model, entitySet: 'sales' }), restriction());
    expect(plain.filter).toMatchObject({ kind: 'binary', operator: 'and' });
    expect(plain.apply).toBeUndefined();
  });

  it('a plan cache never serves a restricted query the plan of another restriction or of the unrestricted query', async () => {
    const cache = createPlanCache();
    const pglite = targets.find((t) => t.name === 'PostgreSQL (PGlite)')!;
    for (const text of ['$apply=groupby((region),aggregate($count as n))', '$orderby=id']) {
      const bound = cache.bind(text, { model, entitySet: 'sales' });
      const of = (id: number) => restrictQuery(bound, bindQuery(`$filter=product/id eq ${id}`, { model, entitySet: 'sales' }).filter as BoundExpression);
      const sql = [
        toSql(bound, { dialect: 'postgres', cache }),
        toSql(of(1), { dialect: 'postgres', cache }),
        toSql(of(2), { dialect: 'postgres', cache }),
        toSql(of(1), { dialect: 'postgres', cache }),
      ];
      expect(sql[0]!.params).not.toContain(1);
      expect(sql[1]!.params).toContain(1);
      expect(sql[2]!.params).toContain(2);
      expect(sql[2]!.params).not.toContain(1);
      expect(sql[3]).toEqual(sql[1]);
      // And the rows: each restriction's own, on PGlite.
      for (const id of [1, 2]) {
        const rows = sales.filter((row) => row.productId === id);
        expect(compareResults(bound, compileQuery(bound, { data: { sales: rows, products } }).apply(rows), await pglite.run(of(id)))).toBeUndefined();
      }
    }
  });

  it('ANDed into $filter after $apply by hand (what restrictQuery avoids), the SQL backend refuses with an ODataError, not a TypeError', () => {
    const grouped = bindQuery('$apply=groupby((region))', { model, entitySet: 'sales' });
    const wrong = { ...grouped, filter: restriction() } as BoundQuery;
    for (const dialect of ['postgres', 'sqlite', 'mysql', 'mssql', 'duckdb'] as const) {
      expect(() => toSql(wrong, { dialect }), dialect).toThrow(ODataError);
    }
  });

  it('refuses a restriction that is not Boolean with an ODataError', () => {
    const value = bindQuery('$orderby=qty', { model, entitySet: 'sales' }).orderBy![0]!.expression;
    expect(() => restrictQuery(bindQuery('', { model, entitySet: 'sales' }), value)).toThrow(ODataError);
  });
});
