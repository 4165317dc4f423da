/**
 * Issue 26 item 2 on the embedded database: the PGlite worker thread dies while a request's
 * statement runs (it exits, or throws an uncaught exception), as a fatal engine error would. Over
 * real HTTP, with the real worker wrapped by `failing-db-worker.mjs`: the request in flight gets a
 * 503 envelope with Retry-After, its write is not stored, a request waiting behind it is served by
 * the restarted worker, writes acknowledged before are kept, and the service goes on answering.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../../examples/asset-service/src/config.js';
import { openPglite, type Database } from '../../../examples/asset-service/src/db.js';
import { model } from '../../../examples/asset-service/src/model.js';
import { createSchema } from '../../../examples/asset-service/src/schema.js';
import { ensureClient, ensureTenant } from '../../../examples/asset-service/src/seed.js';
import { buildServer } from '../../../examples/asset-service/src/server.js';
import { writePgliteDataDir } from '../../fixtures/pglite-data-dir.js';
import { newId } from './harness.js';

describe('asset service on PGlite when its worker thread dies mid-request', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'asset-service-worker-crash-'));
  const restarts: { reason: string; ms: number }[] = [];
  let config: Config;
  let db: Database;
  let app: FastifyInstance;
  let url: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    config = loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      DEMO_TENANT_ID: '0f9a3c52-6b1e-4d8a-b7c4-2e5d9f1a8c60',
      DEMO_CLIENT_ID: 'rw-client',
      DEMO_CLIENT_SECRET: 'rw-secret-0123456789',
      LOG_LEVEL: 'silent',
      // Every request asks the database for its tenant grant: the worker's death is seen by each.
      TENANT_ACCESS_CACHE_SECONDS: '0',
    });
    // From the suite's prepared empty cluster: no initdb (seconds of CPU that this file does not test).
    writePgliteDataDir(dataDir);
    db = await openPglite(dataDir, config.databaseSchema, {
      workerUrl: new URL('./failing-db-worker.mjs', import.meta.url),
      onRestart: (info) => restarts.push(info),
    });
    await createSchema(db, model, config.databaseSchema);
    await ensureTenant(db, config.demo.tenantId, 'Demo tenant');
    await ensureClient(db, {
      clientId: config.demo.clientId,
      secret: config.demo.clientSecret,
      name: 'Read-write client',
      canWrite: true,
      tenants: [config.demo.tenantId],
    });
    app = buildServer(config, db);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    const response = await fetch(`${url}/directory/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: config.demo.clientId, client_secret: config.demo.clientSecret }).toString(),
    });
    const { access_token: token } = (await response.json()) as { access_token: string };
    headers = { authorization: `Bearer ${token}`, 'service-tenant-id': config.demo.tenantId, accept: 'application/json', 'content-type': 'application/json' };
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const create = (id: string, name: string): Promise<Response> => fetch(`${url}/localities`, { method: 'POST', headers, body: JSON.stringify({ id, name }) });
  const get = (id: string): Promise<Response> => fetch(`${url}/localities/${id}`, { headers });

  for (const [how, name, reason] of [
    ['exits', 'worker:exit', /exited with code 3/],
    ['throws an uncaught exception', 'worker:throw', /the worker failed: the worker failed on purpose/],
  ] as const) {
    it(`answers the request in flight with a 503 envelope when the worker ${how}, and goes on with the data kept`, async () => {
      const before = newId();
      expect((await create(before, 'acknowledged before the crash')).status).toBe(200);
      const restartsBefore = restarts.length;

      const doomed = newId();
      const [response, waiting] = await Promise.all([create(doomed, name), fetch(`${url}/localities?$top=5&$count=true`, { headers })]);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      const body = (await response.json()) as { error: string; data: { Message?: string }; traceId: string };
      expect(body.error).toBe('ServiceUnavailableException');
      expect(body.data.Message).toMatch(/retry/i);
      expect(body.traceId).toBe(response.headers.get('trace-id'));
      expect(JSON.stringify(body)).not.toContain('on purpose');
      // The request that waited for the database is served by the new worker.
      expect(waiting.status).toBe(200);
      expect(((await waiting.json()) as { count: number }).count).toBeGreaterThan(0);

      // The write in flight was not stored (the next statement waits for the new worker), the
      // acknowledged one was kept, and writes go on.
      expect((await get(doomed)).status).toBe(404);
      expect(restarts.length).toBe(restartsBefore + 1);
      expect(restarts.at(-1)?.reason).toMatch(reason);
      expect((await get(before)).status).toBe(200);
      const after = newId();
      expect((await create(after, 'after the restart')).status).toBe(200);
      expect((await get(after)).status).toBe(200);
    }, 60_000);
  }
});
