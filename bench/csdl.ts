/**
 * The CSDL bench: reading each published metadata document of the conformance corpus
 * (`../shared/conformance/metadata`, skipped when absent) as CSDL XML into CSDL JSON
 * (`csdlJsonFromXml`), XML into a model (`modelFromCsdlXml`), and, for comparison, the same
 * document's CSDL JSON text into a model (`modelFromCsdl`: `JSON.parse` plus the model rules).
 * Each cell: one warm-up run, then RUNS timed runs in this process; the median and the spread
 * (min–max). Run alone with `tsx bench/csdl.ts`, or by `npm run bench`; writes the `csdl` section of
 * bench/RESULTS.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { csdlJsonFromXml, modelFromCsdl, modelFromCsdlXml } from '../src/index.js';
import { fmtNum, markdownTable, median } from './measure.js';
import { writeSection } from './results-file.js';

const DIR = fileURLToPath(new URL('../../shared/conformance/metadata/', import.meta.url));
const RUNS = 7;
const FILES = [
  'trippin-v4-servicerw.xml',
  'northwind-v4.xml',
  'capabilities-annotations-openapi.xml',
  'sap-s4-c_salesordermanage_sd.xml',
  'msgraph-v1.0-clean.xml',
];

function time(run: () => unknown): number[] {
  run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    run();
    times.push(performance.now() - t0);
  }
  return times;
}

const cell = (times: readonly number[]): string => `${fmtNum(median(times))} ms (${fmtNum(Math.min(...times))}–${fmtNum(Math.max(...times))})`;

export function runCsdlBench(): string {
  if (!existsSync(DIR)) return `# CSDL: reading metadata documents\n\nSkipped: ${DIR} not found.\n`;
  const started = performance.now();
  const rows = FILES.map((file) => {
    const xml = readFileSync(`${DIR}${file}`, 'utf8');
    const jsonText = JSON.stringify(csdlJsonFromXml(xml));
    const model = modelFromCsdlXml(xml);
    return [
      file,
      `${(xml.length / 1024).toFixed(0)} KB`,
      `${(jsonText.length / 1024).toFixed(0)} KB`,
      `${model.types.size} / ${model.entitySets.size}`,
      cell(time(() => csdlJsonFromXml(xml))),
      cell(time(() => modelFromCsdlXml(xml))),
      cell(time(() => modelFromCsdl(jsonText))),
    ];
  });
  const elapsed = (performance.now() - started) / 1000;
  const section = `# CSDL: reading metadata documents

- Date: ${new Date().toISOString()}; run time ${elapsed.toFixed(1)} s; Node ${process.version}; ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores; 1-minute load average ${os.loadavg()[0]?.toFixed(2)}
- Documents from the conformance corpus (real published \`$metadata\`). Each cell: one warm-up, then ${RUNS} runs in one process; median (min–max). "XML → model" includes "XML → JSON"; "JSON → model" reads the CSDL JSON text of the same document (what the XML reader produced) with \`modelFromCsdl\`.

${markdownTable(['document', 'XML', 'CSDL JSON', 'types / sets', 'XML → CSDL JSON', 'XML → model', 'JSON text → model'], rows, ['l', 'r', 'r', 'r', 'r', 'r', 'r'])}
`;
  writeSection('csdl', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(runCsdlBench());
}
