/**
 * The core runs in a browser: no module under src/ except cli.ts imports a Node built-in, and
 * the built package loads as ESM and as CommonJS with its types.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

  it('the core (odata-engine/core) imports no backend', () => {
    const core = ['syntax', 'model', 'semantic', 'validation', 'responses', 'cache', 'paging', 'reference', 'passes', 'util', 'errors'];
    const offenders = core
      .flatMap((dir) => sourceFiles(join(root, 'src', dir)))
      .filter((file) => /from\s+['"](?:\.\.\/)+backends\//.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('npm run build makes ESM, CJS and .d.ts for both entry points, and they load', () => {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'pipe' });
    for (const entry of ['index', 'core', 'filter', 'memory', 'sql', 'mongo', 'server', 'testing/index']) {
      for (const extension of ['.js', '.cjs', '.d.ts', '.d.cts']) expect(existsSync(join(root, 'dist', entry + extension)), entry + extension).toBe(true);
    }
    for (const file of ['cli.js', 'browser/odata-engine.js', 'browser/odata-engine.d.ts']) expect(existsSync(join(root, 'dist', file)), file).toBe(true);
    const esm = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { parseFilter, printExpression } from 'odata-engine'; import { literalArbitrary } from 'odata-engine/testing'; console.log(printExpression(parseFilter('a  EQ 1')), typeof literalArbitrary)",
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(esm.trim()).toBe('a eq 1 object');
    const cjs = execFileSync(
      process.execPath,
      ['-e', "const { parseQuery, ODataError } = require('odata-engine'); console.log(parseQuery('$top=5').top, typeof ODataError)"],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(cjs.trim()).toBe('5 function');
    // The entries per backend share their modules with the root, in both formats: one ODataError
    // class, one toSql, whichever entries a program loads.
    const identity =
      "[a.ODataError === core.ODataError, a.toSql === sql.toSql, a.toMongo === mongo.toMongo, a.compileQuery === memory.compileQuery, typeof core.toSql, a.ODataError === filter.ODataError].join(' ')";
    const esmShared = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const [a, core, sql, mongo, memory, filter] = await Promise.all(['', '/core', '/sql', '/mongo', '/memory', '/filter'].map((p) => import('odata-engine' + p))); console.log(${identity})`,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(esmShared.trim()).toBe('true true true true undefined true');
    const cjsShared = execFileSync(
      process.execPath,
      [
        '-e',
        `const [a, core, sql, mongo, memory, filter] = ['', '/core', '/sql', '/mongo', '/memory', '/filter'].map((p) => require('odata-engine' + p)); console.log(${identity})`,
      ],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(cjsShared.trim()).toBe('true true true true undefined true');
    // The browser bundle: one self-contained ESM file (its dependencies inside), without Node built-ins.
    const browser = readFileSync(join(root, 'dist', 'browser', 'odata-engine.js'), 'utf8');
    // (Chevrotain's lodash probes `require('util')` inside a try when it exists; that is no import.)
    // No import of a package or a Node built-in: every dependency is inside.
    expect(browser.match(/(?:\bfrom|\bimport\s*\(?)\s*["'](?![./])[@\w][\w@/.:-]*["']/g)).toBeNull();
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
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string>; engines: { node: string } };
    expect(manifest.scripts.prepack).toBe('npm run build');
    // Chevrotain and saxes are bundled into dist/ and there is no runtime dependency: the built
    // modules load no package, so the CommonJS build needs no require() of an ES module and runs
    // on every Node 20.
    const imported = new Set<string>();
    for (const file of readdirSync(join(root, 'dist'))) {
      if (!/\.c?js$/.test(file) || file === 'cli.js') continue;
      const text = readFileSync(join(root, 'dist', file), 'utf8');
      for (const match of text.matchAll(/(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*)["']([@\w][\w@/.:-]*)["']/g)) imported.add(match[1] as string);
    }
    // (Chevrotain's lodash probes `require('util')` inside a try; Node built-ins are no packages.)
    const packages = [...imported].filter((name) => !name.startsWith('node:') && !['util', 'fs', 'process', 'url'].includes(name));
    expect(packages).toEqual([]);
    expect((manifest as unknown as { dependencies?: Record<string, string> }).dependencies).toBeUndefined();
    expect(manifest.engines.node).toBe('>=20');
  }, 180_000); // tsup builds three bundles and their types: over a minute on a loaded 2-core machine

  it('the packed tarball ships dist/ without source maps, and publint and arethetypeswrong find nothing wrong with it', () => {
    // What `npm pack` ships (its prepack script builds dist/ first; the test above built it).
    const destination = mkdtempSync(join(tmpdir(), 'odata-engine-pack-'));
    try {
      const packed = JSON.parse(
        execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], { cwd: root, encoding: 'utf8' }),
      ) as {
        filename: string;
        size: number;
        files: { path: string }[];
      }[];
      const tarball = join(destination, packed[0]?.filename ?? '');
      const files = packed[0]?.files.map((f) => f.path) ?? [];
      expect(files).toEqual(
        expect.arrayContaining([
          'LICENSE',
          'README.md',
          'package.json',
          'dist/index.js',
          'dist/index.cjs',
          'dist/index.d.ts',
          'dist/core.js',
          'dist/sql.cjs',
          'dist/cli.js',
          'dist/browser/odata-engine.js',
        ]),
      );
      expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
      expect(files.filter((file) => !['LICENSE', 'README.md', 'package.json'].includes(file) && !file.startsWith('dist/'))).toEqual([]);
      const bin = join(root, 'node_modules', '.bin');
      const publint = spawnSync(join(bin, 'publint'), [tarball], { encoding: 'utf8' });
      expect(publint.stdout + publint.stderr).toContain('All good!');
      expect(publint.status).toBe(0);
      // arethetypeswrong under the node16 and bundler resolutions (node10 knows no subpath
      // exports). The one finding allowed: the browser bundle is ES-module-only on purpose.
      // Its JSON (hundreds of KB) goes to a file: written to a pipe, attw's exit could cut it short
      // (a fresh clone's run once read 219 KB of it), a file is written whole.
      const report = join(destination, 'attw.json');
      const out = openSync(report, 'w');
      try {
        spawnSync(join(bin, 'attw'), [tarball, '--format', 'json'], { stdio: ['ignore', out, 'pipe'] });
      } finally {
        closeSync(out);
      }
      const analysis = (JSON.parse(readFileSync(report, 'utf8')) as { analysis: { problems: { kind: string; entrypoint: string; resolutionKind?: string }[] } })
        .analysis;
      const problems = analysis.problems
        .filter((problem) => problem.resolutionKind !== 'node10')
        .map((problem) => `${problem.kind} ${problem.entrypoint} ${problem.resolutionKind}`);
      expect(problems).toEqual(['CJSResolvesToESM ./browser node16-cjs']);
    } finally {
      rmSync(destination, { recursive: true, force: true });
    }
  }, 60_000);
});
