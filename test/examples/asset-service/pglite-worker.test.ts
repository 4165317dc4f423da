/**
 * The embedded database in its worker thread (`db-worker.mjs`): statements run off the event loop,
 * transactions commit and roll back as before, and a statement over the time limit ends the worker
 * (a 503 error) and a new worker opens the same data directory without losing committed data.
 * (That `npm run demo` loses no acknowledged write across `kill -9` is pglite-kill.test.ts: it
 * measures no time, so it runs beside the rest of the suite.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, type Database } from '../../../examples/asset-service/src/db.js';
import { StatementTimeoutError } from '../../../examples/asset-service/src/limits.js';
import { writePgliteDataDir } from '../../fixtures/pglite-data-dir.js';

const dirs: string[] = [];
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A statement that keeps PGlite busy for many seconds (CPU-bound inside WASM). */
const SLOW = 'SELECT count(*) AS n FROM generate_series(1, 2000000000)';

describe('PGlite in a worker thread', () => {
  let db: Database;
  const restarts: { reason: string; ms: number }[] = [];
  const dataDir = tempDir('pglite-worker-');

  beforeAll(async () => {
    // From the suite's prepared empty cluster (no initdb: seconds of CPU that this file does not test).
    writePgliteDataDir(dataDir);
    db = await openPglite(dataDir, 'worker_test', { statementTimeoutMs: 1000, onRestart: (info) => restarts.push(info) });
    await db.exec('CREATE TABLE IF NOT EXISTS notes (id int PRIMARY KEY, body text NOT NULL)');
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  }, 60_000);

  it('runs statements and returns rows with their JavaScript types, timestamps as PostgreSQL text', async () => {
    const rows = await db.query("SELECT 1::int AS one, 'x'::text AS t, now() AS at, '0001-01-01T00:00:00Z'::timestamptz AS first, NULL AS nothing");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ one: 1, t: 'x', nothing: null });
    // Text, not PGlite's Date (which reads the years 1 to 99 as 19xx/20xx): readSqlRows reads it exactly.
    expect(rows[0]?.at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00$/);
    expect(rows[0]?.first).toBe('0001-01-01 00:00:00+00');
  });

  it('keeps the SQLSTATE of a database error', async () => {
    await db.query('INSERT INTO notes VALUES (1, $1)', ['first']);
    await expect(db.query('INSERT INTO notes VALUES (1, $1)', ['again'])).rejects.toMatchObject({ code: '23505' });
  });

  it('commits a transaction, and rolls back one whose work throws', async () => {
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO notes VALUES (2, $1)', ['committed']);
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO notes VALUES (3, $1)', ['rolled back']);
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect((await db.query('SELECT id FROM notes ORDER BY id')).map((r) => r.id)).toEqual([1, 2]);
  });

  it('keeps concurrent transactions apart (statements of one never interleave with another)', async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        db.transaction(async (tx) => {
          const [row] = await tx.query('SELECT coalesce(max(id), 0) + 1 AS next FROM notes');
          await tx.query('INSERT INTO notes VALUES ($1, $2)', [row?.next, `concurrent ${i}`]);
        }),
      ),
    );
    expect((await db.query('SELECT count(*)::int AS n FROM notes'))[0]?.n).toBe(10);
  });

  it('leaves the event loop free while a statement runs', async () => {
    let maxGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 20);
    await db.query('SELECT count(*) AS n FROM generate_series(1, 3000000)').catch(() => undefined);
    await db.query(SLOW).catch(() => undefined);
    clearInterval(ticker);
    // On the event loop, the slow statement would have blocked it for the whole time limit (1 s).
    expect(maxGap).toBeLessThan(500);
  }, 60_000);

  it('ends a statement over the time limit with a StatementTimeoutError, restarts the worker, and keeps committed data', async () => {
    const before = restarts.length;
    const started = performance.now();
    const error: unknown = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO notes VALUES (100, $1)', ['not committed']);
        await tx.query(SLOW);
      })
      .catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(StatementTimeoutError);
    expect((error as StatementTimeoutError).status).toBe(503);
    expect(elapsed).toBeLessThan(10_000);
    // The next statement waits for the new worker, then runs on the same data directory.
    const ids = (await db.query('SELECT id FROM notes ORDER BY id')).map((r) => r.id);
    expect(ids).toHaveLength(10);
    expect(ids).not.toContain(100);
    expect(restarts.length).toBeGreaterThan(before);
    expect(restarts.at(-1)?.reason).toMatch(/longer than 1000 ms/);
    expect(restarts.at(-1)?.ms).toBeGreaterThan(0);
    // Transactions work on the new worker.
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO notes VALUES (101, $1)', ['after the restart']);
    });
    expect((await db.query('SELECT body FROM notes WHERE id = 101'))[0]?.body).toBe('after the restart');
  }, 60_000);

  it('survives being closed and reopened on the same directory', async () => {
    await db.close();
    db = await openPglite(dataDir, 'worker_test', { statementTimeoutMs: 1000 });
    expect((await db.query('SELECT count(*)::int AS n FROM notes'))[0]?.n).toBe(11);
  }, 60_000);
});
