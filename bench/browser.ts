/**
 * The browser build bench: bundle sizes (minified, gzipped) and cold start (import plus the first
 * parse and bind) of odata-engine's browser bundles, against Chevrotain alone (what any
 * Chevrotain-based parser must ship), the peer parsers, and a hand-written baseline
 * (`URLSearchParams`, which is no OData parser: the floor of "reading a query string").
 *
 * Bundles are built in memory with esbuild (ESM, platform browser, minified, everything
 * bundled). Cold start is measured in fresh Node processes and, when Debian's Chromium is
 * installed, in fresh headless Chromium pages (playwright-core). Run alone with
 * `tsx bench/browser.ts`; `npm run bench` runs it as its last part.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { fmtNum, markdownTable, median } from './measure.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const QUERY = "$filter=contains(tolower(name),'milk') and price gt 2.5&$orderby=name&$top=10";
const CHROMIUM = '/usr/bin/chromium';
const NODE_RUNS = 9;
const BROWSER_RUNS = 7;

interface Subject {
  readonly key: string;
  readonly label: string;
  /** Module text (ESM) bundled from the project root. */
  readonly entry: string;
  /** Code run after import, with the module as `m` (the first use). */
  readonly firstUse: string;
}

const MODEL = `{ namespace: 'Shop', entityTypes: { Product: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double' } } }, entitySets: { products: { type: 'Product' } } }`;

const SUBJECTS: readonly Subject[] = [
  {
    key: 'clientCore',
    label: 'odata-engine/core, client subset of issue 31 (parseQuery, bindQuery, validateQuery, defineModel)',
    entry: "export { parseQuery, bindQuery, validateQuery, defineModel } from './src/core.ts';",
    firstUse: `const model = m.defineModel(${MODEL}); m.bindQuery(${JSON.stringify(QUERY)}, { model, entitySet: 'products' });`,
  },
  {
    key: 'filterBox',
    label: "odata-engine/filter, a filter box (validateFilter, defineModel; issue 31's filter-only validator)",
    entry: "export { validateFilter, defineModel } from './src/filter.ts';",
    firstUse: `const model = m.defineModel(${MODEL}); m.validateFilter(${JSON.stringify("contains(tolower(name),'milk') and price gt 2.5")}, { model, entitySet: 'products' });`,
  },
  {
    key: 'client',
    label: 'odata-engine, client subset (parseQuery, bindQuery, validateQuery, modelFromCsdl, compileQuery, defineModel)',
    entry: "export { parseQuery, bindQuery, validateQuery, modelFromCsdl, compileQuery, defineModel } from './src/index.ts';",
    firstUse: `const model = m.defineModel(${MODEL}); m.bindQuery(${JSON.stringify(QUERY)}, { model, entitySet: 'products' });`,
  },
  {
    key: 'clientXml',
    label: 'odata-engine, client subset + CSDL XML (the above and modelFromCsdlXml, with saxes)',
    entry: "export { parseQuery, bindQuery, validateQuery, modelFromCsdl, modelFromCsdlXml, compileQuery, defineModel } from './src/index.ts';",
    firstUse: `const model = m.defineModel(${MODEL}); m.bindQuery(${JSON.stringify(QUERY)}, { model, entitySet: 'products' });`,
  },
  {
    key: 'browserEntry',
    label: 'odata-engine/browser as built (dist/browser/odata-engine.js: every export of src/browser.ts)',
    entry: "export * from './src/browser.ts';",
    firstUse: `const model = m.defineModel(${MODEL}); m.bindQuery(${JSON.stringify(QUERY)}, { model, entitySet: 'products' });`,
  },
  {
    key: 'parser',
    label: 'odata-engine, parser only (parseQuery)',
    entry: "export { parseQuery } from './src/index.ts';",
    firstUse: `m.parseQuery(${JSON.stringify(QUERY)});`,
  },
  {
    key: 'full',
    label: 'odata-engine, everything (all exports, incl. SQL and MongoDB backends)',
    entry: "export * from './src/index.ts';",
    firstUse: `const model = m.defineModel(${MODEL}); m.bindQuery(${JSON.stringify(QUERY)}, { model, entitySet: 'products' });`,
  },
  {
    key: 'chevrotain',
    label: 'Chevrotain alone (`export * from "chevrotain"`), no grammar',
    entry: "export * from 'chevrotain';",
    firstUse: 'void m.Lexer;',
  },
  {
    key: 'odataParser',
    label: '@odata/parser (peer), `defaultParser.filter`',
    entry: "export { defaultParser } from '@odata/parser';",
    firstUse: `m.defaultParser.filter("contains(tolower(name),'milk') and price gt 2.5");`,
  },
  {
    key: 'odataV4Parser',
    label: 'odata-v4-parser (peer), `filter`',
    entry: "export { filter } from 'odata-v4-parser';",
    firstUse: `m.filter("contains(tolower(name),'milk') and price gt 2.5");`,
  },
  {
    key: 'hand',
    label: 'hand-written baseline: `new URLSearchParams(query)` (no OData parsing)',
    entry: 'export const read = (q) => Object.fromEntries(new URLSearchParams(q));',
    firstUse: `m.read(${JSON.stringify(QUERY)});`,
  },
];

interface Built {
  readonly subject: Subject;
  readonly code: string;
  readonly minified: number;
  readonly gzipped: number;
  readonly nodeBuiltins: readonly string[];
}

