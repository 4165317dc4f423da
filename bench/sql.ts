/**
 * The SQL backend bench, run by run.ts after the in-memory backend bench: the compile latency of
 * `toSql` (parse + bind + toSql) on the parse bench's medium filter, then five list queries on
 * PGlite (100 000 products, 50 categories, indexes), each compiled once by odata-engine and run
 * repeatedly against a hand-written SQL query with the same result: same rows, time per
 * execution, and whether each uses an index (EXPLAIN). Two index variants: the default-collation
 * indexes, then the same plus `COLLATE "C"` indexes on the name columns (odata-engine compares
 * strings with `COLLATE "C"`). One child process for the whole part (sql-worker.ts; PGlite runs
 * in-process), with the machinery of rounds.ts.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import * as source from '../src/index.js';
import { fmtNum, markdownTable, median, type Measurement } from './measure.js';
import { busyRoundsOf, NOT_RUN, runRounds, type RoundsResult } from './rounds.js';
import type { EngineMode } from './shared.js';
import {
  C_INDEXES,
  CATEGORY_COUNT,
  COMPILE_CELLS,
  COMPILE_ENTITY_SET,
  COMPILE_FILTERS,
  COMPILE_LIMITS,
  COMPILE_MODEL,
  COMPILE_ROUND_MS,
  COMPILE_ROUNDS,
  DEFAULT_INDEXES,
  importSqlBundle,
  LOAD_DESCRIPTION,
  PRODUCT_COUNT,
  QUERY_BUDGET_MS,
  QUERY_MIN_WARMUP,
  QUERY_SAMPLES,
  QUERY_WARMUP_MS,
  queryCell,
  SQL_CASES,
  SQL_CELL_COUNT,
  SQL_MODEL,
  VARIANTS,
  type CompileCheck,
  type PlanReport,
  type QueryCheck,
  type SqlCase,
  type SqlEngineApi,
} from './sql-shared.js';

/** Wall-clock limit of the child, in ms (it normally takes about 35 s). */
const CHILD_LIMIT_MS = 150_000;
/** Target: our SQL's time per execution over the hand-written SQL's. */
const TARGET_RATIO = 1.2;

export interface SqlBench {
  readonly run: RoundsResult;
  readonly cells: readonly Measurement[];
  readonly checks: readonly (string | undefined)[];
  readonly compileFilter: (typeof COMPILE_FILTERS)[number];
  /** Queries whose SQL from the bundle differs from the tsx-loaded source's. */
  readonly bundleMismatches: readonly string[];
  readonly bundleChecked: boolean;
  readonly pgliteVersion: string;
  readonly loadAtStart: number;
  readonly loadAtEnd: number;
}

/** The SQL and parameters of a query on the SQL bench's model (`sql`) or the compile latency's (`compile`), as JSON. */
function compileWith(engine: SqlEngineApi, query: string, which: 'sql' | 'compile'): string {
  const model = which === 'sql' ? engine.defineModel(SQL_MODEL) : engine.defineModel(COMPILE_MODEL);
  const entitySet = which === 'sql' ? 'products' : COMPILE_ENTITY_SET;
  const q = engine.toSql(engine.bindQuery(query, { model, entitySet }), { dialect: 'postgres' });
  return JSON.stringify([q.sql, q.params, q.count ?? null]);
}

/** PGlite's version, from its package.json (its exports do not include that file). */
function pgliteVersion(): string {
  try {
    const path = fileURLToPath(new URL('../node_modules/@electric-sql/pglite/package.json', import.meta.url));
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
  } catch {
    return '(version unknown)';
  }
}

