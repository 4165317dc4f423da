/**
 * One cell of the CSDL growth bench (bench/csdl-growth.ts), in a fresh process: reads the
 * generated document at `argv[2]` and times each step of model building and writing once, then
 * prints one JSON line: the times in ms, the peak resident memory, and the resident memory before
 * the steps (the document read, the code loaded).
 */
import { readFileSync } from 'node:fs';
import { csdlJsonFromModel, csdlJsonFromXml, csdlXmlFromJson, modelFromCsdl, ODataError } from '../src/index.js';

const xml = readFileSync(process.argv[2] as string, 'utf8');
const rssBefore = process.memoryUsage().rss;
const times: Record<string, number> = {};
function step<T>(name: string, run: () => T): T {
  const t0 = performance.now();
  try {
    return run();
  } finally {
    times[name] = performance.now() - t0;
  }
}
let refused: string | undefined;
try {
  const json = step('xmlToJson', () => csdlJsonFromXml(xml));
  const model = step('jsonToModel', () => modelFromCsdl(json));
  step('modelToJson', () => csdlJsonFromModel(model));
  step('jsonToXml', () => csdlXmlFromJson(json));
} catch (error) {
  if (!(error instanceof ODataError)) throw error;
  refused = error.message;
}
process.stdout.write(`${JSON.stringify({ times, refused, rssBefore, maxRss: process.resourceUsage().maxRSS * 1024 })}\n`);
