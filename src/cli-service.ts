/**
 * What the command line's service commands (`fuzz`, cli-fuzz.ts; `diff`, cli-diff.ts) share: their
 * options from `--name=value` arguments, and a running service's model read from its `$metadata`.
 * No Node built-in: `fetch` only (src/cli.ts gives the commands their streams).
 */
import { modelFromCsdl, modelFromCsdlXml, type Model } from './index.js';

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
