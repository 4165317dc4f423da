/**
 * Load script for issue 26 item 6 ("idle sockets lock everyone out"): measures a legitimate
 * client's `GET /$metadata` (a new connection each time) while other addresses hold many idle and
 * half-open connections.
 *
 *   npx tsx examples/asset-service/scripts/idle-sockets.ts [connections=5000] [seconds=15] [addresses=1] [reopenMs=1000]
 *
 * It starts the service in a child process (`serve` mode: PGlite in a temp directory), then opens
 * `connections` TCP connections from `addresses` loopback addresses (127.0.0.2, 127.0.0.3, …; the
 * legitimate client uses 127.0.0.1): half of them send nothing, the other half send the start of a
 * request line and stall. A connection the server closes is opened again after `reopenMs` (0: never), as an
 * attacker holding connections would. The attacker runs in a process of its own (`attack` mode),
 * so that its sockets do not slow the measuring process. Meanwhile the legitimate client sends one
 * authenticated GET every 100 ms (5 s timeout) and the script prints p50/p99/max and the
 * failures. Settings (MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, …) pass through the environment.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

async function serve(): Promise<void> {
  const { loadConfig } = await import('../src/config.js');
  const { startService } = await import('../src/server.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'asset-service-idle-'));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const service = await startService(config);
  process.stdout.write(`${JSON.stringify({ url: service.url, demo: config.demo })}\n`);
  const stop = (): void => {
    void service.close().finally(() => {
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

/** One GET on a new connection; the time in ms, or an error text. */
function get(url: string, token: string, timeoutMs: number): Promise<number | string> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(`${url}/$metadata`, { agent: false, timeout: timeoutMs, headers: { connection: 'close', authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : `status ${res.statusCode}`));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

/** Holds `count` connections from `localAddress` to `port`, reopening closed ones; returns a stop function and counters. */
function hold(port: number, count: number, addresses: number, reopenMs: number): { stop: () => void; opened: () => number; open: () => number } {
  let running = true;
  let opened = 0;
  const sockets = new Set<Socket>();
  const one = (i: number): void => {
    if (!running) return;
    const socket = connect({ host: '127.0.0.1', port, localAddress: `127.0.0.${2 + (i % addresses)}` });
    opened++;
    sockets.add(socket);
    socket.on('connect', () => {
      if (i % 2 === 1) socket.write('GET /$metadata HTTP/1.1\r\nHo');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (running && reopenMs > 0) setTimeout(() => one(i), reopenMs);
    });
  };
  for (let i = 0; i < count; i++) one(i);
  return {
    stop: () => {
      running = false;
      for (const socket of sockets) socket.destroy();
    },
    opened: () => opened,
    open: () => sockets.size,
  };
}

/** What {@link measureIdleSockets} measured (times in ms; a failed request counts as 5 000 ms). */
export interface IdleSocketsResult {
  readonly baseline: readonly number[];
  readonly times: readonly number[];
  readonly failures: ReadonlyMap<string, number>;
  /** The attacker's counts: connections opened, and still open at the end. */
  readonly attacker: string;
}

/** Runs the measurement of the module documentation; `log` gets the line it prints. */
export async function measureIdleSockets(
  connections: number,
  seconds: number,
  addresses: number,
  reopenMs: number,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<IdleSocketsResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const end = out.indexOf('\n');
      if (end >= 0) resolve(out.slice(0, end));
    });
    child.on('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
  const { url, demo } = JSON.parse(line) as { url: string; demo: { clientId: string; clientSecret: string } };
  try {
    const tokenResponse = await fetch(`${url}/directory/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.clientSecret }).toString(),
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    const baseline: number[] = [];
    for (let i = 0; i < 30; i++) {
      const result = await get(url, token, 5000);
      if (typeof result === 'number') baseline.push(result);
    }
    log(`baseline GET /$metadata: p50 ${percentile(baseline, 50).toFixed(1)} ms, p99 ${percentile(baseline, 99).toFixed(1)} ms`);
    const attacker = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), 'attack', new URL(url).port, String(connections), String(addresses), String(reopenMs)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let report = '';
    attacker.stdout.on('data', (chunk: Buffer) => (report += chunk.toString('utf8')));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const times: number[] = [];
    const failures = new Map<string, number>();
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const result = await get(url, token, 5000);
      if (typeof result === 'number') times.push(result);
      else {
        failures.set(result, (failures.get(result) ?? 0) + 1);
        times.push(5000);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ended = new Promise((resolve) => attacker.once('exit', resolve));
    attacker.kill('SIGTERM');
    await ended;
    log(
      `with ${connections} idle/half-open connections held from ${addresses} address(es), reopened after ${reopenMs} ms (${report.trim()}): ` +
        `n=${times.length} p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms, max ${Math.max(...times).toFixed(0)} ms; ` +
        `failures: ${failures.size === 0 ? 'none' : [...failures].map(([k, n]) => `${n}× ${k}`).join(', ')}; load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(', ')}`,
    );
    return { baseline, times, failures, attacker: report.trim() };
  } finally {
    child.kill('SIGTERM');
  }
}

async function attack(port: number, connections: number, addresses: number, reopenMs: number): Promise<void> {
  const attack = hold(port, connections, addresses, reopenMs);
  await new Promise((resolve) => process.once('SIGTERM', resolve));
  process.stdout.write(`${attack.opened()} opened, ${attack.open()} open at the end`);
  attack.stop();
  process.exit(0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'serve') await serve();
  else if (process.argv[2] === 'attack') await attack(Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]), Number(process.argv[6]));
  else await measureIdleSockets(Number(process.argv[2] ?? 5000), Number(process.argv[3] ?? 15), Number(process.argv[4] ?? 1), Number(process.argv[5] ?? 1000));
}
