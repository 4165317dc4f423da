/**
 * The bundle of a filter box: `odata-engine/filter`'s validateFilter and defineModel, bundled for a
 * browser by esbuild (ESM, minified, tree-shaken, as bench/browser.ts measures it). It holds the
 * expression grammar and binder only: not the full grammar, the query binder, `$apply`, CSDL XML,
 * a backend or the in-memory reference; its size stays within issue 31's budget (60 KB gzipped,
 * Chevrotain included; the figure is in bench/RESULTS.md). Loaded on its own, it validates filters,
 * and refuses what needs what it leaves out, with the position.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'odata-filter-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let code = '';
let inputs: string[] = [];
beforeAll(async () => {
  const result = await build({
    stdin: { contents: "export { validateFilter, bindFilter, parseFilter, defineModel, ODataError } from './src/filter.ts';", resolveDir: root, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  code = result.outputFiles[0]?.text ?? '';
  // The modules with bytes in the output (esbuild lists every module it visited among the inputs).
  const output = Object.values(result.metafile.outputs)[0];
  inputs = Object.entries(output?.inputs ?? {})
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}, 60_000);

describe('the filter box bundle', () => {
  it('leaves out the full grammar, the query binder, $apply, CSDL XML, the backends and the reference', () => {
    const left = [
      'src/syntax/parser.ts',
      'src/semantic/bind-query.ts',
      'src/semantic/apply/',
      'src/model/csdl-xml',
      'src/backends/',
      'src/reference/',
      'saxes',
    ];
    for (const part of left)
      expect(
        inputs.filter((input) => input.includes(part)),
        part,
      ).toEqual([]);
    expect(inputs).toContain('src/syntax/expression-parser.ts');
    expect(inputs.filter((input) => /node:/.test(input))).toEqual([]);
  });

  it('is at most 60 KB gzipped, Chevrotain included', () => {
    expect(gzipSync(code, { level: 9 }).length / 1024).toBeLessThanOrEqual(60);
  });

  it('validates filters on its own, and refuses what needs the $apply binder or the full grammar, with the position', async () => {
    const file = join(dir, 'filter.mjs');
    writeFileSync(file, code);
    const m = (await import(pathToFileURL(file).href)) as typeof import('../../src/filter.js');
    const model = m.defineModel({
      namespace: 'Tree',
      entityTypes: {
        Node: {
          key: ['id'],
          properties: { id: 'Edm.Int32', name: 'Edm.String', parentId: { type: 'Edm.Int32', nullable: true } },
        },
      },
      entitySets: { nodes: { type: 'Node' } },
    });
    const settings = { model, entitySet: 'nodes' };
    expect(m.validateFilter("nam eq 'a' and id gt 'x'", settings).map((d) => [d.code, d.range.start])).toEqual([
      ['unknown_property', 0],
      ['type_mismatch', 15],
    ]);
    expect(m.bindFilter('id gt 1', settings).kind).toBe('binary');
    const refusal = (run: () => unknown): string => {
      try {
        run();
        return 'accepted';
      } catch (error) {
        return error instanceof m.ODataError ? `${error.code}@${String(error.position)}` : String(error);
      }
    };
    // The hierarchy functions of Data Aggregation are bound by the $apply binder, which is not in this bundle.
    const hierarchy = "id gt 1 and Aggregation.isroot(HierarchyNodes=$root/nodes,HierarchyQualifier='Tree',Node=id)";
    expect(refusal(() => m.bindFilter(hierarchy, settings))).toBe('unsupported_feature@12');
    expect(refusal(() => m.parseFilter('id gt 1 or $it/$count($filter=id gt 1) eq 1'))).toBe('unsupported_feature@15');
  });
});
