/**
 * `fuzzODataServer` against real HTTP servers on loopback: this library's handler (over the
 * in-memory source) passes by the rules every OData server follows and by this library's own error
 * codes; a server that answers its errors with other codes (as SAP CAP does: `"400"`) passes by
 * default and fails only with `expectCodes`; servers that ignore `$top` or `$select`, or answer an
 * invalid query with a 500, are found, and each finding reports the query, the status, the body, the
 * time and a `curl` command.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataHandler, memorySource, toNodeListener } from '../../src/server/index.js';
import { fuzzODataServer, generateStoredData } from '../../src/testing/index.js';
import { rowsProblem } from '../../src/testing/answer-rows.js';
import { defineModel } from '../../src/model/define-model.js';
import { parseJsonText } from '../../src/util/json-text.js';
import { assetModel } from '../fixtures/asset-model.js';

const servers: http.Server[] = [];
const handler = createODataHandler({ model: assetModel, basePath: '/odata', source: memorySource(generateStoredData(assetModel, { seed: 33 })) });
const listener = toNodeListener(handler);

/** The request's query string without the option `name` (the raw text otherwise kept as sent). */
const dropping =
  (name: string) =>
  (search: string): string =>
    search
      .split('&')
      .filter((part) => decodeURIComponent(part.split('=')[0] ?? '').toLowerCase() !== name)
      .join('&');

