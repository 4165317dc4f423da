/**
 * `$filter` parse-throughput bench: odata-engine against a lexer-only baseline and two peer
 * parsers (`@odata/parser`, `odata-v4-parser`), on six generated inputs. Every subject is measured
 * in its own fresh child process (bench/worker.ts), over several rounds. Then the in-memory
 * backend bench (bench/memory.ts, children in bench/memory-worker.ts), with the same machinery
 * (bench/rounds.ts), and the SQL backend bench on PGlite (bench/sql.ts, one child in
 * bench/sql-worker.ts), then the MongoDB backend bench (bench/mongo.ts, one child in
 * bench/mongo-worker.ts: compile latency, and mingo for scale); the compile-growth bench (bench/compile-growth.ts: compiled size and time against nesting); the fan-out bench (bench/fanout.ts: compiled
 * sizes of chained and nested `concat` and its neighbours) writes its own section. Writes a markdown report of all four
 * to `bench/RESULTS.md` (overwritten; the sections of stand-alone benches are kept, and the package
 * bench's is rewritten), prints it, and updates the README's headline (the parse table).
 *
 * Run with `npm run bench` (= `tsx bench/run.ts`).
 */
import type * as Esbuild from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bindQuery, compileQuery, defineModel, parseFilter } from '../src/index.js';
import { lex } from '../src/syntax/lexer.js';
import { handParseFilter } from './hand-parser.js';
import { isDeepStrictEqual } from 'node:util';
import { fmtNum, markdownTable, median, type Measurement } from './measure.js';
import { checkMemoryAgreement, memoryReport, runMemoryBench } from './memory.js';
import { busyRoundsOf, combine, NOT_RUN, runRounds } from './rounds.js';
import { mongoReport, runMongoBench } from './mongo.js';
import { runBrowserBench } from './browser.js';
import { runHardeningBench } from './hardening.js';
import { runPackageBench } from './package.js';
import { markedSections, readResults, RESULTS_URL } from './results-file.js';
import { runSqlBench, sqlReport } from './sql.js';
import { runPagingBench } from './paging.js';
import { runCsdlBench } from './csdl.js';
import { runCsdlGrowthBench } from './csdl-growth.js';
import { runSqlRowsBench } from './sql-rows.js';
import { runPlanCacheBench } from './plan-cache.js';
import { runLanguageBench } from './language.js';
import { runServerToolsBench } from './server-tools.js';
import { runApplyHeapBench } from './apply-heap.js';
import { runApplyBench } from './apply.js';
import { runRollupBench } from './rollup.js';
import { runJoinBench } from './join.js';
import { runTopPerGroupBench } from './top-per-group.js';
import { runHierarchyBench } from './hierarchy.js';
import { runRolluprecursiveBench } from './rolluprecursive.js';
import { runRolluprecursiveSqlBench } from './rolluprecursive-sql.js';
import { runFanOutBench } from './fanout.js';
import { runCompileGrowthBench } from './compile-growth.js';
import { runServiceBench } from './service.js';
import { runServiceLoadBench } from './service-load.js';
import { runHandlerBench } from './handler.js';
import { runCapBench } from './cap.js';
import { BUNDLE_ENTRY, CELL_BUDGET_MS, importBundle, inputs, LIMITS, OURS, type EngineApi, type EngineMode, type SubjectKey } from './shared.js';

/** Rounds; each round runs one child per subject. */
const ROUNDS = 4;
/** Wall-clock limit of one child process, in ms; it is killed after that. */
const CHILD_LIMIT_MS = 30_000;

// ---------------------------------------------------------------------------------------------
// odata-engine, compiled the way it ships
// ---------------------------------------------------------------------------------------------

/**
 * tsx transpiles `src/` with esbuild's `keepNames`, which wraps every closure in a `__name(...)`
 * call (an `Object.defineProperty`) each time it is created. The parser creates closures on every
 * rule invocation, so code loaded through tsx can run slower than the published build (tsup, no
 * `keepNames`), while the peers run as plain JS. The bench therefore bundles `src/` (with
 * Chevrotain) in memory with esbuild (the one tsup uses), without `keepNames`, and sends the code
 * to the children, which import it from a `data:` URL. If bundling fails, the tsx-loaded source is
 * the only odata-engine subject.
 */
