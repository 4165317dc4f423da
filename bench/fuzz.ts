/**
 * `npm run fuzz`: a differential fuzzing campaign. Generated queries over the whole grammar run on
 * the in-memory reference and on PGlite, sql.js, a live PostgreSQL (ODATA_TEST_POSTGRES_URL), a live
 * MariaDB (ODATA_TEST_MYSQL_URL) and mingo; each engine is opened once with the data loaded once.
 * One query in ten (`--apply-every`) is an `$apply` pipeline (`applyQueryArbitrary`: chained and
 * nested `concat`, `groupby`, `aggregate`), the others the typed `$filter`/`$orderby`/… queries.
 * Prints progress, then the queries run, the findings by class and a minimal reproduction of each
 * distinct finding, and appends the run to bench/fuzz-results.json (one run per line).
 *
 *   npm run fuzz -- --count 1000000 --seed 1 --targets pglite,sqlite,postgres,mysql,mingo --time 3000 \
 *     --concurrency 8 --depth 3 --max-shrinks 200 --shrink-time 5 [--markdown findings.md] [--split true]
 *
 * Ctrl-C (SIGINT) or SIGTERM stops the campaign early: the queries run so far are reported and
 * recorded, marked as stopped early.
 *
 * With `--split true` each target runs in a child process of its own on the same seed, so
 * every child generates the same queries and computes the same reference, and the targets use
 * several cores at once (when the machine has idle cores); the parent merges the children's reports.
 * `--split pglite,sqlite,mingo/postgres,mysql` runs one child per group of targets instead (on two
 * cores: the in-process engines in one, the two servers' clients in the other). The queries counted
 * as run are those that every target ran (the least of the children's counts).
 */
import { execSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import {
  applyQueryArbitrary,
  fuzzDifferential,
  generateModel,
  generateStoredData,
  typedQueryArbitrary,
  type DifferentialTarget,
  type CampaignReport,
  type DistinctFinding,
  type FindingClass,
} from '../src/testing/index.js';
import { ALL_TARGETS, openStoredTargets, openTargets, type TargetName } from '../test/fixtures/differential-targets.js';
import { modelFromCsdlXml, type Model, type Row } from '../src/index.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../test/fixtures/fuzz-data.js';
import { historyTable, type RecordedRun } from './fuzz-history.js';
import { writeSection } from './results-file.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    targets: { type: 'string', default: ALL_TARGETS.join(',') },
    time: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '8' },
    'max-shrinks': { type: 'string', default: '200' },
    'shrink-time': { type: 'string', default: '5' },
    split: { type: 'string', default: 'false' },
    depth: { type: 'string', default: '3' },
    // One query in this many is an $apply pipeline (chained and nested concat among them); 0: none.
    'apply-every': { type: 'string', default: '10' },
    results: { type: 'string', default: new URL('./fuzz-results.json', import.meta.url).pathname },
    markdown: { type: 'string' },
    /** Write the run as the differential fuzzing section of bench/RESULTS.md. */
    record: { type: 'boolean', default: false },
    /** Internal: a child writes its report here instead of printing the summary. */
    'child-report': { type: 'string' },
    /**
     * Record the children's reports left in this directory (a split run whose parent died before
     * merging them: the run is recorded as stopped early), instead of running queries.
     */
    merge: { type: 'string' },
    /**
     * A published model of shared/conformance/metadata instead of the fuzz model (`trippin`,
     * `northwind`, `graph`, `sap`): its rows made by generateStoredData (seed 28) under the storage
     * mapping, every stored table loaded into the SQL targets (mingo is not run then).
     */
    model: { type: 'string' },
    /** The entity set queried with `--model` (default: the model's first in PUBLISHED_CAMPAIGNS). */
    set: { type: 'string' },
    /** `--model generated`: the first model's seed (`generateModel`). */
    'model-seed': { type: 'string', default: '1' },
    /** `--model generated`: how many models (seeds `--model-seed` on); the queries are shared out among them and their entity sets. */
    models: { type: 'string', default: '1' },
    /** `--model generated`: leave open types out (`generateModel({ openTypes: false })`). */
    'no-open': { type: 'boolean', default: false },
    /** `--model generated`: leave recursive hierarchies out (`generateModel({ hierarchies: false })`: the models of campaigns before 2026-11-28). */
    'no-hierarchies': { type: 'boolean', default: false },
  },
});

