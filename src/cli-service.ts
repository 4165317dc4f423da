/**
 * What the command line's service commands (`fuzz`, cli-fuzz.ts; `diff`, cli-diff.ts) share: their
 * options from `--name=value` arguments, and a running service's model read from its `$metadata`.
 * No Node built-in: `fetch` only (src/cli.ts gives the commands their streams).
 */
import { modelFromCsdl, modelFromCsdlXml, type Model } from './index.js';
import type { KnownDeviation, MetDeviation } from './testing/server-requests.js';

/** Where a service command writes: progress, and the result. */
export interface CommandOutput {
  progress(line: string): void;
  result(text: string): void;
}

/** `--header=Name:value` arguments as headers. */
export function headersOf(lines: readonly string[], option = 'header'): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`--${option} takes Name:value, not '${line}'`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** A whole-number option, or `fallback` when it is not given. */
export function wholeNumber(values: ReadonlyMap<string, string>, name: string, fallback: number): number {
  const text = values.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} takes a whole number, not '${text}'`);
  return value;
}

/** A service's model, from its `$metadata` (XML, or JSON when the service sends that). */
export async function readServiceModel(root: string, headers: Readonly<Record<string, string>>, timeoutMs: number): Promise<Model> {
  const response = await fetch(`${root}/$metadata`, {
    headers: { accept: 'application/xml, application/json;q=0.9', ...headers },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${root}/$metadata answered ${response.status}: ${text.slice(0, 300)}`);
  return text.trimStart().startsWith('{') ? modelFromCsdl(JSON.parse(text) as object) : modelFromCsdlXml(text);
}

/** The testing kit, loaded on demand (it needs fast-check, an optional peer dependency); `undefined` after telling why not. */
export async function loadTestingKit(output: CommandOutput): Promise<typeof import('./testing/index.js') | undefined> {
  try {
    return await import('./testing/index.js');
  } catch (error) {
    output.progress(`error: this command needs fast-check (npm install --save-dev fast-check): ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** A findings table in Markdown: one line per entity set, its first line of report or `none`. */
export function findingsTable(sets: readonly string[], findings: readonly { readonly set: string; readonly report: string }[], column: string): string {
  const lines = [`| entity set | ${column} |`, `| --- | --- |`];
  for (const set of sets) {
    const found = findings.find((finding) => finding.set === set);
    lines.push(`| ${set} | ${found === undefined ? 'none' : (found.report.split('\n')[0] ?? '').replaceAll('|', '\\|')} |`);
  }
  const reports = findings.map((finding) => `\n## ${finding.set}\n\n${finding.report}\n`);
  return `${lines.join('\n')}\n${reports.join('')}`;
}

/** `--skip=<regular expression>`: queries not to send (such as one that takes the service down). */
export function skipOption(values: ReadonlyMap<string, string>): { readonly skip?: RegExp } {
  const text = values.get('skip');
  if (text === undefined) return {};
  try {
    return { skip: new RegExp(text) };
  } catch {
    throw new Error(`--skip takes a regular expression, not '${text}'`);
  }
}

/**
 * `--known=<file>`'s text: a JSON array of `{ "why": "…", "match": "<regular expression>" }`, the
 * service's deviations already known (their findings are counted, not reported as findings).
 */
export function knownOption(text: string | undefined): { readonly known?: readonly KnownDeviation[] } {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('--known takes a JSON file: [{ "why": "…", "match": "<regular expression>" }, …]');
  }
  if (!Array.isArray(parsed)) throw new Error('--known takes a JSON array of { "why", "match" }');
  return {
    known: parsed.map((item: unknown, i) => {
      const { why, match } = (item ?? {}) as { why?: unknown; match?: unknown };
      if (typeof why !== 'string' || typeof match !== 'string') throw new Error(`--known: item ${i} needs "why" and "match" as strings`);
      try {
        return { why, match: new RegExp(match) };
      } catch {
        throw new Error(`--known: item ${i}'s match is not a regular expression: ${match}`);
      }
    }),
  };
}

/** The known deviations met, as lines under the findings table (none: nothing). */
export function metLines(met: ReadonlyMap<string, number>): string {
  if (met.size === 0) return '';
  return `\nKnown deviations met:\n${[...met].map(([why, count]) => `- ${count}× ${why}`).join('\n')}\n`;
}

/** Adds a run's known deviations to the counts by `why`. */
export function addMet(met: Map<string, number>, run: readonly MetDeviation[]): void {
  for (const deviation of run) met.set(deviation.why, (met.get(deviation.why) ?? 0) + deviation.count);
}

/** What one entity set's run tells {@link runPerSet}. */
export interface SetRun {
  /** The progress line before it (`Products: 50 valid and 50 invalid queries…`). */
  readonly starting: string;
  /** What a run without a finding is called (`no finding`, `no difference`). */
  readonly clean: string;
  run(): Promise<{ readonly known: readonly MetDeviation[] }>;
}

/**
 * Runs each set's run in turn with progress on `output`, then writes the table of what was found
 * (`column`), the reports and the known deviations met; the exit status (1 when something was found).
 */
export async function runPerSet(output: CommandOutput, sets: readonly string[], column: string, runOf: (set: string) => SetRun): Promise<number> {
  const found: { set: string; report: string }[] = [];
  const met = new Map<string, number>();
  for (const set of sets) {
    const run = runOf(set);
    const started = performance.now();
    output.progress(`${set}: ${run.starting}`);
    try {
      addMet(met, (await run.run()).known);
      output.progress(`${set}: ${run.clean} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    } catch (error) {
      const report = error instanceof Error ? error.message : String(error);
      found.push({ set, report });
      output.progress(`${set}: ${report.split('\n')[0]}`);
    }
  }
  output.result(`${findingsTable(sets, found, column)}${metLines(met)}`);
  return found.length > 0 ? 1 : 0;
}
