/**
 * Measures how long the embedded database's worker takes to restart after a statement over the
 * time limit (the worker is ended and a new one opens the same data directory).
 *
 *   npx tsx examples/asset-service/scripts/restart-time.ts [rounds=5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite } from '../src/db.js';

const rounds = Number(process.argv[2] ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'restart-time-'));
const restarts: number[] = [];
const opened = performance.now();
const db = await openPglite(dir, 'restart_time', { statementTimeoutMs: 1000, onRestart: (info) => restarts.push(info.ms) });
process.stdout.write(`first open (initdb): ${(performance.now() - opened).toFixed(0)} ms\n`);
await db.exec('CREATE TABLE t (id int PRIMARY KEY)');
for (let i = 0; i < rounds; i++) {
  await db.query('INSERT INTO t VALUES ($1)', [i]);
  await db.query('SELECT count(*) FROM generate_series(1, 2000000000)').catch(() => undefined);
  const started = performance.now();
  const rows = await db.query('SELECT count(*)::int AS n FROM t');
  process.stdout.write(
    `round ${i + 1}: restart ${restarts.at(-1)?.toFixed(0)} ms, next statement answered ${(performance.now() - started).toFixed(0)} ms after the timeout, rows kept: ${String(rows[0]?.n)}\n`,
  );
}
const sorted = [...restarts].sort((a, b) => a - b);
process.stdout.write(`restart p50 ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms\n`);
await db.close();
rmSync(dir, { recursive: true, force: true });
