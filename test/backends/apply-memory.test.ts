/**
 * `$apply` bound and run by the in-memory reference (Data Aggregation 4.0): each transformation,
 * the extension's null rules and types, aggregation along a to-one path counting each related
 * entity once, the options after `$apply`, and the binder's refusals with positions. Expected
 * rows are computed by hand from the rows below.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, defineModel, ODataError, type Row } from '../../src/index.js';

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
        productId: 'Edm.Int32',
      },
      navigation: { product: { type: 'Product', constraints: { productId: 'id' } } },
    },
    Product: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', category: 'Edm.String', price: 'Edm.Double' } },
  },
  entitySets: { sales: { type: 'Sale', bindings: { product: 'products' } }, products: { type: 'Product' }, archive: { type: 'Sale', applySupported: false } },
});
const sales: Row[] = [
  { id: 1, amount: '10.50', qty: 2, region: 'north', productId: 1 },
  { id: 2, amount: '4', qty: 1, region: 'south', productId: 2 },
  { id: 3, amount: '1.25', qty: null, region: 'north', productId: 1 },
  { id: 4, amount: null, qty: 5, region: null, productId: 2 },
  { id: 5, amount: '2', qty: 3, region: 'North', productId: 3 },
];
const products: Row[] = [
  { id: 1, name: 'milk', category: 'dairy', price: 1.5 },
  { id: 2, name: 'salt', category: 'spice', price: 0.5 },
  { id: 3, name: 'cheese', category: 'dairy', price: 7.25 },
];

function run(query: string, entitySet = 'sales'): { value: Row[]; count?: number } {
  return compileQuery(bindQuery(query, { model, entitySet }), { data: { sales, products } }).apply(entitySet === 'sales' ? sales : products);
}

function refusal(query: string, entitySet = 'sales'): ODataError {
  try {
    bindQuery(query, { model, entitySet });
  } catch (error) {
    if (error instanceof ODataError) return error;
    throw error;
  }
  throw new Error(`bound: ${query}`);
}

describe('$apply in memory', () => {
  it('aggregates the whole set with the types and null rules of the extension', () => {
    expect(run('$apply=aggregate(amount with sum as total)').value).toEqual([{ total: '17.75' }]);
    expect(run('$apply=aggregate($count as n,qty with sum as q,qty with average as a,amount with max as mx,region with countdistinct as r)').value).toEqual([
      { n: 5n, q: 11n, a: 2.75, mx: '10.50', r: 3n },
    ]);
    // An aggregate of no rows is one row: sums, minima and averages are null, counts 0.
    expect(run("$apply=filter(region eq 'x')/aggregate(amount with sum as total,$count as n,amount with min as mn,qty with average as a)").value).toEqual([
      { total: null, n: 0n, mn: null, a: null },
    ]);
    const bound = bindQuery('$apply=aggregate(qty with sum as q,qty with average as a,amount with average as d,$count as n)', { model, entitySet: 'sales' });
    expect([...(bound.apply?.output.properties.values() ?? [])].map((p) => [p.name, p.type.kind === 'primitive' ? p.type.name : p.type.kind])).toEqual([
      ['q', 'Edm.Int64'],
      ['a', 'Edm.Double'],
      ['d', 'Edm.Decimal'],
      ['n', 'Edm.Int64'],
    ]);
  });

  it('groups, with null a group of its own and strings differing in case apart', () => {
    expect(run('$apply=groupby((region),aggregate(amount with sum as total))&$orderby=region').value).toEqual([
      { region: null, total: null },
      { region: 'North', total: '2' },
      { region: 'north', total: '11.75' },
      { region: 'south', total: '4' },
    ]);
    expect(run('$apply=groupby((region))&$orderby=region desc&$top=2').value).toEqual([{ region: 'south' }, { region: 'north' }]);
  });

  it('groups by a navigation path into nested objects, and aggregates along a to-one path once per related entity', () => {
    expect(run('$apply=groupby((product/category),aggregate(qty with sum as q))&$orderby=product/category').value).toEqual([
      { product: { category: 'dairy' }, q: 5n },
      { product: { category: 'spice' }, q: 6n },
    ]);
    // Products 1, 2 and 3 once each (1.5 + 0.5 + 7.25), not once per sale (11.25).
    expect(run('$apply=aggregate(product/price with sum as p,product/$count as products)').value).toEqual([{ p: 9.25, products: 3n }]);
  });

  it('applies $filter, $orderby, $top, $skip, $count and $select to the transformed rows', () => {
    expect(run('$apply=groupby((region),aggregate($count as n))&$filter=n gt 1&$count=true')).toEqual({ value: [{ region: 'north', n: 2n }], count: 1 });
    expect(run('$apply=compute(qty mul 2 as twice)/filter(twice gt 4)/orderby(id)&$select=id,twice').value).toEqual([
      { id: 4, twice: 10 },
      { id: 5, twice: 6 },
    ]);
    expect(run('$apply=groupby((region),aggregate($count as n))&$orderby=n desc,region&$skip=1&$top=2&$select=region').value).toEqual([
      { region: null },
      { region: 'North' },
    ]);
  });

  it('keeps entities through preserving transformations, so $expand still applies', () => {
    expect(run('$apply=filter(qty gt 2)/orderby(qty desc)&$expand=product($select=name)&$select=id').value).toEqual([
      { id: 4, product: { name: 'salt' } },
      { id: 5, product: { name: 'cheese' } },
    ]);
  });

  it('ranks with topcount, bottomcount, topsum and toppercent, null values last', () => {
    const ids = (query: string): unknown[] => run(`${query}&$select=id`).value.map((row) => row.id);
    expect(ids('$apply=topcount(2,qty)')).toEqual([4, 5]);
    expect(ids('$apply=bottomcount(1,qty)')).toEqual([2]);
    // 5, then 5 + 3 = 8 reaches 6 (topsum) and 5.5 = 50 % of 11 (toppercent).
    expect(ids('$apply=topsum(6,qty)')).toEqual([4, 5]);
    expect(ids('$apply=toppercent(50,qty)')).toEqual([4, 5]);
    expect(ids('$apply=identity/skip(1)/top(2)')).toEqual([2, 3]);
  });

  it('rolls up: a group per grouping set, the rolled-up properties absent (not null)', () => {
    const rows = run('$apply=groupby((rollup(product/category,product/name)),aggregate(amount with sum as total,$count as n))').value;
    expect(rows).toEqual([
      { product: { category: 'dairy', name: 'milk' }, total: '11.75', n: 2n },
      { product: { category: 'spice', name: 'salt' }, total: '4', n: 2n },
      { product: { category: 'dairy', name: 'cheese' }, total: '2', n: 1n },
      { product: { category: 'dairy' }, total: '13.75', n: 3n },
      { product: { category: 'spice' }, total: '4', n: 2n },
    ]);
    expect(Object.hasOwn(rows[3]?.product as object, 'name')).toBe(false);
    // Two rollups: every choice of a level of each (2 x 2 sets), with a plain grouping property in all.
    const sets = run('$apply=groupby((rollup(region,qty),rollup(product/category,product/name)))&$count=true');
    expect(new Set(sets.value.map((row) => Object.keys(row).join('+') + ':' + Object.keys(row.product as object).join('+')))).toEqual(
      new Set(['region+qty+product:category+name', 'region+qty+product:category', 'region+product:category+name', 'region+product:category']),
    );
  });

  it('concatenates branches over the same input', () => {
    expect(run('$apply=concat(aggregate($count as n),aggregate(qty with sum as n))').value).toEqual([{ n: 5n }, { n: 11n }]);
  });

  it('refuses what it cannot type or run, with the position in $apply', () => {
    const cases: [string, string, number][] = [
      ['$apply=aggregate(region with sum as s)', 'type_mismatch', 10],
      ['$apply=aggregate(amount with sum as amount)', 'invalid_option_value', 10],
      ['$apply=groupby((region),aggregate($count as n))&$filter=amount gt 1', 'unknown_property', 0],
      // A hierarchy the type does not declare (rolluprecursive itself runs: test/backends/apply-hierarchy-engines.test.ts).
      ['$apply=groupby((rolluprecursive($root/sales,H,id)),aggregate($count as n))', 'invalid_option_value', 37],
      // rollup(A,B,C) has three grouping sets; maxApplyFanOut (16) bounds their product (here 5 x 4).
      ['$apply=groupby((rollup(region,qty,id,amount,productId),rollup(product/name,product/category,product/price,product/id)))', 'apply_fan_out_exceeded', 9],
      ['$apply=aggregate(amount with Custom.median as m)', 'unknown_function', 10],
    ];
    for (const [query, code, position] of cases) {
      const error = refusal(query);
      expect([query, error.code, error.position]).toEqual([query, code, position]);
    }
    expect(refusal('$apply=aggregate($count as n)', 'archive').code).toBe('query_option_not_supported');
    expect(refusal(`$apply=${Array.from({ length: 120 }, () => 'identity').join('/')}`).code).toBe('node_count_exceeded');
  });
});
