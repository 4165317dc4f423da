/**
 * `$apply` on MongoDB (issue 16): each query runs on mingo through what toMongo compiles and must
 * give the in-memory reference's rows (as multisets where no order is fixed, in order where the
 * request's `$orderby` is total) and count, or be refused as declared with a position.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Aggregator } from 'mingo';
import 'mingo/init/system';
import {
  bindQuery,
  compileQuery,
  defineModel,
  fromMongoApplyDocument,
  mongoTarget,
  toMongo,
  toMongoDocument,
  validateQuery,
  type BoundQuery,
  type Row,
} from '../../../src/index.js';
import { compareResults, type BackendResult } from '../../../src/testing/harness.js';
import { runDifferential, type DifferentialTarget } from '../../../src/testing/index.js';
import { openTargets, withoutBigints } from '../../fixtures/differential-targets.js';

const model = defineModel({
  namespace: 'S',
  entityTypes: {
    Sale: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        amount: 'Edm.Decimal',
        qty: 'Edm.Int32',
        big: 'Edm.Int64',
        price: 'Edm.Double',
        productId: 'Edm.Int32',
        region: 'Edm.String',
        day: 'Edm.Date',
      },
      navigation: { product: { type: 'Product', constraints: { productId: 'id' } } },
    },
    Product: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double' },
      navigation: { sales: { type: 'Sale', collection: true, partner: 'product' } },
    },
  },
  entitySets: { sales: { type: 'Sale', bindings: { product: 'products' } }, products: { type: 'Product', bindings: { sales: 'sales' } } },
} as never);

const sales: Row[] = [
  { id: 1, amount: '10.5', qty: 2, big: 9007199254740000n, price: 1.5, productId: 1, region: 'north', day: '2024-01-01' },
  { id: 2, amount: '4', qty: 1, big: 5n, price: 0.25, productId: 2, region: 'south', day: '2024-01-02' },
  { id: 3, amount: '1.25', qty: null, big: null, price: null, productId: 1, region: 'north', day: null },
  { id: 4, amount: null, qty: 5, big: -3n, price: 2, productId: 2, region: null, day: '2024-01-01' },
  { id: 5, amount: '0.5', qty: 3, big: 7n, price: 0.5, productId: 3, day: '2023-12-31' },
  { id: 6, amount: '2', qty: 4, big: 1n, price: 4, productId: null, region: 'east', day: '2024-01-03' },
];
const products: Row[] = [
  { id: 1, name: 'milk', price: 1.5 },
  { id: 2, name: 'salt', price: 0.5 },
  { id: 3, name: null, price: null },
  { id: 4, name: 'tea', price: 3 },
];

const QUERIES = [
  // aggregate: one row, also for empty input
  '$apply=aggregate(amount with sum as total,qty with sum as q,price with sum as p,$count as n)',
  '$apply=aggregate(amount with average as a,qty with average as aq,price with min as mn,price with max as mx,region with countdistinct as regions)',
  '$apply=aggregate(region with min as first,region with max as last,day with min as d0,day with max as d1,big with sum as b)',
  '$apply=filter(id gt 100)/aggregate(amount with sum as total,qty with average as a,$count as n,region with countdistinct as r,region with min as m)',
  '$apply=filter(qty eq null)/aggregate(qty with sum as s,qty with average as a,qty with min as m,qty with countdistinct as c)',
  // groupby: null and missing keys are one group, nested paths, keys only
  '$apply=groupby((region))',
  '$apply=groupby((region),aggregate(amount with sum as total,$count as n))',
  '$apply=groupby((region,day),aggregate(qty with sum as q,price with max as mx))',
  '$apply=groupby((product/name),aggregate($count as n,amount with sum as total))',
  '$apply=groupby((region,product/name,product/price))',
  '$apply=groupby((region),filter(qty gt 1)/aggregate(qty with sum as q,$count as n))',
  '$apply=groupby((region),compute(qty mul 2 as q2)/filter(q2 ge 4)/aggregate(q2 with sum as s))',
  // navigation aggregates: each related entity once
  '$apply=aggregate(product/price with sum as s,product/$count as np)',
  '$apply=groupby((region),aggregate(product/price with sum as s,product/$count as np,product/name with countdistinct as names,product/name with max as mx))',
  // transformations before and after
  "$apply=filter(region ne 'south')/compute(qty add 1 as q1)/groupby((region),aggregate(q1 with sum as s))",
  '$apply=groupby((region),aggregate(qty with sum as q))/filter(q gt 3)',
  '$apply=groupby((region),aggregate(qty with sum as q))/groupby((q),aggregate($count as n))',
  '$apply=groupby((product/name),aggregate(qty with sum as q))/groupby((product/name))',
  '$apply=groupby((region),aggregate(qty with sum as q))/aggregate(q with sum as all,$count as groups)',
  '$apply=identity',
  '$apply=filter(qty gt 1)/orderby(qty desc)/top(2)',
  '$apply=orderby(region,id desc)/skip(1)/top(3)',
  '$apply=compute(amount mul 2 as twice)',
  '$apply=topcount(2,qty)',
  '$apply=bottomcount(3,price)',
  '$apply=topsum(5,qty)',
  '$apply=toppercent(50,price)',
  '$apply=bottomsum(2,amount)',
  '$apply=groupby((region),aggregate(qty with sum as q))/topcount(2,q)',
  // concat
  '$apply=concat(aggregate($count as n),groupby((region),aggregate($count as n)))',
  '$apply=concat(filter(qty gt 2),filter(qty lt 3))',
  '$apply=concat(filter(id gt 100)/aggregate(qty with sum as q,$count as n),aggregate(qty with sum as q,$count as n))',
  // the request's options over the result
  '$apply=groupby((region),aggregate(amount with sum as total,$count as n))&$filter=n ge 2',
  '$apply=groupby((region),aggregate(qty with sum as q))&$orderby=q desc&$top=2',
  '$apply=groupby((region),aggregate(qty with sum as q))&$orderby=region&$skip=1',
  '$apply=groupby((region),aggregate(qty with sum as q))&$count=true&$top=1&$orderby=q',
  '$apply=groupby((region),aggregate(qty with sum as q,$count as n))&$select=q',
  '$apply=groupby((product/name),aggregate(qty with sum as q))&$filter=product/name ne null&$select=product/name',
  '$apply=groupby((region))&$top=2',
  '$apply=filter(qty gt 1)&$orderby=qty&$count=true',
  '$apply=compute(qty mul 2 as q2)&$filter=q2 gt 4&$select=id,q2',
  '$apply=groupby((day),aggregate(qty with sum as q))&$orderby=day desc',
];

let targets: DifferentialTarget[] = [];
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const opened = await openTargets(model, 'sales', sales, ['mingo']);
  targets = opened.targets;
  close = opened.close;
});
afterAll(() => close());

const data = { sales, products };
const type = model.entitySets.get('sales')!.type;
const collections: Record<string, Record<string, unknown>[]> = {
  sales: sales.map((row) => withoutBigints(toMongoDocument(row, type))),
  products: products.map((row) => withoutBigints(toMongoDocument(row, model.entitySets.get('products')!.type))),
};

/** What mingo gives for a bound query compiled by toMongo, read back with fromMongoApplyDocument. */
function onMingo(bound: BoundQuery): BackendResult {
  const compiled = withoutBigints(toMongo(bound));
  if (compiled.kind !== 'pipeline') throw new Error('a $apply query compiles to a pipeline');
  const options = { collectionResolver: (name: string) => collections[name] ?? [] };
  const raw = new Aggregator([...compiled.pipeline], options).run(collections.sales!) as Record<string, unknown>[];
  const value = raw.map((document) => fromMongoApplyDocument(document, bound) as Row);
  if (compiled.count === undefined) return { value };
  return { value, count: (new Aggregator([...compiled.count], options).run(collections.sales!) as { count: number }[])[0]?.count ?? 0 };
}

