/**
 * The MongoDB backend bench, run by run.ts after the SQL bench: the compile latency of `toMongo`
 * (parse + bind + toMongo, and each step alone) on a medium filter inside the `find` subset, then,
 * for scale only, the same query on 100 000 generated documents: mingo (MongoDB's query language
 * in JavaScript, not a MongoDB server) running the generated find, against the in-memory backend
 * and a hand-written closure, after checking that all three return the same ids in order. One
 * child process (mongo-worker.ts), with the machinery of rounds.ts.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Aggregator, Query } from 'mingo';
import 'mingo/init/system';
import { createFilter } from 'odata-v4-mongodb';
import * as source from '../src/index.js';
import { fmtNum, markdownTable, median, type Measurement } from './measure.js';
import {
  COMPILE_CELL_COUNT,
  COMPILE_LIMITS,
  COMPILE_QUERY,
  PIPELINE_QUERY,
  PEER_FILTER,
  COMPILE_ROUND_MS,
  COMPILE_ROUNDS,
  DATA_DESCRIPTION,
  DOCUMENT_COUNT,
  HAND_DESCRIPTION,
  MONGO_CELLS,
  MONGO_ENTITY_SET,
  MONGO_MODEL,
  SCALE_LIMITS,
  SCALE_QUERY,
  SCALE_ROUND_MS,
  SCALE_ROUNDS,
  type MongoCellKey,
  type MongoCheck,
  type MongoEngineApi,
} from './mongo-shared.js';
import { busyRoundsOf, NOT_RUN, runRounds, type RoundsResult } from './rounds.js';
import type { EngineMode } from './shared.js';

/** Wall-clock limit of the child, in ms (it normally takes well under 20 s). */
const CHILD_LIMIT_MS = 60_000;

export interface MongoBench {
  readonly run: RoundsResult;
  readonly cells: readonly Measurement[];
  readonly checks: readonly (string | undefined)[];
  /** Queries whose find from the bundle differs from the tsx-loaded source's. */
  readonly bundleMismatches: readonly string[];
  readonly bundleChecked: boolean;
  /** Why the scale results count as a failure (ids differ, or a cell failed), if they do. */
  readonly mismatches: readonly string[];
  readonly loadAtStart: number;
  readonly loadAtEnd: number;
}

function findOf(engine: Pick<MongoEngineApi, 'defineModel' | 'bindQuery' | 'toMongo'>, query: string): string {
  const model = engine.defineModel(MONGO_MODEL);
  return JSON.stringify(engine.toMongo(engine.bindQuery(query, { model, entitySet: MONGO_ENTITY_SET })));
}

export async function runMongoBench(options: { readonly engineMode: EngineMode; readonly bundleCode: string | undefined }): Promise<MongoBench> {
  // The bundled toMongo must be the same compiler: same find for both queries.
  const bundleMismatches: string[] = [];
  if (options.bundleCode !== undefined) {
    try {
      const shipped = (await import(`data:text/javascript;base64,${Buffer.from(options.bundleCode).toString('base64')}`)) as MongoEngineApi;
      for (const [label, query] of [
        ['compile query', COMPILE_QUERY],
        ['pipeline query', PIPELINE_QUERY],
        ['scale query', SCALE_QUERY],
      ] as const) {
        const attempt = (f: () => string): string => {
          try {
            return f();
          } catch (e) {
            return `error ${e instanceof Error ? e.message : String(e)}`;
          }
        };
        if (attempt(() => findOf(shipped, query)) !== attempt(() => findOf(source, query))) bundleMismatches.push(label);
      }
    } catch (e) {
      bundleMismatches.push(`all (bundle import failed: ${e instanceof Error ? e.message : String(e)})`);
    }
    if (bundleMismatches.length > 0) process.stderr.write(`warning: bundled and tsx-loaded toMongo differ on: ${bundleMismatches.join(', ')}\n`);
  }

  const loadAtStart = os.loadavg()[0]!;
  const subject = { key: 'mongo', label: 'MongoDB bench (mingo)' };
  const run = await runRounds({
    name: 'mongo',
    subjects: [subject],
    rounds: 1,
    script: fileURLToPath(new URL('./mongo-worker.ts', import.meta.url)),
    limitMs: CHILD_LIMIT_MS,
    cellCount: () => MONGO_CELLS.length,
    args: (_, skip) => [options.engineMode, [...skip].join(',')],
    stdin: () => (options.engineMode === 'bundle' ? options.bundleCode! : ''),
  });
  const cells = run.rounds[0]?.get(subject.key) ?? MONGO_CELLS.map(() => NOT_RUN);
  const checks = run.checks[0]?.get(subject.key) ?? [];
  const scale = scaleCheck({ checks });
  const mismatches: string[] = [];
  if (scale === undefined) mismatches.push('the scale check did not run (see the mingo cell)');
  else if (!scale.idsEqual)
    mismatches.push(
      `ids differ: mingo ${JSON.stringify(scale.mingoIds)}, memory ${JSON.stringify(scale.memoryIds)}, hand-written ${JSON.stringify(scale.handIds)}`,
    );
  MONGO_CELLS.forEach((c, i) => {
    const m = cells[i] ?? NOT_RUN;
    if (!m.ok) mismatches.push(`${c.key}: ${m.error}`);
  });
  const bench: MongoBench = {
    run,
    cells,
    checks,
    bundleMismatches,
    bundleChecked: options.bundleCode !== undefined,
    mismatches,
    loadAtStart,
    loadAtEnd: os.loadavg()[0]!,
  };
  for (const line of progressLines(bench)) process.stderr.write(`  ${line}\n`);
  return bench;
}

