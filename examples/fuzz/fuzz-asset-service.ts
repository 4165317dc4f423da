/**
 * The fuzzing recipe, run against the example Asset Management Service: for each collection and
 * navigation list (`/assets/{id}/maintenanceTickets` of a record that has related records),
 * valid queries must answer 200 with a list, near-miss invalid ones the expected 400 and OData
 * error code, and nothing may answer 5xx or hang (odata-engine/testing's `fuzzODataServer`).
 *
 *   npm run fuzz:example                      # starts the service on a temporary PGlite, fuzzes it, stops it
 *   FUZZ_URL=http://127.0.0.1:3000 FUZZ_CLIENT_ID=… FUZZ_CLIENT_SECRET=… FUZZ_TENANT=… npm run fuzz:example
 *
 * FUZZ_RUNS sets the runs per kind and collection (default 100).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { diffODataServers, fuzzODataServer } from 'odata-engine/testing';
import { loadConfig } from '../asset-service/src/config.js';
import { HOST_MAX_TOP, model, resources } from '../asset-service/src/model.js';
import { startService } from '../asset-service/src/server.js';

export interface FuzzTarget {
  /** The service's base URL, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tenant: string;
}

/** The count of the service's list envelope (`{ value, count }`). */
const listCount = (body: unknown): number | undefined => (body as { count?: number } | undefined)?.count;

/** A bearer token of the service's demo client. */
async function tokenFor(target: FuzzTarget): Promise<string> {
  const response = await fetch(`${target.url}/directory/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: target.clientId, client_secret: target.clientSecret }).toString(),
  });
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * Server-driven paging against one page: every collection's random valid queries answered in
 * pages of `pageSize` (`Prefer: odata.maxpagesize`, the next links followed) must give the same
 * rows and count as without (`diffODataServers`, the service against itself).
 */
export async function diffAssetServicePaging(target: FuzzTarget, numRuns: number, pageSize = 2, log: (line: string) => void = () => {}): Promise<void> {
  const token = await tokenFor(target);
  const headers = { authorization: `Bearer ${token}`, 'service-tenant-id': target.tenant };
  for (const resource of resources) {
    const started = performance.now();
    await diffODataServers({
      a: { url: `${target.url}/${resource.path}`, headers, name: 'one page', count: listCount },
      b: {
        url: `${target.url}/${resource.path}`,
        headers: { ...headers, prefer: `odata.maxpagesize=${pageSize}` },
        name: `pages of ${pageSize}`,
        count: listCount,
      },
      model,
      entitySet: resource.entitySet,
      numRuns,
    });
    log(`${resource.path}: ${numRuns} queries answered alike in one page and in pages of ${pageSize} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
}

/** Fuzzes every collection of a running Asset Management Service. */
export async function fuzzAssetService(target: FuzzTarget, numRuns: number, log: (line: string) => void = () => {}): Promise<void> {
  const token = await tokenFor(target);
  for (const resource of resources) {
    const started = performance.now();
    await fuzzODataServer({
      url: `${target.url}/${resource.path}`,
      model,
      entitySet: resource.entitySet,
      headers: { authorization: `Bearer ${token}`, 'service-tenant-id': target.tenant },
      maxTop: resource.maxTop ?? HOST_MAX_TOP,
      numRuns,
      timeoutMs: 10_000,
      // Built on this library: its error codes too; its lists are `{ value, count }`.
      expectCodes: true,
      count: listCount,
    });
    log(`${resource.path}: ${numRuns} valid and ${numRuns} invalid queries answered as expected (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  // The navigation lists (`/assets/{id}/maintenanceTickets`) of the first record that has related records.
  for (const resource of resources) {
    const set = model.entitySets.get(resource.entitySet);
    for (const navigation of set?.type.navigation.values() ?? []) {
      const related = resources.find((r) => r.entitySet === set?.bindings.get(navigation.name));
      if (!navigation.collection || related === undefined) continue;
      const parent = await firstWithRelated(target, token, resource.path, navigation.name);
      if (parent === undefined) continue;
      const path = `${resource.path}/${parent}/${navigation.name}`;
      const started = performance.now();
      await fuzzODataServer({
        url: `${target.url}/${path}`,
        model,
        entitySet: related.entitySet,
        headers: { authorization: `Bearer ${token}`, 'service-tenant-id': target.tenant },
        maxTop: related.maxTop ?? HOST_MAX_TOP,
        numRuns,
        timeoutMs: 10_000,
        expectCodes: true,
        count: listCount,
      });
      log(`${path}: ${numRuns} valid and ${numRuns} invalid queries answered as expected (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
  }
}

/** The id of the first record of `path` (by id) with related records through `navigation`, if any. */
async function firstWithRelated(target: FuzzTarget, token: string, path: string, navigation: string): Promise<string | undefined> {
  const query = `$filter=${encodeURIComponent(`${navigation}/any()`)}&$orderby=id&$top=1&$select=id`;
  const response = await fetch(`${target.url}/${path}?${query}`, {
    headers: { authorization: `Bearer ${token}`, 'service-tenant-id': target.tenant, accept: 'application/json' },
  });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  const { value } = (await response.json()) as { value: { id: string }[] };
  return value[0]?.id;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const numRuns = Number(process.env.FUZZ_RUNS ?? 100);
  const log = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  if (process.env.FUZZ_URL !== undefined) {
    await fuzzAssetService(
      {
        url: process.env.FUZZ_URL,
        clientId: process.env.FUZZ_CLIENT_ID ?? '',
        clientSecret: process.env.FUZZ_CLIENT_SECRET ?? '',
        tenant: process.env.FUZZ_TENANT ?? '',
      },
      numRuns,
      log,
    );
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), 'asset-service-fuzz-'));
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    const service = await startService(config, { logStream: quiet });
    log(`fuzzing ${service.url} (PGlite in ${dataDir})`);
    try {
      await fuzzAssetService(
        { url: service.url, clientId: config.demo.clientId, clientSecret: config.demo.clientSecret, tenant: config.demo.tenantId },
        numRuns,
        log,
      );
    } finally {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}
