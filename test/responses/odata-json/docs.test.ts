/**
 * Every `typescript` block of docs/odata-json.md runs as written, against the source: its
 * imports from `odata-engine` are the package root's exports with those of
 * src/responses/odata-json/ (not yet re-exported by src/index.ts; the blocks are fenced
 * `typescript`, not `ts`, so that test/package/readme.test.ts leaves them until they are).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { transform } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as root from '../../../src/index.js';
import * as json from '../../../src/responses/odata-json/index.js';

const page = readFileSync(new URL('../../../docs/odata-json.md', import.meta.url), 'utf8');
const blocks = [...page.matchAll(/```typescript\n([\s\S]*?)```/g)].map((match) => match[1] as string);
const library: Record<string, unknown> = { ...root, ...json };
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;

describe('docs/odata-json.md examples', () => {
  it('there are examples', () => expect(blocks.length).toBeGreaterThanOrEqual(6));

  it.each(blocks.map((code, index) => [index + 1, code] as const))('example %i runs', async (_index, code) => {
    const js = (await transform(code, { loader: 'ts', format: 'esm', target: 'es2022' })).code;
    const body = js
      .replace(/import\s*\{([^}]*)\}\s*from\s*["']odata-engine["'];/g, 'const {$1} = __lib;')
      .replace(/import\s+assert\s+from\s*["']node:assert\/strict["'];/g, 'const assert = __assert;');
    expect(body).not.toMatch(/^\s*import\s/m);
    for (const name of [...body.matchAll(/const \{([^}]*)\} = __lib;/g)].flatMap((m) =>
      (m[1] as string)
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
    )) {
      expect(library[name], name).toBeDefined();
    }
    await new AsyncFunction('__lib', '__assert', body)(library, assert);
  });
});
