/**
 * A differential fuzzing campaign: generated queries (seeded, reproducible) run on the reference
 * and every target with several queries in flight, findings grouped into distinct ones, each
 * shrunk by fast-check to a minimal reproduction.
 */
import fc from 'fast-check';
import { queryFeatures, runDifferential, type DifferentialOptions, type DifferentialTarget, type Finding, type FindingClass } from './differential.js';
import { typedQueryArbitrary, type GeneratedQuery } from './typed-arbitraries.js';

/** A distinct finding: its minimal reproduction and how often a query ran into it. */
export interface DistinctFinding {
  readonly target: string;
  readonly class: FindingClass;
  /** The (shrunk) query, readable (not URL-encoded). */
  readonly reproduction: string;
  readonly detail: string;
  /** The query as first found, before shrinking. */
  readonly original: string;
  occurrences: number;
  readonly features: readonly string[];
}

/** Per-target figures of a campaign. */
export interface TargetStats {
  /** Sum of the time the target took per query (queries overlap, so this is latency, not CPU). */
  busyMs: number;
  runs: number;
  /** Outcomes explained by a documented deviation, by exception name. */
  readonly excused: Record<string, number>;
  /** `unsupported_feature` refusals by reason (part of `excused`), for the report. */
  readonly refusals: Record<string, number>;
}

/** The figures of a campaign. */
export interface CampaignReport {
  readonly seed: number;
  queries: number;
  /** Queries the binder accepted. */
  bound: number;
  /** Queries on which the reference gave rows (not an error). */
  referenceRows: number;
  seconds: number;
  readonly byClass: Record<FindingClass, number>;
  readonly targets: Record<string, TargetStats>;
  readonly distinct: DistinctFinding[];
  /** Functions and operators used by bound queries, with counts. */
  readonly coverage: Record<string, number>;
}

/** Options of {@link fuzzDifferential}. */
export interface CampaignOptions extends DifferentialOptions {
  /** Queries to run (the campaign also stops at `timeLimitMs`). */
  readonly count: number;
  readonly seed: number;
  readonly timeLimitMs?: number;
  /** Stops the campaign early (no new query starts); the report covers the queries run so far. */
  readonly signal?: AbortSignal;
  /** Queries in flight at once (default 8). */
  readonly concurrency?: number;
  /** Shrink new findings to a minimal reproduction (default true). */
  readonly shrink?: boolean;
  /** At most this many shrinks in the whole campaign (default 200); later new findings stay unshrunk. */
  readonly maxShrinks?: number;
  /** Time limit of one shrink (default 20 000 ms); the smallest reproduction found by then is kept. */
  readonly shrinkTimeLimitMs?: number;
  /** The queries (default {@link typedQueryArbitrary} over the model and entity set). */
  readonly queries?: fc.Arbitrary<GeneratedQuery>;
  /** Called about every `progressEveryMs` (default 5 000 ms). */
  readonly onProgress?: (report: CampaignReport) => void;
  readonly progressEveryMs?: number;
}

const BATCH = 500;

/** One turn of the event loop, through its I/O phase (setImmediate in Node, Deno and Bun; a timer in browsers). */
const nextTurn: (run: () => void) => void = typeof setImmediate === 'function' ? (run) => setImmediate(run) : (run) => setTimeout(run, 0);
const CLASSES: readonly FindingClass[] = ['row disagreement', 'ODataError mismatch', 'non-ODataError', 'database error'];

/** SQL type names in engine messages (`substr(text, bigint)`), masked to group findings. */
const SQL_TYPES =
  /\b(text|numeric|bigint|integer|smallint|double precision|real|unknown|boolean|date|interval|timestamp with time zone|character varying|DOUBLE|BIGINT|DECIMAL|INT)\b/g;