/** The published models a campaign can run over: file, entity sets to make rows for, and the set queried by default. */
const PUBLISHED_CAMPAIGNS: Readonly<Record<string, { file: string; sets?: readonly string[]; set: string }>> = {
  trippin: { file: 'trippin-v4-servicerw.xml', set: 'People' },
  northwind: { file: 'northwind-v4.xml', set: 'Orders' },
  graph: { file: 'msgraph-v1.0-clean.xml', sets: ['users', 'groups', 'directoryObjects', 'user_licenseDetails'], set: 'users' },
  sap: { file: 'sap-s4-c_salesordermanage_sd.xml', sets: ['SalesOrderManage', 'SalesOrderItem'], set: 'SalesOrderManage' },
};

/** One campaign: a model, the entity set queried, its rows and the other tables' rows. */
interface Campaign {
  readonly model: Model;
  readonly set: string;
  readonly rows: readonly Row[];
  readonly data?: Readonly<Record<string, readonly Row[]>>;
  readonly stored: boolean;
  /** The report's name of the campaign (`model 3, set Orders`), when there are several. */
  readonly label?: string;
  /** The queries' share of `--count`. */
  readonly share: number;
}

/**
 * The campaigns: the fuzz model's, a published model's (`--model trippin`), or, with
 * `--model generated`, every entity set of `--models` generated models (seeds from `--model-seed`),
 * the queries shared out evenly among the models and, within a model, among its entity sets.
 */
function campaignData(): Campaign[] {
  const name = values.model;
  if (name === undefined) return [{ model: fuzzModel, set: FUZZ_SET, rows: fuzzRows, stored: false, share: 1 }];
  if (name === 'generated') {
    const first = Number(values['model-seed']);
    const count = Number(values.models);
    const campaigns: Campaign[] = [];
    for (let modelSeed = first; modelSeed < first + count; modelSeed++) {
      const model = generateModel({ seed: modelSeed, openTypes: values['no-open'] !== true, hierarchies: values['no-hierarchies'] !== true });
      const data = generateStoredData(model, { seed: modelSeed });
      const sets = [...model.entitySets.keys()].filter((set) => model.entitySets.get(set)?.container === undefined);
      for (const set of sets)
        campaigns.push({ model, set, rows: data[set] ?? [], data, stored: true, label: `model ${modelSeed}, set ${set}`, share: 1 / count / sets.length });
    }
    return campaigns;
  }
  const published = PUBLISHED_CAMPAIGNS[name];
  if (published === undefined) throw new Error(`unknown --model ${name} (one of generated, ${Object.keys(PUBLISHED_CAMPAIGNS).join(', ')})`);
  // The corpus is ../shared/conformance from the repository, or where ODATA_CONFORMANCE_DIR says (a worktree elsewhere).
  const corpus = process.env.ODATA_CONFORMANCE_DIR ?? new URL('../../shared/conformance', import.meta.url).pathname;
  const model = modelFromCsdlXml(readFileSync(join(corpus, 'metadata', published.file), 'utf8'));
  const data = generateStoredData(model, { seed: 28, ...(published.sets === undefined ? {} : { sets: published.sets }) });
  const set = values.set ?? published.set;
  return [{ model, set, rows: data[set] ?? [], data, stored: true, share: 1 }];
}
const CAMPAIGNS = campaignData();

/** The generated models' seeds (`--model generated`). */
function modelSeeds(): number[] {
  return Array.from({ length: Number(values.models) }, (_, i) => Number(values['model-seed']) + i);
}