/** Each query on mingo against the reference (with both collections: navigation reaches products). */
function compareAll(texts: readonly string[]): string[] {
  const problems: string[] = [];
  for (const text of texts) {
    try {
      const bound = bindQuery(text, { model, entitySet: 'sales' });
      const expected = compileQuery(bound, { data }).apply(sales);
      const actual = onMingo(bound);
      // In order where the request orders or pages (ties keep the reference's order here too).
      const ordered =
        /\$orderby|\$top|\$skip/.test(text) || /(orderby|top|skip|topcount|bottomcount|topsum|bottomsum|toppercent|bottompercent)\([^/]*\)$/.test(text);
      const difference = compareResults(bound, expected, actual, { ordered });
      if (difference !== undefined) problems.push(`${text}\n    ${difference.slice(0, 800)}`);
    } catch (error) {
      problems.push(`${text}\n    threw ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}

describe('$apply on MongoDB (mingo) against the in-memory reference', () => {
  it('gives the reference rows for each transformation, empty input, nulls, decimals, Int64 and navigation', () => {
    expect(compareAll(QUERIES).join('\n')).toBe('');
  });

  it('agrees through the differential runner (rows of one collection)', async () => {
    const problems: string[] = [];
    for (const text of QUERIES.filter((q) => !q.includes('product'))) {
      const result = await runDifferential(text, { model, entitySet: 'sales', rows: sales, targets });
      for (const f of result.findings) problems.push(`[${f.target}] ${f.class}: ${text}\n    ${f.detail.slice(0, 600)}`);
    }
    expect(problems.join('\n')).toBe('');
  }, 60_000);

  it('refuses what it does not run, with the position, and validateQuery reports exactly that', () => {
    const refused = [
      // Positions are offsets in the option's value.
      ['$apply=concat(concat(identity,identity),identity)', 'concat() inside concat()', 'concat('.length],
      [
        '$apply=concat(aggregate($count as n)/filter(n gt 1),identity)',
        'aggregate() followed by other transformations inside concat()',
        'concat(aggregate($count as n)/'.length,
      ],
      ['$apply=groupby((region),top(1)/aggregate($count as n))', 'top() inside groupby()', 'groupby((region),'.length],
    ] as const;
    for (const [text, what, position] of refused) {
      const bound = bindQuery(text, { model, entitySet: 'sales' });
      let error: unknown;
      try {
        toMongo(bound);
      } catch (e) {
        error = e;
      }
      expect(error, text).toMatchObject({ code: 'unsupported_feature' });
      expect((error as Error).message, text).toContain(what);
      if (position !== undefined) expect((error as { position?: number }).position, text).toBe(position);
      const validated = validateQuery(text, { model, entitySet: 'sales', target: mongoTarget() });
      expect(
        validated.map((d) => [d.code, d.option]),
        text,
      ).toEqual([['unsupported_feature', text.startsWith('$expand') ? '$expand' : '$apply']]);
    }
    for (const text of QUERIES) expect(validateQuery(text, { model, entitySet: 'sales', target: mongoTarget() }), text).toEqual([]);
  });

  it('keeps the order of the request and of the transformations', () => {
    // Ties of $orderby in the order of the groups' first rows; orderby() then top() by value.
    const ordered = [
      '$apply=groupby((region),aggregate($count as n))&$orderby=n desc',
      '$apply=orderby(qty desc,id)/top(4)',
      '$apply=topcount(3,price)',
      '$apply=groupby((region),aggregate(qty with sum as q))&$orderby=q&$skip=1&$top=2',
    ];
    expect(compareAll(ordered).join('\n')).toBe('');
  });
});
