/**
 * The SQL backend bench child (one for the whole SQL part: PGlite runs in-process). Measures the
 * compile latency (synchronous cells, as in worker.ts), then starts PGlite, loads the rows and,
 * for each index variant and query, compiles the query once, checks its rows against the
 * hand-written SQL's, records both EXPLAIN plans and times both, alternating. Started by sql.ts as
 *
 *   node --import tsx bench/sql-worker.ts <engine mode> <compile filter index> <skipped cells>
 *
 * With engine mode `bundle`, the odata-engine bundle's code arrives on stdin. PGlite is imported
 * here, from node_modules (not bundled).
 */
import { PGlite } from '@electric-sql/pglite';
import { blackhole, Cell, median, type Measurement } from './measure.js';
import { emit, type EngineMode } from './shared.js';
import {
  COMPILE_CELLS,
  COMPILE_ENTITY_SET,
  COMPILE_FILTERS,
  COMPILE_LIMITS,
  COMPILE_MODEL,
  COMPILE_ROUND_MS,
  COMPILE_ROUNDS,
  indexNodesOf,
  LOAD_SQL,
  loadSqlEngine,
  QUERY_BUDGET_MS,
  QUERY_MIN_WARMUP,
  QUERY_SAMPLES,
  QUERY_WARMUP_MS,
  queryCell,
  SQL_CASES,
  SQL_MODEL,
  VARIANTS,
  type CompileCheck,
  type PlanReport,
  type QueryCheck,
} from './sql-shared.js';

const [modeArg = '', filterArg = '0', skipArg = ''] = process.argv.slice(2);
if (modeArg !== 'bundle' && modeArg !== 'tsx') {
  process.stderr.write(`usage: sql-worker.ts <bundle|tsx> <compile filter index> [skipped cells]; got ${process.argv.slice(2).join(' ')}\n`);
  process.exit(2);
}
const mode: EngineMode = modeArg;
const compileFilter = COMPILE_FILTERS[Number(filterArg)] ?? COMPILE_FILTERS[0]!;
const skipped = new Set(skipArg.split(',').filter(Boolean).map(Number));

const engine = await loadSqlEngine(mode);
emit({ type: 'ready' });

// ---------------------------------------------------------------------------------------------
// Compile latency (synchronous)
// ---------------------------------------------------------------------------------------------

{
  const model = engine.defineModel(COMPILE_MODEL);
  const settings = { model, entitySet: COMPILE_ENTITY_SET };
  const options = { dialect: 'postgres', model } as const;
  const text = `$filter=${compileFilter.text}`;
  const parsed = engine.parseQuery(text);
  const bound = engine.bindQuery(parsed, settings);
  const functions: Record<(typeof COMPILE_CELLS)[number]['key'], () => unknown> = {
    full: () => engine.toSql(engine.bindQuery(text, settings), options),
    parse: () => engine.parseQuery(text),
    bind: () => engine.bindQuery(parsed, settings),
    toSql: () => engine.toSql(bound, options),
  };
  const cells = COMPILE_CELLS.map((c, i) => (skipped.has(i) ? undefined : new Cell(functions[c.key], COMPILE_LIMITS)));
  cells.forEach((cell, i) => {
    if (!cell) return;
    emit({ type: 'start', input: i });
    cell.prepare();
  });
  for (let round = 0; round < COMPILE_ROUNDS; round++) {
    cells.forEach((cell, i) => {
      if (!cell) return;
      emit({ type: 'start', input: i });
      cell.round(COMPILE_ROUND_MS);
    });
  }
  cells.forEach((cell, i) => {
    if (!cell) return;
    const check: CompileCheck = { filter: compileFilter.text, sql: (functions.toSql() as { sql: string }).sql };
    emit({ type: 'cell', input: i, m: cell.result(), check: JSON.stringify(check) });
  });
  blackhole();
}

// ---------------------------------------------------------------------------------------------
// PGlite
// ---------------------------------------------------------------------------------------------

interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}
type Row = Record<string, unknown>;

const model = engine.defineModel(SQL_MODEL);
const settings = { model, entitySet: 'products' };

// A crash while setting up is blamed on the first query cell.
const firstCell = queryCell(0, 0, 'ours');
emit({ type: 'start', input: firstCell });
const setupStarted = performance.now();
const db = new PGlite();
await db.waitReady;
await db.exec(
  `${engine.createTableSql(model.entitySets.get('products')!, 'postgres')};\n${engine.createTableSql(model.entitySets.get('categories')!, 'postgres')};`,
);
await db.exec(LOAD_SQL);
const setupMs = performance.now() - setupStarted;

async function rowsOf(s: Statement): Promise<Row[]> {
  return (await db.query<Row>(s.sql, [...s.params])).rows;
}

