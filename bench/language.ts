/**
 * The language service bench (issue 32): how long `completeQuery`, `describeQuery` and
 * `signatureHelp` take on a 200-character query against Microsoft Graph's model (`users`, from
 * ../shared/conformance/metadata), at offsets of each kind (a property being typed, after an
 * operator, in a lambda over a collection of complex values, a nested `$expand` option, an option
 * name), and what the language service adds to a browser bundle.
 *
 * Timing: `src/` bundled by esbuild as `dist/` is built, in one process; every call is on a new
 * text (the query's string literal changes with each call, so nothing a caller could keep between
 * key strokes is reused); a warm-up, then every call timed on its own: p50, p90, p99, max over
 * all calls. Bundle: esbuild (ESM, browser, ES2022, minified) of `odata-engine/browser`'s entry
 * with and without the four language-service exports, gzip level 9.
 *
 * Run alone with `tsx bench/language.ts`; `npm run bench` runs it too. Writes the
 * `language-service` section of bench/RESULTS.md.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { fmtNum, markdownTable } from './measure.js';
import { writeSection } from './results-file.js';
import { importSourceBundle } from './shared.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = 2000;

type Engine = typeof import('../src/index.js');

/** The query, with a word of its string literal that changes per call. */
const query = (word: string): string =>
  `$filter=accountEnabled eq true and startswith(displayName,'${word}') and (department eq 'Sales' or jobTitle ne null) and assignedLicenses/any(l:l/skuId ne null)&$select=id,displayName,mail&$expand=manager($select=id)&$orderby=displayName desc`;

/** Where the cursor is put: before a named part of the query (plus `shift` characters). */
const PLACES: readonly { readonly label: string; readonly before: string; readonly shift: number }[] = [
  { label: 'a property being typed (`jobT|`)', before: 'jobTitle', shift: 4 },
  { label: 'after a comparison operator (`department eq |`)', before: "'Sales'", shift: 0 },
  { label: 'in a lambda over complex values (`l/|`)', before: 'skuId', shift: 0 },
  { label: 'a nested `$expand` option (`manager($select=|`)', before: 'id)', shift: 0 },
  { label: 'an option name (`$ord|`)', before: '$orderby', shift: 4 },
];

/** Per-call times of `call` over new texts: p50, p90, p99 and max, in ms. */
function percentiles(
  call: (text: string, offset: number) => unknown,
  offsetOf: (text: string) => number,
): { p50: number; p90: number; p99: number; max: number } {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS + 500; i++) {
    const text = query(`w${i}`);
    const offset = offsetOf(text);
    const t0 = performance.now();
    call(text, offset);
    const dt = performance.now() - t0;
    if (i >= 500) times.push(dt);
  }
  times.sort((a, b) => a - b);
  const at = (p: number): number => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: times[times.length - 1]! };
}

/** Minified and gzipped bytes of a browser bundle of `code` (resolved from the repository's root). */
async function bundleBytes(code: string): Promise<{ minified: number; gzipped: number }> {
  const result = await build({
    stdin: { contents: code, resolveDir: `${root}src`, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]!.text;
  return { minified: Buffer.byteLength(text), gzipped: gzipSync(text, { level: 9 }).length };
}

/** Runs the bench, writes its section, returns it. */
export async function runLanguageBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const m: Engine = await importSourceBundle();
  const graph = m.modelFromCsdlXml(readFileSync(`${root}../shared/conformance/metadata/msgraph-v1.0-clean.xml`, 'utf8'));
  const settings = { model: graph, entitySet: 'users' };
  const sample = query('w0');
  // The first call of a page: it builds the lexer and the full parser (and the grammar's first sets).
  const first0 = performance.now();
  m.completeQuery(sample, sample.indexOf('jobTitle') + 4, settings);
  const firstCall = performance.now() - first0;
  // Steady state: every call of the bench warmed up first (its JIT tiers), then each measured.
  for (let i = 0; i < 500; i++) {
    const text = query(`warm${i}`);
    for (const place of PLACES) m.completeQuery(text, text.indexOf(place.before) + place.shift, settings);
    m.describeQuery(text, text.indexOf('jobTitle') + 2, settings);
    m.signatureHelp(text, text.indexOf("displayName,'") + 12);
  }
  const rows: string[][] = [];
  let worstP99 = 0;
  for (const place of PLACES) {
    const offsetOf = (text: string): number => text.indexOf(place.before) + place.shift;
    const offered = m.completeQuery(sample, offsetOf(sample), settings);
    if (offered.length === 0) throw new Error(`nothing offered at ${place.label}`);
    const t = percentiles((text, offset) => m.completeQuery(text, offset, settings), offsetOf);
    worstP99 = Math.max(worstP99, t.p99);
    rows.push([`completeQuery, ${place.label}`, String(offered.length), fmtNum(t.p50), fmtNum(t.p90), fmtNum(t.p99), fmtNum(t.max)]);
  }
  const hover = percentiles(
    (text, offset) => m.describeQuery(text, offset, settings),
    (text) => text.indexOf('jobTitle') + 2,
  );
  rows.push(['describeQuery on `jobTitle`', '1', fmtNum(hover.p50), fmtNum(hover.p90), fmtNum(hover.p99), fmtNum(hover.max)]);
  const signature = percentiles(
    (text, offset) => m.signatureHelp(text, offset),
    (text) => text.indexOf("displayName,'") + 12,
  );
  rows.push(['signatureHelp in `startswith(displayName,|`', '1', fmtNum(signature.p50), fmtNum(signature.p90), fmtNum(signature.p99), fmtNum(signature.max)]);

  const browser = readFileSync(`${root}src/browser.ts`, 'utf8');
  const withoutLanguage = browser
    .split('\n')
    .filter((line) => !line.includes("'./language/"))
    .join('\n');
  const full = await bundleBytes(browser);
  const bare = await bundleBytes(withoutLanguage);
  const kb = (bytes: number): string => `${fmtNum(bytes / 1024)} KB`;

  const section = `# Language service: completion, hover and signature help (issue 32)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Method: \`src/\` bundled by esbuild as \`dist/\` is built, in one process; Microsoft Graph's CSDL (\`msgraph-v1.0-clean.xml\`, entity set \`users\`); a ${sample.length}-character query (\`${sample}\`), whose string literal changes with every call (a new text each time); 500 rounds of warm-up of every call (every place, hover, signature help), then for each 500 more and ${ROUNDS} calls each timed on its own; ms per call.

${markdownTable(['call', 'items', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], rows, ['l', 'r', 'r', 'r', 'r', 'r'])}

The first \`completeQuery\` of a process (it builds the lexer, the full parser and the grammar's first sets): ${fmtNum(firstCall)} ms.

Target: \`completeQuery\` on a 200-character query against Graph's model ≤ 1 ms at p99: ${fmtNum(worstP99)} ms at the worst place, ${worstP99 <= 1 ? 'met' : 'not met'}.

What the language service adds to a browser bundle (\`odata-engine/browser\`'s entry, esbuild, minified, gzip 9): ${kb(full.gzipped)} with it against ${kb(bare.gzipped)} without the four exports (completeQuery, describeQuery, signatureHelp, quickFixes): **${kb(full.gzipped - bare.gzipped)}** gzipped (${kb(full.minified - bare.minified)} minified). The content assist reads the grammar Chevrotain already recorded for the parser, and the probe uses the binder: neither is a second copy.
`;
  writeSection('language-service', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runLanguageBench());
}
