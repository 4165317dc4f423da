/**
 * The package bench (issue 14): what `npm pack` ships, and what a program loads from dist/ for
 * each way of importing the package (the root, or the core with one backend's entry), in bytes
 * and in the time `node` takes to import it and parse one filter, against `node -e 0`.
 *
 * Builds dist/ first (`npm run build`). Bytes are those of the dist/ modules in the program's
 * module graph (esbuild's metafile; Chevrotain and saxes are bundled into dist/; there is no
 * runtime dependency). Times are
 * medians of interleaved fresh `node` processes, with the spread.
 *
 * Run alone with `tsx bench/package.ts`; `npm run bench` runs it too. Writes the `package`
 * section of bench/RESULTS.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { fmtNum, markdownTable, median } from './measure.js';
import { writeSection } from './results-file.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 15;

interface ImportSet {
  readonly label: string;
  /** The module's text: what it imports and the one call it makes. */
  readonly code: string;
}

const IMPORT_SETS: readonly ImportSet[] = [
  { label: '`odata-engine` (root: everything)', code: "import { parseFilter } from 'odata-engine'; parseFilter('a eq 1');" },
  { label: '`odata-engine`, import only (the lexer and parser are built on first use)', code: "import { parseFilter } from 'odata-engine'; void parseFilter;" },
  { label: '`odata-engine/core` (no backend)', code: "import { parseFilter } from 'odata-engine/core'; parseFilter('a eq 1');" },
  {
    label: '`odata-engine/filter` (`$filter` alone: validateFilter)',
    code: "import { defineModel, validateFilter } from 'odata-engine/filter'; const model = defineModel({ namespace: 'N', entityTypes: { E: { key: ['a'], properties: { a: 'Edm.Int32' } } }, entitySets: { es: { type: 'E' } } }); validateFilter('a eq 1', { model, entitySet: 'es' });",
  },
  {
    label: '`odata-engine/core`, the same first use (defineModel, validateQuery)',
    code: "import { defineModel, validateQuery } from 'odata-engine/core'; const model = defineModel({ namespace: 'N', entityTypes: { E: { key: ['a'], properties: { a: 'Edm.Int32' } } }, entitySets: { es: { type: 'E' } } }); validateQuery('$filter=a eq 1', { model, entitySet: 'es' });",
  },
  {
    label: '`/core` + `/memory`',
    code: "import { parseFilter } from 'odata-engine/core'; import { compileQuery } from 'odata-engine/memory'; parseFilter('a eq 1'); void compileQuery;",
  },
  {
    label: '`/core` + `/sql`',
    code: "import { parseFilter } from 'odata-engine/core'; import { toSql } from 'odata-engine/sql'; parseFilter('a eq 1'); void toSql;",
  },
  {
    label: '`/core` + `/mongo`',
    code: "import { parseFilter } from 'odata-engine/core'; import { toMongo } from 'odata-engine/mongo'; parseFilter('a eq 1'); void toMongo;",
  },
];

const kb = (bytes: number): string => `${fmtNum(bytes / 1024)} KB`;
const ms = (value: number): string => `${fmtNum(value)} ms`;

/** Bytes of the dist/ modules a program with this text loads (Chevrotain excluded). */
async function loadedBytes(code: string): Promise<{ bytes: number; modules: number }> {
  const result = await build({
    stdin: { contents: code, resolveDir: root, sourcefile: 'entry.mjs' },
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
    // Not the repository's tsconfig, whose paths map the package's name onto src/.
    tsconfigRaw: '{}',
  });
  const inputs = Object.entries(result.metafile.inputs).filter(([path]) => path.startsWith('dist/'));
  return { bytes: inputs.reduce((sum, [, input]) => sum + input.bytes, 0), modules: inputs.length };
}

/** Wall time of one fresh `node` running `args`, in ms. */
function timeNode(args: readonly string[]): number {
  const t0 = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const elapsed = performance.now() - t0;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${run.stderr}`);
  return elapsed;
}

/** Runs the bench and writes its section; returns the section's text. */
export async function runPackageBench(): Promise<string> {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'pipe' });
  const packed = (
    JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as {
      size: number;
      unpackedSize: number;
      files: { path: string; size: number }[];
    }[]
  )[0]!;
  const largest = [...packed.files].sort((a, b) => b.size - a.size).slice(0, 4);
  const load = os.loadavg()[0]!;

  const sizes = await Promise.all(IMPORT_SETS.map((set) => loadedBytes(set.code)));
  // Interleaved: one run of every subject per round, so that a load spike touches all alike.
  const subjects = [['-e', '0'], ...IMPORT_SETS.map((set) => ['--input-type=module', '-e', set.code])];
  const times: number[][] = subjects.map(() => []);
  for (const args of subjects) timeNode(args); // a first run of each warms the file cache
  for (let round = 0; round < RUNS; round++) subjects.forEach((args, index) => times[index]!.push(timeNode(args)));
  const bare = median(times[0]!);
  const spread = (values: readonly number[]): string => `${ms(Math.min(...values))} – ${ms(Math.max(...values))}`;

  const table = markdownTable(
    ['import', 'dist/ modules loaded', 'their size', 'node: import + parseFilter (median)', 'over `node -e 0`', 'spread (min – max)'],
    IMPORT_SETS.map((set, index) => [
      set.label,
      String(sizes[index]!.modules),
      kb(sizes[index]!.bytes),
      ms(median(times[index + 1]!)),
      `+${ms(median(times[index + 1]!) - bare)}`,
      spread(times[index + 1]!),
    ]),
  );
  const body = `# Package: what \`npm pack\` ships and what each entry loads

- Date: ${new Date().toISOString()}; Node ${process.version} (${process.platform}/${process.arch}); ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Tarball: **${kb(packed.size)} packed, ${kb(packed.unpackedSize)} unpacked**, ${packed.files.length} files, no source maps. Largest files: ${largest.map((file) => `${file.path} (${kb(file.size)})`).join(', ')}.
- Method: dist/ built by \`npm run build\`; the bytes are the dist/ modules in each program's module graph (esbuild metafile; Chevrotain and saxes are bundled into dist/ and counted; there is no runtime dependency); the times are ${RUNS} interleaved fresh \`node\` processes per row (after one warm-up run of each), median and min – max; \`node -e 0\` took ${ms(bare)} (${spread(times[0]!)}).

${table}
`;
  writeSection('package', body);
  return body;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runPackageBench());
}
