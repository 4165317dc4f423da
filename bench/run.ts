/**
 * `$filter` parse-throughput bench: odata-engine against a lexer-only baseline and two peer
 * parsers (`@odata/parser`, `odata-v4-parser`), on five generated inputs. Writes a markdown
 * report to `bench/RESULTS.md` (overwritten) and prints it.
 *
 * Run with `npm run bench` (= `tsx bench/run.ts`).
 */
import type * as Esbuild from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseFilter, type ParseOptions } from '../src/index.js';
import { lex } from '../src/syntax/lexer.js';
import { Cell, fmtNum, markdownTable, type CellOptions, type Measurement } from './measure.js';

// ---------------------------------------------------------------------------------------------
// odata-engine, compiled the way it ships
// ---------------------------------------------------------------------------------------------

/**
 * tsx transpiles `src/` with esbuild's `keepNames`, which wraps every closure in a `__name(...)`
 * call (an `Object.defineProperty`) each time it is created. The parser creates closures on every
 * rule invocation, so code loaded through tsx runs several times slower than the published build
 * (tsup, no `keepNames`), while the peers run as plain JS. The bench therefore bundles `src/` in
 * memory with esbuild (the one tsup uses), without `keepNames`, and imports it from a `data:` URL.
 * Chevrotain is bundled in too, so that the bundled parser and the tsx-loaded one (also measured,
 * for reference) do not share the lexer/parser engine's JIT feedback and skew each other. If
 * bundling fails, the tsx-loaded source is the only subject.
 */
interface Engine {
  readonly parseFilter: typeof parseFilter;
  readonly lex: typeof lex;
  readonly description: string;
}