const names = (values.targets as string).split(',').filter((n) => n !== '' && n !== 'memory') as TargetName[];
for (const name of names) if (!ALL_TARGETS.includes(name)) throw new Error(`unknown target ${name} (one of ${ALL_TARGETS.join(', ')})`);
const seed = Number(values.seed);
const childReport = values['child-report'];

/** SIGINT/SIGTERM: stop starting queries; what ran is reported and recorded (a second signal exits at once). */
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stop.signal.aborted) process.exit(130);
    console.log(`[fuzz] ${signal}: stopping after the queries in flight; the run is recorded as stopped early`);
    stop.abort();
  });
}

const progressLine = (r: CampaignReport, label = ''): string => {
  const classes = Object.entries(r.byClass)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `[fuzz${label}] ${r.queries} queries in ${r.seconds.toFixed(0)} s (${(r.queries / Math.max(r.seconds, 0.001)).toFixed(0)}/s), ${((100 * r.bound) / Math.max(r.queries, 1)).toFixed(1)} % bound; ${classes}; ${r.distinct.length} distinct`;
};

/** Runs the campaigns in this process on `targetNames`, one after another (each model's tables loaded once), and merges their reports. */
async function runHere(targetNames: readonly TargetName[], label: string): Promise<CampaignReport> {
  const reports: CampaignReport[] = [];
  const started = performance.now();
  let opened: { model: Model; targets: DifferentialTarget[]; close(): Promise<void> } | undefined;
  try {
    for (const campaign of CAMPAIGNS) {
      if (stop.signal.aborted) break;
      if (opened?.model !== campaign.model) {
        await opened?.close();
        opened = undefined;
        const { targets, skipped, close } = campaign.stored
          ? await openStoredTargets(campaign.model, campaign.data ?? {}, targetNames, undefined, {}, true)
          : await openTargets(campaign.model, campaign.set, campaign.rows, targetNames);
        opened = { model: campaign.model, targets, close };
        for (const name of skipped) console.warn(`[fuzz${label}] ${name}: no URL (ODATA_TEST_POSTGRES_URL / ODATA_TEST_MYSQL_URL), skipped`);
        console.log(`[fuzz${label}] seed ${seed}, targets: memory (reference)${targets.map((t) => `, ${t.name}`).join('')}`);
      }
      if (campaign.label !== undefined) console.log(`[fuzz${label}] ${campaign.label}`);
      reports.push(await runCampaign(campaign, opened.targets, label));
    }
  } finally {
    await opened?.close();
  }
  return mergeSequential(reports, (performance.now() - started) / 1000);
}

/** One campaign on targets already opened. */
async function runCampaign(campaign: Campaign, targets: DifferentialTarget[], label: string): Promise<CampaignReport> {
  let shown = 0;
  const report = await fuzzDifferential({
    model: campaign.model,
    entitySet: campaign.set,
    rows: campaign.rows,
    ...(campaign.data === undefined ? {} : { data: campaign.data }),
    // Published models nest lambdas over navigation (Friends/any(f: f/Friends/any(…))).
    ...(campaign.stored ? { settings: { maxAnyAllExpressionDepth: 3 } } : {}),
    targets,
    count: Math.max(1, Math.round(Number(values.count) * campaign.share)),
    seed,
    timeLimitMs: Number(values.time) * 1000 * campaign.share,
    signal: stop.signal,
    concurrency: Number(values.concurrency),
    maxShrinks: Number(values['max-shrinks']),
    shrinkTimeLimitMs: Number(values['shrink-time']) * 1000,
    queries: campaignQueries(campaign),
    onProgress: (r) => {
      console.log(progressLine(r, label));
      // Each new distinct finding as soon as it is known (a long campaign shows them early).
      for (const f of r.distinct.slice(shown))
        console.log(`[fuzz${label}] new finding: [${f.target}] ${f.class}: ${f.reproduction}\n    ${f.detail.slice(0, 300)}`);
      shown = r.distinct.length;
    },
  });
  if (campaign.label === undefined) return report;
  // Findings name their model and entity set (a reproduction is a query on that set).
  for (const f of report.distinct) Object.assign(f, { reproduction: `[${campaign.label}] ${f.reproduction}` });
  return report;
}

