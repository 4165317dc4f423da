/**
 * Issue 26 item 6: idle and half-open sockets cannot lock other clients out. On the PGlite demo
 * with the default connection limits (MAX_CONNECTIONS 1 000, MAX_CONNECTIONS_PER_ADDRESS 100,
 * KEEP_ALIVE_TIMEOUT_MS 5 s, HEADERS_TIMEOUT_MS 10 s), other loopback addresses (127.0.0.2 and
 * up: all of 127.0.0.0/8 is loopback on Linux) hold 5 000 connections, half sending nothing,
 * half a partial request line, reopening the ones the server closes (from a process of its own);
 * meanwhile a legitimate client
 * on 127.0.0.1 opens a new connection for each authenticated request. Before this change the
 * server dropped every new connection once 1 000 were open, so the legitimate requests failed
 * until the headers timeout freed slots (about 11 s), over and over.
 *
 * Every attacking socket is a file descriptor of the attacker's process: the test reads `ulimit -n`
 * and uses fewer connections (logged) when the limit is too low for 5 000.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressKey, connectionCounts } from '../../../examples/asset-service/src/connections.js';
import { startHarness, type Harness } from './harness.js';

const ADDRESSES = 20;
const ATTACKER = fileURLToPath(new URL('../../../examples/asset-service/scripts/idle-sockets.ts', import.meta.url));

function fileLimit(): number {
  try {
    const text = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
    return text === 'unlimited' ? Infinity : Number(text);
  } catch {
    return 1024;
  }
}

/**
 * Holds `count` connections from 127.0.0.2… in a process of its own (scripts/idle-sockets.ts in
 * its `attack` mode: half send nothing, half a partial request line; a closed one is reopened
 * after a second), so that the attacker's sockets do not share the server's event loop.
 */
function holdConnections(port: number, count: number): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ATTACKER, 'attack', String(port), String(count), String(ADDRESSES), '1000'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  child.on('error', () => undefined);
  return child;
}

/** One authenticated GET on a new connection from 127.0.0.1: its time in ms, or why it failed. */
function get(url: string, path: string, headers: Record<string, string>): Promise<{ ms: number; status: number | string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, { agent: false, localAddress: '127.0.0.1', timeout: 5000, headers: { ...headers, connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ ms: performance.now() - started, status: error.code ?? error.message }));
    req.end();
  });
}

const percentile = (values: readonly number[], p: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? NaN;

describe('idle and half-open connections do not lock other clients out (PGlite demo, default limits)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness(undefined, { LOG_LEVEL: 'error' });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  }, 60_000);

  it('serves a new client promptly while other addresses hold 5 000 idle and half-open connections', async () => {
    const limit = fileLimit();
    // The attacker's process needs a descriptor per connection (this one at most MAX_CONNECTIONS).
    const count = Math.min(5000, limit - 200);
    if (count < 5000) console.warn(`ulimit -n is ${limit}: holding ${count} connections instead of 5 000`);
    expect(count).toBeGreaterThan(1200);
    const token = await h.token(h.config.demo.clientId, h.config.demo.clientSecret);
    const headers = { authorization: `Bearer ${token}`, 'service-tenant-id': h.config.demo.tenantId, accept: 'application/json' };
    const attack = holdConnections(Number(new URL(h.url).port), count);
    try {
      // The attack holds the server's slots (1 000 of them on the code before the change too).
      const openNow = (): Promise<number> =>
        new Promise((resolve, reject) => h.service.app.server.getConnections((error, n) => (error === null ? resolve(n) : reject(error))));
      const until = performance.now() + 20_000;
      let open = await openNow();
      while (open < 900 && performance.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        open = await openNow();
      }
      expect(open).toBeGreaterThanOrEqual(900);
      // Let the attacker finish opening its connections.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const results: { ms: number; status: number | string }[] = [];
      for (let i = 0; i < 40; i++) results.push(await get(h.url, i % 4 === 3 ? '/localities?$top=1' : '/$metadata', headers));
      const counts = connectionCounts(h.service.app.server);
      const failures = results.filter((r) => r.status !== 200);
      expect(failures, JSON.stringify(failures.slice(0, 5))).toEqual([]);
      const times = results.map((r) => r.ms);
      console.log(
        `[connections] ${count} held from ${ADDRESSES} addresses (server: ${JSON.stringify(counts)}); legitimate GET p50 ${percentile(times, 50).toFixed(0)} ms, p99 ${percentile(times, 99).toFixed(0)} ms`,
      );
      // The requirement is p99 < 1 s (bench/RESULTS.md has the figures); the margin is for loaded CI machines.
      expect(percentile(times, 50)).toBeLessThan(500);
      expect(percentile(times, 99)).toBeLessThan(2000);
      // No address held more than its cap (counted by the server: the client also sees connections still in the listen backlog).
      expect(counts?.largestAddress).toBeLessThanOrEqual(h.config.http.maxConnectionsPerAddress);
    } finally {
      attack.kill('SIGTERM');
    }
  }, 60_000);

  it('closes a connection that sends nothing after the keep-alive timeout, not the headers timeout', async () => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(h.url).port) });
    const started = performance.now();
    const closedAfter = await new Promise<number>((resolve) => {
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(performance.now() - started));
      setTimeout(() => {
        socket.destroy();
        resolve(Infinity);
      }, 9000);
    });
    // KEEP_ALIVE_TIMEOUT_MS is 5 s, checked every second; HEADERS_TIMEOUT_MS (10 s) closed it before.
    expect(closedAfter).toBeGreaterThanOrEqual(4500);
    expect(closedAfter).toBeLessThan(9000);
  }, 30_000);
});

describe('addressKey: what MAX_CONNECTIONS_PER_ADDRESS counts by', () => {
  it('keeps IPv4 addresses, unmaps IPv4-mapped IPv6, and counts IPv6 by its /64', () => {
    expect(addressKey('127.0.0.2')).toBe('127.0.0.2');
    expect(addressKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(addressKey('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:db8:0:1:ffff:1:2:3')).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:0DB8:0000:0001:0:0:0:9')).toBe('2001:db8:0:1::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey(undefined)).toBe('');
  });
});