export async function runSqlBench(options: { readonly engineMode: EngineMode; readonly bundleCode: string | undefined }): Promise<SqlBench> {
  // The first compile filter that the SQL backend accepts (the medium filter itself, normally).
  let filterIndex = COMPILE_FILTERS.findIndex((f) => {
    try {
      compileWith(source, `$filter=${f.text}`, 'compile');
      return true;
    } catch {
      return false;
    }
  });
  if (filterIndex < 0) filterIndex = 0; // the child then records the error
  const compileFilter = COMPILE_FILTERS[filterIndex]!;

  // The bundled SQL compiler must be the same compiler: same SQL and parameters for every query.
  const bundleMismatches: string[] = [];
  if (options.bundleCode !== undefined) {
    try {
      const shipped = await importSqlBundle(options.bundleCode);
      const all: [string, string, 'sql' | 'compile'][] = [
        ...SQL_CASES.map((c): [string, string, 'sql'] => [c.label, c.query, 'sql']),
        ['compile filter', `$filter=${compileFilter.text}`, 'compile'],
      ];
      for (const [label, query, which] of all) {
        let a: string;
        let b: string;
        try {
          a = compileWith(shipped, query, which);
        } catch (e) {
          a = `error ${e instanceof Error ? e.message : String(e)}`;
        }
        try {
          b = compileWith(source, query, which);
        } catch (e) {
          b = `error ${e instanceof Error ? e.message : String(e)}`;
        }
        if (a !== b) bundleMismatches.push(label);
      }
    } catch (e) {
      bundleMismatches.push(`all (bundle import failed: ${e instanceof Error ? e.message : String(e)})`);
    }
    if (bundleMismatches.length > 0) process.stderr.write(`warning: bundled and tsx-loaded toSql differ on: ${bundleMismatches.join(', ')}\n`);
  }

  const loadAtStart = os.loadavg()[0]!;
  const subject = { key: 'sql', label: 'SQL bench (PGlite)' };
  const run = await runRounds({
    name: 'sql',
    subjects: [subject],
    rounds: 1,
    script: fileURLToPath(new URL('./sql-worker.ts', import.meta.url)),
    limitMs: CHILD_LIMIT_MS,
    cellCount: () => SQL_CELL_COUNT,
    args: (_, skip) => [options.engineMode, String(filterIndex), [...skip].join(',')],
    stdin: () => (options.engineMode === 'bundle' ? options.bundleCode! : ''),
  });
  const cells = run.rounds[0]?.get(subject.key) ?? Array.from({ length: SQL_CELL_COUNT }, () => NOT_RUN);
  const checks = run.checks[0]?.get(subject.key) ?? [];
  const bench: SqlBench = {
    run,
    cells,
    checks,
    compileFilter,
    bundleMismatches,
    bundleChecked: options.bundleCode !== undefined,
    pgliteVersion: pgliteVersion(),
    loadAtStart,
    loadAtEnd: os.loadavg()[0]!,
  };
  for (const line of progressLines(bench)) process.stderr.write(`  ${line}\n`);
  return bench;
}

// ---------------------------------------------------------------------------------------------
// Reading the cells
// ---------------------------------------------------------------------------------------------

interface CaseResult {
  readonly kase: SqlCase;
  readonly ours: Measurement;
  readonly hand: Measurement;
  readonly check: QueryCheck | undefined;
}

function caseResult(bench: SqlBench, v: number, k: number): CaseResult {
  const oursCell = queryCell(v, k, 'ours');
  const text = bench.checks[oursCell];
  return {
    kase: SQL_CASES[k]!,
    ours: bench.cells[oursCell] ?? NOT_RUN,
    hand: bench.cells[queryCell(v, k, 'hand')] ?? NOT_RUN,
    check: text === undefined ? undefined : (JSON.parse(text) as QueryCheck),
  };
}

const ratioOf = (r: CaseResult): number | undefined => (r.ours.ok && r.hand.ok ? r.ours.usPerOp / r.hand.usPerOp : undefined);
const x = (v: number | undefined): string => (v === undefined ? 'n/a' : `${fmtNum(v)}x`);
const ms = (m: Measurement): string => (m.ok ? fmtNum(m.usPerOp / 1000) : m.error);
const us = (m: Measurement): string => (m.ok ? fmtNum(m.usPerOp) : m.error);

