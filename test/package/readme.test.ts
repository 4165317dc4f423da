/** Every TypeScript example in the README and in docs/ runs as written (against the source, not a build). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

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
  'odata-engine/memory': 'src/backends/memory/index.ts',
  'odata-engine/sql': 'src/backends/sql/index.ts',
  'odata-engine/mongo': 'src/backends/mongo/index.ts',
  'odata-engine/testing': 'src/testing/index.ts',
};
const blocks = pages.flatMap((page) =>
  [...readFileSync(join(root, page), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match, index) => ({ page, index, code: match[1] as string })),
);
const dir = mkdtempSync(join(root, 'node_modules', '.readme-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('README and docs/ examples', () => {
  it('there are examples', () => expect(blocks.length).toBeGreaterThanOrEqual(3));
  blocks.forEach(({ page, index, code }, n) => {
    const title = code.split('\n').find((line) => line.trim() !== '' && !line.startsWith('import')) ?? `block ${index}`;
    it(`${page} example ${index + 1}: ${title.trim().slice(0, 70)}`, () => {
      const source = code.replace(/from '(odata-engine(?:\/[\w-]+)?)'/g, (_whole, specifier: string) => {
        const entry = ENTRIES[specifier];
        if (entry === undefined) throw new Error(`${page}: unknown import ${specifier}`);
        return `from '${join(root, entry)}'`;
      });
      const file = join(dir, `example-${n}.mts`);
      writeFileSync(file, source);
      const run = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    });
  });
});