// ---------------------------------------------------------------------------------------------
// Reading the cells
// ---------------------------------------------------------------------------------------------

const indexOf = (key: MongoCellKey): number => MONGO_CELLS.findIndex((c) => c.key === key);
const cellOf = (bench: Pick<MongoBench, 'cells'>, key: MongoCellKey): Measurement => bench.cells[indexOf(key)] ?? NOT_RUN;
function scaleCheck(bench: Pick<MongoBench, 'checks'>): MongoCheck | undefined {
  const text = bench.checks[indexOf('mingo')];
  return text === undefined ? undefined : (JSON.parse(text) as MongoCheck);
}
function compileCheck(bench: Pick<MongoBench, 'checks'>): MongoCheck | undefined {
  const text = bench.checks[0];
  return text === undefined ? undefined : (JSON.parse(text) as MongoCheck);
}
const ratio = (a: Measurement, b: Measurement): number | undefined => (a.ok && b.ok ? a.usPerOp / b.usPerOp : undefined);
const x = (v: number | undefined): string => (v === undefined ? 'n/a' : `${fmtNum(v)}x`);
const ms = (m: Measurement): string => (m.ok ? fmtNum(m.usPerOp / 1000) : m.error);
const us = (m: Measurement): string => (m.ok ? fmtNum(m.usPerOp) : m.error);