/** The plan's relevant index nodes, or what it scans instead. */
function indexSummary(plan: PlanReport, kase: SqlCase): string {
  const relevant = plan.indexNodes.filter((n) => kase.relevant.some((name) => n.endsWith(` ${name}`)));
  if (relevant.length > 0) return relevant.map((n) => `\`${n}\``).join(', ');
  const scans = plan.lines
    .map((l) => /(Seq Scan on \S+|Index (?:Only )?Scan(?: Backward)? using \S+|Bitmap Index Scan on \S+)/.exec(l)?.[1])
    .filter((s): s is string => s !== undefined);
  return `none (${[...new Set(scans)].map((s) => `\`${s}\``).join(', ') || 'no scan'})`;
}
const usesRelevant = (plan: PlanReport, kase: SqlCase): boolean => plan.indexes.some((i) => kase.relevant.includes(i));

function planCell(plans: readonly PlanReport[] | undefined, kase: SqlCase): string {
  if (plans === undefined) return 'n/a';
  return plans.map((p) => (plans.length > 1 ? `${p.statement}: ${indexSummary(p, kase)}` : indexSummary(p, kase))).join('; ');
}

function rowsCell(check: QueryCheck | undefined): string {
  if (check === undefined) return 'n/a';
  const same = check.idsEqual && check.rowsEqual && check.countEqual !== false;
  const count =
    check.oursCount === undefined ? '' : `, count ${check.oursCount.toLocaleString('en-US')}${check.countEqual ? '' : ` vs ${check.handCount ?? '?'}`}`;
  const n = check.oursIds.length;
  return `${same ? 'yes' : '**NO**'} (${n}${n === check.handIds.length ? '' : ` vs ${check.handIds.length}`} row${n === 1 ? '' : 's'}${count})`;
}

function progressLines(bench: SqlBench): string[] {
  const lines = COMPILE_CELLS.map((c, i) => `compile ${c.key.padEnd(6)} ${us(bench.cells[i] ?? NOT_RUN)} µs/call`);
  VARIANTS.forEach((variant, v) => {
    SQL_CASES.forEach((_, k) => {
      const r = caseResult(bench, v, k);
      lines.push(
        `${variant.key.padEnd(9)} ${r.kase.key.padEnd(11)} ours ${ms(r.ours)} ms, hand-written ${ms(r.hand)} ms, ratio ${x(ratioOf(r))}, rows ${rowsCell(r.check)}`,
      );
    });
  });
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

export interface SqlReport {
  readonly results: string;
}

function compileTable(bench: SqlBench): string {
  return markdownTable(
    ['step', 'µs per call', 'calls/s', 'calls measured'],
    COMPILE_CELLS.map((c, i) => {
      const m = bench.cells[i] ?? NOT_RUN;
      return [c.label, us(m), m.ok ? fmtNum(m.opsPerSec) : 'n/a', m.ok ? m.iterations.toLocaleString('en-US') : 'n/a'];
    }),
    ['l', 'r', 'r', 'r'],
  );
}

function queryTable(bench: SqlBench, v: number): string {
  return markdownTable(
    ['query', 'same rows', 'ours ms', 'hand-written ms', 'ours / hand-written', 'index used by ours', 'index used by hand-written'],
    SQL_CASES.map((_, k) => {
      const r = caseResult(bench, v, k);
      return [
        r.kase.label,
        rowsCell(r.check),
        ms(r.ours),
        ms(r.hand),
        x(ratioOf(r)),
        planCell(r.check?.oursPlans, r.kase),
        planCell(r.check?.handPlans, r.kase),
      ];
    }),
    ['l', 'l', 'r', 'r', 'r', 'l', 'l'],
  );
}

function spreadTable(bench: SqlBench): string {
  const rows: string[][] = [];
  VARIANTS.forEach((variant, v) => {
    SQL_CASES.forEach((_, k) => {
      const r = caseResult(bench, v, k);
      const pairs = r.check?.pairRatios ?? [];
      rows.push([
        variant.label.split(':')[0]!,
        r.kase.label,
        x(ratioOf(r)),
        pairs.length > 0 ? x(Math.min(...pairs)) : 'n/a',
        pairs.length > 0 ? x(median(pairs)) : 'n/a',
        pairs.length > 0 ? x(Math.max(...pairs)) : 'n/a',
        r.check ? `${r.check.oursExecutions.toLocaleString('en-US')} / ${r.check.handExecutions.toLocaleString('en-US')}` : 'n/a',
        r.ours.ok && r.hand.ok ? `${fmtNum(r.ours.firstCallMs)} / ${fmtNum(r.hand.firstCallMs)}` : 'n/a',
      ]);
    });
  });
  return markdownTable(
    [
      'variant',
      'query',
      'reported ratio',
      'min over sample pairs',
      'median over sample pairs',
      'max over sample pairs',
      'executions measured (ours / hand-written)',
      'first execution, ms (ours / hand-written)',
    ],
    rows,
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

function targets(bench: SqlBench): string[] {
  const lines: string[] = [];
  const rowProblems: string[] = [];
  let rowChecks = 0;
  VARIANTS.forEach((variant, v) => {
    const tag = variant.label.split(':')[0]!;
    SQL_CASES.forEach((_, k) => {
      const r = caseResult(bench, v, k);
      const ratio = ratioOf(r);
      const pairs = r.check?.pairRatios ?? [];
      const range = pairs.length > 0 ? `; sample pairs ${x(Math.min(...pairs))} to ${x(Math.max(...pairs))}` : '';
      lines.push(
        `- ${ratio !== undefined && ratio <= TARGET_RATIO ? 'PASS' : 'FAIL'}: ${r.kase.label} within ${TARGET_RATIO}x of hand-written SQL, variant ${tag} (measured: ${x(ratio)}${range})`,
      );
      const check = r.check;
      if (check === undefined) {
        lines.push(`- FAIL: ${r.kase.label}, variant ${tag}: not run (${r.ours.ok ? 'no check' : r.ours.error})`);
        return;
      }
      rowChecks++;
      if (!(check.idsEqual && check.rowsEqual && check.countEqual !== false)) rowProblems.push(`${r.kase.label}, variant ${tag}: ${rowsCell(check)}`);
      check.handPlans.forEach((hand, i) => {
        if (!usesRelevant(hand, r.kase)) return;
        const ours = check.oursPlans[i];
        const ok = ours !== undefined && usesRelevant(ours, r.kase);
        const statement = check.handPlans.length > 1 ? ` (${hand.statement} statement)` : '';
        lines.push(
          `- ${ok ? 'PASS' : 'FAIL'}: ${r.kase.label}${statement} uses an index as hand-written SQL does, variant ${tag} (ours: ${ours ? indexSummary(ours, r.kase) : 'n/a'}; hand-written: ${indexSummary(hand, r.kase)})`,
        );
      });
    });
  });
  const total = VARIANTS.length * SQL_CASES.length;
  lines.unshift(
    rowProblems.length === 0 && rowChecks === total
      ? `- PASS: same rows as hand-written SQL (ids in order, every column, and the count) on all ${SQL_CASES.length} queries in both variants`
      : `- FAIL: same rows as hand-written SQL: ${rowProblems.length > 0 ? rowProblems.join('; ') : `only ${rowChecks} of ${total} checked`}`,
  );
  return lines;
}

function params(p: readonly unknown[]): string {
  return JSON.stringify(p);
}

function details(bench: SqlBench): string {
  return SQL_CASES.map((kase, k) => {
    const parts: string[] = [`### ${kase.label}: \`${kase.query}\``, ''];
    const first = caseResult(bench, 0, k).check;
    if (first) {
      const count = first.ours.count ? `, count: \`${first.ours.count.sql}\` with ${params(first.ours.count.params)}` : '';
      parts.push(`Ours: \`${first.ours.sql}\` with ${params(first.ours.params)}${count}`, '');
    }
    parts.push(
      `Hand-written: \`${kase.hand.sql}\` with ${params(kase.hand.params)}${kase.handCount ? `, count: \`${kase.handCount.sql}\` with ${params(kase.handCount.params)}` : ''}`,
      '',
    );
    parts.push(`Relevant indexes: ${kase.relevant.map((i) => `\`${i}\``).join(', ')}.`, '');
    VARIANTS.forEach((variant, v) => {
      const check = caseResult(bench, v, k).check;
      if (!check) return;
      const block = (who: string, plans: readonly PlanReport[]): string => plans.map((p) => `-- ${who}, ${p.statement}\n${p.lines.join('\n')}`).join('\n');
      parts.push(
        `EXPLAIN (COSTS OFF), variant ${variant.label}:`,
        '',
        '```text',
        block('ours', check.oursPlans),
        block('hand-written', check.handPlans),
        '```',
        '',
      );
    });
    return parts.join('\n');
  }).join('\n');
}

