/**
 * `diffODataServers` on loopback: this library's handler against itself finds nothing; against a
 * server that drops an option, or pages differently, or answers 500, it reports the difference with
 * both answers; collations are left to each service.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createODataHandler, memorySource, toNodeListener } from '../../src/server/index.js';
import { diffODataServers, generateStoredData } from '../../src/testing/index.js';
import { rowDifference, totallyOrdered } from '../../src/testing/diff-servers.js';
import { assetModel } from '../fixtures/asset-model.js';

const servers: http.Server[] = [];
const data = generateStoredData(assetModel, { seed: 34 });

/** The handler on loopback (with `maxPageSize`), `rewrite` changing each request's query string first. */
async function serve(rewrite: (search: string) => string = (search) => search, maxPageSize?: number): Promise<string> {
  const listener = toNodeListener(
    createODataHandler({ model: assetModel, basePath: '/odata', source: memorySource(data), ...(maxPageSize === undefined ? {} : { maxPageSize }) }),
  );
  const server = http.createServer((request, response) => {
    const [path, search] = (request.url ?? '/').split('?', 2) as [string, string | undefined];
    request.url = search === undefined ? path : `${path}?${rewrite(search)}`;
    return listener(request, response);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/odata`;
}
afterAll(async () => {
  for (const server of servers) await new Promise((done) => server.close(done));
});

const dropping = (name: string) => (search: string) =>
  search
    .split('&')
    .filter((part) => decodeURIComponent(part.split('=')[0] ?? '').toLowerCase() !== name)
    .join('&');

async function difference(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('no difference');
}

describe('diffODataServers', () => {
  it('finds nothing between two servers that answer alike, even paged differently', async () => {
    const [a, b] = [await serve(), await serve(undefined, 3)];
    for (const set of ['localities', 'inspections']) {
      const result = await diffODataServers({ a: { url: `${a}/${set}` }, b: { url: `${b}/${set}` }, model: assetModel, entitySet: set, numRuns: 80, seed: 1 });
      expect(result.queries).toBeGreaterThan(60);
    }
    // Fewer pages followed than B gives: the rows both gave so far are compared.
    await diffODataServers({
      a: { url: `${a}/localities` },
      b: { url: `${b}/localities` },
      model: assetModel,
      entitySet: 'localities',
      numRuns: 40,
      seed: 2,
      maxPages: 1,
    });
  });

  it('reports a difference in rows with both answers and how to repeat each', async () => {
    const [a, b] = [await serve(), await serve(dropping('$filter'))];
    const report = await difference(
      diffODataServers({
        a: { url: `${a}/localities`, name: 'ours' },
        b: { url: `${b}/localities`, name: 'filterless', headers: { authorization: 'Bearer x' } },
        model: assetModel,
        entitySet: 'localities',
        numRuns: 100,
        seed: 2,
      }),
    );
    expect(report).toMatch(/^(\d+ rows from ours, \d+ from filterless|counts differ: \d+ from ours, \d+ from filterless)/);
    expect(report).toMatch(/query: +\S*\$filter=/);
    expect(report).toMatch(/ {2}ours:\n {4}status: +200 in \d+ ms[\s\S]*\n {2}filterless:\n {4}status: +200/);
    expect(report).toContain("-H 'authorization: <redacted>'");
    expect(report).toMatch(/seed: 2, path: "[\d:]+"/);
  });

  it('reports a difference in status, and counts known differences instead of failing', async () => {
    const [a, b] = [await serve(), await serve((search) => (search.includes('%24select') || search.includes('$select') ? '$filter=(' : search))];
    const report = await difference(
      diffODataServers({ a: { url: `${a}/localities` }, b: { url: `${b}/localities` }, model: assetModel, entitySet: 'localities', numRuns: 100, seed: 3 }),
    );
    expect(report).toMatch(/^A answered 200, B 400/);
    const result = await diffODataServers({
      a: { url: `${a}/localities` },
      b: { url: `${b}/localities` },
      model: assetModel,
      entitySet: 'localities',
      numRuns: 100,
      seed: 3,
      known: [{ why: 'B refuses $select', match: /^A answered 200, B 400/ }],
    });
    expect(result.known[0]?.count).toBeGreaterThan(0);
  });

  it('orders by the key after the given order, and compares expanded entities and collations fairly', () => {
    const type = assetModel.entitySets.get('localities')!.type;
    expect(totallyOrdered('$top=3', type)).toBe('$top=3&$orderby=id');
    expect(totallyOrdered('$orderby=name%20desc&$top=3', type)).toBe('$orderby=name%20desc%2Cid&$top=3');
    expect(totallyOrdered('$orderby=id', type)).toBe('$orderby=id');
    // Key properties one service adds to a $select are no difference; another property is.
    expect(rowDifference(type, { id: 'a', name: 'x' }, { name: 'x' })).toBeUndefined();
    expect(rowDifference(type, { id: 'a', name: 'x' }, { id: 'a' })).toMatch(/name: only A returns it/);
    // Values by their type, whatever the JSON form.
    const assets = assetModel.entitySets.get('assets')!.type;
    const numeric = [...assets.properties.values()].find((p) => p.kind === 'property' && p.type.kind === 'primitive' && p.type.name === 'Edm.Decimal');
    if (numeric !== undefined) expect(rowDifference(assets, { [numeric.name]: 2.5 }, { [numeric.name]: '2.50' })).toBeUndefined();
    // Expanded collections in any order.
    expect(rowDifference(type, { assets: [{ id: 'p' }, { id: 'q' }] }, { assets: [{ id: 'q' }, { id: 'p' }] })).toBeUndefined();
    expect(rowDifference(type, { assets: [{ id: 'p' }] }, { assets: [{ id: 'q' }] })).toMatch(/assets: A's entity 0/);
  });
});
