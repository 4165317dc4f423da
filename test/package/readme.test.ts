/** Every TypeScript example in the README runs as written (against the source, not a build). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
const dir = mkdtempSync(join(root, 'node_modules', '.readme-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('README examples', () => {
  it('there are examples', () => expect(blocks.length).toBeGreaterThanOrEqual(3));
  blocks.forEach((block, index) => {
    const title = block.split('\n').find((line) => line.trim() !== '' && !line.startsWith('import')) ?? `block ${index}`;
    it(`example ${index + 1}: ${title.trim().slice(0, 70)}`, () => {
      const source = block
        .replaceAll("from 'odata-engine/testing'", `from '${join(root, 'src/testing/index.ts')}'`)
        .replaceAll("from 'odata-engine'", `from '${join(root, 'src/index.ts')}'`);
      const file = join(dir, `example-${index}.mts`);
      writeFileSync(file, source);
      const run = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    });
  });
});
