/**
 * Server-driven paging against the `$top` limits (found by `fuzzODataServer`, issue 33): the
 * handler reads a page with one entity more than the page, to know whether another follows. That
 * read is the handler's, not the client's: a set whose `$top` maximum is below the page size is still
 * listed (paged within its maximum), and a client's `$top` over the limit is refused even where the
 * page read alone would be within it. And a client's `$skip` holds over the pages (found by
 * `diffODataServers`): an offset token counts from the first entity, since the next link leaves the
 * `$skip` out. The handler's page (its `$top`, `$skip` and key order) is its own: a set that does
 * not support `$top` or `$skip` (Microsoft Graph's `users`), a host that does not allow them, and a
 * client `$orderby` at the clause limit are paged (found by fuzzing published models); the client's
 * own options are checked as it wrote them.
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

/** Items in one group: a navigation collection and a cross join to page. */
const grouped = defineModel({
  namespace: 'G',
  entityTypes: {
    Item: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: 'Edm.String', groupId: 'Edm.Int32' },
      navigation: { group: { type: 'Group', constraints: { groupId: 'id' } } },
    },
    Group: { key: ['id'], properties: { id: 'Edm.Int32' }, navigation: { items: { type: 'Collection(Item)', partner: 'group' } } },
  },
  entitySets: { items: { type: 'Item' }, groups: { type: 'Group' } },
});
const groupedHandler = createODataHandler({
  model: grouped,
  basePath: '/odata',
  source: memorySource({ items: rows.map((row) => ({ ...row, groupId: 1 })), groups: [{ id: 1 }] }),
});

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

  it("keeps the client's $skip over the pages: by offset ($count, navigation, a cross join) and by keyset", async () => {
    const ids = rows.map((row) => row.id);
    for (const skip of [1, 2, 4, 9]) {
      // Pages of 3 (the preference), the offset token after the first: the next link leaves the $skip out.
      const paged = async (path: string): Promise<number[]> => {
        const found: number[] = [];
        let next: string | undefined = path;
        while (next !== undefined) {
          const response = await groupedHandler(new Request(`http://localhost/odata/${next}`, { headers: { prefer: 'odata.maxpagesize=3' } }));
          const body = (await response.json()) as Record<string, unknown>;
          expect(response.status, `${next}: ${JSON.stringify(body)}`).toBe(200);
          found.push(...(body.value as Record<string, unknown>[]).map((row) => (row.id ?? (row.items as { id: number }).id) as number));
          const link = body['@odata.nextLink'] as string | undefined;
          next = link === undefined ? undefined : link.slice(link.indexOf('/odata/') + '/odata/'.length);
        }
        return found;
      };
      expect(await paged(`items?$skip=${skip}&$count=true`)).toEqual(ids.slice(skip));
      expect(await paged(`items?$skip=${skip}`)).toEqual(ids.slice(skip));
      expect(await paged(`items?$skip=${skip}&$orderby=name%20desc,id&$count=true`)).toEqual(
        [...rows]
          .sort((a, b) => (a.name! < b.name! ? 1 : -1))
          .map((row) => row.id)
          .slice(skip),
      );
      expect(await paged(`groups(1)/items?$skip=${skip}`)).toEqual(ids.slice(skip));
      expect(await paged(`$crossjoin(items,groups)?$expand=items&$orderby=items/id&$skip=${skip}`)).toEqual(ids.slice(skip));
    }
  });

  it("pages a set that does not support $top, $skip or sorting by its key, and a host that allows neither, refusing only the client's", async () => {
    const restricted = defineModel({
      namespace: 'R',
      entityTypes: { Item: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String' } } },
      // (Nor sorting by the key: the service's page order is its own.)
      entitySets: { items: { type: 'Item', topSupported: false, skipSupported: false, nonSortable: ['id'] } },
    });
    for (const [label, serve] of [
      ['capabilities', createODataHandler({ model: restricted, basePath: '/odata', maxPageSize: 5, source: memorySource({ items: rows }) })],
      [
        'allowedQueryOptions',
        createODataHandler({
          model,
          basePath: '/odata',
          maxPageSize: 5,
          settings: { allowedQueryOptions: ['filter', 'count'] },
          source: memorySource({ items: rows }),
        }),
      ],
    ] as const) {
      const read = async (path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
        const response = await serve(new Request(`http://localhost/odata/${path}`));
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const ids: number[] = [];
      let next: string | undefined = 'items?$count=true';
      while (next !== undefined) {
        const { status, body } = await read(next);
        expect(status, `${label}: ${next}`).toBe(200);
        ids.push(...(body.value as { id: number }[]).map((row) => row.id));
        const link = body['@odata.nextLink'] as string | undefined;
        next = link === undefined ? undefined : link.slice(link.indexOf('/odata/') + '/odata/'.length);
      }
      expect(ids, label).toEqual(rows.map((row) => row.id));
      expect((await read('items/$count')).status, label).toBe(200);
      expect((await read("items?$filter=name eq 'n3'")).body.value, label).toEqual([{ id: 3, name: 'n3' }]);
      // The client's own $top and $skip: refused as before.
      for (const option of ['$top=2', '$skip=2']) expect((await read(`items?${option}`)).status, `${label}: ${option}`).toBe(400);
      if (label === 'capabilities') expect((await read('items?$orderby=id')).body, label).toMatchObject({ error: { code: 'not_sortable' } });
    }
    const refused = await (
      await createODataHandler({ model: restricted, basePath: '/odata', source: memorySource({ items: rows }) })(
        new Request('http://localhost/odata/items?$skip=1'),
      )
    ).json();
    expect(refused).toMatchObject({ error: { code: 'query_option_not_supported', message: "The query option '$skip' is not supported by this entity set." } });
  });

  it("orders pages by the key after a client's $orderby at the clause limit; refuses one over it with the limit as it is", async () => {
    const keyed = defineModel({
      namespace: 'K',
      entityTypes: {
        Line: { key: ['a', 'b'], properties: { a: 'Edm.Int32', b: 'Edm.Int32', c: 'Edm.Int32', d: 'Edm.Int32', e: 'Edm.Int32', f: 'Edm.Int32' } },
      },
      entitySets: { lines: { type: 'Line' } },
    });
    const lines = Array.from({ length: 7 }, (_, i) => ({ a: i % 2, b: i, c: 1, d: 2, e: 3, f: 4 }));
    const serve = createODataHandler({ model: keyed, basePath: '/odata', maxPageSize: 3, source: memorySource({ lines }) });
    const at = await serve(new Request('http://localhost/odata/lines?$orderby=c,d,e,f,a desc'));
    expect(at.status).toBe(200);
    expect(((await at.json()) as { value: { b: number }[] }).value.map((row) => row.b)).toEqual([1, 3, 5]);
    const over = await serve(new Request('http://localhost/odata/lines?$orderby=c,d,e,f,a,b'));
    expect(over.status).toBe(400);
    expect(await over.json()).toMatchObject({
      error: { code: 'orderby_clause_limit_exceeded', message: expect.stringContaining('The maximum number of $orderby clauses allowed is 5.') },
    });
  });
});
