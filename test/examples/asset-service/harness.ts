/**
 * Starts the Asset Management Service in-process on a free port, on a fresh PGlite in a temp
 * directory or in a schema of its own on a live PostgreSQL server, and talks to it over real
 * HTTP with fetch. PGlite's directory starts as the suite's prepared empty cluster
 * (test/fixtures/pglite-data-dir.ts) unless `initdb` is asked for: `initdb` in WebAssembly is
 * seconds of CPU per service, and only the first start of a data directory runs it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { loadConfig, type Config } from '../../../examples/asset-service/src/config.js';
import { ensureClient, ensureTenant } from '../../../examples/asset-service/src/seed.js';
import { startService, type Service } from '../../../examples/asset-service/src/server.js';
import { writePgliteDataDir } from '../../fixtures/pglite-data-dir.js';
import { uniqueName } from '../../fixtures/unique-name.js';

/** A second tenant and its own client, for isolation tests. */
export const TENANT_B = '5b0c8f7e-2d7a-4c1e-9a53-8f0e6b1d2c3b';
export const CLIENT_B = { id: 'tenant-b-client', secret: 'tenant-b-secret-0123456789' };

export interface Harness {
  readonly url: string;
  readonly config: Config;
  readonly service: Service;
  /** Every log line written so far. */
  readonly logs: string[];
  /** A token for a client (cached per client). */
  token(clientId: string, secret: string): Promise<string>;
  /** fetch against the service. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** fetch with the bearer token and tenant headers of a client. */
  api(path: string, init?: RequestInit & { client?: 'rw' | 'ro' | 'b'; tenant?: string | null }): Promise<Response>;
  close(): Promise<void>;
}

/** Options of {@link startHarness}. */
export interface HarnessOptions {
  /** PGlite only: start from an empty directory, which PGlite initialises itself (`initdb`), as a first start of the demo does. */
  readonly initdb?: boolean;
}

/** Starts a service; `postgresUrl` selects a live server instead of PGlite; `env` adds or overrides settings. */
export async function startHarness(postgresUrl?: string, env: Readonly<Record<string, string>> = {}, options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'asset-service-test-'));
  if (postgresUrl === undefined && env.DATA_DIR === undefined && options.initdb !== true) writePgliteDataDir(dataDir);
  const schema = uniqueName('asset_service_test');
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    DEMO_TENANT_ID: '0f9a3c52-6b1e-4d8a-b7c4-2e5d9f1a8c60',
    DEMO_CLIENT_ID: 'rw-client',
    DEMO_CLIENT_SECRET: 'rw-secret-0123456789',
    DEMO_READONLY_CLIENT_ID: 'ro-client',
    DEMO_READONLY_CLIENT_SECRET: 'ro-secret-0123456789',
    LOG_LEVEL: 'info',
    ...(postgresUrl === undefined ? {} : { DATABASE_URL: postgresUrl, DATABASE_SCHEMA: schema }),
    ...env,
  });
  const service = await startService(config, { logStream });
  await ensureTenant(service.db, TENANT_B, 'Tenant B');
  await ensureClient(service.db, { clientId: CLIENT_B.id, secret: CLIENT_B.secret, name: 'Tenant B client', canWrite: true, tenants: [TENANT_B] });
  const tokens = new Map<string, Promise<string>>();
  const fetchService = (path: string, init?: RequestInit): Promise<Response> => fetch(`${service.url}${path}`, init);
  const token = (clientId: string, secret: string): Promise<string> => {
    let cached = tokens.get(clientId);
    if (cached === undefined) {
      cached = (async () => {
        const response = await fetchService('/directory/connect/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
        });
        if (response.status !== 200) throw new Error(`token for ${clientId}: ${response.status} ${await response.text()}`);
        return ((await response.json()) as { access_token: string }).access_token;
      })();
      tokens.set(clientId, cached);
    }
    return cached;
  };
  const clients = {
    rw: [config.demo.clientId, config.demo.clientSecret],
    ro: [config.demo.readOnlyClientId, config.demo.readOnlyClientSecret],
    b: [CLIENT_B.id, CLIENT_B.secret],
  } as const;
  return {
    url: service.url,
    config,
    service,
    logs,
    token,
    fetch: fetchService,
    api: async (path, init = {}) => {
      const { client = 'rw', tenant, ...rest } = init;
      const [id, secret] = clients[client];
      const headers = new Headers(rest.headers);
      headers.set('authorization', `Bearer ${await token(id, secret)}`);
      if (!headers.has('accept')) headers.set('accept', 'application/json');
      const tenantId = tenant === undefined ? (client === 'b' ? TENANT_B : config.demo.tenantId) : tenant;
      if (tenantId !== null) headers.set('service-tenant-id', tenantId);
      if (rest.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
      return fetchService(path, { ...rest, headers });
    },
    close: async () => {
      await service.close();
      if (postgresUrl !== undefined) {
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A raw HTTP request with exactly the header lines given (fetch would merge repeated headers). */
export function rawRequest(url: string, method: string, headers: readonly [string, string][]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // With an array of header lines Node adds no Host header of its own.
    const flat = [['Host', new URL(url).host] as const, ...headers].flatMap(([name, value]) => [name, value]);
    const req = httpRequest(url, { method, headers: flat }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A fresh client-generated id. */
export const newId = (): string => randomUUID();
