/**
 * The CSDL growth bench: generated CSDL XML documents of each shape (test/fixtures/csdl-documents.ts:
 * derivation chains, many types, many annotations, deep nesting, …) at 1, 2, 4, 8, 16 and 31.9 MiB
 * (under the reader's 32 MiB limit), each read into CSDL JSON, into a model, and written back as
 * CSDL JSON and CSDL XML, in a fresh process per cell (bench/csdl-growth-worker.ts). Reports each
 * step's time, the peak memory, and the growth exponent: the slope of log(time) against log(size)
 * from each size to the next and over the whole range (1 is linear, 2 quadratic). A shape whose
 * cell takes longer than CELL_LIMIT_MS is not run at larger sizes. Run alone with
 * `tsx bench/csdl-growth.ts [shape,…]`, or by `npm run bench`; writes the `csdl-growth` section of
 * bench/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { csdlDocument, CSDL_SHAPES, type CsdlShape } from '../test/fixtures/csdl-documents.js';
import { markdownTable } from './measure.js';
import { writeSection } from './results-file.js';

const MIB = 2 ** 20;
const SIZES = [1, 2, 4, 8, 16, 31.9];
/** A shape whose cell takes longer than this (all steps) is not run at larger sizes. */
const CELL_LIMIT_MS = 60_000;
const STEPS = ['xmlToJson', 'jsonToModel', 'modelToJson', 'jsonToXml'] as const;

interface Cell {
  readonly mib: number;
  readonly times: Partial<Record<(typeof STEPS)[number], number>>;
  readonly refused: string | undefined;
  readonly rssBefore: number;
  readonly maxRss: number;
  readonly error?: string;
}

const total = (cell: Cell): number => STEPS.reduce((sum, s) => sum + (cell.times[s] ?? 0), 0);
const slope = (a: Cell, b: Cell, value: (cell: Cell) => number): number => Math.log(value(b) / value(a)) / Math.log(b.mib / a.mib);
const extra = (cell: Cell): number => Math.max(cell.maxRss - cell.rssBefore, 1);

function runCell(dir: string, shape: CsdlShape, mib: number): Cell {
  const file = join(dir, 'document.xml');
  writeFileSync(file, csdlDocument(shape, Math.floor(mib * MIB)));
  const worker = fileURLToPath(new URL('./csdl-growth-worker.ts', import.meta.url));
  const child = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), worker, file], {
    encoding: 'utf8',
    timeout: 10 * CELL_LIMIT_MS,
    maxBuffer: 1 << 20,
  });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return { mib, ...(JSON.parse(line) as Omit<Cell, 'mib'>) };
  } catch {
    return {
      mib,
      times: {},
      refused: undefined,
      rssBefore: 0,
      maxRss: 0,
      error: `child failed (${child.signal ?? child.status}): ${child.stderr.trim().split('\n').at(-1) ?? ''}`,
    };
  }
}

const ms = (value: number | undefined): string => (value === undefined ? '–' : value < 10 ? value.toFixed(1) : value.toFixed(0));
const mb = (bytes: number): string => (bytes / MIB).toFixed(0);

export function runCsdlGrowthBench(shapes: readonly CsdlShape[] = Object.keys(CSDL_SHAPES) as CsdlShape[]): string {
  const started = performance.now();
  const load = os.loadavg()[0]?.toFixed(2);
  const dir = mkdtempSync(join(os.tmpdir(), 'csdl-growth-'));
  const rows: string[][] = [];
  const summary: string[][] = [];
  try {
    for (const shape of shapes) {
      const cells: Cell[] = [];
      for (const mib of SIZES) {
        const cell = runCell(dir, shape, mib);
        cells.push(cell);
        process.stderr.write(`csdl-growth ${shape} ${mib} MiB: ${ms(total(cell))} ms${cell.error ? ` ${cell.error}` : ''}\n`);
        const previous = cells.at(-2);
        rows.push([
          shape,
          `${mib}`,
          ...STEPS.map((s) => ms(cell.times[s])),
          cell.error ?? (cell.refused === undefined ? ms(total(cell)) : `${ms(total(cell))} (refused)`),
          previous === undefined || cell.error !== undefined ? '' : slope(previous, cell, total).toFixed(2),
          `${mb(cell.maxRss)} (+${mb(extra(cell))})`,
        ]);
        if (cell.error !== undefined || total(cell) > CELL_LIMIT_MS) break;
      }
      const ok = cells.filter((c) => c.error === undefined);
      const [first, last] = [ok[0], ok.at(-1)];
      if (first !== undefined && last !== undefined && last !== first) {
        summary.push([
          shape,
          CSDL_SHAPES[shape],
          `${first.mib}–${last.mib}`,
          slope(first, last, total).toFixed(2),
          ...STEPS.map((s) => slope(first, last, (c) => Math.max(c.times[s] ?? 0, 0.1)).toFixed(2)),
          slope(first, last, extra).toFixed(2),
        ]);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const elapsed = (performance.now() - started) / 1000;
  const section = `# CSDL: growth with the document's size

- Date: ${new Date().toISOString()}; run time ${elapsed.toFixed(0)} s; Node ${process.version}; ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores; 1-minute load average ${load} at the start, ${os.loadavg()[0]?.toFixed(2)} at the end
- Method: generated CSDL XML documents of each shape (test/fixtures/csdl-documents.ts) at each size; one fresh process per cell (\`node --import tsx bench/csdl-growth-worker.ts\`) times each step once: XML → CSDL JSON (\`csdlJsonFromXml\`), CSDL JSON → model (\`modelFromCsdl\`), model → CSDL JSON (\`csdlJsonFromModel\`), CSDL JSON → XML (\`csdlXmlFromJson\`). "Exponent" is the slope of log(time) against log(size): 1 is linear, 2 quadratic; on a loaded machine, single runs of the small sizes are noisy (the whole-range slope is the figure to read). Memory: the process's peak resident set, and in brackets its growth over the resident set before the steps (code loaded, document read). The 'deep chain' shape is refused (more than 100 derivation levels): its time is the time to refuse.

Growth over the whole range (exponent of the total time, of each step, and of the peak memory growth):

${markdownTable(['shape', 'what is repeated', 'MiB', 'total', 'XML → JSON', 'JSON → model', 'model → JSON', 'JSON → XML', 'memory'], summary, ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'])}

Each cell (times in ms):

${markdownTable(['shape', 'MiB', 'XML → JSON', 'JSON → model', 'model → JSON', 'JSON → XML', 'total', 'exponent from the previous size', 'peak RSS MiB (+growth)'], rows, ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'])}
`;
  writeSection('csdl-growth', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const only = process.argv[2]?.split(',') as CsdlShape[] | undefined;
  process.stdout.write(runCsdlGrowthBench(only));
}