async function plan(statement: PlanReport['statement'], s: Statement): Promise<PlanReport> {
  const lines = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${s.sql}`, [...s.params])).rows.map((r) => r['QUERY PLAN']);
  const { nodes, indexes } = indexNodesOf(lines);
  return { statement, lines, indexNodes: nodes, indexes };
}

/** A comparable form of a value (dates by their time). */
function plain(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return Number(v);
  return v;
}

/** Per-execution times of the samples of one side, and its first execution. */
interface Side {
  readonly run: () => Promise<unknown>;
  firstMs: number;
  estimate: number;
  executions: number;
  measuredMs: number;
  readonly samples: number[];
}

async function timeBatch(side: Side, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await side.run();
  return performance.now() - t0;
}

/**
 * Times both sides: a first execution each, a warm-up each, then {@link QUERY_SAMPLES} samples
 * per side, alternating (ours first in even samples, hand-written first in odd ones), each a
 * batch sized to about its share of {@link QUERY_BUDGET_MS}.
 */
async function measurePair(ours: Side, hand: Side): Promise<{ ours: Measurement; hand: Measurement; pairRatios: number[] }> {
  for (const side of [ours, hand]) {
    side.firstMs = await timeBatch(side, 1);
    side.estimate = side.firstMs;
    const warmEnd = performance.now() + QUERY_WARMUP_MS;
    let calls = 0;
    let time = 0;
    while (calls < QUERY_MIN_WARMUP || performance.now() < warmEnd) {
      time += await timeBatch(side, 1);
      calls++;
    }
    side.estimate = time / calls;
  }
  const sampleMs = QUERY_BUDGET_MS / QUERY_SAMPLES;
  for (let s = 0; s < QUERY_SAMPLES; s++) {
    for (const side of s % 2 === 0 ? [ours, hand] : [hand, ours]) {
      const n = Math.max(1, Math.floor(sampleMs / side.estimate));
      const ms = await timeBatch(side, n);
      side.executions += n;
      side.measuredMs += ms;
      side.samples.push(ms / n);
      side.estimate = side.measuredMs / side.executions;
    }
  }
  const result = (side: Side): Measurement => {
    const ms = median(side.samples);
    return { ok: true, usPerOp: ms * 1000, opsPerSec: 1000 / ms, iterations: side.executions, measuredMs: side.measuredMs, firstCallMs: side.firstMs };
  };
  return { ours: result(ours), hand: result(hand), pairRatios: ours.samples.map((o, i) => o / hand.samples[i]!) };
}

const side = (run: () => Promise<unknown>): Side => ({ run, firstMs: 0, estimate: 0, executions: 0, measuredMs: 0, samples: [] });

let first = true;
for (const [v, variant] of VARIANTS.entries()) {
  for (const index of variant.adds) await db.exec(index.sql);
  await db.exec('ANALYZE');
  for (const [k, kase] of SQL_CASES.entries()) {
    const oursCell = queryCell(v, k, 'ours');
    const handCell = queryCell(v, k, 'hand');
    if (skipped.has(oursCell) && skipped.has(handCell)) continue;
    if (!first) emit({ type: 'start', input: oursCell });
    first = false;

    // Compiled once; only the SQL is run repeatedly.
    const q = engine.toSql(engine.bindQuery(kase.query, settings), { dialect: 'postgres' });
    const oursList: Statement = { sql: q.sql, params: q.params };
    const oursCount: Statement | undefined = q.count;
    const handList = kase.hand;
    const handCount = kase.handCount;

    // Same rows: ids in order, and every column (ours read back through its aliases).
    const properties = q.columns.map((c) => [c.alias, c.property.name] as const);
    const idAlias = properties.find(([, name]) => name === 'id')![0];
    const oursRows = await rowsOf(oursList);
    const handRows = await rowsOf(handList);
    const oursIds = oursRows.map((r) => Number(r[idAlias]));
    const handIds = handRows.map((r) => Number(r.id));
    const oursValues = oursRows.map((r) => properties.map(([alias]) => plain(r[alias])));
    const handValues = handRows.map((r) => properties.map(([, name]) => plain(r[name])));
    const countOf = async (s: Statement | undefined): Promise<number | undefined> =>
      s === undefined ? undefined : Number(Object.values((await rowsOf(s))[0] ?? {})[0]);
    const oursCountValue = await countOf(oursCount);
    const handCountValue = await countOf(handCount);

    const oursPlans = [await plan('list', oursList), ...(oursCount ? [await plan('count', oursCount)] : [])];
    const handPlans = [await plan('list', handList), ...(handCount ? [await plan('count', handCount)] : [])];

    const runBoth = (list: Statement, count: Statement | undefined) =>
      count === undefined
        ? () => db.query(list.sql, [...list.params])
        : async () => {
            await db.query(list.sql, [...list.params]);
            return db.query(count.sql, [...count.params]);
          };
    const measured = await measurePair(side(runBoth(oursList, oursCount)), side(runBoth(handList, handCount)));

    const check: QueryCheck = {
      ours: { sql: q.sql, params: q.params, ...(q.count ? { count: { sql: q.count.sql, params: q.count.params } } : {}) },
      oursIds,
      handIds,
      ...(oursCountValue === undefined ? {} : { oursCount: oursCountValue }),
      ...(handCountValue === undefined ? {} : { handCount: handCountValue }),
      idsEqual: JSON.stringify(oursIds) === JSON.stringify(handIds),
      rowsEqual: JSON.stringify(oursValues) === JSON.stringify(handValues),
      ...(handCount === undefined && oursCount === undefined ? {} : { countEqual: oursCountValue === handCountValue }),
      oursPlans,
      handPlans,
      pairRatios: measured.pairRatios,
      oursExecutions: measured.ours.ok ? measured.ours.iterations : 0,
      handExecutions: measured.hand.ok ? measured.hand.iterations : 0,
      setupMs,
    };
    emit({ type: 'cell', input: oursCell, m: measured.ours, check: JSON.stringify(check) });
    emit({ type: 'cell', input: handCell, m: measured.hand });
  }
}
await db.close();
emit({ type: 'done' });
