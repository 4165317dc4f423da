/**
 * bench/RESULTS.md is written in sections. `npm run bench` (bench/run.ts) rewrites the sections it
 * measures; a bench that runs on its own (`tsx bench/package.ts`, the fuzzing campaign) owns a
 * section between two marker lines, `<!-- section:NAME:start -->` and `<!-- section:NAME:end -->`,
 * which it replaces in place (or appends) and which run.ts keeps when it rewrites the file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const RESULTS_URL = new URL('./RESULTS.md', import.meta.url);

function markers(name: string): readonly [string, string] {
  return [`<!-- section:${name}:start -->`, `<!-- section:${name}:end -->`];
}

/** The text of the results file, or '' when there is none. */
export function readResults(): string {
  return existsSync(RESULTS_URL) ? readFileSync(RESULTS_URL, 'utf8') : '';
}

/** Replaces (or appends) the marked section `name` of bench/RESULTS.md with `body`. */
export function writeSection(name: string, body: string): void {
  const [start, end] = markers(name);
  const text = readResults();
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  const section = `${start}\n${body.trim()}\n${end}`;
  const updated = from >= 0 && to > from ? `${text.slice(0, from)}${section}${text.slice(to + end.length)}` : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(RESULTS_URL, updated);
}

/** Every marked section of `text`, as it stands (markers included), in file order. */
export function markedSections(text: string): string[] {
  return [...text.matchAll(/<!-- section:([\w-]+):start -->[\s\S]*?<!-- section:\1:end -->/g)].map((match) => match[0]);
}
