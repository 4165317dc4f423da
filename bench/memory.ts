/**
 * The in-memory backend bench, run by run.ts after the parse bench: odata-engine's `compileQuery`
 * against a hand-written closure, `odata-v4-inmemory` and `mingo` on 100 000 generated rows, a
 * 3-clause `$filter` alone and with `$orderby`, `$skip` and `$top`. Every subject runs in its own
 * child process (memory-worker.ts) over several rounds, with the machinery of rounds.ts.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { fmtNum, markdownTable, median, type Measurement } from './measure.js';
import {
  FILTER,
  generateRows,
  loadMemorySubject,
  MEMORY_CELLS,
  MEMORY_SUBJECT_KEYS,
  MINGO_CRITERIA,
  MINGO_SORT,
  peerVersion,
  ROW_COUNT,
  SEED,
  SKIP,
  SORT_PAGE_QUERY,
  summarize,
  TOP,
  type MemoryCase,
  type MemorySubjectKey,
} from './memory-shared.js';
import { busyRoundsOf, combine, NOT_RUN, runRounds, type RoundsResult } from './rounds.js';
import { MEMORY_CELL_BUDGET_MS, MEMORY_LIMITS, type EngineApi, type EngineMode } from './shared.js';

/**
 * Rounds; each round runs one child per subject. Two, not the parse bench's four: the parse bench
 * alone takes about 72 s, and parse plus memory bench are to stay within about 85 s (one round
 * here costs about 4.5 s, a third of it in process start-up).
 */
export const MEMORY_ROUNDS = 2;
/** Wall-clock limit of one child process, in ms; it is killed after that. */
const CHILD_LIMIT_MS = 30_000;

const CASES: readonly MemoryCase[] = ['filter', 'sortPage'];
const CASE_LABEL: Readonly<Record<MemoryCase, string>> = { filter: 'filter', sortPage: 'sort + page' };

interface MemorySubject {
  readonly key: MemorySubjectKey;
  readonly label: string;
}

export const memorySubjects: readonly MemorySubject[] = MEMORY_SUBJECT_KEYS.map((key) => ({
  key,
  label:
    key === 'ours'
      ? 'odata-engine'
      : key === 'closure'
        ? 'hand-written closure'
        : key === 'odataV4Inmemory'
          ? `odata-v4-inmemory ${peerVersion('odata-v4-inmemory')}`
          : `mingo ${peerVersion('mingo')}`,
}));
const labelOf = (key: MemorySubjectKey): string => memorySubjects.find((s) => s.key === key)!.label;

// ---------------------------------------------------------------------------------------------
// Agreement check (once, in the parent, before anything is measured)
// ---------------------------------------------------------------------------------------------

/** What every subject must return, by case (see `summarize`). */
export type MemoryReference = Readonly<Record<MemoryCase, string>>;

/**
 * Generates the rows, runs every cell of every subject once in this process and checks that all
 * agree with the hand-written closure: the same number of matching rows, and the same page (the
 * same ids in the same order). Throws, listing every disagreement, if not.
 */