/** An error message without its numbers, quoted values, SQL type names and positions, to group findings. */
function messageShape(detail: string): string {
  return detail
    .replace(/'[^']*'|"[^"]*"|`[^`]*`/g, "'…'")
    .replace(SQL_TYPES, 'T')
    .replace(/-?\d+(\.\d+)?(e[-+]?\d+)?/gi, 'N')
    .replace(/\[[^\]]*\]/g, '[…]')
    .replace(/\bin '.*$/, '')
    .slice(0, 100);
}

/** A query with its literals masked, to tell distinct reproductions apart. */
function queryShape(query: string): string {
  return query.replace(/'(?:[^']|'')*'/g, "'s'").replace(/\b\d[\d.:TZ+-]*(e[-+]?\d+)?\b/gi, 'N');
}

const sameGroup = (finding: Finding, distinct: DistinctFinding): boolean =>
  distinct.target === finding.target &&
  distinct.class === finding.class &&
  (finding.class === 'row disagreement' || messageShape(distinct.detail) === messageShape(finding.detail));

/**
 * Runs a campaign: `count` generated queries (or until the time limit), each on the reference and
 * every target; returns the figures and the distinct findings, each with a minimal reproduction.
 * Reproducible: the same seed generates the same queries.
 *
 * @example
 * ```ts
 * const report = await fuzzDifferential({ model, entitySet: 'items', rows, targets, count: 10_000, seed: 1 });
 * console.log(report.byClass, report.distinct.map((f) => `${f.target}: ${f.reproduction}`));
 * ```
 */
export async function fuzzDifferential(options: CampaignOptions): Promise<CampaignReport> {
  const queries = options.queries ?? typedQueryArbitrary(options.model, options.entitySet);
  const report: CampaignReport = {
    seed: options.seed,
    queries: 0,
    bound: 0,
    referenceRows: 0,
    seconds: 0,
    byClass: Object.fromEntries(CLASSES.map((c) => [c, 0])) as Record<FindingClass, number>,
    targets: Object.fromEntries(options.targets.map((t) => [t.name, { busyMs: 0, runs: 0, excused: {}, refusals: {} }])),
    distinct: [],
    coverage: {},
  };
  const started = performance.now();
  const deadline = options.timeLimitMs === undefined ? Number.POSITIVE_INFINITY : started + options.timeLimitMs;
  let shrinks = 0;
  let lastProgress = started;
  const batches = new Map<number, GeneratedQuery[]>();
  const batch = (b: number): GeneratedQuery[] => {
    let values = batches.get(b);
    if (values === undefined) {
      values = fc.sample(queries, { seed: options.seed + b, numRuns: BATCH });
      batches.set(b, values);
      batches.delete(b - 2);
    }
    return values;
  };
  // Each target is timed on its own: wrap it.
  const timed: DifferentialTarget[] = options.targets.map((target) => ({
    name: target.name,
    run: async (query) => {
      const t0 = performance.now();
      try {
        return await target.run(query);
      } finally {
        const stats = report.targets[target.name] as TargetStats;
        stats.busyMs += performance.now() - t0;
        stats.runs += 1;
      }
    },
  }));

  const record = async (finding: Finding, index: number, features: Set<string>): Promise<void> => {
    const known = report.distinct.find((d) => sameGroup(finding, d) && (finding.class !== 'row disagreement' || d.features.every((f) => features.has(f))));
    if (known !== undefined) {
      known.occurrences += 1;
      return;
    }
    let reproduction = finding.query;
    let detail = finding.detail;
    let shrunkFeatures = features;
    if ((options.shrink ?? true) && shrinks < (options.maxShrinks ?? 200)) {
      shrinks += 1;
      const shrunk = await shrinkFinding(options, queries, finding, index);
      if (shrunk !== undefined) ({ reproduction, detail, features: shrunkFeatures } = shrunk);
    }
    const readable = decodeQuery(reproduction);
    const same = report.distinct.find((d) => sameGroup(finding, d) && queryShape(d.reproduction) === queryShape(readable));
    if (same !== undefined) {
      same.occurrences += 1;
      return;
    }
    report.distinct.push({
      target: finding.target,
      class: finding.class,
      reproduction: readable,
      detail,
      original: decodeQuery(finding.query),
      occurrences: 1,
      features: [...shrunkFeatures].sort(),
    });
  };

  // In-process targets resolve in microtasks only, which starve the event loop: every 100 ms all
  // workers wait for one macrotask turn together, so that timers and signals (a stop) are served.
  let gate: Promise<void> | undefined;
  let lastTurn = performance.now();
  const pause = async (): Promise<void> => {
    if (gate === undefined && performance.now() - lastTurn > 100) {
      gate = new Promise<void>((resolve) =>
        nextTurn(() => {
          gate = undefined;
          lastTurn = performance.now();
          resolve();
        }),
      );
    }
    if (gate !== undefined) await gate;
  };

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.count && performance.now() < deadline && options.signal?.aborted !== true) {
      const index = next++;
      await pause();
      const query = batch(Math.floor(index / BATCH))[index % BATCH] as GeneratedQuery;
      const result = await runDifferential(query.text, { ...options, targets: timed });
      report.queries += 1;
      if (result.bound !== undefined) {
        report.bound += 1;
        for (const feature of queryFeatures(result.bound)) report.coverage[feature] = (report.coverage[feature] ?? 0) + 1;
      }
      if (result.reference.kind === 'rows') report.referenceRows += 1;
      for (const [target, exception] of result.excused) {
        const stats = report.targets[target] as TargetStats;
        stats.excused[exception] = (stats.excused[exception] ?? 0) + 1;
        const outcome = result.outcomes.get(target);
        if (exception === 'unsupported-feature' && outcome?.kind === 'odata') {
          const reason = outcome.message.replace(/ at position.*$/, '').slice(0, 120);
          stats.refusals[reason] = (stats.refusals[reason] ?? 0) + 1;
        }
      }
      const features = result.bound === undefined ? new Set<string>() : queryFeatures(result.bound);
      for (const finding of result.findings) {
        report.byClass[finding.class] += 1;
        await record(finding, index, features);
      }
      const now = performance.now();
      if (options.onProgress !== undefined && now - lastProgress > (options.progressEveryMs ?? 5000)) {
        lastProgress = now;
        report.seconds = (now - started) / 1000;
        options.onProgress(report);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

function decodeQuery(text: string): string {
  return text
    .split('&')
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    })
    .join('&');
}