async function loadShippedEngine(): Promise<Engine | string> {
  try {
    const esbuild = (await import('esbuild')) as typeof Esbuild;
    const root = fileURLToPath(new URL('..', import.meta.url));
    const result = await esbuild.build({
      stdin: {
        contents: "export { parseFilter } from './src/index.ts';\nexport { lex } from './src/syntax/lexer.ts';\n",
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
    const code = result.outputFiles[0]!.text;
    const mod = (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as Engine;
    return {
      parseFilter: mod.parseFilter,
      lex: mod.lex,
      description: `src/ (with chevrotain) bundled in memory by esbuild ${esbuild.version} (target es2022, no keepNames, as tsup builds dist/)`,
    };
  } catch (e) {
    return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
}

const loaded = await loadShippedEngine();
const tsxEngine: Engine = {
  parseFilter,
  lex,
  description: 'src/ as loaded by tsx (esbuild transform with keepNames)',
};
const engine: Engine = typeof loaded === 'string' ? tsxEngine : loaded;
const bundleProblem = typeof loaded === 'string' ? loaded : undefined;
if (bundleProblem) process.stderr.write(`warning: could not bundle src/ (${bundleProblem}); measuring the tsx-loaded source\n`);

// ---------------------------------------------------------------------------------------------
// Peers (CommonJS; loaded with require and given minimal local types)
// ---------------------------------------------------------------------------------------------

const require = createRequire(import.meta.url);

/** The part of a peer's result token we look at: its node type and where parsing stopped. */
interface PeerToken {
  readonly type: string;
  readonly next: number;
}

/**
 * `@odata/parser`: `defaultParser.filter(text)` runs the `boolCommonExpr` rule over the whole
 * text (it throws unless the whole input is consumed). Its top-level `filter` export is NOT a
 * parser: it is the `ODataFilter` query builder.
 */
const odataParser = require('@odata/parser') as { defaultParser: { filter(source: string): PeerToken } };

/** `odata-v4-parser`: top-level `filter(text)`, same `boolCommonExpr` rule and whole-input check. */
const odataV4Parser = require('odata-v4-parser') as { filter(source: string): PeerToken };

function peerVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

// ---------------------------------------------------------------------------------------------
// Inputs (deterministic)
// ---------------------------------------------------------------------------------------------

/** One realistic comparison per clause, cycling through three shapes. */
function clause(i: number): string {
  switch (i % 3) {
    case 0:
      return `Name eq 'n${i}'`;
    case 1:
      return `Price gt ${i}`;
    default:
      return `Id eq ${i}`;
  }
}

function orChain(n: number): string {
  const parts: string[] = [];
  for (let i = 1; i <= n; i++) parts.push(clause(i));
  return parts.join(' or ');
}

interface Input {
  readonly name: string;
  readonly text: string;
  /** Number of comparison clauses, for the per-clause columns. */
  readonly clauses: number;
}

const inputs: readonly Input[] = [
  { name: 'short', text: `Name eq 'Milk'`, clauses: 1 },
  {
    name: 'medium (6 clauses, functions)',
    text:
      "contains(tolower(Name),'milk') and Price gt 2.5 and year(ReleaseDate) eq 2024 and " +
      "(Rating ge 3 or startswith(Category/Name,'Dairy')) and not endswith(Code,'X') and " +
      'length(Description) lt 200',
    clauses: 6,
  },
  { name: 'or-chain 200', text: orChain(200), clauses: 200 },
  { name: 'or-chain 1600', text: orChain(1600), clauses: 1600 },
  { name: 'nesting depth 100', text: `${'('.repeat(100)}Price gt 5${')'.repeat(100)}`, clauses: 1 },
];

// ---------------------------------------------------------------------------------------------
// Parsers under test
// ---------------------------------------------------------------------------------------------

const OURS: ParseOptions = { maxLength: 10_000_000 };

interface Subject {
  readonly key: 'ours' | 'lexer' | 'odataParser' | 'odataV4Parser' | 'oursTsx';
  readonly label: string;
  /** Parses `text`; throws if the whole input was not accepted. */
  readonly run: (text: string) => unknown;
}

const subjects: readonly Subject[] = [
  { key: 'ours', label: 'odata-engine', run: (text) => engine.parseFilter(text, OURS) },
  {
    key: 'lexer',
    label: 'lexer-only',
    run: (text) => {
      const result = engine.lex(text, 'expression');
      if (result.errors.length > 0) throw new Error(`lexing error: ${result.errors[0]!.message}`);
      return result;
    },
  },
  { key: 'odataParser', label: `@odata/parser ${peerVersion('@odata/parser')}`, run: (text) => odataParser.defaultParser.filter(text) },
  { key: 'odataV4Parser', label: `odata-v4-parser ${peerVersion('odata-v4-parser')}`, run: (text) => odataV4Parser.filter(text) },
  ...(engine === tsxEngine
    ? []
    : [{ key: 'oursTsx', label: 'odata-engine via tsx', run: (text: string) => tsxEngine.parseFilter(text, OURS) } as const]),
];

// The bundled parser must be the same parser: compare its ASTs with the tsx-loaded source's.
const astMismatches: string[] = [];
if (engine !== tsxEngine) {
  for (const input of inputs) {
    try {
      const a = JSON.stringify(engine.parseFilter(input.text, OURS));
      const b = JSON.stringify(tsxEngine.parseFilter(input.text, OURS));
      if (a !== b) astMismatches.push(input.name);
    } catch (e) {
      astMismatches.push(`${input.name} (${e instanceof Error ? e.name : 'error'})`);
    }
  }
  if (astMismatches.length > 0) process.stderr.write(`warning: bundled and tsx-loaded ASTs differ on: ${astMismatches.join(', ')}\n`);
}

const LIMITS: CellOptions = { warmupMs: 200, rewarmMs: 50, maxSingleMs: 5000, samplesPerRound: 5 };
/** Rounds over all cells, and the measuring time of one cell in one round (ms). */
const ROUNDS = 3;
const ROUND_BUDGET_MS = 330;

// ---------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------

type Row = Record<Subject['key'], Measurement>;
const NOT_RUN: Measurement = { ok: false, error: 'not run' };

const loadAtStart = os.loadavg()[0]!;
const started = performance.now();
const cells = new Map<string, Map<Subject['key'], Cell>>();
for (const input of inputs) {
  const text = input.text;
  cells.set(input.name, new Map(subjects.map((subject) => [subject.key, new Cell(() => subject.run(text), LIMITS)])));
}
for (let round = 1; round <= ROUNDS; round++) {
  process.stderr.write(`round ${round}/${ROUNDS}\n`);
  for (const input of inputs) {
    for (const subject of subjects) cells.get(input.name)!.get(subject.key)!.round(ROUND_BUDGET_MS);
  }
}
const results = new Map<string, Row>();
for (const input of inputs) {
  const row: Row = { ours: NOT_RUN, lexer: NOT_RUN, odataParser: NOT_RUN, odataV4Parser: NOT_RUN, oursTsx: NOT_RUN };
  for (const subject of subjects) {
    const m = cells.get(input.name)!.get(subject.key)!.result();
    row[subject.key] = m;
    const summary = m.ok ? `${fmtNum(m.opsPerSec)} ops/s, ${fmtNum(m.usPerOp)} µs/op, ${m.iterations} iterations` : m.error;
    process.stderr.write(`  ${input.name.padEnd(30)} ${subject.label.padEnd(22)} ${summary}\n`);
  }
  results.set(input.name, row);
}
const elapsedS = (performance.now() - started) / 1000;

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

const ops = (m: Measurement): string => (m.ok ? fmtNum(m.opsPerSec) : m.error);
const speedup = (ours: Measurement, peer: Measurement): string => {
  if (!ours.ok) return 'n/a';
  if (!peer.ok) return 'n/a (peer failed)';
  return `${fmtNum(ours.opsPerSec / peer.opsPerSec)}x`;
};
/** Time of a full parse over time of lexing alone. */
const parseLexRatio = (row: Row): number | undefined =>
  row.ours.ok && row.lexer.ok ? row.ours.usPerOp / row.lexer.usPerOp : undefined;

const mainTable = markdownTable(
  [
    'input',
    'odata-engine ops/s',
    'lexer-only ops/s',
    'parse/lex time ratio',
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
      ops(row.odataParser),
      ops(row.odataV4Parser),
      speedup(row.ours, row.odataParser),
      speedup(row.ours, row.odataV4Parser),
    ];
  }),
  ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
);

const latencyTable = markdownTable(
  ['input', 'chars', 'tokens', ...subjects.map((s) => `${s.label} µs/op (iterations)`)],
  inputs.map((input) => {
    const row = results.get(input.name)!;
    return [
      input.name,
      input.text.length.toLocaleString('en-US'),
      engine.lex(input.text, 'expression').tokens.length.toLocaleString('en-US'),
      ...subjects.map((s) => {
        const m = row[s.key];
        return m.ok ? `${fmtNum(m.usPerOp)} (${m.iterations.toLocaleString('en-US')})` : m.error;
      }),
    ];
  }),
  ['l', 'r', 'r', ...subjects.map(() => 'r' as const)],
);

const small = inputs.find((i) => i.clauses === 200)!;
const big = inputs.find((i) => i.clauses === 1600)!;
const perClause = (m: Measurement, n: number): number | undefined => (m.ok ? m.usPerOp / n : undefined);
const growth = (key: Subject['key']): number | undefined => {
  const a = perClause(results.get(small.name)![key], small.clauses);
  const b = perClause(results.get(big.name)![key], big.clauses);
  return a === undefined || b === undefined ? undefined : b / a;
};
const growthTable = markdownTable(
  ['parser', 'µs/clause @200', 'µs/clause @1600', 'ratio 1600/200'],
  subjects.map((s) => {
    const mSmall = results.get(small.name)![s.key];
    const mBig = results.get(big.name)![s.key];
    const a = perClause(mSmall, small.clauses);
    const b = perClause(mBig, big.clauses);
    const g = growth(s.key);
    return [
      s.label,
      a === undefined ? (mSmall.ok ? 'n/a' : mSmall.error) : fmtNum(a),
      b === undefined ? (mBig.ok ? 'n/a' : mBig.error) : fmtNum(b),
      g === undefined ? 'n/a' : `${fmtNum(g)}x`,
    ];
  }),
  ['l', 'r', 'r', 'r'],
);

// Targets (reported only; the process never fails on them).
const targets: string[] = [];
const check = (name: string, value: number | undefined, pass: (v: number) => boolean, shown: string): void => {
  const verdict = value === undefined ? 'FAIL' : pass(value) ? 'PASS' : 'FAIL';
  targets.push(`- ${verdict}: ${name} (measured: ${value === undefined ? 'n/a' : shown})`);
};
const speedupNum = (inputName: string): number | undefined => {
  const row = results.get(inputName)!;
  return row.ours.ok && row.odataParser.ok ? row.ours.opsPerSec / row.odataParser.opsPerSec : undefined;
};
const medium = inputs[1]!;
const sMedium = speedupNum(medium.name);
check('>= 5x @odata/parser on medium', sMedium, (v) => v >= 5, `${fmtNum(sMedium ?? 0)}x`);
const sChain = speedupNum(small.name);
check('>= 20x @odata/parser on the 200-clause chain', sChain, (v) => v >= 20, `${fmtNum(sChain ?? 0)}x`);
const gOurs = growth('ours');
check('odata-engine per-clause cost growth 200 -> 1600 <= 2x', gOurs, (v) => v <= 2, `${fmtNum(gOurs ?? 0)}x`);
for (const input of inputs) {
  const r = parseLexRatio(results.get(input.name)!);
  check(`full parse within 3x of lexer-only on ${input.name}`, r, (v) => v <= 3, `${fmtNum(r ?? 0)}x`);
}

const cpu = os.cpus()[0]?.model.trim() ?? 'unknown';
const report = `# \`$filter\` parse throughput

- Date: ${new Date().toISOString()}
- Node: ${process.version} (${process.platform}/${process.arch})
- CPU: ${cpu} (${os.cpus().length} logical cores)
- Peers: ${subjects[2]!.label}, ${subjects[3]!.label}
- odata-engine measured as: ${engine.description}${bundleProblem ? ` (bundling failed: ${bundleProblem})` : ''}
- AST check (bundled vs tsx-loaded source): ${engine === tsxEngine ? 'not applicable' : astMismatches.length === 0 ? 'identical on all inputs' : `DIFFERENT on ${astMismatches.join(', ')}`}
- Bench run time: ${elapsedS.toFixed(1)} s; 1-minute load average at start ${loadAtStart.toFixed(2)}, at end ${os.loadavg()[0]!.toFixed(2)} (other work on the machine skews the figures)

Method: every parser runs in the same process on the same five generated, deterministic inputs.
For each input and parser the bench first makes one cold call (an exception, e.g. a stack
overflow, is recorded in the cell instead of a number; a cold call over ${LIMITS.maxSingleMs / 1000} s is recorded as a
timeout) and warms up for ${LIMITS.warmupMs} ms. It then makes ${ROUNDS} rounds over all cells; in each round a cell
re-warms for ${LIMITS.rewarmMs} ms (unless one call takes longer) and calls the parser in batches for about ${ROUND_BUDGET_MS} ms,
split into ${LIMITS.samplesPerRound} samples timed with \`performance.now()\`. The reported time per call is the median over
rounds of each round's median sample; interleaving the cells spreads a slow spell of the machine
over many cells instead of one. A single call may overrun the budget on large inputs, so slow cells
rest on few iterations (see the iteration counts).
odata-engine is \`parseFilter(text, { maxLength: 10_000_000 })\` (text to typed AST, including lexing);
lexer-only is \`lex(text)\` (Chevrotain tokenizing plus keyword typing), the whole first stage of that same parse; \`@odata/parser\` is
\`defaultParser.filter(text)\` and \`odata-v4-parser\` is \`filter(text)\`, both of which parse the
\`boolCommonExpr\` rule and throw unless the whole text is consumed. "parse/lex time ratio" is
full-parse time over lexer-only time; "speedup" is odata-engine ops/s over the peer's ops/s. The
or-chains alternate \`Name eq 'n<i>'\`, \`Price gt <i>\` and \`Id eq <i>\` joined by \`or\`.
The peers run as the plain JavaScript they publish; odata-engine runs as \`src/\` compiled the way
\`dist/\` is built (esbuild, no \`keepNames\`), because tsx compiles \`src/\` with \`keepNames\`, which
adds an \`Object.defineProperty\` call for every closure the parser creates at run time; the
"odata-engine via tsx" column (when present) shows that slower, development-only figure.

## Throughput

${mainTable}

## Latency and input sizes

${latencyTable}

## Growth with input size (or-chain, per clause)

${growthTable}

## Targets

${targets.join('\n')}
`;

writeFileSync(new URL('./RESULTS.md', import.meta.url), report);
process.stdout.write(report);

// The README shows the headline tables of the latest run, between two markers.
const readmeUrl = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmeUrl, 'utf8');
const START = '<!-- bench:parse:start -->';
const END = '<!-- bench:parse:end -->';
const from = readme.indexOf(START);
const to = readme.indexOf(END);
if (from >= 0 && to > from) {
  const summary = `${START}
Latest \`npm run bench\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpu}, ${os.cpus().length} cores; details and method in [bench/RESULTS.md](bench/RESULTS.md)):

${mainTable}

Per-clause cost of the or-chains (linear growth means a ratio near 1):

${growthTable}

${targets.join('\n')}
`;
  writeFileSync(readmeUrl, readme.slice(0, from) + summary + readme.slice(to));
}
