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
    expect(report).toMatch(/query: +\S*\$top=/);
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
});