/** The reports of campaigns run one after another, as one. */
function mergeSequential(reports: readonly CampaignReport[], seconds: number): CampaignReport {
  if (reports.length === 1) return reports[0] as CampaignReport;
  const merged: CampaignReport = {
    seed,
    queries: 0,
    bound: 0,
    referenceRows: 0,
    seconds,
    byClass: { 'row disagreement': 0, 'ODataError mismatch': 0, 'non-ODataError': 0, 'database error': 0 },
    targets: {},
    distinct: [],
    coverage: {},
  };
  for (const report of reports) {
    merged.queries += report.queries;
    merged.bound += report.bound;
    merged.referenceRows += report.referenceRows;
    for (const [k, v] of Object.entries(report.byClass)) merged.byClass[k as FindingClass] += v;
    for (const [k, v] of Object.entries(report.coverage)) merged.coverage[k] = (merged.coverage[k] ?? 0) + v;
    merged.distinct.push(...report.distinct);
    for (const [name, stats] of Object.entries(report.targets)) {
      const into = (merged.targets[name] ??= { busyMs: 0, runs: 0, excused: {}, refusals: {} });
      into.busyMs += stats.busyMs;
      into.runs += stats.runs;
      for (const [k, v] of Object.entries(stats.excused)) into.excused[k] = (into.excused[k] ?? 0) + v;
      for (const [k, v] of Object.entries(stats.refusals)) into.refusals[k] = (into.refusals[k] ?? 0) + v;
    }
  }
  return merged;
}

/** A campaign's queries: typed queries, and one in `--apply-every` an `$apply` pipeline. */
function campaignQueries(campaign: Campaign): ReturnType<typeof typedQueryArbitrary> {
  const typed = typedQueryArbitrary(campaign.model, campaign.set, { maxDepth: Number(values.depth) });
  const every = Number(values['apply-every']);
  if (!(every > 0)) return typed;
  if (every === 1) return applyQueryArbitrary(campaign.model, campaign.set);
  return fc.oneof({ arbitrary: typed, weight: every - 1 }, { arbitrary: applyQueryArbitrary(campaign.model, campaign.set), weight: 1 });
}

/** Runs one child process per group of targets and merges their reports. */
async function runSplit(groups: readonly (readonly TargetName[])[]): Promise<CampaignReport> {
  const merging = values.merge;
  const dir = merging ?? mkdtempSync(join(tmpdir(), 'odata-fuzz-'));
  const passed = ['count', 'seed', 'time', 'concurrency', 'depth', 'apply-every', 'max-shrinks', 'shrink-time', 'model', 'set', 'model-seed', 'models']
    .filter((k) => values[k as keyof typeof values] !== undefined)
    .flatMap((k) => [`--${k}`, String(values[k as keyof typeof values])]);
  passed[passed.indexOf('--seed') + 1] = String(seed);
  if (values['no-open'] === true) passed.push('--no-open');
  if (values['no-hierarchies'] === true) passed.push('--no-hierarchies');
  const started = performance.now();
  const children = groups.map(
    (group) =>
      new Promise<CampaignReport>((resolve, reject) => {
        const name = group.join('+');
        const file = join(dir, `${name}.json`);
        if (merging !== undefined) {
          resolve(JSON.parse(readFileSync(file, 'utf8')) as CampaignReport);
          return;
        }
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', new URL(import.meta.url).pathname, ...passed, '--targets', group.join(','), '--split', 'false', '--child-report', file],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        stop.signal.addEventListener('abort', () => child.kill('SIGINT'));
        child.stdout.on('data', (chunk: Buffer) => process.stdout.write(chunk.toString().replaceAll('[fuzz]', `[fuzz ${name}]`)));
        child.on('exit', (code) => {
          try {
            resolve(JSON.parse(readFileSync(file, 'utf8')) as CampaignReport);
          } catch (error) {
            reject(new Error(`the ${name} child exited with ${code} and no report: ${String(error)}`));
          }
        });
      }),
  );
  const reports = await Promise.all(children);
  if (merging === undefined) rmSync(dir, { recursive: true, force: true });
  const merged: CampaignReport = {
    seed,
    queries: Math.min(...reports.map((r) => r.queries)),
    bound: Math.min(...reports.map((r) => r.bound)),
    referenceRows: Math.min(...reports.map((r) => r.referenceRows)),
    seconds: merging === undefined ? (performance.now() - started) / 1000 : Math.max(...reports.map((r) => r.seconds)),
    byClass: { 'row disagreement': 0, 'ODataError mismatch': 0, 'non-ODataError': 0, 'database error': 0 },
    targets: {},
    distinct: [],
    coverage: reports[0]?.coverage ?? {},
  };
  for (const report of reports) {
    Object.assign(merged.targets, report.targets);
    for (const [k, v] of Object.entries(report.byClass)) merged.byClass[k as FindingClass] += v;
    for (const finding of report.distinct) {
      // The reference's own findings show up in every child: keep them once.
      const same = merged.distinct.find((d) => d.target === finding.target && d.class === finding.class && d.reproduction === finding.reproduction);
      if (same === undefined) merged.distinct.push(finding);
      else if (finding.target === 'memory') same.occurrences = Math.max(same.occurrences, finding.occurrences);
    }
  }
  return merged;
}

