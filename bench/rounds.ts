/**
 * The parent's side of the bench machinery, shared by the parse bench and the in-memory backend
 * bench: child processes (one per subject, each with a wall-clock limit) run over several rounds
 * in a rotating order, and the per-round figures are combined into one median per cell.
 *
 * A child is `node --import tsx <script> <args...>` and speaks the line protocol of
 * shared.ts on its stdout; its cells are numbered from 0 (the `input` field of the messages).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { median, type Measurement } from './measure.js';
import { MESSAGE_PREFIX, type ChildMessage } from './shared.js';

const tsxLoader = import.meta.resolve('tsx');

export const NOT_RUN: Measurement = { ok: false, error: 'not run' };

export interface ChildRun {
  /** One entry per cell; `undefined` for cells that were skipped. */
  readonly cells: (Measurement | undefined)[];
  /** What each cell's subject returned, as the child summarized it (see the `cell` message). */
  readonly checks: (string | undefined)[];
  /** Cells whose failure in this child should not be retried in later rounds. */
  readonly failed: Set<number>;
  readonly seconds: number;
  /** Average number of busy CPU cores on the machine while the child ran (the child's own included). */
  readonly busyCores: number;
}

export interface ChildSpec {
  /** Marks the child's stderr lines in the parent's stderr. */
  readonly label: string;
  /** The child's script (a .ts file, run through tsx). */
  readonly script: string;
  readonly args: readonly string[];
  /** Written to the child's stdin, which is then closed. */
  readonly stdin: string;
  readonly cellCount: number;
  readonly skip: ReadonlySet<number>;
  /** Wall-clock limit, in ms; the child is killed after that. */
  readonly limitMs: number;
}

/** Total and idle CPU time of the whole machine so far (all cores), in ms. */
function cpuTimes(): { total: number; idle: number } {
  let total = 0;
  let idle = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
    idle += t.idle;
  }
  return { total, idle };
}

function lastLine(text: string): string {
  const line = text.trim().split('\n').pop()?.trim() ?? '';
  return line.length > 100 ? `${line.slice(0, 97)}...` : line;
}

/**
 * Runs one child and collects its cells. Never rejects: a child that crashes or outlives
 * `limitMs` is killed and the cell it was working on is recorded as an error (the cells after it
 * as not run).
 */
