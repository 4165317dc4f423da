/**
 * One in-memory backend bench child: generates the rows from the seed, then measures ONE subject
 * (every cell of it, see MEMORY_CELLS) in a fresh process and reports on stdout (the protocol in
 * shared.ts; each `cell` message carries a summary of the cell's result, for the agreement check).
 * Started by memory.ts as
 *
 *   node --import tsx bench/memory-worker.ts <subject> <engine mode> <skipped cell indices>
 *
 * With engine mode `bundle`, the odata-engine bundle's code arrives on stdin (subject `ours`).
 */
import { blackhole, Cell } from './measure.js';
import { generateRows, isMemorySubjectKey, loadMemorySubject, MEMORY_CELLS, summarize } from './memory-shared.js';
import { emit, loadEngine, MEMORY_CELL_BUDGET_MS, MEMORY_LIMITS, type EngineMode } from './shared.js';

const [keyArg = '', modeArg = '', skipArg = ''] = process.argv.slice(2);
if (!isMemorySubjectKey(keyArg) || (modeArg !== 'bundle' && modeArg !== 'tsx')) {
  process.stderr.write(`usage: memory-worker.ts <subject> <bundle|tsx> [skipped cell indices]; got ${process.argv.slice(2).join(' ')}\n`);
  process.exit(2);
}
const mode: EngineMode = modeArg;
const skipped = new Set(skipArg.split(',').filter(Boolean).map(Number));

const engine = keyArg === 'ours' ? await loadEngine(mode) : undefined;
const rows = generateRows();
const functions = loadMemorySubject(keyArg, rows, engine);
const specs = MEMORY_CELLS[keyArg];
if (functions.length !== specs.length) throw new Error(`${keyArg}: ${functions.length} functions for ${specs.length} cells`);
emit({ type: 'ready' });

const cells = functions.map((fn, i) => (skipped.has(i) ? undefined : new Cell(fn, MEMORY_LIMITS)));
const checks: (string | undefined)[] = cells.map(() => undefined);

// Cold call and warm-up of every cell first (as in worker.ts); no forced GC (steady state).
// Right after the warm-up, the sink holds the cell's last result: its summary goes to the parent,
// which checks that every subject agrees.
cells.forEach((cell, i) => {
  if (!cell) return;
  emit({ type: 'start', input: i });
  cell.prepare();
  if (!cell.failed) checks[i] = summarize(specs[i]!.case, blackhole());
});
cells.forEach((cell, i) => {
  if (!cell) return;
  emit({ type: 'start', input: i });
  cell.round(MEMORY_CELL_BUDGET_MS);
  const check = checks[i];
  emit(check === undefined ? { type: 'cell', input: i, m: cell.result() } : { type: 'cell', input: i, m: cell.result(), check });
});
emit({ type: 'done' });
