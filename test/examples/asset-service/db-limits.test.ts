/**
 * Issue 12 item 10: one client cannot stall the database for everyone. Over real HTTP, on PGlite
 * (worker thread) and on live PostgreSQL (when ODATA_TEST_POSTGRES_URL is set):
 * - a statement over STATEMENT_TIMEOUT_MS answers 503 in the envelope, and the service keeps
 *   answering (on PGlite after restarting its worker, with committed data kept);
 * - while heavy queries of one client run, the event loop stays free and another client's trivial
 *   GET is served before the heavy client's queue drains;
 * - a client over MAX_REQUESTS_PER_CLIENT + MAX_QUEUED_PER_CLIENT gets 429 with Retry-After.
 * Plus the limiter and the fair lock on their own (503 over MAX_REQUESTS_TOTAL, round-robin).
 *
 * The heavy query must stay over the limit on any machine, so it does not rely on the size of the
 * text alone (a linear scan of 32 KB per row took under 2 s on a fast machine, and the test failed):
 * `contains` of a needle that repeats the description's own 10-character period 100 times and then
 * differs, over two copies of a 4 KB description. PostgreSQL's LIKE then compares about 1 000
 * characters at each of about 800 starting points per row: quadratic, about 12 s on live
 * PostgreSQL on these machines and longer on PGlite, twelve times the limit or more. The limit is
 * 1 s (it was 2 s): what is checked is the same, and each statement cut short waits half as long.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FairLock, RequestLimiter } from '../../../examples/asset-service/src/limits.js';
import { newId, startHarness, type Harness } from './harness.js';

const STATEMENT_TIMEOUT_MS = 1000;

const description = (copies: number): string => {
  let text = 'description';
  for (let i = 1; i < copies; i *= 2) text = `concat(${text},${text})`;
  return text;
};
/** About 12 s or more (far over the limit): a needle that almost matches at every period. */
const HEAVY = `/maintenance-tickets?$filter=${encodeURIComponent(`contains(${description(2)},'${'abcdefghij'.repeat(100)}x')`)}`;
/** About 0.3-0.6 s (under the limit): one `contains` over 4 descriptions. */
const MEDIUM = `/maintenance-tickets?$filter=${encodeURIComponent(`contains(${description(4)},'zz')`)}`;

type Envelope = { error: string; data: { Message?: string }; traceId: string };

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