async function bundle(subject: Subject): Promise<Built> {
  const result = await build({
    stdin: { contents: subject.entry, resolveDir: root, sourcefile: `${subject.key}.js`, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.text ?? '';
  const nodeBuiltins = Object.keys(result.metafile.inputs).filter((input) => input.startsWith('node:'));
  return { subject, code, minified: Buffer.byteLength(code), gzipped: gzipSync(code, { level: 9 }).length, nodeBuiltins };
}

/** Cold start in fresh Node processes: import from a file, then the first use; milliseconds. */
function nodeColdStart(built: Built, dir: string): number[] {
  const file = join(dir, `${built.subject.key}.mjs`);
  writeFileSync(file, built.code);
  const script = `const t0 = performance.now(); const m = await import(${JSON.stringify(`file://${file}`)}); ${built.subject.firstUse} process.stdout.write(String(performance.now() - t0));`;
  const times: number[] = [];
  for (let i = 0; i < NODE_RUNS; i++) {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${built.subject.key}: node cold start failed: ${run.stderr}`);
    times.push(Number(run.stdout));
  }
  return times;
}

/** Cold start in fresh headless Chromium pages: import from a blob URL, then the first use. */
async function browserColdStart(builds: readonly Built[]): Promise<Map<string, number[]> | string> {
  if (!existsSync(CHROMIUM)) return `Chromium is not installed (${CHROMIUM}); install Debian's chromium package to measure it`;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const result = new Map<string, number[]>();
  try {
    for (let run = 0; run < BROWSER_RUNS; run++) {
      for (const built of builds) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.setContent('<!doctype html><title>cold start</title>');
        const ms = await page.evaluate(
          async ({ code, firstUse }) => {
            const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
            const t0 = performance.now();
            const m: unknown = await import(url);
            new Function('m', firstUse)(m);
            return performance.now() - t0;
          },
          { code: built.code, firstUse: built.subject.firstUse },
        );
        await context.close();
        const list = result.get(built.subject.key) ?? [];
        list.push(ms);
        result.set(built.subject.key, list);
      }
    }
  } finally {
    await browser.close();
  }
  return result;
}

export interface BrowserReport {
  readonly results: string;
  /** Problems that fail the bench (a Node built-in in a browser bundle). */
  readonly failures: readonly string[];
}

export async function runBrowserBench(): Promise<BrowserReport> {
  const started = performance.now();
  const builds = await Promise.all(SUBJECTS.map(bundle));
  const dir = mkdtempSync(join(os.tmpdir(), 'odata-browser-bench-'));
  const node = new Map<string, number[]>();
  try {
    for (const built of builds) node.set(built.subject.key, nodeColdStart(built, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const browser = await browserColdStart(builds);
  const byKey = new Map(builds.map((b) => [b.subject.key, b]));
  const chevrotain = byKey.get('chevrotain') as Built;
  const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
  const ms = (values: readonly number[] | undefined): string => (values === undefined || values.length === 0 ? 'n/a' : `${fmtNum(median(values))} ms`);
  const ratio = (a: readonly number[] | undefined, b: readonly number[] | undefined): string =>
    a === undefined || b === undefined || a.length === 0 || b.length === 0 ? 'n/a' : `${fmtNum(median(a) / median(b))}x`;
  const browserTimes = typeof browser === 'string' ? undefined : browser;

  const sizeTable = markdownTable(
    ['bundle', 'minified', 'gzipped', 'gzipped vs Chevrotain alone', 'added to Chevrotain (gzipped)'],
    builds.map((b) => [
      b.subject.label,
      kb(b.minified),
      kb(b.gzipped),
      `${fmtNum(b.gzipped / chevrotain.gzipped)}x`,
      b.subject.key === 'chevrotain' || b.subject.key === 'hand' ? '' : kb(b.gzipped - chevrotain.gzipped),
    ]),
    ['l', 'r', 'r', 'r', 'r'],
  );
  const startTable = markdownTable(
    ['bundle', 'Node: import + first use', 'vs hand-written', 'Chromium: import + first use', 'vs hand-written'],
    builds.map((b) => {
      const k = b.subject.key;
      return [
        b.subject.label,
        ms(node.get(k)),
        ratio(node.get(k), node.get('hand')),
        ms(browserTimes?.get(k)),
        ratio(browserTimes?.get(k), browserTimes?.get('hand')),
      ];
    }),
    ['l', 'r', 'r', 'r', 'r'],
  );
  const failures = builds
    .filter((b) => b.subject.key !== 'hand' && b.nodeBuiltins.length > 0)
    .map((b) => `${b.subject.key} bundles Node built-ins: ${b.nodeBuiltins.join(', ')}`);
  const elapsed = (performance.now() - started) / 1000;
  const chromiumNote =
    typeof browser === 'string' ? browser : `Debian Chromium (headless, playwright-core), a fresh browser context per run, ${BROWSER_RUNS} runs`;
  const results = `# Browser build: bundle size and cold start

- Date: ${new Date().toISOString()}; bench run time ${elapsed.toFixed(1)} s; Node ${process.version}; ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores; 1-minute load average ${os.loadavg()[0]?.toFixed(2)}
- Bundles: esbuild (ESM, platform browser, ES2022, minified, all dependencies bundled, tree-shaken), gzip level 9. ${failures.length === 0 ? 'No bundle contains a Node built-in.' : `**${failures.join('; ')}**`}
- Cold start: the time from \`import()\` of the bundle to the end of its first use (odata-engine: \`defineModel\` and \`bindQuery\` of \`${QUERY}\`, which parses it; the peers: their \`$filter\` parser on the same filter; the baseline: \`URLSearchParams\` of the query). Node: a fresh \`node\` process per run, importing the bundle from a file, ${NODE_RUNS} runs, median. Chromium: ${chromiumNote}, importing the bundle from a blob URL, median.

## Size

${sizeTable}

## Cold start (median)

${startTable}
`;
  return { results, failures };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await runBrowserBench();
  process.stdout.write(report.results);
  if (report.failures.length > 0) process.exitCode = 1;
}