export function runChild(spec: ChildSpec): Promise<ChildRun> {
  return new Promise((resolve) => {
    const started = performance.now();
    const cpuBefore = cpuTimes();
    const args = ['--import', tsxLoader, spec.script, ...spec.args];
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const cells: (Measurement | undefined)[] = Array.from({ length: spec.cellCount }, () => undefined);
    const checks: (string | undefined)[] = Array.from({ length: spec.cellCount }, () => undefined);
    let ready = false;
    let done = false;
    let current: number | undefined;
    let stdoutBuf = '';
    let stderrBuf = '';
    let timedOut = false;
    let spawnError: string | undefined;

    const onMessage = (msg: ChildMessage): void => {
      if (msg.type === 'ready') {
        ready = true;
      } else if (msg.type === 'start') current = msg.input;
      else if (msg.type === 'cell') {
        cells[msg.input] = msg.m;
        checks[msg.input] = msg.check;
        current = undefined;
      } else done = true;
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdoutBuf += chunk;
      let nl: number;
      while ((nl = stdoutBuf.indexOf('\n')) >= 0) {
        const line = stdoutBuf.slice(0, nl);
        stdoutBuf = stdoutBuf.slice(nl + 1);
        if (line.startsWith(MESSAGE_PREFIX)) onMessage(JSON.parse(line.slice(MESSAGE_PREFIX.length)) as ChildMessage);
      }
    });
    child.stderr.setEncoding('utf8');
    let stderrAll = '';
    child.stderr.on('data', (chunk: string) => {
      stderrBuf = (stderrBuf + chunk).slice(-4000);
      if (stderrAll.length < 20_000) stderrAll += chunk;
    });
    child.stdin.on('error', () => {}); // EPIPE when the child dies before reading
    child.stdin.end(spec.stdin);
    child.on('error', (e) => {
      spawnError = e.message;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, spec.limitMs);

    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // The child's own messages (warnings, crash output), each line marked with the subject.
      if (stderrAll.trim()) process.stderr.write(`\n${stderrAll.trimEnd().replace(/^/gm, `  [${spec.label}] `)}\n`);
      const failed = new Set<number>();
      if (!done) {
        const why = timedOut
          ? `timeout: child killed after ${spec.limitMs / 1000} s`
          : `error: child ${spawnError ?? (signal ? `killed by ${signal}` : `exited with code ${code}`)}${lastLine(stderrBuf) ? ` (${lastLine(stderrBuf)})` : ''}`;
        cells.forEach((m, i) => {
          if (spec.skip.has(i) || m) return;
          if (!ready || i === current) {
            // Before the subject was loaded, every cell is affected; afterwards, only the one the
            // child was working on.
            cells[i] = { ok: false, error: why };
            failed.add(i);
          } else cells[i] = { ok: false, error: 'not run (child ended early)' };
        });
      }
      cells.forEach((m, i) => {
        if (m && !m.ok && !m.error.startsWith('not run')) failed.add(i);
      });
      const cpuAfter = cpuTimes();
      const total = cpuAfter.total - cpuBefore.total;
      const busyCores = total > 0 ? (os.cpus().length * (total - (cpuAfter.idle - cpuBefore.idle))) / total : Number.NaN;
      resolve({ cells, checks, failed, seconds: (performance.now() - started) / 1000, busyCores });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Rounds
// ---------------------------------------------------------------------------------------------

export interface RoundSubject {
  readonly key: string;
  readonly label: string;
}

export interface RoundsSpec<S extends RoundSubject> {
  /** Prefix of the progress lines on stderr. */
  readonly name: string;
  readonly subjects: readonly S[];
  readonly rounds: number;
  readonly script: string;
  readonly limitMs: number;
  cellCount(subject: S): number;
  /** The child's arguments after the script. */
  args(subject: S, skip: ReadonlySet<number>): string[];
  stdin(subject: S): string;
}

export interface RoundsResult {
  /** `rounds[r].get(subject key)[cell]`: that round's measurement (or the earlier failure, or not run). */
  readonly rounds: Map<string, Measurement[]>[];
  /** `checks[r].get(subject key)[cell]`: what the cell's subject returned in that round's child. */
  readonly checks: Map<string, (string | undefined)[]>[];
  readonly childSeconds: number[];
  /** Busy cores while each child ran, by round. */
  readonly busyByRound: number[][];
  readonly elapsedS: number;
}

/**
 * Runs `rounds` rounds of one child per subject. The start of the order moves by two places every
 * round (by one if that would not reach every place), so that no subject always runs first, while
 * neighbours in the subject list stay next to each other in most rounds. A cell that failed is
 * not retried in later rounds (its error is repeated instead).
 */
export async function runRounds<S extends RoundSubject>(spec: RoundsSpec<S>): Promise<RoundsResult> {
  const started = performance.now();
  const { subjects } = spec;
  const rounds: Map<string, Measurement[]>[] = [];
  const checks: Map<string, (string | undefined)[]>[] = [];
  const failures = new Map<string, Map<number, Measurement>>(subjects.map((s) => [s.key, new Map()]));
  const childSeconds: number[] = [];
  const busyByRound: number[][] = [];
  const step = subjects.length % 2 === 1 ? 2 : 1;
  for (let round = 0; round < spec.rounds; round++) {
    const row = new Map<string, Measurement[]>();
    const roundChecks = new Map<string, (string | undefined)[]>();
    const order = subjects.map((_, i) => subjects[(i + round * step) % subjects.length]!);
    const busy: number[] = [];
    process.stderr.write(`${spec.name} round ${round + 1}/${spec.rounds}:`);
    for (const subject of order) {
      const failedBefore = failures.get(subject.key)!;
      const skip = new Set(failedBefore.keys());
      const cellCount = spec.cellCount(subject);
      const child = await runChild({
        label: subject.label,
        script: spec.script,
        args: spec.args(subject, skip),
        stdin: spec.stdin(subject),
        cellCount,
        skip,
        limitMs: spec.limitMs,
      });
      childSeconds.push(child.seconds);
      busy.push(child.busyCores);
      process.stderr.write(` ${subject.label} ${child.seconds.toFixed(1)} s (${child.busyCores.toFixed(2)} busy cores);`);
      const cells = Array.from({ length: cellCount }, (_, i) => {
        const m = child.cells[i] ?? failedBefore.get(i) ?? NOT_RUN;
        if (child.failed.has(i) && !failedBefore.has(i)) failedBefore.set(i, m);
        return m;
      });
      row.set(subject.key, cells);
      roundChecks.set(subject.key, child.checks);
    }
    process.stderr.write('\n');
    rounds.push(row);
    checks.push(roundChecks);
    busyByRound.push(busy);
  }
  return { rounds, checks, childSeconds, busyByRound, elapsedS: (performance.now() - started) / 1000 };
}

/** Median over the rounds that produced a number; the first error when none did. */
export function combine(ms: readonly Measurement[]): Measurement {
  const ok = ms.filter((m): m is Extract<Measurement, { ok: true }> => m.ok);
  if (ok.length === 0) return ms.find((m) => !m.ok && !m.error.startsWith('not run')) ?? ms[0] ?? NOT_RUN;
  const usPerOp = median(ok.map((m) => m.usPerOp));
  return {
    ok: true,
    usPerOp,
    opsPerSec: 1e6 / usPerOp,
    iterations: ok.reduce((sum, m) => sum + m.iterations, 0),
    measuredMs: ok.reduce((sum, m) => sum + m.measuredMs, 0),
    firstCallMs: median(ok.map((m) => m.firstCallMs)),
  };
}

/** Rounds (1-based) during which other work kept the machine noticeably busy (median over 1.5 busy cores). */
export function busyRoundsOf(busyByRound: readonly (readonly number[])[]): number[] {
  return busyByRound.flatMap((b, r) => (median(b) > 1.5 ? [r + 1] : []));
}