const split = values.split !== 'false' && names.length > 1 && childReport === undefined;
const groups: TargetName[][] =
  values.split === 'true'
    ? names.map((name) => [name])
    : (values.split as string).split('/').map((group) => group.split(',').filter((name): name is TargetName => names.includes(name as TargetName)));
const report = split ? await runSplit(groups.filter((group) => group.length > 0)) : await runHere(names, '');
if (childReport !== undefined) {
  writeFileSync(childReport, JSON.stringify(report));
  process.exit(0);
}
console.log(progressLine(report));
const generated = values.model === 'generated' ? modelSeeds() : undefined;
if (generated !== undefined) console.log(`[fuzz] over ${generated.length} generated models (seeds ${generated.join(', ')}), ${CAMPAIGNS.length} entity sets`);

console.log('\nPer target (runs, mean latency while queries overlap, excused outcomes):');
for (const [name, stats] of Object.entries(report.targets)) {
  console.log(`  ${name}: ${stats.runs} runs, mean ${(stats.busyMs / Math.max(stats.runs, 1)).toFixed(2)} ms; excused ${JSON.stringify(stats.excused)}`);
  for (const [reason, n] of Object.entries(stats.refusals)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8))
    console.log(`      refused ${n}×: ${reason}`);
}
console.log(`\nFindings by class: ${JSON.stringify(report.byClass)}`);
const sorted: DistinctFinding[] = [...report.distinct].sort(
  (a, b) => a.target.localeCompare(b.target) || a.class.localeCompare(b.class) || b.occurrences - a.occurrences,
);
for (const f of sorted) console.log(`\n[${f.target}] ${f.class} (${f.occurrences}×)\n  ${f.reproduction}\n  ${f.detail.slice(0, 300)}`);
const coverage = Object.entries(report.coverage).sort((a, b) => b[1] - a[1]);
console.log(`\nCoverage (bound queries using each function/operator): ${coverage.map(([k, v]) => `${k} ${v}`).join(', ')}`);

