/**
 * Load script for issue 12 item 10 ("one client can stall the embedded database for everyone"):
 * measures a trivial GET of one client while other clients send heavy queries.
 *
 *   npx tsx examples/asset-service/scripts/stall.ts [heavyClients=10] [seconds=15]
 *
 * It starts the service in a child process (`serve` mode: PGlite in a temp directory, or
 * DATABASE_URL; about 9 800 maintenance tickets with 4 KB descriptions added), then:
 * 1. baseline: the trivial GET (`/localities?$top=1`, read-write client) alone, sequentially;
 * 2. under load: the same GET while `heavyClients` loops (all with the read-only client, as in the
 *    issue) send a heavy `$filter` (`contains` over a `concat` of descriptions: seconds each);
 * and prints p50/p95/p99/max of the trivial GET, how the heavy requests were answered, the service's
 * resident memory before, during and after, and the restarts of the embedded database (on stderr,
 * from the service). bench/service-load.ts calls {@link measureStall}.
 * Settings (STATEMENT_TIMEOUT_MS, MAX_REQUESTS_PER_CLIENT, …) pass through the environment.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HEAVY_FILTER = Array.from({ length: 5 }, (_, i) => {
  let text = 'description';
  for (let n = 1; n < 8; n *= 2) text = `concat(${text},${text})`;
  return `contains(${text},'zz${i}')`;
}).join(' or ');

async function serve(): Promise<void> {
  const { loadConfig } = await import('../src/config.js');
  const { startService } = await import('../src/server.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'asset-service-stall-'));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DATABASE_SCHEMA: `stall_${process.pid}`,
  });
  const service = await startService(config, {
    onDatabaseRestart: (info) => process.stderr.write(`[service] database restarted (${info.reason}) in ${info.ms.toFixed(0)} ms\n`),
  });
  for (let chunk = 0; chunk < 6; chunk++) {
    await service.db.query(
      `INSERT INTO maintenance_tickets (tenant_id, id, code, name, asset_id, status, priority, description, due_at, created_at, updated_at)
       SELECT tenant_id, gen_random_uuid(), code || '-' || $2::text || '-' || g, name, asset_id, status, priority, repeat('abcdefghij', 400), due_at, created_at, updated_at
       FROM maintenance_tickets, generate_series(1, 10) g WHERE tenant_id = $1 AND code NOT LIKE '%-%-%'`,
      [config.demo.tenantId, String(chunk)],
    );
  }
  process.stdout.write(`${JSON.stringify({ url: service.url, demo: config.demo })}\n`);
  const stop = (): void => {
    void service.close().finally(async () => {
      if (config.databaseUrl !== undefined) await service.db.query(`DROP SCHEMA IF EXISTS "${config.databaseSchema}" CASCADE`).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const summary = (values: readonly number[]): string =>
  `n=${values.length} p50=${percentile(values, 50).toFixed(0)} ms p95=${percentile(values, 95).toFixed(0)} ms p99=${percentile(values, 99).toFixed(0)} ms max=${Math.max(...values).toFixed(0)} ms`;

/** What {@link measureStall} measured (times in ms, memory in MiB). */
export interface StallResult {
  readonly baseline: readonly number[];
  readonly loaded: readonly number[];
  readonly heavyStatuses: ReadonlyMap<number, number>;
  readonly heavyTimes: readonly number[];
  /** The service process's resident memory before the flood, its peak during it, and 3 s after the last heavy request ended. */
  readonly rssMiB: { readonly before: number; readonly peak: number; readonly after: number };
}

/** The resident memory of process `pid` in MiB (Linux; NaN elsewhere). */
function rssOf(pid: number | undefined): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? NaN : Number(match[1]) / 1024;
  } catch {
    return NaN;
  }
}

/** Runs the measurement of the module documentation; `log` gets the lines it prints. */
export async function measureStall(
  heavyClients: number,
  seconds: number,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<StallResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(child.pid))), 200);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const end = out.indexOf('\n');
      if (end >= 0) resolve(out.slice(0, end));
    });
    child.on('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
  const { url, demo } = JSON.parse(line) as {
    url: string;
    demo: { tenantId: string; clientId: string; clientSecret: string; readOnlyClientId: string; readOnlyClientSecret: string };
  };
  const token = async (id: string, secret: string): Promise<string> => {
    const response = await fetch(`${url}/directory/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }).toString(),
    });
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const headers = (t: string): Record<string, string> => ({ authorization: `Bearer ${t}`, 'service-tenant-id': demo.tenantId, accept: 'application/json' });
  const light = headers(await token(demo.clientId, demo.clientSecret));
  const heavy = headers(await token(demo.readOnlyClientId, demo.readOnlyClientSecret));
  const trivial = async (): Promise<number> => {
    const started = performance.now();
    const response = await fetch(`${url}/localities?$top=1`, { headers: light });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`trivial GET: ${response.status}`);
    return performance.now() - started;
  };
  try {
    const baseline: number[] = [];
    for (let i = 0; i < 50; i++) baseline.push(await trivial());
    log(`baseline trivial GET: ${summary(baseline)}`);
    const before = rssOf(child.pid);
    peak = before;

    let running = true;
    const statuses = new Map<number, number>();
    const heavyTimes: number[] = [];
    const loops = Array.from({ length: heavyClients }, async () => {
      while (running) {
        const started = performance.now();
        const response = await fetch(`${url}/maintenance-tickets?$filter=${encodeURIComponent(HEAVY_FILTER)}`, { headers: heavy }).catch(() => undefined);
        await response?.arrayBuffer();
        heavyTimes.push(performance.now() - started);
        statuses.set(response?.status ?? 0, (statuses.get(response?.status ?? 0) ?? 0) + 1);
        if (response?.status === 429) await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const loaded: number[] = [];
    const slow: string[] = [];
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const ms = await trivial();
      loaded.push(ms);
      if (ms > 200) slow.push(`${ms.toFixed(0)} ms at ${((performance.now() - until) / 1000 + seconds).toFixed(1)} s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    running = false;
    await Promise.all(loops);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = rssOf(child.pid);
    log(`under load (${heavyClients} heavy loops, ${HEAVY_FILTER.length}-char $filter) trivial GET: ${summary(loaded)}`);
    if (slow.length > 0) log(`trivial GETs over 200 ms: ${slow.join(', ')}`);
    log(`heavy requests: ${[...statuses].map(([status, n]) => `${n}× ${status}`).join(', ')}; ${summary(heavyTimes)}`);
    log(`service RSS: ${before.toFixed(0)} MiB before, peak ${peak.toFixed(0)} MiB, ${after.toFixed(0)} MiB 3 s after the flood`);
    return { baseline, loaded, heavyStatuses: statuses, heavyTimes, rssMiB: { before, peak, after } };
  } finally {
    clearInterval(sampler);
    child.kill('SIGTERM');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'serve') await serve();
  else await measureStall(Number(process.argv[2] ?? 10), Number(process.argv[3] ?? 15));
}
