/**
 * The service's HTTP edges, on PGlite with short limits: slow clients (partial headers, a trickled
 * body, idle sockets) are cut off, connections are bounded, transport and router errors come in
 * the service's formats (OAuth JSON at the token endpoint, the envelope elsewhere), bodyless
 * requests with a Content-Type work, tokens are checked for `iat` and lifetime, failed token
 * requests are throttled, a shutdown answers 503 with Retry-After, and the data directory is
 * owner-only.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../../examples/asset-service/src/auth.js';
import { loadConfig } from '../../../examples/asset-service/src/config.js';
import { ensureClient } from '../../../examples/asset-service/src/seed.js';
import { FailureWindow } from '../../../examples/asset-service/src/throttle.js';
import { newId, startHarness, type Harness } from './harness.js';

type Json = Record<string, unknown>;

const LIMITS = {
  HEADERS_TIMEOUT_MS: '600',
  REQUEST_TIMEOUT_MS: '1200',
  KEEP_ALIVE_TIMEOUT_MS: '400',
  CONNECTION_TIMEOUT_MS: '5000',
  MAX_CONNECTIONS: '40',
  TOKEN_FAILURES_PER_CLIENT: '3',
  TOKEN_FAILURES_PER_ADDRESS: '6',
  TOKEN_FAILURE_WINDOW_SECONDS: '60',
  SEED: 'false',
  LOG_LEVEL: 'warn',
};
const THROTTLED = { id: 'throttled-client', secret: 'throttled-secret-0123456789' };

/** What came back on a raw connection, and when the server closed it. */
interface Exchange {
  readonly status: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Milliseconds from connecting to the server closing the connection. */
  readonly closedAfterMs: number;
}

function parse(raw: string, closedAfterMs: number): Exchange {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return { status: undefined, headers: {}, body: raw, closedAfterMs };
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: raw.slice(end + 4), closedAfterMs };
}

/**
 * Connects, lets `talk` write (possibly slowly), and collects everything until the server closes
 * the connection (or `giveUpMs` passes: then `closedAfterMs` is Infinity).
 */
