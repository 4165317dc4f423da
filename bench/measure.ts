/**
 * Small timing helpers for the parse-throughput bench. Everything is synchronous: a parse that
 * never returns cannot be interrupted from inside, so the per-parse time cap is checked after the
 * fact on the first (cold) call, before any repeated measurement is attempted (the bench also runs
 * every parser in a child process with a wall-clock limit, see run.ts).
 */

/** Limits for one measured cell (one parser on one input). */
export interface CellOptions {
  /** Time spent calling the function after the cold call, in ms (skipped for slower calls). */
  readonly warmupMs: number;
  /** Time spent calling the function before each later round, in ms (skipped for slow calls). */
  readonly rewarmMs: number;
  /** Give up (and report a timeout) when the first call alone takes longer than this, in ms. */
  readonly maxSingleMs: number;
  /** Number of timed samples each round's budget is split into. */
  readonly samplesPerRound: number;
}

export type Measurement =
  | {
      readonly ok: true;
      /** Ops per second from the median per-call time (see {@link Cell.result}). */
      readonly opsPerSec: number;
      /** Microseconds per call (see {@link Cell.result}). */
      readonly usPerOp: number;
      /** Calls made during measurement (warm-up excluded). */
      readonly iterations: number;
      /** Wall time spent measuring (warm-up excluded), in ms. */
      readonly measuredMs: number;
      /** Duration of the very first (cold) call, in ms. */
      readonly firstCallMs: number;
    }
  | { readonly ok: false; readonly error: string };

/** Keeps results alive so that the JIT cannot drop the calls being measured. */
let sink: unknown;
export function blackhole(): unknown {
  return sink;
}

function describeError(e: unknown): string {
  if (e instanceof Error) {
    const msg = e.message.length > 60 ? `${e.message.slice(0, 57)}...` : e.message;
    return `error: ${e.name}${msg ? ` (${msg})` : ''}`;
  }
  return `error: ${String(e)}`;
}

/** Runs `fn` `n` times and returns the elapsed time in ms. */
function timeBatch(fn: () => unknown, n: number): number {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) sink = fn();
  return performance.now() - t0;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The measurement of one function: a cold call and a warm-up ({@link Cell.prepare}), then one or
 * more measurement rounds ({@link Cell.round}). Never throws: a throwing function, or one whose
 * first call exceeds `maxSingleMs`, ends up as `{ ok: false, error }`.
 */
export class Cell {
  private error: string | undefined;
  private prepared = false;
  private firstCallMs = 0;
  /** Running estimate of one call, in ms. */
  private estimate = 0;
  private iterations = 0;
  private measuredMs = 0;
  private readonly roundMedians: number[] = [];

  constructor(
    private readonly fn: () => unknown,
    private readonly options: CellOptions,
  ) {}

  get failed(): boolean {
    return this.error !== undefined;
  }

  /**
   * Cold call (catches errors and absurdly slow inputs before looping on them), then warm-up for
   * `warmupMs`. The warm-up is skipped when the cold call alone took longer than that: such a call
   * has run long enough to be optimized, and more calls would only cost time.
   */
  prepare(): void {
    if (this.prepared || this.error !== undefined) return;
    this.prepared = true;
    try {
      const first = timeBatch(this.fn, 1);
      this.firstCallMs = first;
      if (first > this.options.maxSingleMs) {
        this.error = `timeout: one parse took ${(first / 1000).toFixed(1)} s (> ${this.options.maxSingleMs / 1000} s)`;
        return;
      }
      this.estimate = Math.max(first, 1e-4);
      if (first < this.options.warmupMs) this.warm(this.options.warmupMs);
    } catch (e) {
      this.error = describeError(e);
    }
  }