/**
 * Shrinks the query that gave `finding` (the `index`-th of the campaign) with fast-check: the
 * smallest query that still gives a finding of the same class (and error shape) on the same target.
 */
async function shrinkFinding(
  options: CampaignOptions,
  queries: fc.Arbitrary<GeneratedQuery>,
  finding: Finding,
  index: number,
): Promise<{ reproduction: string; detail: string; features: Set<string> } | undefined> {
  // A finding of the reference itself needs the targets to show; any other, only its own target.
  const single = finding.target === 'memory' ? options.targets : options.targets.filter((t) => t.name === finding.target);
  let last: { reproduction: string; detail: string; features: Set<string> } | undefined;
  const details = await fc.check(
    fc.asyncProperty(queries, async (query) => {
      const result = await runDifferential(query.text, { ...options, targets: single });
      const same = result.findings.find(
        (f) =>
          f.target === finding.target &&
          f.class === finding.class &&
          (f.class === 'row disagreement' || messageShape(f.detail) === messageShape(finding.detail)),
      );
      if (same === undefined) return true;
      last = { reproduction: query.text, detail: same.detail, features: result.bound === undefined ? new Set() : queryFeatures(result.bound) };
      return false;
    }),
    {
      seed: options.seed + Math.floor(index / BATCH),
      path: String(index % BATCH),
      numRuns: 1,
      interruptAfterTimeLimit: options.shrinkTimeLimitMs ?? 20_000,
      markInterruptAsFailure: false,
    },
  );
  if (!details.failed) return undefined;
  return last;
}
