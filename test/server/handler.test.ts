/**
 * `createODataHandler` on TripPin (a published model) with generated rows, over three sources
 * that must answer alike: the rows in memory (the reference), PGlite and sql.js through
 * `sqlSource`, and mingo (MongoDB's query language in memory) through `mongoSource`. Statuses, headers, bodies in OData JSON, paging followed to its end, errors.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFromCsdlXml, type Model, type Row } from '../../src/index.js';
import { Aggregator, Query } from 'mingo';
import 'mingo/init/system';
import { toMongoCollections } from '../../src/index.js';
import { createODataHandler, memorySource, mongoSource, sqlSource, type MongoDb, type ODataHandler } from '../../src/server/index.js';
import { withoutBigints } from '../fixtures/differential-targets.js';
import { generateStoredData } from '../../src/testing/index.js';
import { CORPUS_DIR, corpusAvailable } from '../conformance/corpus.js';
import { pglite, sqlite, type Engine } from '../fixtures/sql-engines.js';
import { loadStoredTables } from '../fixtures/stored-tables.js';
import { safeInt64 } from '../fixtures/safe-int64.js';

const corpus = process.env.ODATA_CONFORMANCE_DIR ?? CORPUS_DIR;
const available = corpusAvailable || existsSync(corpus);
const model: Model | undefined = available ? modelFromCsdlXml(readFileSync(resolve(corpus, 'metadata', 'trippin-v4-servicerw.xml'), 'utf8')) : undefined;
const ROOT = 'http://localhost/odata/';

/** mingo in the shape of the MongoDB driver's `Db` (what `mongoSource` needs). */
function mingoDb(collections: Record<string, Record<string, unknown>[]>): MongoDb {
  const resolver = { collectionResolver: (name: string) => collections[name] ?? [] };
  return {
    collection: (name) => {
      const documents = collections[name] ?? [];
      return {
        find: (filter, options) => ({
          toArray: async () => {
            let cursor = new Query(filter).find(documents, options.projection);
            if (options.sort !== undefined) cursor = cursor.sort(options.sort as Record<string, 1 | -1>);
            if (options.skip !== undefined) cursor = cursor.skip(options.skip);
            if (options.limit !== undefined) cursor = cursor.limit(options.limit);
            return cursor.all() as Record<string, unknown>[];
          },
        }),
        aggregate: (pipeline) => ({ toArray: async () => new Aggregator(pipeline, resolver).run(documents) as Record<string, unknown>[] }),
        countDocuments: async (filter) => new Query(filter).find(documents).count(),
      };
    },
  };
}