function progressLines(bench: MongoBench): string[] {
  const lines = MONGO_CELLS.slice(0, COMPILE_CELL_COUNT).map((c, i) => `compile ${c.key.padEnd(8)} ${us(bench.cells[i] ?? NOT_RUN)} µs/call`);
  const check = scaleCheck(bench);
  lines.push(
    `scale    mingo ${ms(cellOf(bench, 'mingo'))} ms, memory ${ms(cellOf(bench, 'memory'))} ms, hand-written ${ms(cellOf(bench, 'hand'))} ms; mingo/memory ${x(ratio(cellOf(bench, 'mingo'), cellOf(bench, 'memory')))}, memory/hand-written ${x(ratio(cellOf(bench, 'memory'), cellOf(bench, 'hand')))}; same ids: ${check === undefined ? 'n/a' : check.idsEqual ? 'yes' : 'NO'}`,
  );
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

export interface MongoReport {
  readonly results: string;
}

function compileTable(bench: MongoBench): string {
  const peer = cellOf(bench, 'peer');
  return markdownTable(
    ['step', 'µs per call', 'vs odata-v4-mongodb', 'calls/s', 'calls measured'],
    MONGO_CELLS.slice(0, COMPILE_CELL_COUNT).map((c, i) => {
      const m = bench.cells[i] ?? NOT_RUN;
      const versusPeer = c.key === 'peerOurs' || c.key === 'peer' ? x(ratio(m, peer)) : '';
      return [c.label, us(m), versusPeer, m.ok ? fmtNum(m.opsPerSec) : 'n/a', m.ok ? m.iterations.toLocaleString('en-US') : 'n/a'];
    }),
    ['l', 'r', 'r', 'r', 'r'],
  );
}

/** Filters where a MongoDB compiler can go wrong, run by mingo against the in-memory reference. */
const AGREEMENT_FILTERS = [
  'price gt 2.5',
  "name ne 'Milk'",
  'not (price gt 2.5)',
  "contains(name,'a.b')",
  "startswith(code,'$where')",
  "endswith(name,'k')",
  "contains(tolower(name),'milk')",
  'qty in (1,2)',
  'qty add 1 gt 3',
  'name eq null',
  "not (name eq 'Milk' and qty gt 1)",
  'active',
] as const;
const AGREEMENT_ROWS = [
  { id: 1, name: 'Milk', code: 'A-1', qty: 1, price: 2, active: true },
  { id: 2, name: 'a.b', code: '$where', qty: 2, price: 3, active: false },
  { id: 3, name: 'axb', code: 'B-3', qty: null, price: null, active: null },
  { id: 4, name: 'Oat MILK', code: 'C-4', qty: 5, price: 10, active: true },
  { id: 5, name: null, code: null, qty: 3, price: 2.5 },
  { id: 6, name: 'milk\n', code: 'D-6', qty: 0, price: -1, active: true },
];

/** For each filter: does odata-engine (and does the peer) give the reference's rows? */
function agreementTable(): { table: string; ours: number; peer: number } {
  const model = source.defineModel(MONGO_MODEL);
  const type = model.entitySets.get(MONGO_ENTITY_SET)!.type;
  const documents = AGREEMENT_ROWS.map((row) => source.toMongoDocument(row, type));
  const ids = (docs: readonly Record<string, unknown>[]): string =>
    docs
      .map((d) => String(d['_id'] ?? d['id']))
      .sort()
      .join(',');
  let ours = 0;
  let peer = 0;
  const rows = AGREEMENT_FILTERS.map((filter) => {
    const bound = source.bindQuery(`$filter=${encodeURIComponent(filter)}`, { model, entitySet: MONGO_ENTITY_SET });
    const expected = source
      .compileQuery(bound)
      .apply(AGREEMENT_ROWS)
      .value.map((r) => String(r['id']))
      .sort()
      .join(',');
    const verdict = (run: () => string): string => {
      try {
        const got = run();
        return got === expected ? 'same rows' : `**different** (${got === '' ? 'none' : got})`;
      } catch (e) {
        return `error: ${(e instanceof Error ? e.message : String(e)).slice(0, 60)}`;
      }
    };
    const oursVerdict = verdict(() => {
      const query = source.toMongo(bound);
      return query.kind === 'find'
        ? ids(new Query(query.filter).find(documents).all() as Record<string, unknown>[])
        : ids(new Aggregator([...query.pipeline]).run(documents) as Record<string, unknown>[]);
    });
    const peerVerdict = verdict(() => ids(new Query(createFilter(filter) as Record<string, unknown>).find(documents).all() as Record<string, unknown>[]));
    if (oursVerdict === 'same rows') ours++;
    if (peerVerdict === 'same rows') peer++;
    return [`\`${filter}\``, expected === '' ? 'none' : expected, oursVerdict, peerVerdict];
  });
  return { table: markdownTable(['$filter', 'reference rows (in-memory backend)', 'odata-engine (mingo)', 'odata-v4-mongodb (mingo)'], rows), ours, peer };
}

function scaleTable(bench: MongoBench): string {
  const memory = cellOf(bench, 'memory');
  const hand = cellOf(bench, 'hand');
  return markdownTable(
    ['subject', 'ms per run', 'vs in-memory backend', 'vs hand-written', 'runs measured'],
    MONGO_CELLS.slice(COMPILE_CELL_COUNT).map((c) => {
      const m = cellOf(bench, c.key);
      return [c.label, ms(m), x(ratio(m, memory)), x(ratio(m, hand)), m.ok ? m.iterations.toLocaleString('en-US') : 'n/a'];
    }),
    ['l', 'r', 'r', 'r', 'r'],
  );
}

function idsLine(bench: MongoBench): string {
  const check = scaleCheck(bench);
  if (check === undefined) return '- FAIL: same ids from mingo, the in-memory backend and the hand-written closure (not checked: the child failed first)';
  const n = check.handIds?.length ?? 0;
  return check.idsEqual
    ? `- PASS: same ids, in the same order, from mingo, the in-memory backend and the hand-written closure (${n} rows of the page)`
    : `- FAIL: the ids differ (mingo ${check.mingoIds?.length ?? 0}, in-memory ${check.memoryIds?.length ?? 0}, hand-written ${n} rows)`;
}

export function mongoReport(bench: MongoBench, context: { readonly engineDescription: string }): MongoReport {
  const { run } = bench;
  const busy = busyRoundsOf(run.busyByRound);
  const busyWarning =
    busy.length === 0
      ? ''
      : '**Warning:** other work kept the machine busy while the MongoDB bench ran (over 1.5 busy cores); expect slower figures and a wider spread.';
  const scale = scaleCheck(bench);
  const compiled = compileCheck(bench);
  const mingoMemory = x(ratio(cellOf(bench, 'mingo'), cellOf(bench, 'memory')));
  const memoryHand = x(ratio(cellOf(bench, 'memory'), cellOf(bench, 'hand')));
  const agreement = agreementTable();
  const agreementText = `Correctness against the peer (not timed): each filter on ${AGREEMENT_ROWS.length} documents with nulls, missing fields, \`.\`, \`$\` and a trailing newline, run by mingo, against the in-memory reference. odata-engine: ${agreement.ours}/${AGREEMENT_FILTERS.length} give the reference's rows; odata-v4-mongodb: ${agreement.peer}/${AGREEMENT_FILTERS.length}.

${agreement.table}`;

  const section = `# MongoDB backend: compile latency, and mingo for scale

- Date: ${new Date().toISOString()}
- odata-engine measured as: ${context.engineDescription}; find check (bundled vs tsx-loaded \`toMongo\`, both queries): ${bench.bundleChecked ? (bench.bundleMismatches.length === 0 ? 'identical' : `DIFFERENT on ${bench.bundleMismatches.join(', ')}`) : 'not applicable'}
- Runner: mingo ${scale?.mingoVersion ?? '(version unknown)'} (MongoDB's query language implemented in JavaScript), in the child process; **not a MongoDB server**, so its figures say nothing about a server's speed, indexes or plans. Documents, conversion and compilation took ${scale?.setupMs === undefined ? 'n/a' : `${fmtNum(scale.setupMs / 1000)} s`}
- MongoDB bench run time: ${run.elapsedS.toFixed(1)} s (1 child process); 1-minute load average at start ${bench.loadAtStart.toFixed(2)}, at end ${bench.loadAtEnd.toFixed(2)}; busy cores while it ran: ${run.busyByRound.map((b) => median(b).toFixed(2)).join(', ')} (of ${os.cpus().length})
${busyWarning ? `\n${busyWarning}\n` : ''}
Method: one child process (\`node --import tsx bench/mongo-worker.ts\`) measures everything.
First the compile latency of \`${COMPILE_QUERY}\` (and, as the pipeline cell, of \`${PIPELINE_QUERY}\`) on a small model (\`items\`: Int32 key \`id\`, String \`name\`,
String \`code\`, Int32 \`qty\`, Double \`price\`, Boolean \`active\`); each step as a cell of the parse bench's
kind, as in the SQL bench (cold call, ${COMPILE_LIMITS.warmupMs} ms warm-up, ${COMPILE_ROUNDS} rounds of ${COMPILE_ROUND_MS} ms in ${COMPILE_LIMITS.samplesPerRound} samples, no forced GC;
the figure is the median over the rounds of each round's median sample). Then, for
scale only, \`${SCALE_QUERY}\` on ${DOCUMENT_COUNT.toLocaleString('en-US')} generated rows (${DATA_DESCRIPTION}),
compiled once: "mingo" runs the generated find on the rows converted once by \`toMongoDocument\`
(\`new Query(filter)\` built once; each run is \`find(documents, projection).sort(sort).skip(skip).limit(limit).all()\`);
"in-memory backend" is \`compileQuery(bound).apply(rows)\` (compiled once); "hand-written" is
${HAND_DESCRIPTION}. Before timing, the ids of the three results are compared (in order); a
difference fails the run (exit code 1). The three are timed interleaved: a cold call and ${SCALE_LIMITS.warmupMs} ms
warm-up each, then ${SCALE_ROUNDS} rounds of about ${SCALE_ROUND_MS} ms each (at least one run, ${SCALE_LIMITS.samplesPerRound} samples), no forced
GC; the figure is the median over the rounds of each round's median sample.

## Compile latency

${compileTable(bench)}

The peer rows compile \`${PEER_FILTER}\`, a filter odata-v4-mongodb supports (it throws on \`tolower\` and mangles \`contains\`); odata-engine's row is the whole path (parse, bind, toMongo), the peer's is its parse and translation.

${agreementText}

Generated find:

\`\`\`json
${compiled?.find === undefined ? 'n/a' : JSON.stringify(compiled.find)}
\`\`\`

## For scale: ${DOCUMENT_COUNT.toLocaleString('en-US')} documents, mingo vs in-memory backend vs hand-written

${scaleTable(bench)}

mingo / in-memory backend: ${mingoMemory}; in-memory backend / hand-written: ${memoryHand}.

${idsLine(bench)}
`;

  return { results: section };
}