async function bundleEngine(): Promise<{ code: string; description: string } | string> {
  try {
    const esbuild = (await import('esbuild')) as typeof Esbuild;
    const root = fileURLToPath(new URL('..', import.meta.url));
    const result = await esbuild.build({
      stdin: {
        contents: BUNDLE_ENTRY,
        resolveDir: root,
        sourcefile: 'bench-entry.ts',
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'es2022',
      logLevel: 'silent',
      plugins: [
        {
          name: 'node-builtins-external',
          setup(build) {
            // Node built-ins stay external (a data: URL module can import those but no packages).
            build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, external: true }));
          },
        },
      ],
    });
    return {
      code: result.outputFiles[0]!.text,
      description: `src/ (with chevrotain) bundled in memory by esbuild ${esbuild.version} (target es2022, no keepNames, as tsup builds dist/)`,
    };
  } catch (e) {
    return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
}

const bundled = await bundleEngine();
const bundle = typeof bundled === 'string' ? undefined : bundled;
const bundleProblem = typeof bundled === 'string' ? bundled : undefined;
if (bundleProblem) process.stderr.write(`warning: could not bundle src/ (${bundleProblem}); measuring the tsx-loaded source\n`);
const engineDescription = bundle?.description ?? 'src/ as loaded by tsx (esbuild transform with keepNames)';

// The bundled parser must be the same parser: compare its ASTs with the tsx-loaded source's.
// The hand-written baseline builds exactly parseFilter's tree (else its figure means nothing).
for (const input of inputs) {
  if (!isDeepStrictEqual(handParseFilter(input.text), parseFilter(input.text, OURS)))
    throw new Error(`the hand-written parser's tree differs on ${input.name}`);
}
const astMismatches: string[] = [];
/** The bundle, imported into this process (for the checks), when it loads. */
let shipped: EngineApi | undefined;
if (bundle) {
  try {
    shipped = await importBundle(bundle.code);
    for (const input of inputs) {
      try {
        const a = JSON.stringify(shipped!.parseFilter(input.text, OURS));
        const b = JSON.stringify(parseFilter(input.text, OURS));
        if (a !== b) astMismatches.push(input.name);
      } catch (e) {
        astMismatches.push(`${input.name} (${e instanceof Error ? e.name : 'error'})`);
      }
    }
  } catch (e) {
    astMismatches.push(`all inputs (bundle import failed: ${e instanceof Error ? e.message : String(e)})`);
  }
  if (astMismatches.length > 0) process.stderr.write(`warning: bundled and tsx-loaded ASTs differ on: ${astMismatches.join(', ')}\n`);
}

// The memory bench's subjects must agree (count of matching rows, page ids) before anything is
// measured: this throws, and ends the run, if they do not.
const memoryReference = checkMemoryAgreement(shipped ?? { parseFilter, lex, bindQuery, compileQuery, defineModel });

// ---------------------------------------------------------------------------------------------
// Subjects
// ---------------------------------------------------------------------------------------------

const require = createRequire(import.meta.url);
function peerVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

interface Subject {
  readonly key: SubjectKey;
  readonly label: string;
}

const engineMode: EngineMode = bundle ? 'bundle' : 'tsx';
const subjects: readonly Subject[] = [
  { key: 'ours', label: 'odata-engine' },
  { key: 'lexer', label: 'lexer-only' },
  { key: 'hand', label: 'hand-written parser' },
  { key: 'odataParser', label: `@odata/parser ${peerVersion('@odata/parser')}` },
  { key: 'odataV4Parser', label: `odata-v4-parser ${peerVersion('odata-v4-parser')}` },
  ...(bundle ? [{ key: 'oursTsx', label: 'odata-engine via tsx' } as const] : []),
];

// ---------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------

type Row = Record<SubjectKey, Measurement>;
const emptyRow = (): Row => ({ ours: NOT_RUN, lexer: NOT_RUN, hand: NOT_RUN, odataParser: NOT_RUN, odataV4Parser: NOT_RUN, oursTsx: NOT_RUN });

