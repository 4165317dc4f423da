/**
 * `odata-engine fuzz <service root>` and `odata-engine diff <A> <B>`, run as a user runs them (the
 * bundled command line in a child process) against services on loopback: this library's handler
 * over the in-memory source (no finding, exit 0), one that ignores `$top` (its finding or
 * difference with the report, exit 1), and an address nothing answers on (exit 2). The services'
 * models come from their own `$metadata`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataHandler, memorySource, toNodeListener } from '../../src/server/index.js';
import { generateStoredData } from '../../src/testing/index.js';
import { assetModel } from '../fixtures/asset-model.js';
import { bundleSources } from '../fixtures/bundle.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bundleDir = mkdtempSync(join(root, '.test-bundle-'));
let bundled = '';
const servers: http.Server[] = [];
const listener = toNodeListener(
  createODataHandler({ model: assetModel, basePath: '/odata', source: memorySource(generateStoredData(assetModel, { seed: 33 })) }),
);

/** A service on loopback: the handler, with `$top` dropped from every request when `dropTop`. */
async function serve(dropTop = false): Promise<string> {
  const server = http.createServer((request, response) => {
    const [path, search] = (request.url ?? '/').split('?', 2) as [string, string | undefined];
    if (dropTop && search !== undefined)
      request.url = `${path}?${search
        .split('&')
        .filter((part) => !part.startsWith('$top='))
        .join('&')}`;
    listener(request, response);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/odata`;
}

/** Runs the command line without blocking this process (its services answer from here). */
function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundled, ...args], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

beforeAll(async () => {
  bundled = (await bundleSources({ cli: join(root, 'src/cli.ts') }, bundleDir)).cli as string;
}, 60_000);
afterAll(async () => {
  rmSync(bundleDir, { recursive: true, force: true });
  for (const server of servers) await new Promise((done) => server.close(done));
});

describe('odata-engine fuzz', () => {
  it('reads $metadata, fuzzes each set with progress, and finds nothing in a correct service', async () => {
    const service = await serve();
    // (Not `assets`: its `tenantId` may not be selected, which CSDL has no term to say, so the
    // service's $metadata does not tell the fuzzer: that set's finding is the next test's kind.)
    const { status, stdout, stderr } = await cli('fuzz', service, '--runs=15', '--seed=7', '--sets=localities,inspections', '--header=x-tenant:t1');
    expect(stderr).toContain('localities: 15 valid and 15 invalid queries…');
    expect(stderr).toMatch(/inspections: no finding \(\d+\.\d s\)/);
    expect(stdout).toContain('| localities | none |');
    expect(stdout).toContain('| inspections | none |');
    expect(status).toBe(0);
  });

  it('reports a finding with its reproduction and exits 1', async () => {
    const service = await serve(true);
    const { status, stdout } = await cli('fuzz', service, '--runs=60', '--seed=4', '--sets=localities');
    expect(status).toBe(1);
    expect(stdout).toMatch(/\| localities \| \$top=\d+ answered \d+ rows \|/);
    expect(stdout).toMatch(/## localities\n\n\$top=\d+ answered \d+ rows\n {2}query: /);
    expect(stdout).toContain("repeat:  curl -sS -i -H 'accept: application/json'");
    expect(stdout).toMatch(/seed: 4, path: /);
    // --skip: the queries with $top are not sent, so nothing is found.
    const skipped = await cli('fuzz', service, '--runs=60', '--seed=4', '--sets=localities', '--skip=(^|&)\\$top=');
    expect(skipped.stdout).toContain('| localities | none |');
    expect(skipped.status).toBe(0);
  });

  it('exits 2 when the service cannot be read, or an option is wrong', async () => {
    const nothing = await cli('fuzz', 'http://127.0.0.1:9/odata', '--runs=1', '--timeout=2000');
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toMatch(/^error: /m);
    const wrong = await cli('fuzz', 'http://127.0.0.1:9/odata', '--runs=many');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("--runs takes a whole number, not 'many'");
    const pattern = await cli('fuzz', 'http://127.0.0.1:9/odata', '--skip=(');
    expect(pattern.status).toBe(2);
    expect(pattern.stderr).toContain("--skip takes a regular expression, not '('");
  });
});

describe('odata-engine diff', () => {
  it('sends the same queries to both services, with headers to both or to one, and finds no difference between equal ones', async () => {
    const [a, b] = [await serve(), await serve()];
    const { status, stdout, stderr } = await cli(
      'diff',
      a,
      b,
      '--runs=25',
      '--seed=5',
      '--sets=localities,inspections',
      '--header=x-tenant:t1',
      '--header-b=x-side:b',
    );
    expect(stderr).toContain('localities: 25 queries to both…');
    expect(stderr).toMatch(/inspections: no difference \(\d+\.\d s\)/);
    expect(stdout).toContain('| localities | none |');
    expect(status).toBe(0);
  });

  it('reports a difference with both answers and exits 1; exits 2 when a service cannot be read', async () => {
    const [a, b] = [await serve(), await serve(true)];
    const { status, stdout } = await cli('diff', a, b, '--runs=60', '--seed=4', '--sets=localities');
    expect(status).toBe(1);
    expect(stdout).toMatch(/\| localities \| (\d+ rows from A, \d+ from B|counts differ[^|]*) \|/);
    expect(stdout).toMatch(/ {2}A:\n {4}status: +200[\s\S]* {2}B:\n {4}status: +200/);
    const nothing = await cli('diff', a, 'http://127.0.0.1:9/odata', '--runs=1', '--timeout=2000');
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toMatch(/^error: /m);
  });
});
