/**
 * The core runs in a browser: no module under src/ except cli.ts imports a Node built-in, and
 * the built package loads as ESM and as CommonJS with its types.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const NODE_BUILTINS = /from\s+['"](node:[\w/]+|fs|path|os|url|child_process|process|crypto|http|https|stream|util|buffer)['"]/;

describe('portability', () => {
  it('no Node built-in is imported outside src/cli.ts', () => {
    const offenders = sourceFiles(join(root, 'src'))
      .filter((file) => relative(root, file) !== join('src', 'cli.ts'))
      .filter((file) => NODE_BUILTINS.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('npm run build makes ESM, CJS and .d.ts for both entry points, and they load', () => {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'pipe' });
    for (const file of ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts', 'testing/index.js', 'testing/index.cjs', 'testing/index.d.ts', 'cli.js']) {
      expect(existsSync(join(root, 'dist', file)), file).toBe(true);
    }
    const esm = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "import { parseFilter, printExpression } from 'odata-engine'; import { literalArbitrary } from 'odata-engine/testing'; console.log(printExpression(parseFilter('a  EQ 1')), typeof literalArbitrary)"],
      { cwd: root, encoding: 'utf8' },
    );
    expect(esm.trim()).toBe('a eq 1 object');
    const cjs = execFileSync(process.execPath, ['-e', "const { parseQuery, ODataError } = require('odata-engine'); console.log(parseQuery('$top=5').top, typeof ODataError)"], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(cjs.trim()).toBe('5 function');
    // The browser bundle: one self-contained ESM file (Chevrotain inside), without Node built-ins.
    const browser = readFileSync(join(root, 'dist', 'browser', 'odata-engine.js'), 'utf8');
    // (Chevrotain's lodash probes `require('util')` inside a try when it exists; that is no import.)
    expect(/\bfrom\s*["'](node:|chevrotain)|\bimport\s*\(\s*["']node:/.test(browser)).toBe(false);
    const loaded = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('odata-engine/browser'); const model = m.defineModel({ namespace: 'N', entityTypes: { E: { key: ['id'], properties: { id: 'Edm.Int32' } } }, entitySets: { es: { type: 'E' } } }); console.log(m.validateQuery('$filter=idd eq 1', { model, entitySet: 'es' })[0].code)",
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(loaded.trim()).toBe('unknown_property');
    // What `npm pack` ships (its prepack script builds dist/ first; here it is built already).
    const packed = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
    const files = (JSON.parse(packed) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/cli.js', 'dist/browser/odata-engine.js']));
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string>; engines: { node: string } };
    expect(manifest.scripts.prepack).toBe('npm run build');
    // The CommonJS build requires Chevrotain, an ES module: Node loads it with require() from 20.19 on.
    expect(manifest.engines.node).toBe('>=20.19');
  }, 180_000); // tsup builds three bundles and their types: over a minute on a loaded 2-core machine
});
