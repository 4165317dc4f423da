/**
 * The MongoDB backend bench child (one for the whole part). Measures the compile latency of
 * `toMongo` (synchronous cells, as in sql-worker.ts), then generates 100 000 documents and times,
 * interleaved, mingo running the generated find, the in-memory backend and a hand-written closure
 * on the same query, after checking that all three return the same ids in the same order. Started
 * by mongo.ts as
 *
 *   node --import tsx bench/mongo-worker.ts <engine mode> <skipped cells>
 *
 * With engine mode `bundle`, the odata-engine bundle's code arrives on stdin. mingo is imported
 * here, from node_modules (not bundled).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Query } from 'mingo';
import type { MongoFind, Row } from '../src/index.js';
import { blackhole, Cell } from './measure.js';
import {
  COMPILE_CELL_COUNT,
  COMPILE_LIMITS,
  COMPILE_QUERY,
  PIPELINE_QUERY,
  PEER_FILTER,
  COMPILE_ROUND_MS,
  COMPILE_ROUNDS,
  generateRows,
  handWritten,
  loadMongoEngine,
  MONGO_CELLS,
  MONGO_ENTITY_SET,
  MONGO_MODEL,
  SCALE_LIMITS,
  SCALE_QUERY,
  SCALE_ROUND_MS,
  SCALE_ROUNDS,
  type MongoCellKey,
  type MongoCheck,
} from './mongo-shared.js';
import { emit, type EngineMode } from './shared.js';

const [modeArg = '', skipArg = ''] = process.argv.slice(2);
if (modeArg !== 'bundle' && modeArg !== 'tsx') {
  process.stderr.write(`usage: mongo-worker.ts <bundle|tsx> [skipped cells]; got ${process.argv.slice(2).join(' ')}\n`);
  process.exit(2);
}
const mode: EngineMode = modeArg;
const skipped = new Set(skipArg.split(',').filter(Boolean).map(Number));

const engine = await loadMongoEngine(mode);
emit({ type: 'ready' });

const model = engine.defineModel(MONGO_MODEL);
const settings = { model, entitySet: MONGO_ENTITY_SET };
const type = model.entitySets.get(MONGO_ENTITY_SET)!.type;

/** Prepares the cells, then runs `rounds` rounds of each, interleaved, and returns them. */
function measure(cells: readonly (Cell | undefined)[], offset: number, rounds: number, roundMs: number): void {
  cells.forEach((cell, i) => {
    if (!cell) return;
    emit({ type: 'start', input: offset + i });
    cell.prepare();
  });
  for (let round = 0; round < rounds; round++) {
    cells.forEach((cell, i) => {
      if (!cell) return;
      emit({ type: 'start', input: offset + i });
      cell.round(roundMs);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Compile latency (synchronous)
// ---------------------------------------------------------------------------------------------

{
  const parsed = engine.parseQuery(COMPILE_QUERY);
  const bound = engine.bindQuery(parsed, settings);
  const pipelineBound = engine.bindQuery(PIPELINE_QUERY, settings);
  const { createFilter } = (await import('odata-v4-mongodb')) as { createFilter: (filter: string) => unknown };
  const peerQuery = `$filter=${PEER_FILTER}`;
  const functions: Record<'full' | 'parse' | 'bind' | 'toMongo' | 'pipeline' | 'peerOurs' | 'peer', () => unknown> = {
    full: () => engine.toMongo(engine.bindQuery(COMPILE_QUERY, settings)),
    parse: () => engine.parseQuery(COMPILE_QUERY),
    bind: () => engine.bindQuery(parsed, settings),
    toMongo: () => engine.toMongo(bound),
    pipeline: () => engine.toMongo(pipelineBound),
    peerOurs: () => engine.toMongo(engine.bindQuery(peerQuery, settings)),
    peer: () => createFilter(PEER_FILTER),
  };
  const cells = MONGO_CELLS.slice(0, COMPILE_CELL_COUNT).map((c, i) =>
    skipped.has(i) ? undefined : new Cell(functions[c.key as keyof typeof functions], COMPILE_LIMITS),
  );
  measure(cells, 0, COMPILE_ROUNDS, COMPILE_ROUND_MS);
  cells.forEach((cell, i) => {
    if (!cell) return;
    const check: MongoCheck | undefined = i === 0 ? { find: functions.toMongo() } : undefined;
    emit({ type: 'cell', input: i, m: cell.result(), ...(check ? { check: JSON.stringify(check) } : {}) });
  });
  blackhole();
}

// ---------------------------------------------------------------------------------------------
// For scale: mingo vs the in-memory backend vs a hand-written closure, on 100 000 documents
// ---------------------------------------------------------------------------------------------

{
  emit({ type: 'start', input: COMPILE_CELL_COUNT });
  const setupStarted = performance.now();
  const rows = generateRows();
  const documents = rows.map((r) => engine.toMongoDocument(r, type));
  const bound = engine.bindQuery(SCALE_QUERY, settings);
  const compiled = engine.toMongo(bound);
  if (compiled.kind !== 'find') throw new Error(`toMongo returned a ${String(compiled.kind)}, not a find`);
  const find: MongoFind = compiled;
  const query = new Query(find.filter);
  const memory = engine.compileQuery(bound);
  const setupMs = performance.now() - setupStarted;

  const runMingo = (): Record<string, unknown>[] => {
    let cursor = query.find(documents, find.projection);
    if (find.sort !== undefined) cursor = cursor.sort(find.sort as Record<string, 1 | -1>);
    if (find.skip !== undefined) cursor = cursor.skip(find.skip);
    if (find.limit !== undefined) cursor = cursor.limit(find.limit);
    return cursor.all() as Record<string, unknown>[];
  };
  const runMemory = (): readonly Row[] => memory.apply(rows).value;
  const runHand = () => handWritten(rows as unknown as Parameters<typeof handWritten>[0]);

  const mingoIds = runMingo().map((d) => Number(d['_id']));
  const memoryIds = runMemory().map((r) => Number(r['id']));
  const handIds = runHand().map((r) => r.id);
  const same = (a: readonly number[], b: readonly number[]) => JSON.stringify(a) === JSON.stringify(b);
  const idsEqual = handIds.length > 0 && same(mingoIds, memoryIds) && same(memoryIds, handIds);

  const functions: Record<Exclude<MongoCellKey, 'full' | 'parse' | 'bind' | 'toMongo' | 'pipeline' | 'peerOurs' | 'peer'>, () => unknown> = {
    mingo: runMingo,
    memory: runMemory,
    hand: runHand,
  };
  const cells = MONGO_CELLS.slice(COMPILE_CELL_COUNT).map((c, i) =>
    skipped.has(COMPILE_CELL_COUNT + i) ? undefined : new Cell(functions[c.key as keyof typeof functions], SCALE_LIMITS),
  );
  measure(cells, COMPILE_CELL_COUNT, SCALE_ROUNDS, SCALE_ROUND_MS);
  let mingoVersion = '(version unknown)';
  try {
    const path = fileURLToPath(new URL('../node_modules/mingo/package.json', import.meta.url));
    mingoVersion = (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
  } catch {
    // keep the placeholder
  }
  cells.forEach((cell, i) => {
    if (!cell) return;
    const check: MongoCheck | undefined = i === 0 ? { find, mingoIds, memoryIds, handIds, idsEqual, setupMs, mingoVersion } : undefined;
    emit({ type: 'cell', input: COMPILE_CELL_COUNT + i, m: cell.result(), ...(check ? { check: JSON.stringify(check) } : {}) });
  });
  blackhole();
}
emit({ type: 'done' });
