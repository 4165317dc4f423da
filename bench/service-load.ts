/**
 * The example service under hostile load (issue 26 items 6 and 7), on the PGlite demo with its
 * default settings, the service in a child process of its own:
 *
 * - idle sockets: a legitimate client's authenticated `GET /$metadata` (a new connection each,
 *   one every 100 ms) while other loopback addresses hold 5 000 idle and half-open connections,
 *   reopening the ones the server closes (examples/asset-service/scripts/idle-sockets.ts);
 * - one heavy client: a trivial GET of one client (one every 100 ms) while another client floods
 *   heavy `$filter`s from ten loops, and the service's resident memory before, during and after
 *   (examples/asset-service/scripts/stall.ts).
 *
 * Run alone with `tsx bench/service-load.ts`, or by `npm run bench`; writes the `service-load`
 * section of bench/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { measureIdleSockets } from '../examples/asset-service/scripts/idle-sockets.js';
import { measureStall } from '../examples/asset-service/scripts/stall.js';
import { fmtNum, markdownTable } from './measure.js';
import { writeSection } from './results-file.js';

const SECONDS = 15;

const percentile = (values: readonly number[], p: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? NaN;
const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
const ms = (value: number): string => `${fmtNum(value)} ms`;
const commit = (): string => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

/** Runs the bench, writes its section, returns it. */
export async function runServiceLoadBench(): Promise<string> {
  const log = (line: string): void => void process.stderr.write(`[service-load] ${line}\n`);
  const idleRows: string[][] = [];
  for (const [addresses, reopenMs] of [
    [1, 1000],
    [50, 1000],
    [1, 0],
  ] as const) {
    const loadBefore = load();
    const result = await measureIdleSockets(5000, SECONDS, addresses, reopenMs, log);
    const failed = [...result.failures.values()].reduce((a, b) => a + b, 0);
    idleRows.push([
      `${addresses} address${addresses === 1 ? '' : 'es'}, ${reopenMs === 0 ? 'closed ones not reopened' : `closed ones reopened after ${reopenMs} ms`}`,
      `${ms(percentile(result.baseline, 50))} / ${ms(percentile(result.baseline, 99))}`,
      ms(percentile(result.times, 50)),
      ms(percentile(result.times, 99)),
      `${result.times.length} (${failed} failed)`,
      result.attacker,
      `${loadBefore} → ${load()}`,
    ]);
  }
  const loadBefore = load();
  const stall = await measureStall(10, SECONDS, log);
  const statuses = [...stall.heavyStatuses].map(([status, n]) => `${n}× ${status}`).join(', ');
  const stallRows = [
    [
      `${ms(percentile(stall.baseline, 50))} / ${ms(percentile(stall.baseline, 99))}`,
      ms(percentile(stall.loaded, 50)),
      ms(percentile(stall.loaded, 99)),
      ms(Math.max(...stall.loaded)),
      String(stall.loaded.length),
      statuses,
      `${fmtNum(stall.rssMiB.before)} / ${fmtNum(stall.rssMiB.peak)} / ${fmtNum(stall.rssMiB.after)} MiB`,
      `${loadBefore} → ${load()}`,
    ],
  ];
  const section = `# Example service under hostile load (issue 26 items 6 and 7, PGlite demo)

- Date: ${new Date().toISOString()}; commit ${commit()}; Node ${process.version}; ${os.cpus().length} cores; load average (1 / 5 / 15 min) given per row, before → after (the machine is shared: compare rows of one run only).
- Method: the service with its default settings (\`MAX_CONNECTIONS\` 1 000, \`MAX_CONNECTIONS_PER_ADDRESS\` 100, \`KEEP_ALIVE_TIMEOUT_MS\` 5 s, \`HEADERS_TIMEOUT_MS\` 10 s, \`PGLITE_PREEMPT_MS\` 250, \`STATEMENT_TIMEOUT_MS\` 5 s) in a child process, PGlite in a temp directory; the measuring client in this process, the attacker of item 6 in a third process. ${SECONDS} s of measurement per row; p50/p99 are of the legitimate client's requests (a failed one counts as its 5 s timeout).

## Item 6: 5 000 idle and half-open connections held by other addresses

\`examples/asset-service/scripts/idle-sockets.ts\`: 5 000 connections from 127.0.0.2 and up (half send nothing, half the start of a request line); the legitimate client, on 127.0.0.1, sends an authenticated \`GET /$metadata\` on a new connection every 100 ms. Requirement: p99 < 1 s.

${markdownTable(['attack', 'baseline p50 / p99', 'p50', 'p99', 'requests', 'attacker: opened, open at the end', 'load average'], idleRows, ['l', 'r', 'r', 'r', 'r', 'l', 'l'])}

Before the change (commit 460192b, measured by hand the same day with the same script, 1 000 connections from one address reopened after 50 ms, load average about 5): every request of the legitimate client failed (ECONNRESET: \`server.maxConnections\` dropped each new connection while the attacker's held every slot).

## Item 7: one client floods heavy queries

\`examples/asset-service/scripts/stall.ts\`: about 9 800 maintenance tickets with 4 KB descriptions; ten loops of the read-only client send a \`$filter\` of five \`contains\` over a \`concat\` of eight descriptions (seconds per statement); the read-write client sends \`GET /localities?$top=1\` every 100 ms. Requirement: p50 < 50 ms, p99 < 500 ms, memory back to its baseline.

${markdownTable(['trivial GET alone p50 / p99', 'under the flood p50', 'p99', 'max', 'requests', 'heavy requests', 'service RSS before / peak / 3 s after', 'load average'], stallRows, ['r', 'r', 'r', 'r', 'r', 'l', 'r', 'l'])}

The worst trivial GET is usually the first one after the flood starts: nothing is known of the heavy client yet, so its first statement runs until it is preempted and the worker restarted (one request in the run); from then on the client is heavy and runs only when the database is free of the others.

Before the change (commit 460192b, same script, load average about 6 → 11): trivial GET under the flood p50 1 972 ms, p95 2 536 ms (n = 8 in 15 s).
`;
  writeSection('service-load', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runServiceLoadBench());
}
