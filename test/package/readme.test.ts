/**
 * Every TypeScript example in the README and in docs/ runs as written (against the source, not a
 * build): the entry points are bundled once from the source (test/fixtures/bundle.ts), and each
 * example is transpiled and run in a Node process of its own. The examples are independent (each
 * writes its own file and runs in its own process), so a few run at once (the project's
 * `maxConcurrency` in vitest.config.ts); each is still a test of its own.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { bundleSources } from '../fixtures/bundle.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
/** The package's import specifiers, as the source files they are built from (tsconfig.json's paths). */
const ENTRIES: Record<string, string> = {
  'odata-engine': 'src/index.ts',
  'odata-engine/core': 'src/core.ts',
  'odata-engine/filter': 'src/filter.ts',
  'odata-engine/memory': 'src/backends/memory/index.ts',
  'odata-engine/sql': 'src/backends/sql/index.ts',
  'odata-engine/mongo': 'src/backends/mongo/index.ts',
  'odata-engine/server': 'src/server/index.ts',
  'odata-engine/testing': 'src/testing/index.ts',
};
const bundleName = (specifier: string): string => specifier.replace('odata-engine', 'odata-engine-entry').replace('/', '-');
const blocks = pages.flatMap((page) =>
  [...readFileSync(join(root, page), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match, index) => ({ page, index, code: match[1] as string })),
);
// Inside node_modules, so that the examples' other imports (pg, mingo, …) resolve as a user's would.
const dir = mkdtempSync(join(root, 'node_modules', '.readme-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let bundles: Record<string, string> = {};
beforeAll(async () => {
  bundles = await bundleSources(
    Object.fromEntries(Object.entries(ENTRIES).map(([specifier, entry]) => [bundleName(specifier), join(root, entry)])),
    join(dir, 'lib'),
  );
});

/** Runs `file` with Node; its exit status and standard error. */
function runNode(file: string): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

describe.concurrent('README and docs/ examples', () => {
  it('there are examples', ({ expect }) => expect(blocks.length).toBeGreaterThanOrEqual(3));
  blocks.forEach(({ page, index, code }, n) => {
    const title = code.split('\n').find((line) => line.trim() !== '' && !line.startsWith('import')) ?? `block ${index}`;
    it(`${page} example ${index + 1}: ${title.trim().slice(0, 70)}`, async ({ expect }) => {
      const source = code.replace(/from '(odata-engine(?:\/[\w-]+)?)'/g, (_whole, specifier: string) => {
        if (ENTRIES[specifier] === undefined) throw new Error(`${page}: unknown import ${specifier}`);
        return `from '${pathToFileURL(bundles[bundleName(specifier)] as string).href}'`;
      });
      const file = join(dir, `example-${n}.mjs`);
      writeFileSync(file, (await transform(source, { loader: 'ts', format: 'esm', target: 'node20' })).code);
      const run = await runNode(file);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    });
  });
});