/** A server on loopback: the handler, with `rewrite` changing the request's query string and `answer` the response's body first. */
async function serve(
  rewrite: (search: string) => string = (search) => search,
  answer?: (status: number, body: string) => { status: number; body: string },
): Promise<string> {
  const server = http.createServer((request, response) => {
    const [path, search] = (request.url ?? '/').split('?', 2) as [string, string | undefined];
    request.url = search === undefined ? path : `${path}?${rewrite(search)}`;
    if (answer === undefined) return listener(request, response);
    // Capture the handler's answer, then send the changed one.
    const chunks: Buffer[] = [];
    const capture = new http.ServerResponse(request);
    capture.write = ((chunk: Buffer | string) => {
      chunks.push(Buffer.from(chunk));
      return true;
    }) as typeof capture.write;
    capture.end = ((chunk?: Buffer | string) => {
      if (chunk !== undefined && typeof chunk !== 'function') chunks.push(Buffer.from(chunk));
      const changed = answer(capture.statusCode, Buffer.concat(chunks).toString('utf8'));
      response.writeHead(changed.status, { 'content-type': 'application/json' });
      response.end(changed.body);
      return capture;
    }) as typeof capture.end;
    return listener(request, capture);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/odata/assets`;
}

/** The report of a finding: `fuzzODataServer`'s rejection message. */
async function finding(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('no finding');
}

let ours: string;
beforeAll(async () => {
  ours = await serve();
});
afterAll(async () => {
  for (const server of servers) await new Promise((done) => server.close(done));
});

describe('fuzzODataServer', () => {
  it("passes this library's handler by every server's rules, and by this library's error codes", async () => {
    await fuzzODataServer({ url: ours, model: assetModel, entitySet: 'assets', numRuns: 40, seed: 1 });
    await fuzzODataServer({ url: ours, model: assetModel, entitySet: 'assets', numRuns: 40, seed: 2, expectCodes: true });
  });

  it('passes a server with other error codes by default; expectCodes compares them', async () => {
    // As SAP CAP answers: 400 with an OData error body whose code is "400".
    const cap = await serve(undefined, (status, body) => {
      if (status < 400) return { status, body };
      const { error } = JSON.parse(body) as { error: { message: string } };
      return { status, body: JSON.stringify({ error: { code: String(status), message: error.message } }) };
    });
    await fuzzODataServer({ url: cap, model: assetModel, entitySet: 'assets', numRuns: 40, seed: 3 });
    const report = await finding(fuzzODataServer({ url: cap, model: assetModel, entitySet: 'assets', numRuns: 40, seed: 3, expectCodes: true }));
    expect(report).toMatch(/gave the code 400, expected \w+/);
  });

  it('finds a server that ignores $top, and reports the query, the answer and how to repeat it', async () => {
    const topless = await serve(dropping('$top'));
    const report = await finding(
      fuzzODataServer({ url: topless, model: assetModel, entitySet: 'assets', numRuns: 200, seed: 4, headers: { authorization: 'Bearer secret' } }),
    );
    expect(report).toMatch(/\$top=\d+ answered \d+ rows/);
    expect(report).toMatch(/query: +[^\n]*\$top=/);
    expect(report).toMatch(/status: +200 in \d+ ms/);
    expect(report).toMatch(/headers: content-type: application\/json/);
    expect(report).toMatch(/body: +\{"@odata.context"/);
    expect(report).toContain("curl -sS -i -H 'accept: application/json' -H 'authorization: <redacted>' 'http://127.0.0.1:");
    // fast-check's part: the seed and the shrink path.
    expect(report).toMatch(/seed: 4, path: "[\d:]+"/);
  });

  it('finds a server that ignores $select', async () => {
    const selectless = await serve(dropping('$select'));
    const report = await finding(fuzzODataServer({ url: selectless, model: assetModel, entitySet: 'assets', numRuns: 200, seed: 5 }));
    expect(report).toMatch(/\$select=\S+ answered a row with '\w+'/);
  });

  it('finds a server that answers an invalid query with a 500, or a 400 without an error body', async () => {
    const failing = await serve(undefined, (status, body) => (status === 400 ? { status: 500, body: '{"oops":true}' } : { status, body }));
    expect(await finding(fuzzODataServer({ url: failing, model: assetModel, entitySet: 'assets', numRuns: 20, seed: 6 }))).toMatch(
      /an invalid query \([^)]+\) answered 500, not a 4xx[\s\S]*body: +\{"oops":true\}/,
    );
    const bodiless = await serve(undefined, (status, body) => (status === 400 ? { status, body: '' } : { status, body }));
    expect(await finding(fuzzODataServer({ url: bodiless, model: assetModel, entitySet: 'assets', numRuns: 20, seed: 7 }))).toMatch(
      /answered 400 without an error body/,
    );
  });

  it('finds a server that ignores $filter, or $orderby, by judging the rows it returns', async () => {
    const filterless = await serve(dropping('$filter'));
    expect(await finding(fuzzODataServer({ url: filterless, model: assetModel, entitySet: 'assets', numRuns: 200, seed: 8 }))).toMatch(
      /row \d+ does not satisfy \$filter=/,
    );
    const unordered = await serve(dropping('$orderby'));
    expect(await finding(fuzzODataServer({ url: unordered, model: assetModel, entitySet: 'assets', numRuns: 200, seed: 9 }))).toMatch(
      /rows \d+ and \d+ are out of the order of \$orderby=/,
    );
  });

  it('counts known deviations instead of failing on them, and does not send skipped queries', async () => {
    const topless = await serve(dropping('$top'));
    const result = await fuzzODataServer({
      url: topless,
      model: assetModel,
      entitySet: 'assets',
      numRuns: 100,
      seed: 4,
      known: [{ why: 'ignores $top', match: /query: +[^\n]*\$top=/ }],
    });
    expect(result.known).toHaveLength(1);
    expect(result.known[0]!.why).toBe('ignores $top');
    expect(result.known[0]!.count).toBeGreaterThan(0);
    expect(result.known[0]!.example).toMatch(/curl -sS -i/);
    // Skipped: no query with $top is sent, so nothing is found.
    const skipped = await fuzzODataServer({ url: topless, model: assetModel, entitySet: 'assets', numRuns: 100, seed: 4, skip: /(^|&)\$top=/ });
    expect(skipped.known).toEqual([]);
  });

  it('asks for a $top limit only where one is given (OData sets none)', async () => {
    // A server without this library's limit of 10 000: the handler with a higher one.
    const unlimited = createODataHandler({
      model: assetModel,
      basePath: '/odata',
      source: memorySource(generateStoredData(assetModel, { seed: 33 })),
      settings: { maxTop: 1_000_000 },
    });
    const server = http.createServer(toNodeListener(unlimited));
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/odata/localities`;
    await fuzzODataServer({ url, model: assetModel, entitySet: 'localities', numRuns: 150, seed: 10 });
    expect(await finding(fuzzODataServer({ url, model: assetModel, entitySet: 'localities', numRuns: 150, seed: 10, maxTop: 10_000 }))).toMatch(
      /\(\$top over the limit\) answered 200/,
    );
  });
});

