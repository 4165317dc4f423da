/**
 * Every TypeScript example of docs/sql-rows.md and docs/frameworks.md runs as written (against the
 * source), as the README's do (readme.test.ts): each block exits 0 with nothing on stderr, and
 * asserts its own results. The framework recipes start real servers (Express on an ephemeral
 * port, Fastify through `inject`, Hono through `app.request`) and Kysely on PGlite.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(root, 'node_modules', '.docs-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

for (const page of ['docs/sql-rows.md', 'docs/frameworks.md']) {
  const blocks = [...readFileSync(join(root, page), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  describe(`${page} examples`, () => {
    it('there are examples', () => expect(blocks.length).toBeGreaterThanOrEqual(1));
    blocks.forEach((block, index) => {
      it(`example ${index + 1}`, () => {
        const source = block
          .replaceAll("from 'odata-engine/testing'", `from '${join(root, 'src/testing/index.ts')}'`)
          .replaceAll("from 'odata-engine'", `from '${join(root, 'src/index.ts')}'`);
        const file = join(dir, `${page.replace(/\W/g, '-')}-${index}.mts`);
        writeFileSync(file, source);
        const run = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8' });
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
      });
    });
  });
}
