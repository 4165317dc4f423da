/**
 * The order of the rows `$apply` gives (semantic/apply/output-order.ts): without `$orderby`,
 * `$top`, `$skip` and server-driven paging take the rows of an `$apply` ending in `orderby`, a
 * ranking or `traverse` (then steps that keep order) in that order, on every engine; other rows
 * are paged by the key. Before, every engine ordered such rows by the key when `$top` or `$skip`
 * was given (and the handler always gives one: its page size), so `traverse` through
 * `createODataHandler` came in key order.
 */
import { describe, expect, it } from 'vitest';
import { runDifferential } from '../../src/testing/differential.js';
import { createODataHandler, memorySource } from '../../src/server/index.js';
import { useFuzzTargets } from '../fixtures/fuzz-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';
import { specAggregation, specData, specModel } from '../fixtures/aggregation-spec.js';

const targets = useFuzzTargets('apply-output-order-engines');

type Row = Record<string, unknown>;
const n32 = (row: Row): number | null => (row.n32 === null || row.n32 === undefined ? null : Number(row.n32));
/** The fuzz rows with an Int32 value, highest first, ties by key (the order the engines give them in: see each case). */
const byN32Desc = fuzzRows.filter((row) => n32(row) !== null).sort((a, b) => (n32(b) as number) - (n32(a) as number) || Number(a.id) - Number(b.id));

/** Queries, and the ids the reference must give, in order. */
const CASES: readonly [string, number[]][] = [
  ['$apply=filter(n32 ne null)/orderby(n32 desc,id)&$top=3&$select=id', byN32Desc.slice(0, 3).map((row) => Number(row.id))],
  ['$apply=filter(n32 ne null)/orderby(n32 desc,id)&$skip=2&$top=2&$select=id', byN32Desc.slice(2, 4).map((row) => Number(row.id))],
  [
    '$apply=filter(n32 ne null)/orderby(n32 desc,id)/filter(n32 lt 1000)/compute(n32 add 1 as m)&$top=2&$select=id,m',
    byN32Desc
      .filter((row) => (n32(row) as number) < 1000)
      .slice(0, 2)
      .map((row) => Number(row.id)),
  ],
  ['$apply=filter(n32 ne null)/orderby(n32 desc,id)/top(5)&$skip=3&$select=id', byN32Desc.slice(3, 5).map((row) => Number(row.id))],
  // Without an order of $apply's own: the key.
  [
    '$apply=filter(n32 ne null)/compute(n32 mul 2 as d)&$top=3&$select=id',
    [...fuzzRows]
      .filter((row) => n32(row) !== null)
      .map((row) => Number(row.id))
      .sort((a, b) => a - b)
      .slice(0, 3),
  ],
  // $orderby replaces $apply's order.
  [
    '$apply=filter(n32 ne null)/orderby(n32 desc,id)&$orderby=id desc&$top=2&$select=id',
    [...fuzzRows]
      .filter((row) => n32(row) !== null)
      .map((row) => Number(row.id))
      .sort((a, b) => b - a)
      .slice(0, 2),
  ],
];

const ids = (value: readonly Row[]): number[] => value.map((row) => Number(row.id));

describe('$top and $skip after $apply take its rows in its order, on every engine', () => {
  for (const [query, expected] of CASES) {
    it(
      query,
      async () => {
        const result = await runDifferential(query, { model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets: targets() });
        expect(result.reference.kind).toBe('rows');
        if (result.reference.kind !== 'rows') return;
        expect(ids(result.reference.result.value as Row[])).toEqual(expected);
        for (const [target, outcome] of result.outcomes) {
          expect(outcome.kind, `${target}: ${outcome.kind === 'odata' ? outcome.message : ''}`).toBe('rows');
          if (outcome.kind === 'rows') expect(ids(outcome.result.value as Row[]), target).toEqual(expected);
        }
      },
      60_000,
    );
  }

  it('a ranking keeps its order under $top', async () => {
    const query = '$apply=filter(n32 ne null)/topcount(4,n32)&$top=2&$select=id';
    const result = await runDifferential(query, { model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets: targets() });
    expect(result.reference.kind).toBe('rows');
    if (result.reference.kind !== 'rows') return;
    const reference = ids(result.reference.result.value as Row[]);
    expect(reference).toEqual(byN32Desc.slice(0, 2).map((row) => Number(row.id)));
    for (const [target, outcome] of result.outcomes) if (outcome.kind === 'rows') expect(ids(outcome.result.value as Row[]), target).toEqual(reference);
  }, 60_000);
});

describe('server-driven paging follows the order of $apply', () => {
  const TRAVERSE = 'SalesOrganizations?$apply=traverse($root/SalesOrganizations,SalesOrgHierarchy,ID,preorder,Name desc)&$select=ID';

  async function pages(maxPageSize: number | undefined, request: string): Promise<{ ids: string[]; links: number }> {
    const handler = createODataHandler({
      model: specModel,
      source: memorySource(specData),
      settings: specAggregation,
      ...(maxPageSize === undefined ? {} : { maxPageSize }),
    });
    let url: string | undefined = `http://localhost/${request}`;
    const found: string[] = [];
    let links = 0;
    while (url !== undefined) {
      const response = await handler(new Request(url));
      expect(response.status).toBe(200);
      const body = (await response.json()) as { value: { ID: string }[]; '@odata.nextLink'?: string };
      found.push(...body.value.map((row) => row.ID));
      url = body['@odata.nextLink'];
      if (url !== undefined) links++;
      expect(links).toBeLessThan(20);
    }
    return { ids: found, links };
  }

  it('traverse through the handler gives the tree in preorder, whole and in pages of two (offset tokens)', async () => {
    // Preorder, siblings by Name descending: Sales; US (its children US West, US East); EMEA (EMEA Central).
    const tree = ['Sales', 'US', 'US West', 'US East', 'EMEA', 'EMEA Central'];
    expect((await pages(undefined, TRAVERSE)).ids).toEqual(tree);
    const paged = await pages(2, TRAVERSE);
    expect(paged.ids).toEqual(tree);
    expect(paged.links).toBe(2);
  });

  it('orderby of $apply through the handler, in pages', async () => {
    const request = 'SalesOrganizations?$apply=orderby(Name desc)&$select=ID';
    const names = [...(specData.SalesOrganizations as { ID: string; Name: string }[])]
      .sort((a, b) => (a.Name < b.Name ? 1 : a.Name > b.Name ? -1 : 0))
      .map((o) => o.ID);
    expect((await pages(4, request)).ids).toEqual(names);
  });
});
