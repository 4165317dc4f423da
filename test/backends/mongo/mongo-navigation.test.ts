/**
 * Navigation in MongoDB (`$lookup`): single-valued paths, any/all and $count over related
 * collections, ordering by a related property, and `$expand` with nested options, run by mingo
 * against the in-memory reference on the related collections of the asset model.
 */
import { Aggregator, Query } from 'mingo';
import 'mingo/init/system';
import { describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, fromMongoDocument, toMongo, toMongoDocument, type Row, type ToMongoOptions } from '../../../src/index.js';
import { compareResults } from '../../../src/testing/index.js';
import { assetModel } from '../../fixtures/asset-model.js';
import { NAVIGATION_CASES, navigationData, twoTenants } from '../../fixtures/navigation-data.js';

const collections: Record<string, Record<string, unknown>[]> = Object.fromEntries(
  Object.entries(navigationData).map(([set, rows]) => [set, rows.map((row) => toMongoDocument(row, assetModel.entitySets.get(set)!.type))]),
);

/** Runs a query by mingo on `data` (documents per collection) and by the reference on `reference` (rows per set). */
function run(set: string, text: string, options: ToMongoOptions = {}, data = collections, reference: Record<string, Row[]> = navigationData) {
  const bound = bindQuery(text, { model: assetModel, entitySet: set, maxAnyAllExpressionDepth: 3 });
  const type = bound.entityType;
  const query = toMongo(bound, { ...options });
  const documents = data[set]!;
  const resolver = { collectionResolver: (name: string) => data[name] ?? [] };
  let value: Row[];
  let count: number | undefined;
  if (query.kind === 'pipeline') {
    value = (new Aggregator([...query.pipeline], resolver).run(documents) as Record<string, unknown>[]).map(
      (d) => fromMongoDocument(d, type, {}, bound.expand) as Row,
    );
    if (query.count !== undefined) count = (new Aggregator([...query.count], resolver).run(documents) as { count: number }[])[0]?.count ?? 0;
  } else {
    let cursor = new Query(query.filter).find(documents, query.projection);
    if (query.sort !== undefined) cursor = cursor.sort(query.sort as Record<string, 1 | -1>);
    if (query.skip !== undefined) cursor = cursor.skip(query.skip);
    if (query.limit !== undefined) cursor = cursor.limit(query.limit);
    value = (cursor.all() as Record<string, unknown>[]).map((d) => fromMongoDocument(d, type) as Row);
    if (query.count !== undefined) count = new Query(query.count).find(documents).count();
  }
  const expected = compileQuery(bound, { data: reference }).apply(reference[set] as Row[]);
  return { bound, query, actual: { value, ...(count === undefined ? {} : { count }) }, expected };
}

const ids = (rows: readonly Row[]): string[] => rows.map((row) => String(row.id).toLowerCase());

describe('MongoDB navigation through $lookup (run by mingo)', () => {
  // The shared cases (the SQL backend runs them too), plus paging, $select and deeper lookups.
  const extra: [string, string][] = [
    ['assets', "$filter=locality/name eq 'Oslo'&$select=id,code&$count=true&$top=1"],
    ['localities', "$filter=assets/$count($filter=tickets/any(t:t/asset/locality/name eq 'Bergen')) eq 1"],
    ['maintenance-tickets', '$filter=asset/tickets/any(t:t/code ne $it/code)&$orderby=asset/locality/name desc,code'],
  ];
  for (const [set, text] of [...NAVIGATION_CASES, ...extra]) {
    it(`${set}?${text}`, () => {
      const { bound, query, actual, expected } = run(set, text);
      expect(query.kind).toBe('pipeline');
      if (bound.orderBy !== undefined) expect(ids(actual.value)).toEqual(ids(expected.value));
      else expect(ids(actual.value).sort()).toEqual(ids(expected.value).sort());
      expect(actual.count).toBe(expected.count);
      expect(compareResults(bound, expected, actual)).toBeUndefined();
    });
  }

  it('expanded counts and nested $count come back as name@odata.count', () => {
    const { actual, expected } = run('assets', "$expand=tickets($filter=priority ne 'low';$count=true)&$orderby=code&$select=code");
    expect(actual.value.map((r) => r['tickets@odata.count'])).toEqual(expected.value.map((r) => r['tickets@odata.count']));
    expect(actual.value.map((r) => r['tickets@odata.count'])).toEqual([1, 0, 0, 1]);
  });

  it('navigation needs no model: the bound tree names the related entity set, the mapping its collection', () => {
    const bound = bindQuery("$filter=locality/name eq 'Oslo'", { model: assetModel, entitySet: 'assets' });
    expect(JSON.stringify(toMongo(bound))).toContain('"from":"localities"');
    const renamed = toMongo(bound, { collections: { localities: 'places' } });
    expect(JSON.stringify(renamed)).toContain('"from":"places"');
  });

  it('scope: two tenants in the same collections; every case sees only tenant A, as the reference on A alone', () => {
    const { A, tenantA, tenantB } = twoTenants();
    const both: Record<string, Record<string, unknown>[]> = Object.fromEntries(
      Object.keys(navigationData).map((set) => [
        set,
        [...tenantA[set]!, ...tenantB[set]!].map((row) => ({ ...toMongoDocument(row, assetModel.entitySets.get(set)!.type), tenantId: row.tenantId })),
      ]),
    );
    for (const [set, text] of [...NAVIGATION_CASES, ['assets', '$count=true&$orderby=code&$top=2&$skip=1'] as [string, string]]) {
      const { bound, actual, expected } = run(set, text, { scope: { tenantId: A } }, both, tenantA);
      expect(compareResults(bound, expected, actual), `${set}?${text}`).toBeUndefined();
      expect(actual.count, `${set}?${text}`).toBe(expected.count);
    }
    // Without the scope, tenant B's documents are there to be found.
    const all = toMongo(bindQuery('$count=true', { model: assetModel, entitySet: 'assets' }));
    expect(all.kind === 'find' && new Query(all.count!).find(both.assets!).count()).toBe(8);
  });
});