const loadAtStart = os.loadavg()[0]!;
const parseRun = await runRounds({
  name: 'parse',
  subjects,
  rounds: ROUNDS,
  script: fileURLToPath(new URL('./worker.ts', import.meta.url)),
  limitMs: CHILD_LIMIT_MS,
  cellCount: () => inputs.length,
  args: (subject, skip) => [subject.key, engineMode, [...skip].join(',')],
  stdin: (subject) => (engineMode === 'bundle' && (subject.key === 'ours' || subject.key === 'lexer') ? bundle!.code : ''),
});
const { childSeconds, busyByRound, elapsedS } = parseRun;
const loadAtEnd = os.loadavg()[0]!;
/** `rounds[r].get(input name)`: that round's row. */
const rounds: Map<string, Row>[] = parseRun.rounds.map(
  (round) =>
    new Map(
      inputs.map((input, i) => {
        const row = emptyRow();
        for (const subject of subjects) row[subject.key] = round.get(subject.key)?.[i] ?? NOT_RUN;
        return [input.name, row];
      }),
    ),
);

const results = new Map<string, Row>();
/** Cells where some rounds failed and others did not. */
const partialFailures: string[] = [];
for (const input of inputs) {
  const row = emptyRow();
  for (const subject of subjects) {
    const perRound = rounds.map((r) => r.get(input.name)![subject.key]);
    const m = combine(perRound);
    row[subject.key] = m;
    if (m.ok) {
      perRound.forEach((p, r) => {
        if (!p.ok) partialFailures.push(`round ${r + 1}, ${subject.label}, ${input.name}: ${p.error}`);
      });
    }
    const each = perRound.map((p) => (p.ok ? fmtNum(p.usPerOp) : 'error')).join(' / ');
    const summary = m.ok ? `${fmtNum(m.opsPerSec)} ops/s, ${fmtNum(m.usPerOp)} µs/op (rounds: ${each}), ${m.iterations} iterations` : m.error;
    process.stderr.write(`  ${input.name.padEnd(30)} ${subject.label.padEnd(22)} ${summary}\n`);
  }
  results.set(input.name, row);
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

type Rows = ReadonlyMap<string, Row>;
const ops = (m: Measurement): string => (m.ok ? fmtNum(m.opsPerSec) : m.error);
const speedup = (ours: Measurement, peer: Measurement): string => {
  if (!ours.ok) return 'n/a';
  if (!peer.ok) return 'n/a (peer failed)';
  return `${fmtNum(ours.opsPerSec / peer.opsPerSec)}x`;
};
/** Time of a full parse over that of the hand-written parser building the same tree. */
const handRatio = (row: Row): number | undefined => (row.ours.ok && row.hand.ok ? row.ours.usPerOp / row.hand.usPerOp : undefined);
/** Time of a full parse over time of lexing alone. */
const parseLexRatio = (row: Row): number | undefined => (row.ours.ok && row.lexer.ok ? row.ours.usPerOp / row.lexer.usPerOp : undefined);

const mainTable = markdownTable(
  [
    'input',
    'odata-engine ops/s',
    'lexer-only ops/s',
    'parse/lex time ratio',
    'hand-written ops/s',
    'parse / hand-written time',
    '@odata/parser ops/s',
    'odata-v4-parser ops/s',
    'speedup vs @odata/parser',
    'speedup vs odata-v4-parser',
  ],
  inputs.map((input) => {
    const row = results.get(input.name)!;
    const ratio = parseLexRatio(row);
    return [
      input.name,
      ops(row.ours),
      ops(row.lexer),
      ratio === undefined ? 'n/a' : `${fmtNum(ratio)}x`,
      ops(row.hand),
      handRatio(row) === undefined ? 'n/a' : `${fmtNum(handRatio(row)!)}x`,
      ops(row.odataParser),
      ops(row.odataV4Parser),
      speedup(row.ours, row.odataParser),
      speedup(row.ours, row.odataV4Parser),
    ];
  }),
  ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
);

const latencyTable = markdownTable(
  ['input', 'chars', 'tokens', ...subjects.map((s) => `${s.label} µs/op (iterations)`)],
  inputs.map((input) => {
    const row = results.get(input.name)!;
    return [
      input.name,
      input.text.length.toLocaleString('en-US'),
      lex(input.text, 'expression').tokens.length.toLocaleString('en-US'),
      ...subjects.map((s) => {
        const m = row[s.key];
        return m.ok ? `${fmtNum(m.usPerOp)} (${m.iterations.toLocaleString('en-US')})` : m.error;
      }),
    ];
  }),
  ['l', 'r', 'r', ...subjects.map(() => 'r' as const)],
);

const small = inputs.find((i) => i.clauses === 100)!;
const big = inputs.find((i) => i.clauses === 1600)!;
const perClause = (m: Measurement, n: number): number | undefined => (m.ok ? m.usPerOp / n : undefined);
const growth = (rows: Rows, key: SubjectKey): number | undefined => {
  const a = perClause(rows.get(small.name)![key], small.clauses);
  const b = perClause(rows.get(big.name)![key], big.clauses);
  return a === undefined || b === undefined ? undefined : b / a;
};
const growthTable = markdownTable(
  ['parser', 'µs/clause @100', 'µs/clause @1600', 'ratio 1600/100'],
  subjects.map((s) => {
    const mSmall = results.get(small.name)![s.key];
    const mBig = results.get(big.name)![s.key];
    const a = perClause(mSmall, small.clauses);
    const b = perClause(mBig, big.clauses);
    const g = growth(results, s.key);
    return [
      s.label,
      a === undefined ? (mSmall.ok ? 'n/a' : mSmall.error) : fmtNum(a),
      b === undefined ? (mBig.ok ? 'n/a' : mBig.error) : fmtNum(b),
      g === undefined ? 'n/a' : `${fmtNum(g)}x`,
    ];
  }),
  ['l', 'r', 'r', 'r'],
);

// Key ratios and their targets (reported only; the process never fails on them). Each is computed
// from the per-cell medians (as in the tables) and, for the spread, from each round on its own.
interface KeyRatio {
  readonly name: string;
  /** Name in the spread table. */
  readonly short: string;
  readonly target: string;
  readonly pass: (v: number) => boolean;
  readonly value: (rows: Rows) => number | undefined;
}
const speedupOn =
  (inputName: string) =>
  (rows: Rows): number | undefined => {
    const row = rows.get(inputName)!;
    return row.ours.ok && row.odataParser.ok ? row.ours.opsPerSec / row.odataParser.opsPerSec : undefined;
  };
const medium = inputs[1]!;
const keyRatios: KeyRatio[] = [
  {
    name: '>= 5x @odata/parser on medium',
    short: 'speedup vs @odata/parser, medium',
    target: '>= 5x',
    pass: (v) => v >= 5,
    value: speedupOn(medium.name),
  },
  {
    name: '>= 20x @odata/parser on the 200-clause chain',
    short: 'speedup vs @odata/parser, or-chain 200',
    target: '>= 20x',
    pass: (v) => v >= 20,
    value: speedupOn('or-chain 200'),
  },
  // Issue 31's targets.
  {
    name: '>= 14x @odata/parser on medium (issue 31)',
    short: 'speedup vs @odata/parser, medium (issue 31)',
    target: '>= 14x',
    pass: (v) => v >= 14,
    value: speedupOn(medium.name),
  },
  {
    name: '>= 90x @odata/parser on the 200-clause chain (issue 31)',
    short: 'speedup vs @odata/parser, or-chain 200 (issue 31)',
    target: '>= 90x',
    pass: (v) => v >= 90,
    value: speedupOn('or-chain 200'),
  },
  {
    name: 'parse <= 2x the hand-written parser on medium (issue 31)',
    short: 'parse / hand-written, medium',
    target: '<= 2x',
    pass: (v) => v <= 2,
    value: (rows) => handRatio(rows.get(medium.name)!),
  },
  {
    name: 'parse <= 2.5x the hand-written parser on short (issue 31)',
    short: 'parse / hand-written, short',
    target: '<= 2.5x',
    pass: (v) => v <= 2.5,
    value: (rows) => handRatio(rows.get('short')!),
  },
  {
    name: 'odata-engine per-clause cost growth 100 -> 1600 <= 2x',
    short: 'odata-engine per-clause growth, or-chain 100 -> 1600',
    target: '<= 2x',
    pass: (v) => v <= 2,
    value: (rows) => growth(rows, 'ours'),
  },
  ...inputs.map((input): KeyRatio => ({
    name: `full parse within 3x of lexer-only on ${input.name}`,
    short: `parse/lex time ratio, ${input.name}`,
    target: '<= 3x',
    pass: (v) => v <= 3,
    value: (rows) => parseLexRatio(rows.get(input.name)!),
  })),
];
const x = (v: number | undefined): string => (v === undefined ? 'n/a' : `${fmtNum(v)}x`);
const targets: string[] = [];
const spreadRows: string[][] = [];
for (const k of keyRatios) {
  const value = k.value(results);
  const perRound = rounds.map((r) => k.value(r)).filter((v): v is number => v !== undefined);
  const lo = perRound.length > 0 ? Math.min(...perRound) : undefined;
  const hi = perRound.length > 0 ? Math.max(...perRound) : undefined;
  const verdict = value !== undefined && k.pass(value) ? 'PASS' : 'FAIL';
  const range = lo === undefined ? '' : `; rounds ${x(lo)} to ${x(hi)}`;
  targets.push(`- ${verdict}: ${k.name} (measured: ${x(value)}${range})`);
  spreadRows.push([
    k.short,
    k.target,
    x(value),
    x(lo),
    perRound.length > 0 ? x(median(perRound)) : 'n/a',
    x(hi),
    `${perRound.filter(k.pass).length}/${ROUNDS}`,
  ]);
}
const spreadTable = markdownTable(
  ['ratio', 'target', 'reported', 'min over rounds', 'median over rounds', 'max over rounds', 'rounds meeting target'],
  spreadRows,
  ['l', 'l', 'r', 'r', 'r', 'r', 'r'],
);

const cpu = os.cpus()[0]?.model.trim() ?? 'unknown';
/** Rounds during which other work kept the machine noticeably busy. */
const busyRounds = busyRoundsOf(busyByRound);
const busyWarning =
  busyRounds.length === 0
    ? ''
    : `**Warning:** other work kept the machine busy during round${busyRounds.length > 1 ? 's' : ''} ${busyRounds.join(', ')} of ${ROUNDS} (over 1.5 busy cores); expect slower figures and a wider spread.`;
const childRange = `${Math.min(...childSeconds).toFixed(1)} to ${Math.max(...childSeconds).toFixed(1)} s`;
const report = `# \`$filter\` parse throughput

- Date: ${new Date().toISOString()}
- Node: ${process.version} (${process.platform}/${process.arch})
- CPU: ${cpu} (${os.cpus().length} logical cores)
- Peers: ${subjects[3]!.label}, ${subjects[4]!.label}; baseline: ${subjects[2]!.label} (bench/hand-parser.ts)
- odata-engine measured as: ${engineDescription}${bundleProblem ? ` (bundling failed: ${bundleProblem})` : ''}
- Hand-written baseline (bench/hand-parser.ts): builds the same tree as \`parseFilter\` on every input (checked, deep equality)
- AST check (bundled vs tsx-loaded source): ${bundle ? (astMismatches.length === 0 ? 'identical on all inputs' : `DIFFERENT on ${astMismatches.join(', ')}`) : 'not applicable'}
- Parse bench run time: ${elapsedS.toFixed(1)} s (${childSeconds.length} child processes, ${childRange} each); 1-minute load average at start ${loadAtStart.toFixed(2)}, at end ${loadAtEnd.toFixed(2)} (the whole \`npm run bench\`, with the in-memory backend, SQL and MongoDB benches: see the in-memory section below)
- Busy cores while the children ran, median per round: ${busyByRound.map((b) => median(b).toFixed(2)).join(', ')} (of ${os.cpus().length}; a child keeps about one busy, so more means other work ran alongside and slowed the figures)
${busyWarning ? `\n${busyWarning}\n` : ''}
Method: each parser runs in its own fresh Node process (\`node --import tsx
bench/worker.ts <parser>\`), so that no parser's garbage or JIT state touches another's figures.
There are ${ROUNDS} rounds; each starts one child per parser, one after another, in an order that rotates
from round to round. A child makes one cold call per input (an exception, e.g. a stack overflow,
is recorded in the cell instead of a number; a cold call over ${LIMITS.maxSingleMs / 1000} s is recorded as a timeout) and
warms up for ${LIMITS.warmupMs} ms (skipped if the cold call took longer); then, input by input, it re-warms for ${LIMITS.rewarmMs} ms
(unless one call takes longer) and calls the parser in batches for about ${CELL_BUDGET_MS} ms, split into ${LIMITS.samplesPerRound}
samples timed with \`performance.now()\`, with no forced GC (a full GC throws away optimized code: the figures are a steady state's). A child's figure for a
cell is its median sample; the tables report the median over the rounds (with an even number of
rounds, the mean of the middle two), and the key ratios also show their min and max over the
rounds, each round's ratio coming from that round's children. A child that crashes or runs over
${CHILD_LIMIT_MS / 1000} s is killed and the input it was on is recorded as an error; failed cells are not retried in
later rounds. Slow cells rest on few iterations (see the counts, summed over the rounds).
odata-engine is \`parseFilter(text, { maxLength: 10_000_000 })\` (text to typed AST, including lexing);
lexer-only is \`lex(text)\` (Chevrotain tokenizing plus keyword typing), the whole first stage of that same parse; \`@odata/parser\` is
\`defaultParser.filter(text)\` and \`odata-v4-parser\` is \`filter(text)\`, both of which parse the
\`boolCommonExpr\` rule and throw unless the whole text is consumed. "parse/lex time ratio" is
full-parse time over lexer-only time; "speedup" is odata-engine ops/s over the peer's ops/s. The
or-chains alternate \`Name eq 'n<i>'\`, \`Price gt <i>\` and \`Id eq <i>\` joined by \`or\`.
The peers run as the plain JavaScript they publish; odata-engine and lexer-only run as \`src/\`
compiled the way \`dist/\` is built (esbuild, no \`keepNames\`; bundled once by the parent), because
tsx compiles \`src/\` with \`keepNames\`, which adds an \`Object.defineProperty\` call for every closure
the parser creates at run time; the "odata-engine via tsx" column (when present) shows that
development-only figure.

## Throughput

${mainTable}

## Latency and input sizes

${latencyTable}

## Growth with input size (or-chain, per clause)

${growthTable}

## Spread of the key ratios over the ${ROUNDS} rounds

"reported" is computed from the per-cell medians, as in the tables above and the targets below.

${spreadTable}
${partialFailures.length > 0 ? `\nCells that failed in some rounds only (their figures come from the other rounds):\n\n${partialFailures.map((f) => `- ${f}`).join('\n')}\n` : ''}
## Targets

${targets.join('\n')}
`;

// ---------------------------------------------------------------------------------------------
// In-memory backend bench, then both reports
// ---------------------------------------------------------------------------------------------

const memory = await runMemoryBench({ engineMode, bundleCode: bundle?.code, reference: memoryReference });
const sql = await runSqlBench({ engineMode, bundleCode: bundle?.code });
const mongo = await runMongoBench({ engineMode, bundleCode: bundle?.code });
const memoryOut = memoryReport(memory, {
  engineDescription,
  totalSeconds: performance.now() / 1000,
  parseSeconds: elapsedS,
  sqlSeconds: sql.run.elapsedS,
  mongoSeconds: mongo.run.elapsedS,
  parseRounds: ROUNDS,
});
const sqlOut = sqlReport(sql, { engineDescription });
const mongoOut = mongoReport(mongo, { engineDescription });
const browserOut = await runBrowserBench();
const hardeningOut = await runHardeningBench();

// Sections written by benches that also run on their own (the fuzzing campaign, `npm run fuzz --
// --record`, the paging, CSDL, CSDL growth, SQL rows, plan cache, service and package benches) are kept as they
// are; the others then rewrite their own.
const kept = markedSections(readResults()).join('\n\n');
writeFileSync(
  RESULTS_URL,
  `${report}\n${memoryOut.results}\n${sqlOut.results}\n${mongoOut.results}\n${browserOut.results}\n${hardeningOut.results}${kept === '' ? '' : `\n${kept}\n`}`,
);
// `npm run bench -- --per-request`: the per-request benches of issue 31 only (the sections above,
// then the plan cache, the heap a result retains, the example service and the package's cold
// start), without the minutes of the others.
if (process.argv.includes('--per-request')) {
  await runPlanCacheBench();
  await runApplyHeapBench();
  await runServiceBench();
  await runPackageBench();
  process.stdout.write(`${report}\n${memoryOut.results}\n${browserOut.results}\n`);
  process.exit(browserOut.failures.length > 0 ? 1 : 0);
}
const pagingOut = await runPagingBench();
runCsdlBench();
runCsdlGrowthBench();
await runSqlRowsBench();
await runPlanCacheBench();
await runApplyHeapBench();
await runApplyBench();
await runRollupBench();
await runJoinBench();
await runTopPerGroupBench();
await runHierarchyBench();
await runRolluprecursiveBench();
await runRolluprecursiveSqlBench();
await runFanOutBench();
await runCompileGrowthBench();
await runServiceBench();
await runServiceLoadBench();
await runHandlerBench();
await runLanguageBench();
await runServerToolsBench();
await runCapBench();
await runPackageBench();
process.stdout.write(
  `${report}\n${memoryOut.results}\n${sqlOut.results}\n${mongoOut.results}\n${browserOut.results}\n${hardeningOut.results}\n${pagingOut.results}`,
);
if (browserOut.failures.length > 0) {
  process.stderr.write(`browser bench: ${browserOut.failures.join('; ')}\n`);
  process.exitCode = 1;
}

/** Replaces what lies between two marker lines of the README (kept); false if they are missing. */
function replaceBetween(text: string, start: string, end: string, body: string): string | undefined {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  return from >= 0 && to > from ? `${text.slice(0, from)}${start}\n${body}${text.slice(to)}` : undefined;
}

// The README shows the headline tables of the latest run, between two pairs of markers.
const readmeUrl = new URL('../README.md', import.meta.url);
let readme = readFileSync(readmeUrl, 'utf8');
// The README keeps the headline only: the parse table; every other table is in bench/RESULTS.md.
const parseSummary = `Latest \`npm run bench\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpu}, ${os.cpus().length} cores; each parser in its own process, median of ${ROUNDS} rounds; spread, targets and method in [bench/RESULTS.md](bench/RESULTS.md)):
${busyWarning ? `\n${busyWarning}\n` : ''}
${mainTable}
`;
const updated = replaceBetween(readme, '<!-- bench:parse:start -->', '<!-- bench:parse:end -->', parseSummary);
if (updated === undefined) process.stderr.write('warning: README.md has no <!-- bench:parse:start/end --> markers; its headline was not updated\n');
else readme = updated;
writeFileSync(readmeUrl, readme);

process.stderr.write(
  `\nwhole bench: ${(performance.now() / 1000).toFixed(1)} s (parse ${elapsedS.toFixed(1)} s, memory ${memory.run.elapsedS.toFixed(1)} s, SQL ${sql.run.elapsedS.toFixed(1)} s, MongoDB ${mongo.run.elapsedS.toFixed(1)} s)\n`,
);
if (memory.mismatches.length > 0) {
  process.stderr.write(
    `\nMEMORY BENCH MISMATCH: children returned other results than the agreement check:\n${memory.mismatches.map((m) => `  - ${m}`).join('\n')}\n`,
  );
  process.exitCode = 1;
}
if (mongo.mismatches.length > 0) {
  process.stderr.write(`\nMONGODB BENCH FAILURE: the scale results are missing or differ:\n${mongo.mismatches.map((m) => `  - ${m}`).join('\n')}\n`);
  process.exitCode = 1;
}
