/**
 * Server-driven paging against the `$top` limits (found by `fuzzODataServer`, issue 33): the
 * handler reads a page with one entity more than the page, to know whether another follows. That
 * read is the handler's, not the client's: a set whose `$top` maximum is below the page size is still
 * listed (paged within its maximum), and a client's `$top` over the limit is refused even where the
 * page read alone would be within it.
 */
import { describe, expect, it } from 'vitest';
import { defineModel, type Row } from '../../src/index.js';
import { createODataHandler, memorySource } from '../../src/server/index.js';

const model = defineModel({
  namespace: 'P',
  entityTypes: { Item: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String' } } },
  entitySets: { small: { type: 'Item', maxTop: 5 }, one: { type: 'Item', maxTop: 1 }, items: { type: 'Item' } },
});
const rows: Row[] = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, name: `n${i + 1}` }));
const handler = createODataHandler({ model, basePath: '/odata', maxPageSize: 10, source: memorySource({ small: rows, one: rows, items: rows }) });

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await handler(new Request(`http://localhost/odata/${path}`));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Every row of a collection, following its next links. */
async function all(path: string): Promise<{ ids: number[]; pages: number[] }> {
  const ids: number[] = [];
  const pages: number[] = [];
  let next: string | undefined = path;
  while (next !== undefined) {
    const { status, body } = await get(next);
    expect(status).toBe(200);
    const value = body.value as { id: number }[];
    pages.push(value.length);
    ids.push(...value.map((row) => row.id));
    const link = body['@odata.nextLink'] as string | undefined;
    next = link === undefined ? undefined : link.slice(link.indexOf('/odata/') + '/odata/'.length);
  }
  return { ids, pages };
}

describe('server-driven paging within the $top limits', () => {
  it('lists a set whose maximum is below the page size, in pages within it', async () => {
    const { ids, pages } = await all('small');
    expect(ids).toEqual(rows.map((row) => row.id));
    expect(Math.max(...pages)).toBeLessThanOrEqual(5);
    expect((await get('small?$count=true')).body['@odata.count']).toBe(12);
    expect((await all('one')).ids).toEqual(rows.map((row) => row.id));
  });

  it('gives exactly the rows of a $top at the maximum, over the pages', async () => {
    expect((await all('small?$top=5')).ids).toEqual([1, 2, 3, 4, 5]);
    expect((await all('items?$top=11')).ids).toEqual(rows.slice(0, 11).map((row) => row.id));
  });

  it("refuses a client's $top over the limit, also where a page would be within it", async () => {
    const over = await get('small?$top=6');
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error: { code: 'top_limit_exceeded' } });
    expect((over.body.error as { message: string }).message).toContain("The value from the incoming request is '6'.");
    // The host-wide limit (10 000 by default) against a page of 10.
    const host = await get('items?$top=10001');
    expect(host.status).toBe(400);
    expect(host.body).toMatchObject({ error: { code: 'top_limit_exceeded' } });
  });
});
