/**
 * `odata-engine diff <service A> <service B> [--header=Name:value …] [--header-a=…] [--header-b=…]
 * [--name-a=…] [--name-b=…] [--runs=N] [--seed=S] [--sets=a,b] [--timeout=ms] [--skip=regex] [--known=file]`: reads A's `$metadata`, sends the same random
 * valid queries to both services with `diffODataServers` (odata-engine/testing), shows progress on
 * standard error, prints a table of the differences and each one's report (both answers) on
 * standard output, and exits 1 when there is one (0 when none, 2 when a service or its
 * `$metadata` cannot be read, or B lacks a set). `--header` goes to both, `--header-a`/`-b` to one; `--name-a`/`-b` name them in reports.
 */
import { ODataError, type Model } from './index.js';
import { headersOf, knownOption, loadTestingKit, readServiceModel, runPerSet, skipOption, wholeNumber, type CommandOutput } from './cli-service.js';
import type { KnownDeviation } from './testing/server-requests.js';

/** What the command was given. */
export interface DiffCommand {
  readonly a: { readonly root: string; readonly headers: Readonly<Record<string, string>>; readonly name: string };
  readonly b: { readonly root: string; readonly headers: Readonly<Record<string, string>>; readonly name: string };
  readonly runs: number;
  readonly seed?: number;
  readonly sets?: readonly string[];
  readonly timeoutMs: number;
  /** Queries not to send (`--skip=<regular expression>`, tested on the percent-encoded query). */
  readonly skip?: RegExp;
  /** Deviations already known (`--known=<file>`): counted, not reported as findings. */
  readonly known?: readonly KnownDeviation[];
}

/** The command's options: `headers` holds every `--header…=` argument as `[option, value]`. */
export function diffCommand(
  a: string,
  b: string,
  values: ReadonlyMap<string, string>,
  headers: readonly (readonly [string, string])[],
  known?: string,
): DiffCommand {
  const of = (option: string): string[] => headers.filter(([name]) => name === option).map(([, value]) => value);
  const both = headersOf(of('header'));
  const seed = values.get('seed');
  const sets = values.get('sets');
  return {
    a: { root: a.replace(/\/+$/, ''), headers: { ...both, ...headersOf(of('header-a'), 'header-a') }, name: values.get('name-a') ?? 'A' },
    b: { root: b.replace(/\/+$/, ''), headers: { ...both, ...headersOf(of('header-b'), 'header-b') }, name: values.get('name-b') ?? 'B' },
    runs: wholeNumber(values, 'runs', 100),
    ...(seed === undefined ? {} : { seed: wholeNumber(values, 'seed', 0) }),
    ...(sets === undefined ? {} : { sets: sets.split(',').filter((set) => set !== '') }),
    timeoutMs: wholeNumber(values, 'timeout', 10_000),
    ...skipOption(values),
    ...knownOption(known),
  };
}

/** Runs the command; its exit status. */
export async function runDiffCommand(command: DiffCommand, output: CommandOutput): Promise<number> {
  const testing = await loadTestingKit(output);
  if (testing === undefined) return 2;
  let model: Model;
  let other: Model;
  try {
    [model, other] = await Promise.all([
      readServiceModel(command.a.root, command.a.headers, command.timeoutMs),
      readServiceModel(command.b.root, command.b.headers, command.timeoutMs),
    ]);
  } catch (error) {
    output.progress(`error: ${error instanceof ODataError || error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const sets = command.sets ?? [...model.entitySets.keys()];
  const missing = sets.filter((set) => !model.entitySets.has(set) || !other.entitySets.has(set));
  if (missing.length > 0) {
    output.progress(`error: not both services have the entity set ${missing.map((set) => `'${set}'`).join(', ')}`);
    return 2;
  }
  return runPerSet(output, sets, 'difference', (set) => ({
    starting: `${command.runs} queries to both…`,
    clean: 'no difference',
    run: () =>
      testing.diffODataServers({
        a: { url: `${command.a.root}/${set}`, headers: command.a.headers, timeoutMs: command.timeoutMs, name: command.a.name },
        b: { url: `${command.b.root}/${set}`, headers: command.b.headers, timeoutMs: command.timeoutMs, name: command.b.name },
        model,
        entitySet: set,
        numRuns: command.runs,
        ...(command.seed === undefined ? {} : { seed: command.seed }),
        ...(command.skip === undefined ? {} : { skip: command.skip }),
        ...(command.known === undefined ? {} : { known: command.known }),
      }),
  }));
}