describe('rowsProblem: what the rows tell of $filter and $orderby', () => {
  const row = (name: string | null, extra: Record<string, unknown> = {}) => ({ id: '6a7d1b1e-0000-4000-8000-000000000001', name, ...extra });

  it('finds a row that fails the filter, and rows out of order', () => {
    expect(rowsProblem(assetModel, 'localities', "$filter=name%20eq%20'x'", [row('y')])).toMatch(/row 0 does not satisfy \$filter=name eq 'x'/);
    expect(rowsProblem(assetModel, 'localities', "$filter=name%20eq%20'x'", [row('x')])).toBeUndefined();
    expect(rowsProblem(assetModel, 'localities', '$orderby=name%20desc', [row('a'), row('b')])).toMatch(/rows 0 and 1 are out of the order/);
    expect(rowsProblem(assetModel, 'localities', '$orderby=name%20desc', [row('b'), row('a'), row(null)])).toBeUndefined();
    // Null is the smallest value: first ascending.
    expect(rowsProblem(assetModel, 'localities', '$orderby=name', [row('a'), row(null)])).toMatch(/out of the order/);
  });

  it('leaves to the service what OData leaves to it: collations, and what the rows do not hold', () => {
    // Case-insensitive and the locale's orders are orders too.
    expect(rowsProblem(assetModel, 'localities', '$orderby=name', [row('apple'), row('Banana')])).toBeUndefined();
    expect(rowsProblem(assetModel, 'localities', '$orderby=name', [row('Émile'), row('Zoe')])).toBeUndefined();
    // ... but not every order: 'b' before 'a' is in none.
    expect(rowsProblem(assetModel, 'localities', '$orderby=name', [row('b'), row('a')])).toMatch(/out of the order/);
    // A string compared by order, in any collation.
    expect(rowsProblem(assetModel, 'localities', "$filter=name%20lt%20'b'", [row('B')])).toBeUndefined();
    // A property the rows leave out, a navigation property, now(): not judged.
    expect(rowsProblem(assetModel, 'localities', "$filter=name%20eq%20'x'", [{ id: '6a7d1b1e-0000-4000-8000-000000000001' }])).toBeUndefined();
    expect(rowsProblem(assetModel, 'localities', "$filter=assets%2Fany(a%3Aa%2Fname%20eq%20'x')", [row('y')])).toBeUndefined();
    // A query it cannot decode, or bind: not judged.
    expect(rowsProblem(assetModel, 'localities', '$filter=name%20eq%20%E0%A4%A', [row('y')])).toBeUndefined();
    expect(rowsProblem(assetModel, 'localities', '$filter=nope%20eq%201', [row('y')])).toBeUndefined();
  });

  it('reads OData JSON back: Int64 and Decimal digits, INF, parameter aliases', () => {
    const model = defineModel({
      namespace: 'N',
      entityTypes: { T: { key: ['id'], properties: { id: 'Edm.Int32', big: 'Edm.Int64', price: 'Edm.Decimal', d: 'Edm.Double' } } },
      entitySets: { ts: { type: 'T' } },
    });
    const rows = (parseJsonText('{"value":[{"id":1,"big":9007199254740993,"price":12345678901234567.5,"d":"INF"}]}') as { value: unknown[] }).value;
    expect(rowsProblem(model, 'ts', '$filter=big%20eq%209007199254740993', rows)).toBeUndefined();
    expect(rowsProblem(model, 'ts', '$filter=big%20eq%209007199254740992', rows)).toMatch(/does not satisfy/);
    expect(rowsProblem(model, 'ts', '$filter=price%20eq%2012345678901234567.5', rows)).toBeUndefined();
    expect(rowsProblem(model, 'ts', '$filter=price%20eq%2012345678901234568', rows)).toMatch(/does not satisfy/);
    expect(rowsProblem(model, 'ts', '$filter=d%20eq%20INF', rows)).toBeUndefined();
    expect(rowsProblem(model, 'ts', '$filter=d%20gt%20@x&@x=1', rows)).toBeUndefined();
    expect(rowsProblem(model, 'ts', '$filter=d%20lt%20@x&@x=1', rows)).toMatch(/does not satisfy/);
  });
});
