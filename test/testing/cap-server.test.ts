/**
 * The testing kit against SAP CAP 9 (issue 33): CAP 9.9 (`@sap/cds` with `@cap-js/sqlite` on
 * sql.js) serves test/fixtures/cap's model over rows of our own on loopback; `fuzzODataServer`
 * reads CAP's own `$metadata` and fuzzes each set, and `createODataHandler` serves the same model
 * (read from CAP's `$metadata`) over the same rows.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFromCsdlXml } from '../../src/model/csdl-xml.js';
import type { Model } from '../../src/model/model.js';
import { createODataHandler, memorySource } from '../../src/server/index.js';
import { toNodeListener } from '../../src/server/adapters/node.js';
import { fuzzODataServer } from '../../src/testing/fuzz-server.js';
import { diffODataServers } from '../../src/testing/diff-servers.js';
import { rowsProblem } from '../../src/testing/answer-rows.js';
import { bundleSources } from '../fixtures/bundle.js';
import { CAP_CRASH, CAP_DEVIATIONS, capKnown, CAP_PATH, capRows, startCap, type CapServer } from '../helpers/cap-server.js';

const SETS = ['Categories', 'Products', 'Suppliers'];
let cap: CapServer;
let ours: http.Server;
let oursRoot: string;
let model: Model;
const rows = capRows();

beforeAll(async () => {
  cap = await startCap(rows);
  model = modelFromCsdlXml(await (await fetch(`${cap.root}/$metadata`)).text());
  ours = http.createServer(toNodeListener(createODataHandler({ model, source: memorySource(rows), basePath: CAP_PATH })));
  await new Promise<void>((done) => ours.listen(0, '127.0.0.1', done));
  oursRoot = `http://127.0.0.1:${(ours.address() as { port: number }).port}${CAP_PATH}`;
}, 90_000);
afterAll(async () => {
  await cap?.stop();
  await new Promise((done) => ours?.close(done));
});

const get = async (root: string, set: string, query: string): Promise<{ status: number; body: { value?: Record<string, unknown>[] } }> => {
  const response = await fetch(`${root}/${set}?${query.replaceAll(' ', '%20')}`);
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as { value?: Record<string, unknown>[] }) };
};

describe('fuzzODataServer on SAP CAP 9', () => {
  for (const [i, set] of SETS.entries()) {
    it(`finds nothing on ${set} in 500 runs of each kind but CAP's known deviations`, async () => {
      const result = await fuzzODataServer({
        url: `${cap.root}/${set}`,
        model,
        entitySet: set,
        numRuns: 500,
        seed: 33 + i,
        known: capKnown('fuzz'),
        skip: CAP_CRASH,
      });
      expect(result.requests).toBeGreaterThanOrEqual(900);
      // What it met, for the record (docs/testing.md lists them).
      console.info(`${set}: ${result.requests} requests; known deviations met: ${result.known.map((known) => `${known.count}× ${known.why}`).join('; ')}`);
    }, 300_000);
  }

  it("finds nothing on createODataHandler serving CAP's model over the same rows (no false positive of the row checks)", async () => {
    for (const [i, set] of SETS.entries()) {
      const result = await fuzzODataServer({ url: `${oursRoot}/${set}`, model, entitySet: set, numRuns: 300, seed: 33 + i });
      expect(result.requests).toBeGreaterThanOrEqual(550);
    }
  }, 300_000);

  it("each known deviation is CAP's: the example query answers differently there, and as OData says on createODataHandler", async () => {
    for (const deviation of CAP_DEVIATIONS) {
      const [theirs, mine] = await Promise.all([get(cap.root, deviation.set, deviation.example), get(oursRoot, deviation.set, deviation.example)]);
      const invalid = /negative \$top|given twice/.test(deviation.why);
      // Ours: 400 for the invalid queries; else 200 with rows that satisfy the filter by the reference.
      expect(mine.status, `${deviation.example} on createODataHandler`).toBe(invalid ? 400 : 200);
      if (!invalid) expect(rowsProblem(model, deviation.set, deviation.example.replaceAll(' ', '%20'), mine.body.value ?? [])).toBeUndefined();
      // CAP's: a refusal of a valid query, an answer to an invalid one, or other rows.
      const differs =
        theirs.status !== mine.status ||
        JSON.stringify(theirs.body.value?.map((row) => row['ID'])) !== JSON.stringify(mine.body.value?.map((row) => row['ID']));
      expect(differs, `${deviation.example}: CAP answered ${theirs.status} ${JSON.stringify(theirs.body).slice(0, 200)}`).toBe(true);
    }
  }, 60_000);

  it('a lambda with another predicate over a collection of strings takes the CAP process down; createODataHandler answers it', async () => {
    const victim = await startCap(rows);
    try {
      const query = "$filter=tags/all(t:t ne 'red')&$select=ID";
      expect(CAP_CRASH.test(query.replaceAll('/', '%2F').replaceAll(':', '%3A').replaceAll(' ', '%20'))).toBe(true);
      await fetch(`${victim.root}/Products?${query}`).catch(() => undefined);
      expect(await victim.exited).toBeDefined();
      await expect(fetch(`${victim.root}/Products?$top=1`)).rejects.toThrow();
      const mine = await get(oursRoot, 'Products', query);
      expect(mine.status).toBe(200);
      const expected = rows.Products.filter((row) => (row['tags'] as string[]).every((tag) => tag !== 'red')).map((row) => row['ID']);
      expect(mine.body.value?.map((row) => row['ID'])).toEqual(expected);
    } finally {
      await victim.stop();
    }
  }, 90_000);

  it("diffODataServers: CAP against createODataHandler over the same rows differs only by CAP's known deviations", async () => {
    for (const [i, set] of SETS.entries()) {
      const result = await diffODataServers({
        a: { url: `${cap.root}/${set}`, name: 'CAP' },
        b: { url: `${oursRoot}/${set}`, name: 'createODataHandler' },
        model,
        entitySet: set,
        numRuns: 300,
        seed: 330 + i,
        known: capKnown('diff'),
        skip: CAP_CRASH,
      });
      expect(result.queries).toBeGreaterThanOrEqual(250);
      console.info(`${set}: ${result.queries} queries; known differences: ${result.known.map((known) => `${known.count}× ${known.why}`).join('; ')}`);
    }
  }, 300_000);

  it('the command line: fuzz and diff CAP with its crash skipped and its deviations known, as a user runs them', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const folder = mkdtempSync(join(root, '.test-bundle-'));
    try {
      const cli = (await bundleSources({ cli: join(root, 'src/cli.ts') }, folder)).cli as string;
      const run = (...args: string[]) =>
        new Promise<{ status: number | null; stdout: string; stderr: string }>((done, fail) => {
          const child = spawn(process.execPath, [cli, ...args], { cwd: root });
          let [stdout, stderr] = ['', ''];
          child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
          child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
          child.on('error', fail);
          child.on('close', (status) => done({ status, stdout, stderr }));
        });
      const known = (kind: 'fuzz' | 'diff'): string => {
        const file = join(folder, `${kind}-known.json`);
        writeFileSync(file, JSON.stringify(capKnown(kind).map(({ why, match }) => ({ why, match: match.source }))));
        return file;
      };
      // Without the known deviations: findings on every set, exit 1.
      const bare = await run('fuzz', cap.root, '--runs=100', '--seed=1', `--skip=${CAP_CRASH.source}`);
      expect(bare.status).toBe(1);
      expect(bare.stdout).toMatch(/\| Categories \| (?!none)/);
      const fuzzed = await run('fuzz', cap.root, '--runs=200', '--seed=2', `--skip=${CAP_CRASH.source}`, `--known=${known('fuzz')}`);
      expect(fuzzed.stdout).toContain('| Products | none |');
      expect(fuzzed.stdout).toMatch(/Known deviations met:\n- \d+× /);
      expect(fuzzed.status).toBe(0);
      const diffed = await run(
        'diff',
        cap.root,
        oursRoot,
        '--name-a=CAP',
        '--name-b=createODataHandler',
        '--runs=100',
        '--seed=3',
        `--skip=${CAP_CRASH.source}`,
        `--known=${known('diff')}`,
      );
      expect(diffed.stdout, diffed.stdout).toContain('| Suppliers | none |');
      expect(diffed.status).toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 300_000);
});
