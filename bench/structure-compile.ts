/**
 * Compile latency of two trees side by side: the same bound queries compiled by `toSql` (every
 * built-in dialect), `toMongo` and the in-memory `compileQuery`, each tree in its own child
 * process, alternating over rounds, so that a restructuring of the compilers (issue 27: the
 * function tables, the lowering, the walking kit) is measured against the code it replaced in
 * the same run. The queries are 400 random ones (300 typed `$filter`/`$orderby`/… queries and 100
 * `$apply` pipelines, a fixed seed) over the fuzzing model, generated once by this tree.
 *
 *   npx tsx bench/structure-compile.ts --before <tree> [--after <tree>] [--rounds 6] [--tsx] [--record]
 *
 * Each tree runs bundled by esbuild as `dist/` is built (no `keepNames`), or with `--tsx` through tsx.
 *
 * A tree is a checkout with its own src/ (a git worktree at the old commit). Writes the
 * `structure-compile` section of bench/RESULTS.md.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { applyQueryArbitrary, typedQueryArbitrary } from '../src/testing/index.js';
import { FUZZ_SET, fuzzModel } from '../test/fixtures/fuzz-data.js';
import { writeSection } from './results-file.js';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: resolve(new URL('..', import.meta.url).pathname) },
    rounds: { type: 'string', default: '6' },
    record: { type: 'boolean', default: false },
    tsx: { type: 'boolean', default: false },
  },
});
if (values.before === undefined) throw new Error('usage: structure-compile.ts --before <tree> [--after <tree>] [--rounds N] [--record]');
const trees = { before: resolve(values.before), after: resolve(values.after) };
const rounds = Number(values.rounds);

const typed = fc.sample(typedQueryArbitrary(fuzzModel, FUZZ_SET), { numRuns: 300, seed: 27 }).map((q) => q.text);
const applied = fc.sample(applyQueryArbitrary(fuzzModel, FUZZ_SET), { numRuns: 100, seed: 27 }).map((q) => q.text);
const dir = mkdtempSync(join(tmpdir(), 'structure-compile-'));
const queriesFile = join(dir, 'queries.json');
writeFileSync(queriesFile, JSON.stringify([...typed, ...applied]));

interface ChildResult {
  readonly targets: Record<string, { readonly nsPerQuery: number; readonly compiled: number; readonly refused: number; readonly digests: readonly string[] }>;
}

function child(tree: string): Promise<ChildResult> {
  return new Promise((done, fail) => {
    const worker = new URL('./structure-compile-worker.ts', import.meta.url).pathname;
    const proc = spawn(process.execPath, ['--import', 'tsx', worker, tree, queriesFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('exit', (code) => (code === 0 ? done(JSON.parse(out) as ChildResult) : fail(new Error(`worker for ${tree} exited with ${code}`))));
  });
}

const load: number[] = [os.loadavg()[0]!];
const results: { before: ChildResult[]; after: ChildResult[] } = { before: [], after: [] };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
  for (const which of order) {
    results[which].push(await child(trees[which]));
    process.stderr.write(`round ${round + 1}/${rounds} ${which} done\n`);
  }
  load.push(os.loadavg()[0]!);
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const targets = Object.keys(results.after[0]!.targets);
const rows = targets.map((target) => {
  const before = results.before.map((r) => r.targets[target]!.nsPerQuery);
  const after = results.after.map((r) => r.targets[target]!.nsPerQuery);
  const ratios = after.map((a, i) => a / before[i]!);
  const b = results.before[0]!.targets[target]!;
  const a = results.after[0]!.targets[target]!;
  const same = a.digests.filter((d, i) => d === b.digests[i]).length;
  return `| ${target} | ${(median(before) / 1000).toFixed(1)} | ${(median(after) / 1000).toFixed(1)} | ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ${b.compiled}/${b.refused} | ${a.compiled}/${a.refused} | ${same}/${a.digests.length} |`;
});
const body = `## Compile latency across a restructuring (bench/structure-compile.ts)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average ${load.map((l) => l.toFixed(2)).join(' → ')}
- Trees: before \`${trees.before}\`, after \`${trees.after}\`; ${rounds} rounds, the two trees' children alternating (each child: warm-up, then the median of 5 timed passes over every query; ${values.tsx ? 'src/ through tsx' : 'src/ bundled by esbuild as dist/ is built'})
- Queries: 400 (300 typed queries, 100 \`$apply\` pipelines; fast-check seed 27) over the fuzzing model, bound once per child; "compiled/refused" counts what compiles and what the target refuses (\`unsupported_feature\` and the like), which must match between the trees; "same output" counts the queries whose compiled form (statement and parameters, pipeline, or the refusal's code and message) is identical in both trees (the memory closures are not compared)

| target | before µs/query | after µs/query | after/before (min–max over rounds) | before compiled/refused | after compiled/refused | same output |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}
`;
process.stdout.write(body);
if (values.record) writeSection('structure-compile', body);
