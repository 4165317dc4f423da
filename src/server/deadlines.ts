/**
 * Read deadlines, shared: the reads that start within one window (`windowMs`) share one
 * `AbortController`, one timer and one expiry, so that a request costs no controller of its own
 * (an `AbortSignal` is among the dearest objects a request would make). Each read is given at
 * least `timeoutMs` and at most `timeoutMs + windowMs`. A window's timer is cleared once it is
 * closed and its last read has ended, and never keeps a process alive.
 */
import { ODataError } from '../errors/odata-error.js';

/** One window's deadline: the signal given to the source and the expiry a read races. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Rejects with a 503 `ODataError` when the deadline passes. */
  readonly expired: Promise<never>;
  /** Call when the read ends (its result or its error). */
  readonly done: () => void;
}

interface Window {
  readonly opened: number;
  readonly controller: AbortController;
  readonly expired: Promise<never>;
  timer: ReturnType<typeof setTimeout> | undefined;
  pending: number;
}

/** The deadline of the next read, `timeoutMs` from now (shared within `windowMs`). */
export function deadlines(timeoutMs: number, windowMs = 50): () => Deadline {
  let current: Window | undefined;
  const stop = (window: Window): void => {
    if (window.timer !== undefined) clearTimeout(window.timer);
    window.timer = undefined;
  };
  const open = (now: number): Window => {
    const controller = new AbortController();
    let reject: (error: ODataError) => void = () => {};
    const expired = new Promise<never>((_, fail) => {
      reject = fail;
    });
    // Raced by each read; nobody waits on it once they are all done.
    expired.catch(() => {});
    const window: Window = { opened: now, controller, expired, timer: undefined, pending: 0 };
    window.timer = setTimeout(() => {
      window.timer = undefined;
      controller.abort();
      reject(new ODataError({ code: 'service_unavailable', status: 503, reason: 'The data source did not answer in time', appendLocation: false }));
    }, timeoutMs + windowMs);
    // An idle window's timer does not keep a process (a script, a test) alive.
    (window.timer as { unref?: () => void }).unref?.();
    return window;
  };
  return () => {
    const now = Date.now();
    if (current === undefined || now - current.opened >= windowMs || current.controller.signal.aborted) {
      if (current !== undefined && current.pending === 0) stop(current);
      current = open(now);
    }
    const window = current;
    window.pending++;
    let finished = false;
    return {
      signal: window.controller.signal,
      expired: window.expired,
      done: () => {
        if (finished) return;
        finished = true;
        window.pending--;
        // The last read of a closed window: its timer has nothing left to end.
        if (window.pending === 0 && window !== current) stop(window);
      },
    };
  };
}