  /** Calls the function in batches until `ms` have passed (at least one call). */
  private warm(ms: number): void {
    const warmEnd = performance.now() + ms;
    let calls = 0;
    let time = 0;
    do {
      const n = Math.max(1, Math.min(10_000, Math.floor(5 / this.estimate)));
      time += timeBatch(this.fn, n);
      calls += n;
      this.estimate = Math.max(time / calls, 1e-5);
    } while (performance.now() < warmEnd);
  }

  /**
   * Runs one measurement round of about `budgetMs` (at least one call), preceded by
   * {@link Cell.prepare} the first time, or else by a re-warm of `rewarmMs` (skipped for calls
   * slower than that).
   */
  round(budgetMs: number): void {
    if (!this.prepared) this.prepare();
    else if (this.error === undefined && this.estimate < this.options.rewarmMs) {
      try {
        this.warm(this.options.rewarmMs);
      } catch (e) {
        this.error = describeError(e);
      }
    }
    if (this.error !== undefined) return;
    const { fn, options } = this;
    try {
      // Samples of roughly equal duration; each runs a batch sized from the running estimate, so
      // that timer overhead stays negligible for fast calls.
      const sampleMs = budgetMs / options.samplesPerRound;
      const perCall: number[] = [];
      let spent = 0;
      while (spent < budgetMs) {
        const n = Math.max(1, Math.floor(sampleMs / this.estimate));
        const ms = timeBatch(fn, n);
        this.iterations += n;
        this.measuredMs += ms;
        spent += ms;
        perCall.push(ms / n);
        this.estimate = Math.max(this.measuredMs / this.iterations, 1e-5);
      }
      this.roundMedians.push(median(perCall));
    } catch (e) {
      this.error = describeError(e);
    }
  }

  /** The median over rounds of each round's median per-call time. */
  result(): Measurement {
    if (this.error !== undefined) return { ok: false, error: this.error };
    if (this.roundMedians.length === 0) return { ok: false, error: 'not run' };
    const ms = median(this.roundMedians);
    return {
      ok: true,
      opsPerSec: 1000 / ms,
      usPerOp: ms * 1000,
      iterations: this.iterations,
      measuredMs: this.measuredMs,
      firstCallMs: this.firstCallMs,
    };
  }
}

/** Formats a number with thousands separators and a fixed number of significant digits. */
export function fmtNum(n: number, digits = 3): string {
  if (!Number.isFinite(n)) return String(n);
  if (n >= 10 ** digits) return Math.round(n).toLocaleString('en-US');
  return Number(n.toPrecision(digits)).toLocaleString('en-US', { maximumSignificantDigits: digits });
}

/** Renders a markdown table. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], align?: readonly ('l' | 'r')[]): string {
  const sep = header.map((_, i) => ((align?.[i] ?? 'l') === 'r' ? '---:' : '---'));
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(sep), ...rows.map(line)].join('\n');
}

/**
 * Times each subject (a call of it is one sample) in `samples` interleaved rounds after `warmup`
 * calls each; milliseconds per call, in round order. No forced GC: steady state.
 */
export async function interleavedSamples(subjects: Record<string, () => unknown>, samples: number, warmup = 3): Promise<Record<string, number[]>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
  for (const fn of Object.values(subjects)) for (let i = 0; i < warmup; i++) await fn();
  for (let round = 0; round < samples; round++) {
    for (const [key, fn] of Object.entries(subjects)) {
      const t0 = performance.now();
      await fn();
      times[key]!.push(performance.now() - t0);
    }
  }
  return times;
}

/** Requests per second of `concurrency` loops sending `request` for `seconds` (each answer read whole, and 200). */
export async function throughput(request: () => Promise<Response>, seconds: number, concurrency: number): Promise<number> {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const response = await request();
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`status ${response.status}`);
        done++;
      }
    }),
  );
  return done / seconds;
}

/** Milliseconds as the SQL benches report them: the median, then the min–max. */
export function msRange(values: readonly number[]): string {
  return `${fmtNum(median(values))} ms (${fmtNum(Math.min(...values))}–${fmtNum(Math.max(...values))})`;
}