describe.skipIf(model === undefined)('createODataHandler on TripPin', () => {
  const trippin = model as Model;
  // Int64 values within ±2^53: mingo keeps numbers as doubles, a documented deviation this test is not about.
  const data = safeInt64(generateStoredData(trippin, { seed: 28 }) as Record<string, Row[]>);
  const people = (data.People ?? []).map((row) => row.UserName as string);
  const engines: Engine[] = [];
  const handlers: { name: string; handler: ODataHandler }[] = [];
  const options = { model: trippin, basePath: '/odata', maxPageSize: 4 };

  beforeAll(async () => {
    handlers.push({ name: 'memory', handler: createODataHandler({ ...options, source: memorySource(data) }) });
    const collections = withoutBigints(toMongoCollections(trippin, data)) as Record<string, Record<string, unknown>[]>;
    handlers.push({ name: 'mingo', handler: createODataHandler({ ...options, source: mongoSource({ db: mingoDb(collections) }) }) });
    for (const [name, open] of [
      ['PGlite', pglite],
      ['sql.js', sqlite],
    ] as const) {
      const engine = await open();
      engines.push(engine);
      await loadStoredTables(engine, trippin, data, {}, true);
      const dialect = engine.sqlDialect ?? engine.dialect;
      handlers.push({ name, handler: createODataHandler({ ...options, source: sqlSource({ dialect, query: (sql, params) => engine.query(sql, params) }) }) });
    }
  }, 60_000);
  afterAll(async () => {
    for (const engine of engines) await engine.close();
  });

  async function get(handler: ODataHandler, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: unknown }> {
    const response = await handler(new Request(`${ROOT}${path}`, { headers }));
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return { status: response.status, headers: response.headers, body: type.startsWith('application/json') && text !== '' ? JSON.parse(text) : text };
  }

  /** Every source's answer to `path`, which must be the same; the memory source's is returned. */
  async function agreed(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: unknown }> {
    const answers = await Promise.all(handlers.map(async ({ name, handler }) => ({ name, answer: await get(handler, path, headers) })));
    const [first, ...rest] = answers;
    for (const other of rest)
      expect({ source: other.name, status: other.answer.status, body: other.answer.body }).toEqual({
        source: other.name,
        status: first?.answer.status,
        body: first?.answer.body,
      });
    return (first as (typeof answers)[number]).answer;
  }

  it('serves the service document and $metadata', async () => {
    const service = await agreed('');
    expect(service.status).toBe(200);
    expect(service.body).toMatchObject({
      '@odata.context': `${ROOT}$metadata`,
      value: expect.arrayContaining([
        { name: 'People', kind: 'EntitySet', url: 'People' },
        { name: 'Me', kind: 'Singleton', url: 'Me' },
      ]),
    });
    const xml = await agreed('$metadata');
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(xml.body).toMatch(/<EntitySet Name="People"/);
    const json = await agreed('$metadata?$format=json');
    expect(json.body).toMatchObject({ $Version: '4.0' });
  });

  it('serves a collection with a count and follows its next links to the end', async () => {
    let url: string | undefined = 'People?$select=UserName&$count=true&$orderby=UserName desc';
    const seen: string[] = [];
    let pages = 0;
    while (url !== undefined) {
      const page = await agreed(url);
      expect(page.status).toBe(200);
      const body = page.body as { '@odata.count': number; value: { UserName: string }[]; '@odata.nextLink'?: string };
      expect(body['@odata.count']).toBe(people.length);
      expect(body.value.length).toBeLessThanOrEqual(4);
      seen.push(...body.value.map((row) => row.UserName));
      url = body['@odata.nextLink']?.slice(ROOT.length);
      pages += 1;
      expect(pages).toBeLessThan(10);
    }
    expect(seen).toEqual([...people].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
    // A client's $top bounds the whole result across pages; Prefer asks for smaller pages.
    const topped = await agreed('People?$select=UserName&$top=5&$orderby=UserName', { prefer: 'odata.maxpagesize=2' });
    expect(topped.headers.get('preference-applied')).toBe('odata.maxpagesize=2');
    // Without $count the page is continued by keyset: after the last entity's order values.
    const link = (topped.body as { '@odata.nextLink': string })['@odata.nextLink'];
    expect(link).toMatch(new RegExp(`^${ROOT.replaceAll('/', '\\/')}People\\?\\$select=UserName&\\$top=3&\\$orderby=UserName&\\$skiptoken=k\\.[\\w-]+$`));
    const rest: string[] = [];
    let nextUrl: string | undefined = link.slice(ROOT.length);
    while (nextUrl !== undefined) {
      const page = (await agreed(nextUrl, { prefer: 'odata.maxpagesize=2' })).body as { value: { UserName: string }[]; '@odata.nextLink'?: string };
      rest.push(...page.value.map((row) => row.UserName));
      nextUrl = page['@odata.nextLink']?.slice(ROOT.length);
    }
    const ascending = [...people].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect([...(topped.body as { value: { UserName: string }[] }).value.map((row) => row.UserName), ...rest]).toEqual(ascending.slice(0, 5));
    // A token the service did not write, and a keyset token with $count (it would change the count): 400.
    expect((await agreed('People?$skiptoken=k.bm90IGpzb24')).status).toBe(400);
    expect((await agreed(`${link.slice(ROOT.length)}&$count=true`)).status).toBe(400);
  });

  it('serves entities, navigation, containment, properties, $count, $value and $ref', async () => {
    const [first] = [...people].sort();
    const key = `'${String(first).replaceAll("'", "''")}'`;
    const encoded = encodeURIComponent(key);
    const entity = await agreed(`People(${encoded})?$select=UserName,FirstName`);
    expect(entity.status).toBe(200);
    expect(entity.body).toMatchObject({ '@odata.context': `${ROOT}$metadata#People(UserName,FirstName)/$entity`, UserName: first });
    const count = await agreed('People/$count');
    expect(count.body).toBe(String(people.length));
    expect(count.headers.get('content-type')).toMatch(/^text\/plain/);
    const friends = await agreed(`People(${encoded})/Friends?$select=UserName&$count=true`);
    expect(friends.status).toBe(200);
    const trips = await agreed(`People(${encoded})/Trips?$select=Name,TripId`);
    expect((trips.body as { '@odata.context': string })['@odata.context']).toBe(`${ROOT}$metadata#People(${key})/Trips(Name,TripId)`);
    const name = await agreed(`People(${encoded})/FirstName`);
    expect(name.body).toMatchObject({ value: expect.any(String) });
    const raw = await agreed(`People(${encoded})/FirstName/$value`);
    expect(raw.body).toBe((name.body as { value: string }).value);
    const refs = await agreed(`People(${encoded})/Friends/$ref`);
    expect(refs.body).toMatchObject({ '@odata.context': `${ROOT}$metadata#Collection($ref)` });
    await agreed(`People(${encoded})/AddressInfo`);
    await agreed(`People(${encoded})/Emails/$count`);
  });

  it('answers errors as OData JSON with the right status', async () => {
    expect((await agreed("People('no such person')")).status).toBe(404);
    expect(await agreed('Peeple')).toMatchObject({ status: 404, body: { error: { code: 'resource_not_found' } } });
    expect(await agreed('People?$filter=FirstName eq')).toMatchObject({ status: 400, body: { error: { code: 'unexpected_end' } } });
    expect(await agreed('People(1)')).toMatchObject({ status: 400, body: { error: { code: 'type_mismatch' } } });
    expect(await agreed('People?$skiptoken=abc')).toMatchObject({ status: 400 });
    expect(await agreed('ResetDataSource')).toMatchObject({ status: 501, body: { error: { code: 'not_implemented' } } });
    const handler = (handlers[0] as { handler: ODataHandler }).handler;
    const post = await handler(new Request(`${ROOT}People`, { method: 'POST', body: '{}' }));
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await handler(new Request(`${ROOT}People`, { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await handler(new Request('http://localhost/elsewhere/People'))).status).toBe(404);
  });

  it('restricts every level a request reads to its scope, per request, through the plan cache', async () => {
    const sorted = [...people].sort();
    const hidden = sorted[0] as string;
    const literal = `'${hidden.replaceAll("'", "''")}'`;
    const scoped = createODataHandler({
      ...options,
      source: memorySource(data),
      scope: (request, set) => (set.name === 'People' && request.headers.get('x-tenant') === 'b' ? `UserName ne ${literal}` : undefined),
    });
    const as = async (tenant: string, path: string) => get(scoped, path, { 'x-tenant': tenant });
    // The same text for two tenants: the plan is cached, the scope is not.
    expect((await as('a', 'People/$count')).body).toBe(String(people.length));
    expect((await as('b', 'People/$count')).body).toBe(String(people.length - 1));
    expect((await as('a', `People(${encodeURIComponent(literal)})`)).status).toBe(200);
    expect((await as('b', `People(${encodeURIComponent(literal)})`)).status).toBe(404);
    const expanded = (await as('b', '$metadata')).status;
    expect(expanded).toBe(200);
    const all = (await as('b', 'People?$select=UserName&$expand=Friends($select=UserName)&$top=100')).body as {
      value: { UserName: string; Friends: { UserName: string }[] }[];
    };
    const seen = all.value.flatMap((row) => [row.UserName, ...row.Friends.map((friend) => friend.UserName)]);
    expect(seen).not.toContain(hidden);
    for (const other of sorted.slice(1)) {
      const friends = (await as('b', `People(${encodeURIComponent(`'${other.replaceAll("'", "''")}'`)})/Friends?$select=UserName`)).body as {
        value: { UserName: string }[];
      };
      expect(friends.value.map((row) => row.UserName)).not.toContain(hidden);
    }
  });

  it('answers $batch in JSON and multipart/mixed, request by request, bounded', async () => {
    for (const { name, handler } of handlers) {
      const direct = async (path: string) => (await handler(new Request(`${ROOT}${path}`))).json();
      const json = await handler(
        new Request(`${ROOT}$batch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            requests: [
              { id: 'a', method: 'GET', url: 'People?$select=UserName&$top=2&$orderby=UserName' },
              { id: 'b', method: 'get', url: '/odata/People/$count' },
              { id: 'c', method: 'GET', url: `${ROOT}Peeple` },
              { id: 'd', method: 'DELETE', url: 'People' },
            ],
          }),
        }),
      );
      expect(json.status, name).toBe(200);
      const { responses } = (await json.json()) as { responses: { id: string; status: number; body?: unknown }[] };
      expect(
        responses.map((r) => [r.id, r.status]),
        name,
      ).toEqual([
        ['a', 200],
        ['b', 200],
        ['c', 404],
        ['d', 405],
      ]);
      expect(responses[0]?.body, name).toEqual(await direct('People?$select=UserName&$top=2&$orderby=UserName'));
      expect(responses[1]?.body, name).toBe(String(people.length));
      const boundary = 'batch_36522ad7-fc75-4b56-8c71-56071383e77b';
      const part = (path: string, id: string) =>
        `--${boundary}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: ${id}\r\n\r\nGET ${path} HTTP/1.1\r\nAccept: application/json\r\n\r\n`;
      const multipart = await handler(
        new Request(`${ROOT}$batch`, {
          method: 'POST',
          headers: { 'content-type': `multipart/mixed; boundary=${boundary}` },
          body: `${part('People?$select=UserName&$top=1', '1')}${part('People/$count', '2')}--${boundary}--\r\n`,
        }),
      );
      expect(multipart.status, name).toBe(200);
      const type = multipart.headers.get('content-type') ?? '';
      const answer = /boundary=(\S+)/.exec(type)?.[1] as string;
      const text = await multipart.text();
      const pieces = text.split(`--${answer}`).slice(1, -1);
      expect(pieces.length, name).toBe(2);
      expect(pieces[0], name).toContain('HTTP/1.1 200 OK');
      expect(pieces[0], name).toContain(JSON.stringify(await direct('People?$select=UserName&$top=1')));
      expect(pieces[1], name).toMatch(new RegExp(`\\r\\n\\r\\n${people.length}\\r\\n$`));
    }
    const [{ handler }] = handlers as unknown as [{ handler: ODataHandler }];
    const many = JSON.stringify({ requests: Array.from({ length: 101 }, (_, i) => ({ id: String(i), method: 'GET', url: 'People/$count' })) });
    expect((await handler(new Request(`${ROOT}$batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: many }))).status).toBe(400);
    const big = 'x'.repeat(1024 * 1024 + 1);
    expect((await handler(new Request(`${ROOT}$batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big }))).status).toBe(413);
    expect((await handler(new Request(`${ROOT}$batch`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }))).status).toBe(415);
    const nested = JSON.stringify({ requests: [{ id: '1', method: 'POST', url: '$batch' }] });
    const inner = (await (
      await handler(new Request(`${ROOT}$batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: nested }))
    ).json()) as { responses: { status: number }[] };
    expect(inner.responses[0]?.status).toBe(400);
  });

  it('never answers 500 for a mistake of the client (generated URLs)', async () => {
    const [{ handler }] = handlers as unknown as [{ handler: ODataHandler }];
    const pieces = [
      'People',
      "('x')",
      '(1)',
      '/',
      'Friends',
      'Trips',
      '(0)',
      '$count',
      '$ref',
      '$value',
      'FirstName',
      'AddressInfo',
      '0',
      '-1',
      '?',
      '$top=',
      '2',
      '$filter=',
      'FirstName eq ',
      "'a'",
      '&',
      '$expand=Friends',
      '$select=UserName',
      '%27',
      '%2F',
      '%zz',
      '(',
      ')',
      '$skiptoken=',
      '@k=',
      '$batch',
      '$metadata',
      'Me',
      'Photos',
      '$apply=groupby((Gender))',
      '$orderby=LastName',
      '$search=a',
      '#',
      ';',
      ' ',
    ];
    let seed = 29;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % pieces.length;
    for (let i = 0; i < 1500; i++) {
      const path = Array.from({ length: 1 + (i % 9) }, () => pieces[next()]).join('');
      let request: Request;
      try {
        request = new Request(`${ROOT}${path}`);
      } catch {
        continue; // not a URL at all: no client can send it
      }
      const response = await handler(request);
      expect(response.status, path).not.toBe(500);
      if (response.status >= 400) expect(((await response.json()) as { error: { code: string } }).error.code, path).toEqual(expect.any(String));
      else await response.arrayBuffer();
    }
  });

  it('bounds what a path costs: navigation properties, $filter segments, many segments (never the database’s error)', async () => {
    const key = encodeURIComponent(`'${String([...people].sort()[0]).replaceAll("'", "''")}'`);
    const long = await agreed(`People(${key})${`/Friends(${key})`.repeat(500)}`);
    expect(long).toMatchObject({ status: 400, body: { error: { code: 'too_deep' } } });
    expect((long.body as { error: { message: string } }).error.message).toBe('The resource path follows 500 navigation properties; the limit is 8');
    // The path's own navigation does not use up the client's $expand depth (2).
    const deep = await agreed(`People(${key})/Friends/$count`);
    expect(deep.status).toBe(200);
    const expanded = await agreed(
      `People(${key})/Friends?$select=UserName&$expand=Trips($orderby=TripId;$expand=PlanItems($select=PlanItemId;$orderby=PlanItemId))&$top=1`,
    );
    expect(expanded.status).toBe(200);
    // 7 000 `$filter` segments nest 7 000 conjunctions: refused before any database parses them.
    expect(await agreed(`People${'/$filter(true)'.repeat(7000)}`)).toMatchObject({ status: 400, body: { error: { code: 'too_deep' } } });
    expect((await agreed(`People${"/$filter(FirstName ne 'x')".repeat(8)}/$count`)).status).toBe(200);
    // Many segments parse in linear time (each alone, its positions moved), and fail where they fail.
    const casts = await agreed(`People${'/Microsoft.OData.SampleService.Models.TripPin.Person'.repeat(1500)}`);
    expect(casts).toMatchObject({ status: 400, body: { error: { code: 'syntax_error', innererror: { position: 59 } } } });
  }, 60_000);

  it('negotiates the version and the metadata level', async () => {
    const v40 = await agreed('People?$top=1&$select=UserName&$count=true', { 'odata-maxversion': '4.0' });
    expect(v40.headers.get('odata-version')).toBe('4.0');
    expect(Object.keys(v40.body as object)).toEqual(['@odata.context', '@odata.count', 'value']);
    const none = await agreed('People?$top=5&$select=UserName', { accept: 'application/json;odata.metadata=none' });
    expect(Object.keys(none.body as object)).toEqual(['value', '@odata.nextLink']);
    expect((await agreed('People', { accept: 'application/xml' })).status).toBe(406);
  });
});
