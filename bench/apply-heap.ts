/**
 * The in-memory backend's retained memory (issue 31): the heap that the result of
 * `compileQuery(…).apply(rows)` keeps alive over 1 000 000 rows, against a hand-written
 * `rows.filter(…)` plus a copy of each row it keeps (what `apply` gives: rows of their own), on
 * a `$filter` that keeps about half of the rows. Each subject runs in its own fresh process
 * (`node --expose-gc`), which builds the rows, collects garbage, runs the subject once to warm it,
 * drops that result, collects, reads `heapUsed`, runs the subject, collects again with the result
 * alive, and reads `heapUsed` again: the difference is what the result retains. The median of
 * RUNS processes per subject. Run alone with `tsx bench/apply-heap.ts`; `npm run bench` runs it;
 * writes the `apply-heap` section of bench/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { fmtNum, markdownTable, median } from './measure.js';
import { writeSection } from './results-file.js';

const ROWS = 1_000_000;
const RUNS = 5;
const QUERY = '$filter=active eq true';

const SUBJECTS = {
  apply: 'odata-engine `compileQuery(bindQuery(query)).apply(rows)` (its `value`)',
  filterCopy: 'hand-written `rows.filter((r) => r.active === true).map((r) => ({ ...r }))`',
  filterOnly: 'hand-written `rows.filter((r) => r.active === true)` (no copy: the floor)',
} as const;
type SubjectKey = keyof typeof SUBJECTS;

/** In a child: one subject's retained bytes, printed as JSON. */
async function child(key: SubjectKey): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const { generateRows, MODEL_DEFINITION } = await import('./memory-shared.js');
  const engine = await import('../src/index.js');
  const rows = generateRows(20_261_122, ROWS);
  const model = engine.defineModel(MODEL_DEFINITION);
  const compiled = engine.compileQuery(engine.bindQuery(QUERY, { model, entitySet: 'products', maxTop: ROWS }));
  const run: () => readonly unknown[] =
    key === 'apply'
      ? () => compiled.apply(rows).value
      : key === 'filterCopy'
        ? () => rows.filter((r) => r.active === true).map((r) => ({ ...r }))
        : () => rows.filter((r) => r.active === true);
  let kept: readonly unknown[] | undefined = run();
  const count = kept.length;
  kept = undefined;
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  kept = run();
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  process.stdout.write(JSON.stringify({ bytes: after - before, rows: kept.length, warm: count }));
}

/** Runs the bench, writes its section, returns it. */
export async function runApplyHeapBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const script = fileURLToPath(import.meta.url);
  const results = new Map<SubjectKey, number[]>();
  let rowsKept = 0;
  for (let run = 0; run < RUNS; run++) {
    for (const key of Object.keys(SUBJECTS) as SubjectKey[]) {
      const out = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=4096', '--import', 'tsx', script, key], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`${key}: ${out.stderr}`);
      const { bytes, rows } = JSON.parse(out.stdout) as { bytes: number; rows: number };
      rowsKept = rows;
      results.set(key, [...(results.get(key) ?? []), bytes]);
    }
  }
  const mb = (bytes: number): string => `${fmtNum(bytes / 1024 / 1024)} MB`;
  const med = (key: SubjectKey): number => median(results.get(key)!);
  const ratio = med('apply') / med('filterCopy');
  const section = `# In-memory backend: the heap a result retains over 1 000 000 rows (issue 31)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}
- Query \`${QUERY}\` over the memory bench's rows (seed 20261122, ${ROWS.toLocaleString('en-US')} rows; ${rowsKept.toLocaleString('en-US')} kept); ${RUNS} fresh processes per subject (\`node --expose-gc\`), interleaved; median (min–max). Retained: \`heapUsed\` after two full collections with the result alive, less \`heapUsed\` after two before it was made (the subject warmed once).

${markdownTable(
  ['subject', 'retained heap', 'min–max', 'vs filter + copy'],
  (Object.keys(SUBJECTS) as SubjectKey[]).map((key) => [
    SUBJECTS[key],
    mb(med(key)),
    `${mb(Math.min(...results.get(key)!))}–${mb(Math.max(...results.get(key)!))}`,
    `${fmtNum(med(key) / med('filterCopy'))}x`,
  ]),
  ['l', 'r', 'r', 'r'],
)}

Target (issue 31): \`apply\` ≤ 1.1x filter plus a copy: ${fmtNum(ratio)}x, ${ratio <= 1.1 ? 'met' : 'not met'}.
`;
  writeSection('apply-heap', section);
  return section;
}

const [, , subject] = process.argv;
if (subject !== undefined && subject in SUBJECTS) await child(subject as SubjectKey);
else if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.stdout.write(await runApplyHeapBench());