function exchange(url: string, talk: (socket: Socket) => Promise<void> | void, options: { giveUpMs?: number; localAddress?: string } = {}): Promise<Exchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ host: hostname, port: Number(port), ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }) });
    const chunks: Buffer[] = [];
    let closedAt: number | undefined;
    const giveUp = setTimeout(() => socket.destroy(), options.giveUpMs ?? 8000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('end', () => (closedAt ??= Date.now()));
    socket.on('close', () => {
      clearTimeout(giveUp);
      closedAt ??= Date.now();
      const closedAfterMs =
        socket.readableEnded || chunks.length > 0 || closedAt - started < (options.giveUpMs ?? 8000) - 50 ? closedAt - started : Number.POSITIVE_INFINITY;
      resolve(parse(Buffer.concat(chunks).toString('latin1'), closedAfterMs));
    });
    socket.on('connect', () => {
      Promise.resolve(talk(socket)).catch(reject);
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A token request over a raw connection from `localAddress` (for the per-address throttle). */
async function tokenFrom(url: string, localAddress: string, clientId: string, secret: string): Promise<Exchange> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString();
  return exchange(
    url,
    (socket) => {
      socket.write(
        `POST /directory/connect/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
    { localAddress },
  );
}

function expectOAuth(result: Exchange | Json, error: string): void {
  const body = 'closedAfterMs' in result ? (JSON.parse(String(result.body)) as Json) : result;
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  expect(body).not.toHaveProperty('data');
  expect(body).not.toHaveProperty('traceId');
}

function expectEnvelope(result: Exchange | Json, type = 'ValidationException'): Json {
  const body = 'closedAfterMs' in result ? (JSON.parse(String(result.body)) as Json) : result;
  expect(body.error).toBe(type);
  expect(typeof (body.data as Json).Message).toBe('string');
  expect(String(body.traceId)).toMatch(/^[0-9a-f-]{36}$/);
  return body;
}

describe('asset service HTTP edges (PGlite, short limits)', () => {
  let h: Harness;
  beforeAll(async () => {
    // A first start (initdb), whose files PGlite leaves world-writable: the service makes them owner-only (checked below).
    h = await startHarness(undefined, LIMITS, { initdb: true });
    await ensureClient(h.service.db, {
      clientId: THROTTLED.id,
      secret: THROTTLED.secret,
      name: 'Throttle test client',
      canWrite: false,
      tenants: [h.config.demo.tenantId],
    });
    // Tokens of the harness's clients are fetched before anything is throttled.
    await h.token(h.config.demo.clientId, h.config.demo.clientSecret);
    await h.token(h.config.demo.readOnlyClientId, h.config.demo.readOnlyClientSecret);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  }, 60_000);

  const tokenPost = (headers: Record<string, string>, body: string): Promise<Response> =>
    h.fetch('/directory/connect/token', { method: 'POST', headers, body });

  describe('the token endpoint answers every error as OAuth JSON', () => {
    it('malformed HTTP Basic credentials (%zz) are 400 invalid_request, not a 500', async () => {
      const response = await tokenPost(
        { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('%zz:x').toString('base64')}` },
        'grant_type=client_credentials',
      );
      expect(response.status).toBe(400);
      expectOAuth((await response.json()) as Json, 'invalid_request');
    });

    it('HTTP Basic credentials are form-decoded (RFC 6749 2.3.1): %XX and + work', async () => {
      const id = h.config.demo.readOnlyClientId.replace('-', '%2D');
      const response = await tokenPost(
        {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${id}:${encodeURIComponent(h.config.demo.readOnlyClientSecret)}`).toString('base64')}`,
        },
        'grant_type=client_credentials',
      );
      expect(response.status).toBe(200);
    });

    it('a client id with NUL is 400 invalid_client, not a 500 from PostgreSQL', async () => {
      const response = await tokenPost(
        { 'content-type': 'application/x-www-form-urlencoded' },
        `grant_type=client_credentials&client_id=${h.config.demo.clientId}%00&client_secret=x`,
      );
      expect(response.status).toBe(400);
      expectOAuth((await response.json()) as Json, 'invalid_client');
    });

    it('a text/plain body is 415, a body over the limit 413, malformed JSON 400: all OAuth JSON', async () => {
      const plain = await tokenPost({ 'content-type': 'text/plain' }, 'grant_type=client_credentials');
      expect(plain.status).toBe(415);
      expectOAuth((await plain.json()) as Json, 'invalid_request');
      const huge = await tokenPost(
        { 'content-type': 'application/x-www-form-urlencoded' },
        `grant_type=client_credentials&pad=${'x'.repeat(h.config.bodyLimit)}`,
      );
      expect(huge.status).toBe(413);
      expectOAuth((await huge.json()) as Json, 'invalid_request');
      const json = await tokenPost({ 'content-type': 'application/json' }, '{nope');
      expect(json.status).toBe(400);
      expectOAuth((await json.json()) as Json, 'invalid_request');
    });

    it('headers over MAX_HEADER_SIZE are 431: OAuth JSON at the token endpoint, the envelope elsewhere', async () => {
      expect(h.config.http.maxHeaderSize).toBe(16 * 1024);
      const big = `X-Big: ${'b'.repeat(20_000)}\r\n`;
      const token = await exchange(h.url, (s) => void s.write(`POST /directory/connect/token HTTP/1.1\r\nHost: x\r\n${big}\r\n`));
      expect(token.status).toBe(431);
      expectOAuth(token, 'invalid_request');
      const api = await exchange(h.url, (s) => void s.write(`GET /assets HTTP/1.1\r\nHost: x\r\n${big}\r\n`));
      expect(api.status).toBe(431);
      expectEnvelope(api);
      expect(api.headers['trace-id']).toBe(JSON.parse(api.body).traceId);
    });

    it('bytes that are not HTTP are 400: OAuth JSON at the token endpoint, the envelope elsewhere', async () => {
      const token = await exchange(h.url, (s) => void s.write('POST /directory/connect/token HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'));
      expect(token.status).toBe(400);
      expectOAuth(token, 'invalid_request');
      const api = await exchange(h.url, (s) => void s.write('GET /assets HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'));
      expect(api.status).toBe(400);
      expectEnvelope(api);
    });
  });

  describe('slow clients are cut off (HEADERS_TIMEOUT_MS=600, REQUEST_TIMEOUT_MS=1200, KEEP_ALIVE_TIMEOUT_MS=400)', () => {
    it('partial headers: 408 after the headers timeout, OAuth JSON at the token endpoint', async () => {
      const result = await exchange(h.url, (s) => void s.write('POST /directory/connect/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-'));
      expect(result.status).toBe(408);
      expectOAuth(result, 'invalid_request');
      expect(result.closedAfterMs).toBeGreaterThanOrEqual(550);
      expect(result.closedAfterMs).toBeLessThan(3000);
    });

    it('partial headers elsewhere: 408 in the envelope', async () => {
      const result = await exchange(h.url, (s) => void s.write('GET /assets HTTP/1.1\r\nHost: x\r\n'));
      expect(result.status).toBe(408);
      expectEnvelope(result);
      expect(result.closedAfterMs).toBeLessThan(3000);
    });

    it('a body trickled byte by byte to the token endpoint: 408 after the request timeout', async () => {
      const result = await exchange(h.url, async (s) => {
        s.write('POST /directory/connect/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\n');
        for (let i = 0; i < 40 && !s.destroyed && s.writable; i++) {
          s.write('g');
          await sleep(150);
        }
      });
      expect(result.status).toBe(408);
      expectOAuth(result, 'invalid_request');
      expect(result.closedAfterMs).toBeGreaterThanOrEqual(1100);
      expect(result.closedAfterMs).toBeLessThan(4000);
    });

    it('a connection that sends nothing is closed after the keep-alive timeout (the headers timeout if shorter), without an answer', async () => {
      const result = await exchange(h.url, () => undefined);
      expect(result.closedAfterMs).toBeLessThan(3000);
      expect(result.body).toBe('');
    });

    it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
      const result = await exchange(h.url, (s) => void s.write('GET /$metadata HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n'));
      expect(result.status).toBe(401);
      expect(result.closedAfterMs).toBeLessThan(2500);
    });

    it('MAX_CONNECTIONS bounds open connections: extra ones are closed at once, the rest time out, and the service still serves', async () => {
      const results = await Promise.all(Array.from({ length: 70 }, () => exchange(h.url, () => undefined)));
      // Dropped: closed before the headers timeout (600 ms), which no accepted connection can be
      // (on a loaded machine an immediate close may take more than a few hundred ms to arrive).
      const dropped = results.filter((r) => r.closedAfterMs < 600).length;
      expect(dropped).toBeGreaterThanOrEqual(70 - 40);
      expect(Math.max(...results.map((r) => r.closedAfterMs))).toBeLessThan(3000);
      expect((await h.api('/localities?$top=1')).status).toBe(200);
    });
  });

  describe('requests without a body', () => {
    it('DELETE (and GET) with Content-Type: application/json and no body work (fetch and curl alike)', async () => {
      for (const contentType of ['application/json', 'text/plain']) {
        const id = newId();
        expect((await h.api('/localities', { method: 'POST', body: JSON.stringify({ id, name: 'To delete' }) })).status).toBe(200);
        expect((await h.api(`/localities/${id}`, { headers: { 'content-type': contentType } })).status).toBe(200);
        const deleted = await h.api(`/localities/${id}`, { method: 'DELETE', headers: { 'content-type': contentType } });
        expect(deleted.status, await deleted.clone().text()).toBe(200);
        expect(await deleted.text()).toBe('');
        expect((await h.api(`/localities/${id}`)).status).toBe(404);
      }
      // curl -X DELETE -H 'Content-Type: application/json': no Content-Length at all.
      const id = newId();
      expect((await h.api('/localities', { method: 'POST', body: JSON.stringify({ id, name: 'To delete by curl' }) })).status).toBe(200);
      const token = await h.token(h.config.demo.clientId, h.config.demo.clientSecret);
      const curl = await exchange(
        h.url,
        (s) =>
          void s.write(
            `DELETE /localities/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nService-Tenant-Id: ${h.config.demo.tenantId}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n`,
          ),
      );
      expect(curl.status).toBe(200);
      expect((await h.api(`/localities/${id}`)).status).toBe(404);
      // A POST without a body is still refused.
      const empty = await h.api('/localities', { method: 'POST', headers: { 'content-type': 'application/json' } });
      expect(empty.status).toBe(400);
      expectEnvelope((await empty.json()) as Json);
    });
  });

  describe('router errors are the envelope', () => {
    it('an id over 100 characters, a malformed % and a raw 0xFF byte in the path are 400 ValidationException', async () => {
      const long = await h.api(`/localities/${'a'.repeat(101)}`);
      expect(long.status).toBe(400);
      const body = expectEnvelope((await long.json()) as Json);
      expect(long.headers.get('trace-id')).toBe(body.traceId);
      const percent = await h.api('/localities/%zz');
      expect(percent.status).toBe(400);
      expectEnvelope((await percent.json()) as Json);
      const token = await h.token(h.config.demo.clientId, h.config.demo.clientSecret);
      const raw = await exchange(h.url, (s) => {
        s.write(
          Buffer.concat([
            Buffer.from('GET /localities/'),
            Buffer.from([0xff]),
            Buffer.from(`x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nService-Tenant-Id: ${h.config.demo.tenantId}\r\nConnection: close\r\n\r\n`),
          ]),
        );
      });
      expect(raw.status).toBe(400);
      expectEnvelope(raw);
    });
  });

  describe('access tokens', () => {
    const call = (token: string) =>
      h.fetch('/localities?$top=1', { headers: { authorization: `Bearer ${token}`, 'service-tenant-id': h.config.demo.tenantId, accept: 'application/json' } });
    const sign = (iat: number, exp: number) =>
      signJwt({ iss: 'asset-service', sub: h.config.demo.clientId, scope: 'assets.read assets.write', iat, exp, jti: 'x' }, h.config.tokenSigningKey);

    it('a token issued in the future (beyond 60 s of clock skew) is refused with 401', async () => {
      const now = Math.floor(Date.now() / 1000);
      const future = await call(sign(now + 600, now + 1200));
      expect(future.status).toBe(401);
      expect(await future.text()).toBe('');
      expect((await call(sign(now + 30, now + 600))).status).toBe(200);
    });

    it('a token living longer than TOKEN_MAX_LIFETIME_SECONDS (default: the TTL) is refused with 401', async () => {
      const now = Math.floor(Date.now() / 1000);
      expect(h.config.tokens.maxLifetimeSeconds).toBe(h.config.tokenTtlSeconds);
      expect((await call(sign(now - 10, now - 10 + h.config.tokenTtlSeconds + 1))).status).toBe(401);
      expect((await call(sign(now - 10, now - 10 + h.config.tokenTtlSeconds))).status).toBe(200);
    });
  });

  describe('throttling of failed token requests (3 per client id, 6 per address in 60 s)', () => {
    it('a client id with too many failures gets 429 slow_down with Retry-After, even with the right secret', async () => {
      for (let i = 0; i < 3; i++) {
        const wrong = await tokenFrom(h.url, '127.0.0.2', THROTTLED.id, `wrong-${i}`);
        expect(wrong.status).toBe(400);
        expectOAuth(wrong, 'invalid_client');
      }
      const blocked = await tokenFrom(h.url, '127.0.0.2', THROTTLED.id, THROTTLED.secret);
      expect(blocked.status).toBe(429);
      expectOAuth(blocked, 'slow_down');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
      // From another address too: the count is per client id.
      expect((await tokenFrom(h.url, '127.0.0.6', THROTTLED.id, THROTTLED.secret)).status).toBe(429);
      // Other clients from the same address are not affected (3 failures < 6).
      expect((await tokenFrom(h.url, '127.0.0.2', h.config.demo.readOnlyClientId, h.config.demo.readOnlyClientSecret)).status).toBe(200);
    });

    it('an address with too many failures gets 429 for any client; other addresses do not', async () => {
      for (let i = 0; i < 6; i++) expect((await tokenFrom(h.url, '127.0.0.3', `nobody-${i}`, 'guess')).status).toBe(400);
      const blocked = await tokenFrom(h.url, '127.0.0.3', h.config.demo.readOnlyClientId, h.config.demo.readOnlyClientSecret);
      expect(blocked.status).toBe(429);
      expectOAuth(blocked, 'slow_down');
      expect((await tokenFrom(h.url, '127.0.0.4', h.config.demo.readOnlyClientId, h.config.demo.readOnlyClientSecret)).status).toBe(200);
    });

    it('successful logins are not counted', async () => {
      for (let i = 0; i < 12; i++)
        expect((await tokenFrom(h.url, '127.0.0.5', h.config.demo.readOnlyClientId, h.config.demo.readOnlyClientSecret)).status).toBe(200);
    });

    it('the window slides and forgets, and memory is bounded', () => {
      let now = 0;
      const window = new FailureWindow(2, 10_000, 100, () => now);
      window.fail('a');
      now = 4000;
      window.fail('a');
      expect(window.retryAfterSeconds('a')).toBe(6);
      now = 10_000;
      expect(window.retryAfterSeconds('a')).toBe(0);
      for (let i = 0; i < 1000; i++) window.fail(`k${i}`);
      expect(window.size).toBeLessThanOrEqual(101);
    });
  });

  it("PGlite's data directory is owner-only and none of its files is writable by others", () => {
    expect(statSync(h.config.dataDir).mode & 0o777).toBe(0o700);
    const writable = readdirSync(h.config.dataDir, { withFileTypes: true, recursive: true })
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((path) => (statSync(path).mode & 0o022) !== 0);
    expect(writable).toEqual([]);
  });

  it('none of this logged an unexpected (500) error', () => {
    expect(h.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
  });

  describe('shutdown', () => {
    it('a request arriving while the service closes gets 503 with Retry-After: the envelope, OAuth JSON at the token endpoint', async () => {
      const token = await h.token(h.config.demo.clientId, h.config.demo.clientSecret);
      let closing: Promise<void> | undefined;
      const startClosing = async (): Promise<void> => {
        await sleep(50);
        closing ??= h.service.close();
        await sleep(100);
      };
      const [api, tokenEndpoint] = await Promise.all([
        exchange(h.url, async (s) => {
          s.write('GET /localities?$top=1 HTTP/1.1\r\nHost: x\r\n');
          await startClosing();
          s.write(`Authorization: Bearer ${token}\r\nService-Tenant-Id: ${h.config.demo.tenantId}\r\n\r\n`);
        }),
        exchange(h.url, async (s) => {
          const body = `grant_type=client_credentials&client_id=${h.config.demo.clientId}&client_secret=${encodeURIComponent(h.config.demo.clientSecret)}`;
          s.write('POST /directory/connect/token HTTP/1.1\r\nHost: x\r\n');
          await startClosing();
          s.write(`Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        }),
      ]);
      expect(api.status).toBe(503);
      expect(api.headers['retry-after']).toBe('5');
      const body = expectEnvelope(api, 'ServiceUnavailableException');
      expect(api.headers['trace-id']).toBe(body.traceId);
      expect(api.headers.connection).toBe('close');
      expect(tokenEndpoint.status).toBe(503);
      expect(tokenEndpoint.headers['retry-after']).toBe('5');
      expectOAuth(tokenEndpoint, 'temporarily_unavailable');
      await closing;
    });
  });
});

describe('the data directory', () => {
  it('is created owner-only (0700), and an existing one made owner-only', () => {
    const root = mkdtempSync(join(tmpdir(), 'asset-service-perm-'));
    try {
      const fresh = join(root, 'new', 'data');
      const config = loadConfig({ DATA_DIR: fresh });
      expect(config.dataDir).toBe(fresh);
      expect(statSync(fresh).mode & 0o777).toBe(0o700);
      expect(statSync(join(fresh, 'demo-credentials.json')).mode & 0o777).toBe(0o600);
      const existing = join(root, 'open');
      mkdirSync(existing);
      chmodSync(existing, 0o777);
      loadConfig({ DATA_DIR: existing });
      expect(statSync(existing).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the settings are validated', () => {
    const root = mkdtempSync(join(tmpdir(), 'asset-service-cfg-'));
    try {
      const config = loadConfig({ DATA_DIR: root });
      expect(config.http).toEqual({
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 5_000,
        connectionTimeoutMs: 60_000,
        maxHeaderSize: 16_384,
        maxConnections: 1000,
        maxConnectionsPerAddress: 100,
      });
      expect(config.tokens).toEqual({
        maxLifetimeSeconds: 3600,
        clockSkewSeconds: 60,
        failuresPerClient: 10,
        failuresPerAddress: 30,
        failureWindowSeconds: 60,
      });
      expect(() => loadConfig({ DATA_DIR: root, HEADERS_TIMEOUT_MS: '40000' })).toThrow(/HEADERS_TIMEOUT_MS/);
      expect(() => loadConfig({ DATA_DIR: root, TOKEN_MAX_LIFETIME_SECONDS: '60' })).toThrow(/TOKEN_MAX_LIFETIME_SECONDS/);
      expect(() => loadConfig({ DATA_DIR: root, MAX_CONNECTIONS: '0' })).toThrow(/MAX_CONNECTIONS/);
      // One address never gets more than the total; by default at most 100 (or the total, if lower).
      expect(() => loadConfig({ DATA_DIR: root, MAX_CONNECTIONS: '50', MAX_CONNECTIONS_PER_ADDRESS: '51' })).toThrow(/MAX_CONNECTIONS_PER_ADDRESS/);
      expect(loadConfig({ DATA_DIR: root, MAX_CONNECTIONS: '50' }).http.maxConnectionsPerAddress).toBe(50);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
