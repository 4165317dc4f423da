/**
 * `odata-engine fuzz <service root> [--header=Name:value …] [--runs=N] [--seed=S] [--sets=a,b]
 * [--expect-codes]`: reads the service's `$metadata` (CSDL XML or JSON), fuzzes each entity set
 * with `fuzzODataServer` (odata-engine/testing: random valid and near-miss invalid queries, the
 * answers checked by the rules every OData server follows), shows progress on standard error,
 * prints a table of the findings and each one's report on standard output, and exits 1 when there
 * is a finding (0 when none, 2 when the service or its `$metadata` cannot be read). It uses no
 * Node built-in (src/cli.ts gives it the output streams): `fetch` only.
 */
import { modelFromCsdl, modelFromCsdlXml, ODataError, type Model } from './index.js';

/** What the command was given. */
export interface FuzzCommand {
  readonly root: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly runs: number;
  readonly seed?: number;
  readonly sets?: readonly string[];
  readonly expectCodes: boolean;
  readonly timeoutMs: number;
}

/** Where the command writes: progress, and the result. */
export interface FuzzOutput {
  progress(line: string): void;
  result(text: string): void;
}

/** The command's options from `--name=value` arguments. */
export function fuzzCommand(root: string, values: ReadonlyMap<string, string>, headers: readonly string[], flags: ReadonlySet<string>): FuzzCommand {
  const header: Record<string, string> = {};
  for (const line of headers) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`--header takes Name:value, not '${line}'`);
    header[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  const number = (name: string, fallback: number): number => {
    const text = values.get(name);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} takes a whole number, not '${text}'`);
    return value;
  };
  const seed = values.get('seed');
  const sets = values.get('sets');
  return {
    root: root.replace(/\/+$/, ''),
    headers: header,
    runs: number('runs', 50),
    ...(seed === undefined ? {} : { seed: number('seed', 0) }),
    ...(sets === undefined ? {} : { sets: sets.split(',').filter((set) => set !== '') }),
    expectCodes: flags.has('--expect-codes'),
    timeoutMs: number('timeout', 10_000),
  };
}

/** The service's model, from its `$metadata` (XML, or JSON when the service sends that). */
async function readModel(command: FuzzCommand): Promise<Model> {
  const response = await fetch(`${command.root}/$metadata`, {
    headers: { accept: 'application/xml, application/json;q=0.9', ...command.headers },
    signal: AbortSignal.timeout(command.timeoutMs),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${command.root}/$metadata answered ${response.status}: ${text.slice(0, 300)}`);
  return text.trimStart().startsWith('{') ? modelFromCsdl(JSON.parse(text) as object) : modelFromCsdlXml(text);
}

/** Runs the command; its exit status. */
export async function runFuzzCommand(command: FuzzCommand, output: FuzzOutput): Promise<number> {
  let testing: typeof import('./testing/index.js');
  try {
    testing = await import('./testing/index.js');
  } catch (error) {
    output.progress(`error: the fuzzer needs fast-check (npm install --save-dev fast-check): ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  let model: Model;
  try {
    model = await readModel(command);
  } catch (error) {
    output.progress(`error: ${error instanceof ODataError || error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const sets = command.sets ?? [...model.entitySets.keys()];
  const unknown = sets.filter((set) => !model.entitySets.has(set));
  if (unknown.length > 0) {
    output.progress(`error: the model has no entity set ${unknown.map((set) => `'${set}'`).join(', ')}`);
    return 2;
  }
  const findings: { set: string; report: string }[] = [];
  for (const set of sets) {
    const started = performance.now();
    output.progress(`${set}: ${command.runs} valid and ${command.runs} invalid queries…`);
    try {
      await testing.fuzzODataServer({
        url: `${command.root}/${set}`,
        model,
        entitySet: set,
        headers: command.headers,
        numRuns: command.runs,
        timeoutMs: command.timeoutMs,
        expectCodes: command.expectCodes,
        ...(command.seed === undefined ? {} : { seed: command.seed }),
      });
      output.progress(`${set}: no finding (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    } catch (error) {
      const report = error instanceof Error ? error.message : String(error);
      findings.push({ set, report });
      output.progress(`${set}: ${report.split('\n')[0]}`);
    }
  }
  const lines = [`| entity set | finding |`, `| --- | --- |`];
  for (const set of sets) {
    const found = findings.find((finding) => finding.set === set);
    lines.push(`| ${set} | ${found === undefined ? 'none' : (found.report.split('\n')[0] ?? '').replaceAll('|', '\\|')} |`);
  }
  const reports = findings.map((finding) => `\n## ${finding.set}\n\n${finding.report}\n`);
  output.result(`${lines.join('\n')}\n${reports.join('')}`);
  return findings.length > 0 ? 1 : 0;
}