export function sqlReport(bench: SqlBench, context: { readonly engineDescription: string }): SqlReport {
  const { run } = bench;
  const busy = busyRoundsOf(run.busyByRound);
  const busyWarning =
    busy.length === 0
      ? ''
      : '**Warning:** other work kept the machine busy while the SQL bench ran (over 1.5 busy cores); expect slower figures and a wider spread.';
  const firstCheck = bench.checks[0] === undefined ? undefined : (JSON.parse(bench.checks[0]) as CompileCheck);
  const setupMs = VARIANTS.flatMap((_, v) => SQL_CASES.map((__, k) => caseResult(bench, v, k).check?.setupMs)).find((s) => s !== undefined);
  const targetLines = targets(bench);
  const header = `${PRODUCT_COUNT.toLocaleString('en-US')} products and ${CATEGORY_COUNT} categories in PGlite ${bench.pgliteVersion} (in-process PostgreSQL; its database collation is C). Each query is compiled once; "ours" is the SQL and parameters from \`toSql\`, "hand-written" what a developer would write for the same rows. Variant A has the indexes ${DEFAULT_INDEXES.map((i) => `\`${i.name}\``).join(', ')} (default collation) besides the primary keys; variant B adds ${C_INDEXES.map((i) => `\`${i.name}\``).join(', ')} (\`COLLATE "C"\`).`;

  const section = `# SQL backend: compile latency and queries on PGlite

- Date: ${new Date().toISOString()}
- odata-engine measured as: ${context.engineDescription}; SQL check (bundled vs tsx-loaded \`toSql\`, every query): ${bench.bundleChecked ? (bench.bundleMismatches.length === 0 ? 'identical' : `DIFFERENT on ${bench.bundleMismatches.join(', ')}`) : 'not applicable'}
- Database: PGlite ${bench.pgliteVersion}, fresh, in the child process; start-up, tables and rows took ${setupMs === undefined ? 'n/a' : `${fmtNum(setupMs / 1000)} s`}
- SQL bench run time: ${run.elapsedS.toFixed(1)} s (1 child process); 1-minute load average at start ${bench.loadAtStart.toFixed(2)}, at end ${bench.loadAtEnd.toFixed(2)}; busy cores while it ran: ${run.busyByRound.map((b) => median(b).toFixed(2)).join(', ')} (of ${os.cpus().length})
${busyWarning ? `\n${busyWarning}\n` : ''}
Method: one child process (\`node --import tsx bench/sql-worker.ts\`) measures everything.
First the compile latency, on ${bench.compileFilter.name}: \`${bench.compileFilter.text}\`, as
the query \`$filter=<text>\` on a small model with those names (\`Products\`: Int32 \`Id\`, String \`Name\`,
Decimal \`Price\`, Date \`ReleaseDate\`, Int32 \`Rating\`, String \`Code\`, String \`Description\`, Int32 \`CategoryId\`,
navigation \`Category\` to \`Categories\` with \`CategoryId\` → \`Id\`), dialect postgres with the model; each step as a
cell of the parse bench's kind (cold call, ${COMPILE_LIMITS.warmupMs} ms warm-up, ${COMPILE_ROUNDS} rounds of ${COMPILE_ROUND_MS} ms in ${COMPILE_LIMITS.samplesPerRound} samples, no forced GC;
the median per-call time). Then a fresh PGlite database: the tables from \`createTableSql\` for both entity sets, and
rows generated by the database (${LOAD_DESCRIPTION}). The model:
\`products\` (Int32 key \`id\`, String \`name\`, Double \`price\`, Int32 \`categoryId\`, Boolean \`active\`, DateTimeOffset \`createdAt\`)
with the navigation \`category\` (constraint \`categoryId\` → \`id\`, partner \`products\`), \`categories\` (\`id\`, \`name\`).
For each variant (its indexes are created, then \`ANALYZE\`) and query: \`toSql(bindQuery(query, { model, entitySet: 'products' }), { dialect: 'postgres', model })\`
once; both queries' rows are compared (ids in order, every column, and the count); \`EXPLAIN (COSTS OFF)\` of each statement
with its parameters; then the timing: a first execution and a warm-up of ${QUERY_WARMUP_MS} ms (at least ${QUERY_MIN_WARMUP} executions) per side, then
${QUERY_SAMPLES} samples per side of about ${fmtNum(QUERY_BUDGET_MS / QUERY_SAMPLES)} ms each (at least one execution), alternating ours and hand-written
(which goes first alternates too), no forced GC. An execution is \`await db.query(sql, params)\`
(PGlite's extended protocol: parse, plan with the parameter values, execute, rows to JS objects); with
\`$count=true\` it is the list statement then the count statement, on both sides. The figure is the median
sample; "sample pairs" are each sample's ours/hand-written ratio (the two sides ran next to each other).
"Uses an index" means an \`Index Scan\`, \`Index Only Scan\` or \`Bitmap Index Scan\` (forward or backward) on one
of the query's relevant indexes (listed with each query below); the index target applies to each statement where the
hand-written SQL uses one.

## Compile latency

${compileTable(bench)}
${firstCheck ? `\nThe SQL it compiles to: \`${firstCheck.sql}\`\n` : ''}
## Queries, variant ${VARIANTS[0]!.label}

${header}

${queryTable(bench, 0)}

## Queries, variant ${VARIANTS[1]!.label}

${queryTable(bench, 1)}

## Spread

${spreadTable(bench)}

## Targets

${targetLines.join('\n')}

## Statements and plans

${details(bench)}`;

  return { results: section };
}