function limitsSuite(label: string, postgresUrl?: string): void {
  describe(`database limits on ${label}`, () => {
    let h: Harness;

    beforeAll(async () => {
      h = await startHarness(postgresUrl, {
        STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
        MAX_REQUESTS_PER_CLIENT: '2',
        MAX_QUEUED_PER_CLIENT: '2',
        LOG_LEVEL: 'warn',
      });
      // About 9 800 tickets with 4 KB descriptions, in statements well under the time limit.
      for (let chunk = 0; chunk < 6; chunk++) {
        await h.service.db.query(
          `INSERT INTO maintenance_tickets (tenant_id, id, code, name, asset_id, status, priority, description, due_at, created_at, updated_at)
           SELECT tenant_id, gen_random_uuid(), code || '-' || $2::text || '-' || g, name, asset_id, status, priority, repeat('abcdefghij', 400), due_at, created_at, updated_at
           FROM maintenance_tickets, generate_series(1, 10) g WHERE tenant_id = $1 AND code NOT LIKE '%-%-%'`,
          [h.config.demo.tenantId, String(chunk)],
        );
      }
    }, 180_000);
    afterAll(async () => {
      await h?.close();
    }, 60_000);

    it('answers a statement over the time limit with 503 in the envelope, and keeps answering with committed data', async () => {
      const id = newId();
      expect((await h.api('/localities', { method: 'POST', body: JSON.stringify({ id, name: 'Committed before the timeout' }) })).status).toBe(200);
      const { value: response, ms } = await timed(() => h.api(HEAVY, { client: 'ro' }));
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      const body = (await response.json()) as Envelope;
      expect(body.error).toBe('ServiceUnavailableException');
      expect(body.data.Message).toContain(`limit of ${STATEMENT_TIMEOUT_MS} ms`);
      expect(JSON.stringify(body)).not.toMatch(/canceling statement|57014|SQLSTATE/i);
      expect(body.traceId).toBe(response.headers.get('trace-id'));
      // Cancelled near the limit, never after the whole query would have run (12 s or more).
      expect(ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 2500);
      // The service keeps answering: reads and writes, and the committed record is there.
      expect((await h.api(`/localities/${id}`, { client: 'ro' })).status).toBe(200);
      const id2 = newId();
      expect((await h.api('/localities', { method: 'POST', body: JSON.stringify({ id: id2, name: 'Written after the timeout' }) })).status).toBe(200);
      expect((await h.api(`/localities/${id2}`)).status).toBe(200);
    }, 60_000);

    it('keeps the event loop free and serves another client while one client runs heavy queries', async () => {
      // Warm-up: the first request of a client fetches its token.
      expect((await h.api('/localities?$top=1', { client: 'ro' })).status).toBe(200);
      expect((await h.api('/localities?$top=1')).status).toBe(200);
      const heavyDone: number[] = [];
      const started = performance.now();
      // Four requests (two run, two wait: the per-client limit of this suite), each cut short by the
      // statement limit (or, on PGlite, by PGLITE_PREEMPT_MS once the other client waits).
      const heavy = Array.from({ length: 4 }, () =>
        h.api(HEAVY, { client: 'ro' }).then(async (response) => {
          heavyDone.push(performance.now() - started);
          return response.status;
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      // No database work: on the event loop PGlite would have held it for a whole statement.
      const metadata = await timed(() => h.api('/$metadata'));
      expect(metadata.value.status).toBe(200);
      expect(metadata.ms).toBeLessThan(1000);
      const trivial = await timed(() => h.api('/localities?$top=1'));
      expect(trivial.value.status).toBe(200);
      const trivialDone = performance.now() - started;
      const statuses = await Promise.all(heavy);
      expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
      // The other client's request does not wait for the heavy client's queue to drain (which would
      // take 4 × 12 s on the event loop before this change).
      expect(trivialDone).toBeLessThan(Math.max(...heavyDone));
      expect(trivial.ms).toBeLessThan(8000);
      console.log(
        `[${label}] /$metadata ${metadata.ms.toFixed(0)} ms, trivial GET ${trivial.ms.toFixed(0)} ms, heavy done at ${heavyDone.map((t) => t.toFixed(0)).join(', ')} ms`,
      );
    }, 60_000);

    it('answers 429 with Retry-After in the envelope beyond the per-client limit, without affecting other clients', async () => {
      const responses = await Promise.all(Array.from({ length: 8 }, () => h.api(MEDIUM)));
      const statuses = responses.map((r) => r.status);
      // Two run and two wait (MAX_REQUESTS_PER_CLIENT=2, MAX_QUEUED_PER_CLIENT=2): four are refused.
      expect(statuses.filter((s) => s === 429)).toHaveLength(4);
      expect(statuses.every((s) => s === 200 || s === 429 || s === 503)).toBe(true);
      const refused = responses.find((r) => r.status === 429) as Response;
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      const body = (await refused.json()) as Envelope;
      expect(body.error).toBe('TooManyRequestsException');
      expect(body.data.Message).toMatch(/Too many concurrent requests/);
      expect(body.traceId).toBe(refused.headers.get('trace-id'));
      // The slots are given back: the client is served again.
      expect((await h.api('/localities?$top=1')).status).toBe(200);
      // Another client is not limited by this one.
      const other = await Promise.all(Array.from({ length: 2 }, () => h.api('/localities?$top=1', { client: 'b' })));
      expect(other.map((r) => r.status)).toEqual([200, 200]);
    }, 60_000);
  });
}

describe('RequestLimiter', () => {
  it('runs up to the per-client limit, queues up to the queue limit, refuses beyond (client), and passes slots on', async () => {
    const limiter = new RequestLimiter({ maxRequestsPerClient: 2, maxQueuedPerClient: 1, maxRequestsTotal: 100, maxQueueWaitMs: 10_000 });
    const a1 = await limiter.acquire('a');
    const a2 = await limiter.acquire('a');
    let a3Started = false;
    const a3 = limiter.acquire('a').then((release) => {
      a3Started = true;
      return release;
    });
    await expect(limiter.acquire('a')).rejects.toBe('client');
    const b1 = await limiter.acquire('b');
    expect(a3Started).toBe(false);
    a1();
    (await a3)();
    expect(a3Started).toBe(true);
    a2();
    b1();
    expect(limiter.admitted).toBe(0);
  });

  it('refuses beyond the total (503) and lets a queued request give up after the wait limit', async () => {
    const limiter = new RequestLimiter({ maxRequestsPerClient: 1, maxQueuedPerClient: 5, maxRequestsTotal: 2, maxQueueWaitMs: 30 });
    const a = await limiter.acquire('a');
    const waiting = limiter.acquire('a');
    await expect(limiter.acquire('c')).rejects.toBe('total');
    await expect(waiting).rejects.toBe('timeout');
    expect(limiter.admitted).toBe(1);
    a();
    expect(limiter.admitted).toBe(0);
  });
});

describe('FairLock', () => {
  it('serves the waiting client that used it least first, not first come first served', async () => {
    const lock = new FairLock();
    const order: string[] = [];
    const first = await lock.acquire('heavy');
    const waits = ['heavy', 'heavy', 'heavy', 'light', 'other'].map((key, i) =>
      lock.acquire(key).then((release) => {
        order.push(`${key}${i}`);
        release();
      }),
    );
    lock.charge('heavy', 100);
    first();
    await Promise.all(waits);
    expect(order).toEqual(['light3', 'other4', 'heavy0', 'heavy1', 'heavy2']);
  });

  it('bounds the wait: a waiter gives up with a 503 error after its wait limit, and the lock still works', async () => {
    const lock = new FairLock();
    const holder = await lock.acquire('a');
    await expect(lock.acquire('b', 30)).rejects.toMatchObject({ status: 503, type: 'ServiceUnavailableException' });
    const next = lock.acquire('c', 1000);
    holder();
    (await next)();
    (await lock.acquire('b'))();
  });

  it('lets a client with short turns go before one whose turns were long, even if it came later', async () => {
    const lock = new FairLock();
    const slow = await lock.acquire('slow');
    lock.charge('slow', 50);
    const order: string[] = [];
    const holder = lock.acquire('quick').then(async (release) => {
      order.push('quick');
      release();
    });
    slow();
    await holder;
    const blocker = await lock.acquire('x');
    const waits = ['slow', 'quick'].map((key) =>
      lock.acquire(key).then((release) => {
        order.push(key);
        release();
      }),
    );
    blocker();
    await Promise.all(waits);
    expect(order).toEqual(['quick', 'quick', 'slow']);
  });
});

limitsSuite('PGlite');
const url = process.env.ODATA_TEST_POSTGRES_URL;
if (url === undefined || url === '') {
  describe('database limits on live PostgreSQL', () => {
    it.skip('skipped: set ODATA_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it', () => undefined);
  });
} else {
  limitsSuite('live PostgreSQL', url);
}
