/**
 * `odata-engine fuzz <service root> [--header=Name:value …] [--runs=N] [--seed=S] [--sets=a,b]
 * [--expect-codes] [--timeout=ms] [--skip=regex]`: reads the service's `$metadata` (CSDL XML or JSON), fuzzes each entity set
 * with `fuzzODataServer` (odata-engine/testing: random valid and near-miss invalid queries, the
 * answers checked by the rules every OData server follows), shows progress on standard error,
 * prints a table of the findings and each one's report on standard output, and exits 1 when there
 * is a finding (0 when none, 2 when the service or its `$metadata` cannot be read). It uses no
 * Node built-in (src/cli.ts gives it the output streams): `fetch` only.
 */
import { ODataError, type Model } from './index.js';
import { headersOf, knownOption, loadTestingKit, readServiceModel, runPerSet, skipOption, wholeNumber, type CommandOutput } from './cli-service.js';
import type { KnownDeviation } from './testing/server-requests.js';

/** What the command was given. */
export interface FuzzCommand {
  readonly root: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly runs: number;
  readonly seed?: number;
  readonly sets?: readonly string[];
  readonly expectCodes: boolean;
  readonly timeoutMs: number;
  /** Queries not to send (`--skip=<regular expression>`, tested on the percent-encoded query). */
  readonly skip?: RegExp;
  /** Deviations already known (`--known=<file>`): counted, not reported as findings. */
  readonly known?: readonly KnownDeviation[];
}

/** Where the command writes: progress, and the result. */
export type FuzzOutput = CommandOutput;

/** The command's options from `--name=value` arguments. */
export function fuzzCommand(
  root: string,
  values: ReadonlyMap<string, string>,
  headers: readonly string[],
  flags: ReadonlySet<string>,
  known?: string,
): FuzzCommand {
  const number = (name: string, fallback: number): number => wholeNumber(values, name, fallback);
  const seed = values.get('seed');
  const sets = values.get('sets');
  return {
    root: root.replace(/\/+$/, ''),
    headers: headersOf(headers),
    runs: number('runs', 50),
    ...(seed === undefined ? {} : { seed: number('seed', 0) }),
    ...(sets === undefined ? {} : { sets: sets.split(',').filter((set) => set !== '') }),
    expectCodes: flags.has('--expect-codes'),
    timeoutMs: number('timeout', 10_000),
    ...skipOption(values),
    ...knownOption(known),
  };
}

/** Runs the command; its exit status. */
export async function runFuzzCommand(command: FuzzCommand, output: FuzzOutput): Promise<number> {
  const testing = await loadTestingKit(output);
  if (testing === undefined) return 2;
  let model: Model;
  try {
    model = await readServiceModel(command.root, command.headers, command.timeoutMs);
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
  return runPerSet(output, sets, 'finding', (set) => ({
    starting: `${command.runs} valid and ${command.runs} invalid queries…`,
    clean: 'no finding',
    run: () =>
      testing.fuzzODataServer({
        url: `${command.root}/${set}`,
        model,
        entitySet: set,
        headers: command.headers,
        numRuns: command.runs,
        timeoutMs: command.timeoutMs,
        expectCodes: command.expectCodes,
        ...(command.seed === undefined ? {} : { seed: command.seed }),
        ...(command.skip === undefined ? {} : { skip: command.skip }),
        ...(command.known === undefined ? {} : { known: command.known }),
      }),
  }));
}