let commit = 'unknown';
try {
  commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
} catch {
  // not a git checkout
}
const run = {
  date: new Date().toISOString(),
  commit,
  seed,
  targets: ['memory', ...Object.keys(report.targets)],
  split,
  ...(stop.signal.aborted || values.merge !== undefined ? { stoppedEarly: true } : {}),
  ...(values.model === undefined ? {} : { model: values.model }),
  ...(generated === undefined
    ? {}
    : { modelSeeds: generated, entitySets: CAMPAIGNS.length, openTypes: values['no-open'] !== true, hierarchies: values['no-hierarchies'] !== true }),
  queries: report.queries,
  bound: report.bound,
  seconds: Number(report.seconds.toFixed(1)),
  queriesPerSecond: Number((report.queries / report.seconds).toFixed(1)),
  perTarget: Object.fromEntries(
    Object.entries(report.targets).map(([k, s]) => [k, { runs: s.runs, meanMs: Number((s.busyMs / Math.max(s.runs, 1)).toFixed(2)) }]),
  ),
  findingsByClass: report.byClass,
  distinctFindings: sorted.map((f) => ({
    target: f.target,
    class: f.class,
    occurrences: f.occurrences,
    reproduction: f.reproduction,
    detail: f.detail.slice(0, 300),
  })),
};
const path = values.results as string;
let lines: string[] = [];
try {
  lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('  {'));
} catch {
  // first run
}
const earlier = lines.map((line) => JSON.parse(line.trim().replace(/,$/, '')) as RecordedRun);
lines.push(`  ${JSON.stringify(run)}`);
writeFileSync(path, `[\n${lines.map((l) => l.replace(/,$/, '')).join(',\n')}\n]\n`);
console.log(`\n[fuzz] appended to ${path}`);
if (values.markdown !== undefined) {
  const md = sorted
    .map((f) => `- **${f.target}**, ${f.class} (${f.occurrences}×): \`${f.reproduction}\`\n  - ${f.detail.slice(0, 300).replaceAll('\n', ' ')}`)
    .join('\n');
  writeFileSync(values.markdown as string, `${md}\n`);
}
if (values.record === true) {
  writeSection('fuzz', fuzzSection(run, report));
  console.log('[fuzz] recorded in bench/RESULTS.md');
}
process.exitCode = Object.values(report.byClass).some((n) => n > 0) ? 1 : 0;

/** The RESULTS.md section of a campaign: what ran, how fast, and every finding. */
function fuzzSection(r: typeof run, full: CampaignReport): string {
  const findings = Object.values(r.findingsByClass).reduce((a, b) => a + b, 0);
  const rows = Object.entries(r.perTarget).map(
    ([name, s]) => `| ${name} | ${s.runs} | ${s.meanMs} ms | ${JSON.stringify(full.targets[name]?.excused ?? {})} |`,
  );
  return `# Differential fuzzing (\`npm run fuzz\`)

- Date: ${r.date}; commit ${r.commit}; seed ${r.seed}; Node ${process.version}; ${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}
- Targets: ${r.targets.join(', ')}${r.split ? ` (child processes: ${groups.map((g) => g.join(', ')).join(' / ')})` : ''}
- **${r.queries.toLocaleString('en')} queries**${r.stoppedEarly === true ? ' (stopped early by a signal)' : ''} run on every target in ${r.seconds} s (${r.queriesPerSecond} queries/s for all targets together); ${r.bound.toLocaleString('en')} bound (the rest are refused by the binder, identically on every target).
- **Disagreements: ${r.findingsByClass['row disagreement'] + r.findingsByClass['ODataError mismatch']}** (rows or values ${r.findingsByClass['row disagreement']}, ODataError code ${r.findingsByClass['ODataError mismatch']}); **non-ODataErrors: ${r.findingsByClass['non-ODataError']}**; database errors: ${r.findingsByClass['database error']}; ${findings === 0 ? 'no finding.' : `${r.distinctFindings.length} distinct findings, below.`}
- Outcomes a documented deviation explains (grammar/DEVIATIONS.md) are counted as excused per target.

| target | queries run | mean latency (queries overlap) | excused |
| --- | ---: | ---: | --- |
${rows.join('\n')}
${r.distinctFindings.length === 0 ? '' : `\n## Findings\n\n${r.distinctFindings.map((f) => `- **${f.target}**, ${f.class} (${f.occurrences}×): \`${f.reproduction.replaceAll('`', "'")}\``).join('\n')}\n`}
${historyTable(earlier)}`;
}