export function checkMemoryAgreement(engine: EngineApi): MemoryReference {
  const rows = generateRows();
  const results = new Map(
    MEMORY_SUBJECT_KEYS.map((key) => {
      const functions = loadMemorySubject(key, rows, engine);
      return [key, functions.map((fn, i) => summarize(MEMORY_CELLS[key][i]!.case, fn()))] as const;
    }),
  );
  const closure = results.get('closure')!;
  const reference: MemoryReference = {
    filter: closure[MEMORY_CELLS.closure.findIndex((c) => c.case === 'filter')]!,
    sortPage: closure[MEMORY_CELLS.closure.findIndex((c) => c.case === 'sortPage')]!,
  };
  const problems: string[] = [];
  for (const [key, summaries] of results) {
    summaries.forEach((summary, i) => {
      const spec = MEMORY_CELLS[key][i]!;
      if (summary !== reference[spec.case])
        problems.push(`${labelOf(key)} ${spec.form} (${CASE_LABEL[spec.case]}): ${clip(summary)}, expected ${clip(reference[spec.case])}`);
    });
  }
  const count = Number(/^count (\d+)$/.exec(reference.filter)?.[1] ?? Number.NaN);
  if (!(count > SKIP + TOP)) problems.push(`the filter matches ${reference.filter}: too few rows for a full page`);
  if (problems.length > 0) throw new Error(`memory bench: the subjects disagree, nothing measured:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return reference;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

// ---------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------

export interface MemoryBench {
  readonly run: RoundsResult;
  /** Median over the rounds, by subject and cell. */
  readonly results: ReadonlyMap<string, Measurement[]>;
  /** Children whose result differed from the reference (their cells are recorded as errors). */
  readonly mismatches: readonly string[];
  readonly reference: MemoryReference;
  readonly loadAtStart: number;
  readonly loadAtEnd: number;
}

export async function runMemoryBench(options: {
  readonly engineMode: EngineMode;
  readonly bundleCode: string | undefined;
  readonly reference: MemoryReference;
}): Promise<MemoryBench> {
  const loadAtStart = os.loadavg()[0]!;
  const run = await runRounds({
    name: 'memory',
    subjects: memorySubjects,
    rounds: MEMORY_ROUNDS,
    script: fileURLToPath(new URL('./memory-worker.ts', import.meta.url)),
    limitMs: CHILD_LIMIT_MS,
    cellCount: (s) => MEMORY_CELLS[s.key].length,
    args: (s, skip) => [s.key, options.engineMode, [...skip].join(',')],
    stdin: (s) => (s.key === 'ours' && options.engineMode === 'bundle' ? options.bundleCode! : ''),
  });
  // Every child reports what each cell returned: it must be what the parent's check found.
  const mismatches: string[] = [];
  run.rounds.forEach((round, r) => {
    for (const subject of memorySubjects) {
      const cells = round.get(subject.key)!;
      const checks = run.checks[r]!.get(subject.key) ?? [];
      cells.forEach((m, i) => {
        const spec = MEMORY_CELLS[subject.key][i]!;
        const check = checks[i];
        if (!m.ok || check === undefined || check === options.reference[spec.case]) return;
        const problem = `round ${r + 1}, ${subject.label} ${spec.form} (${CASE_LABEL[spec.case]}): ${clip(check)}, expected ${clip(options.reference[spec.case])}`;
        mismatches.push(problem);
        cells[i] = { ok: false, error: `mismatch: ${clip(check)}` };
      });
    }
  });
  const results = new Map(
    memorySubjects.map((s) => [s.key, MEMORY_CELLS[s.key].map((_, i) => combine(run.rounds.map((round) => round.get(s.key)?.[i] ?? NOT_RUN)))] as const),
  );
  for (const subject of memorySubjects) {
    MEMORY_CELLS[subject.key].forEach((spec, i) => {
      const perRound = run.rounds.map((round) => round.get(subject.key)![i]!);
      const m = results.get(subject.key)![i]!;
      const each = perRound.map((p) => (p.ok ? fmtNum(p.usPerOp / 1000) : 'error')).join(' / ');
      const summary = m.ok ? `${fmtNum(m.usPerOp / 1000)} ms/call (rounds: ${each}), ${m.iterations} calls` : m.error;
      process.stderr.write(`  ${`${CASE_LABEL[spec.case]}`.padEnd(12)} ${`${subject.label} ${spec.form}`.padEnd(70)} ${summary}\n`);
    });
  }
  return { run, results, mismatches, reference: options.reference, loadAtStart, loadAtEnd: os.loadavg()[0]! };
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

type Results = ReadonlyMap<string, readonly Measurement[]>;

/** The cell of `key` for `kind` with the given form index among that subject's cells of that case. */
function cellOf(results: Results, key: MemorySubjectKey, kind: MemoryCase, nth = 0): Measurement {
  const indices = MEMORY_CELLS[key].flatMap((c, i) => (c.case === kind ? [i] : []));
  const i = indices[nth];
  return i === undefined ? NOT_RUN : (results.get(key)?.[i] ?? NOT_RUN);
}

/** Time of `a` over time of `b`. */
function timeRatio(a: Measurement, b: Measurement): number | undefined {
  return a.ok && b.ok ? a.usPerOp / b.usPerOp : undefined;
}

const x = (v: number | undefined): string => (v === undefined ? 'n/a' : `${fmtNum(v)}x`);
const ms = (m: Measurement): string => (m.ok ? fmtNum(m.usPerOp / 1000) : m.error);
const perSecond = (m: Measurement): string => (m.ok ? fmtNum(m.opsPerSec) : 'n/a');

/** The table's subjects, in display order: the baseline first. */
const DISPLAY_ORDER: readonly MemorySubjectKey[] = ['closure', 'ours', 'odataV4Inmemory', 'mingo'];

function mainTable(results: Results): string {
  const rows: string[][] = [];
  for (const kind of CASES) {
    const closure = cellOf(results, 'closure', kind);
    for (const key of DISPLAY_ORDER) {
      const specs = MEMORY_CELLS[key].filter((c) => c.case === kind);
      if (specs.length === 0) {
        rows.push([CASE_LABEL[kind], labelOf(key), 'n/a (no `$orderby`)', 'n/a', 'n/a', 'n/a']);
        continue;
      }
      specs.forEach((spec, nth) => {
        const m = cellOf(results, key, kind, nth);
        rows.push([CASE_LABEL[kind], labelOf(key), spec.form, ms(m), perSecond(m), key === 'closure' ? '1x (baseline)' : x(timeRatio(m, closure))]);
      });
    }
  }
  return markdownTable(['case', 'subject', 'call', 'ms per call', 'calls/s', 'time vs hand-written closure'], rows, ['l', 'l', 'l', 'r', 'r', 'r']);
}

interface KeyRatio {
  readonly name: string;
  readonly short: string;
  readonly target: string;
  readonly pass: (v: number) => boolean;
  readonly value: (results: Results) => number | undefined;
}

const ours = {
  predicate: (r: Results) => cellOf(r, 'ours', 'filter', 0),
  applyFilter: (r: Results) => cellOf(r, 'ours', 'filter', 1),
  applySort: (r: Results) => cellOf(r, 'ours', 'sortPage', 0),
};
const keyRatios: readonly KeyRatio[] = [
  {
    name: 'odata-engine `q.predicate` loop within 1.5x of the hand-written closure on the filter',
    short: 'odata-engine predicate loop time / closure time, filter',
    target: '<= 1.5x',
    pass: (v) => v <= 1.5,
    value: (r) => timeRatio(ours.predicate(r), cellOf(r, 'closure', 'filter')),
  },
  {
    name: 'odata-engine `q.apply` within 1.5x of the hand-written closure on the filter',
    short: 'odata-engine apply() time / closure time, filter',
    target: '<= 1.5x',
    pass: (v) => v <= 1.5,
    value: (r) => timeRatio(ours.applyFilter(r), cellOf(r, 'closure', 'filter')),
  },
  {
    name: 'odata-engine `q.apply` within 1.5x of the hand-written closure on sort + page',
    short: 'odata-engine apply() time / closure time, sort + page',
    target: '<= 1.5x',
    pass: (v) => v <= 1.5,
    value: (r) => timeRatio(ours.applySort(r), cellOf(r, 'closure', 'sortPage')),
  },
  {
    name: 'odata-engine `q.predicate` loop >= 5x faster than odata-v4-inmemory on the filter',
    short: 'speedup of odata-engine predicate loop over odata-v4-inmemory, filter',
    target: '>= 5x',
    pass: (v) => v >= 5,
    value: (r) => timeRatio(cellOf(r, 'odataV4Inmemory', 'filter'), ours.predicate(r)),
  },
  {
    name: 'odata-engine `q.apply` >= 5x faster than odata-v4-inmemory on the filter',
    short: 'speedup of odata-engine apply() over odata-v4-inmemory, filter',
    target: '>= 5x',
    pass: (v) => v >= 5,
    value: (r) => timeRatio(cellOf(r, 'odataV4Inmemory', 'filter'), ours.applyFilter(r)),
  },
];

export interface MemoryReport {
  /** The section appended to bench/RESULTS.md. */
  readonly results: string;
  /** The README section, between (and without) its markers. */
}

export function memoryReport(
  bench: MemoryBench,
  context: {
    readonly engineDescription: string;
    readonly totalSeconds: number;
    readonly parseSeconds: number;
    /** The SQL bench's run time, when it ran before the report (see sql.ts). */
    readonly sqlSeconds?: number;
    readonly mongoSeconds?: number;
    readonly parseRounds: number;
  },
): MemoryReport {
  const { run, results } = bench;
  const rounds = run.rounds as readonly Results[];
  const targets: string[] = [];
  const spreadRows: string[][] = [];
  for (const k of keyRatios) {
    const value = k.value(results);
    const perRound = rounds.map((r) => k.value(r)).filter((v): v is number => v !== undefined);
    const lo = perRound.length > 0 ? Math.min(...perRound) : undefined;
    const hi = perRound.length > 0 ? Math.max(...perRound) : undefined;
    const verdict = value !== undefined && k.pass(value) ? 'PASS' : 'FAIL';
    targets.push(`- ${verdict}: ${k.name} (measured: ${x(value)}${lo === undefined ? '' : `; rounds ${x(lo)} to ${x(hi)}`})`);
    spreadRows.push([
      k.short,
      k.target,
      x(value),
      x(lo),
      perRound.length > 0 ? x(median(perRound)) : 'n/a',
      x(hi),
      `${perRound.filter(k.pass).length}/${MEMORY_ROUNDS}`,
    ]);
  }
  const spreadTable = markdownTable(
    ['ratio', 'target', 'reported', 'min over rounds', 'median over rounds', 'max over rounds', 'rounds meeting target'],
    spreadRows,
    ['l', 'l', 'r', 'r', 'r', 'r', 'r'],
  );
  const iterationsTable = markdownTable(
    ['case', 'subject', 'call', 'calls measured (all rounds)', 'first call, ms (median)'],
    CASES.flatMap((kind) =>
      DISPLAY_ORDER.flatMap((key) =>
        MEMORY_CELLS[key]
          .filter((c) => c.case === kind)
          .map((spec, nth) => {
            const m = cellOf(results, key, kind, nth);
            return [CASE_LABEL[kind], labelOf(key), spec.form, m.ok ? m.iterations.toLocaleString('en-US') : m.error, m.ok ? fmtNum(m.firstCallMs) : 'n/a'];
          }),
      ),
    ),
    ['l', 'l', 'l', 'r', 'r'],
  );

  const busyRounds = busyRoundsOf(run.busyByRound);
  const busyWarning =
    busyRounds.length === 0
      ? ''
      : `**Warning:** other work kept the machine busy during round${busyRounds.length > 1 ? 's' : ''} ${busyRounds.join(', ')} of ${MEMORY_ROUNDS} (over 1.5 busy cores); expect slower figures and a wider spread.`;
  const mismatchWarning =
    bench.mismatches.length === 0
      ? ''
      : `**MISMATCH:** some children returned other results than the check found (their cells are errors):\n\n${bench.mismatches.map((m) => `- ${m}`).join('\n')}`;
  const matches = bench.reference.filter.replace(/^count /, '');
  const childRange = `${Math.min(...run.childSeconds).toFixed(1)} to ${Math.max(...run.childSeconds).toFixed(1)} s`;
  const header = `Filter \`${FILTER}\` over ${ROW_COUNT.toLocaleString('en-US')} generated rows (${Number(matches).toLocaleString('en-US')} match); sort + page adds \`$orderby=price desc,name&$skip=${SKIP}&$top=${TOP}\`.`;
  const table = mainTable(results);

  const section = `# In-memory backend: \`$filter\`, \`$orderby\` and paging over ${ROW_COUNT.toLocaleString('en-US')} rows

- Date: ${new Date().toISOString()}
- Subjects: odata-engine \`compileQuery\` (measured as: ${context.engineDescription}), a hand-written closure, ${labelOf('odataV4Inmemory')}, ${labelOf('mingo')}
- Agreement check: every subject returns ${bench.reference.filter} matching rows on the filter, and the same ${TOP} ids in the same order on sort + page (checked once in the parent before measuring, and again on each child's results)${bench.mismatches.length > 0 ? ': **FAILED in some children, see below**' : ''}
- Memory bench run time: ${run.elapsedS.toFixed(1)} s (${run.childSeconds.length} child processes, ${childRange} each); 1-minute load average at start ${bench.loadAtStart.toFixed(2)}, at end ${bench.loadAtEnd.toFixed(2)}
- Whole \`npm run bench\` run time: ${context.totalSeconds.toFixed(1)} s (parse bench ${context.parseSeconds.toFixed(1)} s, memory bench ${run.elapsedS.toFixed(1)} s${context.sqlSeconds === undefined ? '' : `, SQL bench ${context.sqlSeconds.toFixed(1)} s`}${context.mongoSeconds === undefined ? '' : `, MongoDB bench ${context.mongoSeconds.toFixed(1)} s`}, the rest set-up and checks)
- Busy cores while the children ran, median per round: ${run.busyByRound.map((b) => median(b).toFixed(2)).join(', ')} (of ${os.cpus().length})
${busyWarning ? `\n${busyWarning}\n` : ''}${mismatchWarning ? `\n${mismatchWarning}\n` : ''}
Method: the same machinery as the parse bench, with shorter budgets. Each subject runs in its own
fresh Node process (\`node --import tsx bench/memory-worker.ts <subject>\`), which
generates the ${ROW_COUNT.toLocaleString('en-US')} rows itself from seed ${SEED} (mulberry32; ids 1 to ${ROW_COUNT.toLocaleString('en-US')}; names of 3 to 10 random
lowercase letters, so about 1 in 26 starts with 'a'; prices 0 to 100 with two decimals; \`active\` true for
about half; no nulls), builds its query once, then measures each of its calls: a cold call, a warm-up
of ${MEMORY_LIMITS.warmupMs} ms, a re-warm of ${MEMORY_LIMITS.rewarmMs} ms (unless a call takes longer) and about ${MEMORY_CELL_BUDGET_MS} ms of calls in ${MEMORY_LIMITS.samplesPerRound} samples, with no forced
GC (steady state); a slow call (mingo) rests on a few calls per round (see the counts below). There are
${MEMORY_ROUNDS} rounds of one child per subject, in an order that rotates; the tables report the median over the
rounds (with an even number of rounds, the mean of the middle two), and the key ratios also show their
min and max over the rounds, each round's ratio coming from that round's children. Only ${MEMORY_ROUNDS} rounds
(the parse bench has ${context.parseRounds}), to keep the whole \`npm run bench\` short: expect a wider spread.
odata-engine is \`compileQuery(bindQuery(query, { model, entitySet: 'products' }))\` with the
Product model (Int32 key \`id\`, String \`name\`, Double \`price\`, Boolean \`active\`, String \`category\`), run
as \`q.predicate(row)\` in a counting \`for\` loop and as \`q.apply(rows)\` (which also copies each row
of its result, as \`$select\` is absent). Its sort + page query is \`${SORT_PAGE_QUERY}\`, to which
it appends the key \`id\` as the last sort key, since the query pages. The hand-written closure is \`rows.filter(r => r.price > 50 &&
typeof r.name === 'string' && r.name.startsWith('a') && r.active === true)\`, then, for sort + page,
\`.sort()\` with a null-safe comparator (price descending, then name ascending) and \`.slice(${SKIP}, ${SKIP + TOP})\`.
odata-v4-inmemory is \`createFilter(text)\` (compiled once) in the same counting loop; it has no
\`$orderby\`. mingo is \`new Query(${JSON.stringify(MINGO_CRITERIA)})\` (built once) as
\`query.test(row)\` in the counting loop (\`query.find(rows).all()\` took the same time, within a few
percent, in trials, and is left out to save time); sort + page is
\`query.find(rows).sort(${JSON.stringify(MINGO_SORT)}).skip(${SKIP}).limit(${TOP}).all()\`. "time vs hand-written closure" is the
subject's time per call over the closure's for the same case (1.5x means 50% slower). For reference,
the issue that asked for this bench puts odata-v4-inmemory at about 7x and mingo at about 14x the
closure's time.

## Results

${header}

${table}

## Calls measured

${iterationsTable}

## Spread of the key ratios over the ${MEMORY_ROUNDS} rounds

"reported" is computed from the per-cell medians, as in the table above and the targets below.

${spreadTable}

## Targets

${targets.join('\n')}
`;

  return { results: section };
}
