/**
 * What one client can take from everyone else, bounded:
 *
 * - {@link RequestLimiter}: at most `maxRequestsPerClient` requests of one client run at a time,
 *   at most `maxQueuedPerClient` more wait (first come, first served) for at most `maxQueueWaitMs`;
 *   beyond that 429 with `Retry-After`. At most `maxRequestsTotal` requests are admitted (running
 *   and waiting) across all clients; beyond that 503 with `Retry-After`.
 * - {@link FairLock}: the single connection of the embedded database is handed out fairly across
 *   clients (least recent use first), so a client with four heavy requests running delays another
 *   client's request by at most the one statement that is running, not by four; and a client whose
 *   recent statements ran long runs only while the others leave the database free.
 * - {@link StatementTimeoutError}: a statement that ran longer than the statement time limit
 *   (503 in the envelope, with `Retry-After`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, envelope } from './errors.js';

/** 503: the statement ran longer than the limit and was cancelled (the service keeps answering). */
export class StatementTimeoutError extends AppError {
  constructor(readonly limitMs: number) {
    const message = `The query took longer than the limit of ${limitMs} ms and was cancelled. Narrow it ($filter, $top, $select, $expand) and retry.`;
    super(503, 'ServiceUnavailableException', message, { Message: message, LimitMs: limitMs });
  }
}

/** 503: the database is (briefly) unavailable, e.g. while the embedded database restarts or every connection is busy. */
export class DatabaseBusyError extends AppError {
  constructor(message = 'The database is busy; retry shortly.') {
    super(503, 'ServiceUnavailableException', message, { Message: message });
  }
}

/** Who a database call is made for: the fairness key of {@link FairLock} (the client id). */
export const dbContext = new AsyncLocalStorage<{ readonly key: string }>();

/** The fairness key of the current call ('' outside a request: start-up, token endpoint). */
export function currentKey(): string {
  return dbContext.getStore()?.key ?? '';
}

/**
 * 503: on the embedded database, a statement that ran longer than the preemption limit while other
 * clients waited for the database was cancelled, so that it cannot hold them up to the statement limit.
 */
export class QueryPreemptedError extends AppError {
  constructor(readonly afterMs: number) {
    const message = `The query was cancelled after ${afterMs} ms because other requests were waiting for the database. Narrow it ($filter, $top, $select, $expand) or retry later.`;
    super(503, 'ServiceUnavailableException', message, { Message: message, LimitMs: afterMs });
  }
}

/**
 * How long the lock stays free for the key that just released it when that key has used the lock
 * less than the next waiter (it is likely to come back at once: the tenant check, then the query).
 */
const ANTICIPATE_MS = 50;

/** How fast a key's past use of {@link FairLock} is forgotten: halved every this many ms. */
const USAGE_HALF_LIFE_MS = 1000;

/** How fast a key's longest recent statement is forgotten (see {@link FairLockOptions.heavyMs}): halved every this many ms. */
const LONGEST_HALF_LIFE_MS = 10_000;

/** A heavy key waits until no light key has used the lock for this long (see {@link FairLockOptions.heavyMs}). */
export const QUIET_MS = 500;

/** Options of {@link FairLock}. */
export interface FairLockOptions {
  /**
   * A key whose longest recent statement ran this long (ms; halved every 10 s, a cancelled
   * statement counting as `cancelledMs`) is heavy: it gets the lock only when no light key waits
   * and none has used the lock for {@link QUIET_MS}, so that its statements run while the others
   * are quiet (default: no key is ever heavy).
   */
  readonly heavyMs?: number;
  /** What a cancelled statement counts as, at least, for {@link FairLockOptions.heavyMs} (default `heavyMs`). */
  readonly cancelledMs?: number;
}

/** A decaying quantity: its value and when it was last set. */
interface Decaying {
  readonly value: number;
  readonly at: number;
}

const decayed = (entry: Decaying | undefined, now: number, halfLifeMs: number): number =>
  entry === undefined ? 0 : entry.value * 0.5 ** ((now - entry.at) / halfLifeMs);

/**
 * A mutex shared fairly by keys (clients): when it is released, the waiting key that has used the
 * database least (statement time {@link FairLock.charge}d to it, halved every second) goes next; among equals, the key that
 * waited longest, and the key that just had the lock goes behind the others. A client whose
 * statements take seconds therefore cannot make a client whose statements take milliseconds wait
 * for more than the one statement that is running.
 *
 * With {@link FairLockOptions.heavyMs}, a client whose recent statements ran long (or were
 * cancelled) does not even get that one statement in while light clients are active: it waits
 * for a quiet moment (none for {@link QUIET_MS}), and may be preempted when one arrives (see
 * {@link FairLock.lightWaiting}).
 */
export class FairLock {
  private held = false;
  /** The key that had the lock last: among equals it goes behind the other waiting keys. */
  private last: string | undefined;
  private readonly queues = new Map<string, (() => void)[]>();
  private readonly usage = new Map<string, Decaying>();
  private readonly longest = new Map<string, Decaying>();
  private anticipated: { readonly key: string; readonly timer: NodeJS.Timeout } | undefined;
  /** When a light key last held the lock (-Infinity: never). */
  private lightUsedAt = -Infinity;
  /** Wakes the lock up when the quiet period a heavy waiter needs has passed. */
  private quietTimer: NodeJS.Timeout | undefined;
  private readonly heavyMs: number;
  private readonly cancelledMs: number;

  constructor(options: FairLockOptions = {}) {
    this.heavyMs = options.heavyMs ?? Infinity;
    this.cancelledMs = options.cancelledMs ?? this.heavyMs;
  }

  /** Whether a key other than `key` waits for the lock. */
  othersWaiting(key: string): boolean {
    for (const waiting of this.queues.keys()) if (waiting !== key) return true;
    return false;
  }

  /** Whether a light key (see {@link FairLockOptions.heavyMs}) other than `key` waits for the lock: then a long statement of `key` is worth preempting. */
  lightWaiting(key: string): boolean {
    const now = performance.now();
    for (const waiting of this.queues.keys()) if (waiting !== key && !this.heavy(waiting, now)) return true;
    return false;
  }

  /** Whether `key`'s recent statements make it heavy (see {@link FairLockOptions.heavyMs}). */
  isHeavy(key: string): boolean {
    return this.heavy(key, performance.now());
  }

  private heavy(key: string, now: number): boolean {
    if (this.heavyMs === Infinity) return false;
    const value = decayed(this.longest.get(key), now, LONGEST_HALF_LIFE_MS);
    if (value < 1) this.longest.delete(key);
    return value >= this.heavyMs;
  }

  /** How long heavy keys must still wait for the light ones to be quiet (0: not at all). */
  private quietIn(now: number): number {
    return Math.max(0, this.lightUsedAt + QUIET_MS - now);
  }

  /**
   * Waits for the lock; the result releases it (once). With `waitMs`, a wait longer than that
   * rejects with a {@link DatabaseBusyError} (503) instead.
   */
  acquire(key: string, waitMs?: number): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const grant = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.held = true;
        this.last = key;
        const light = !this.heavy(key, performance.now());
        if (light) this.lightUsedAt = performance.now();
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.held = false;
          if (light) this.lightUsedAt = performance.now();
          this.next(key);
        });
      };
      const now = performance.now();
      const heavyMustWait = this.heavy(key, now) && this.quietIn(now) > 0;
      if (!this.held && !heavyMustWait && (this.queues.size === 0 || this.anticipated?.key === key)) {
        if (this.anticipated !== undefined) clearTimeout(this.anticipated.timer);
        this.anticipated = undefined;
        grant();
        return;
      }
      const queue = this.queues.get(key);
      if (queue === undefined) this.queues.set(key, [grant]);
      else queue.push(grant);
      if (waitMs !== undefined) {
        timer = setTimeout(() => {
          const waiting = this.queues.get(key);
          const index = waiting?.indexOf(grant) ?? -1;
          if (waiting === undefined || index < 0) return;
          waiting.splice(index, 1);
          if (waiting.length === 0) this.queues.delete(key);
          const why = this.heavy(key, performance.now())
            ? ": this client's recent queries were long, and they run while other clients' requests leave the database free"
            : '';
          reject(new DatabaseBusyError(`The database was busy for ${waitMs} ms${why}; retry shortly.`));
        }, waitMs);
      }
      // A heavy key that found the lock free waits for the quiet period, on a timer.
      if (!this.held && this.anticipated === undefined) this.next();
    });
  }

  /**
   * Adds `ms` of database time to `key`'s use (the time its statements ran; waiting for the
   * database, e.g. for a restart caused by another client, is not charged). `cancelled`: the
   * statement was ended before it finished (it counts as at least `cancelledMs`).
   */
  charge(key: string, ms: number, cancelled = false): void {
    const now = performance.now();
    this.usage.set(key, { value: this.used(key, now) + ms, at: now });
    if (this.heavyMs === Infinity) return;
    const statement = cancelled ? Math.max(ms, this.cancelledMs) : ms;
    const longest = decayed(this.longest.get(key), now, LONGEST_HALF_LIFE_MS);
    if (statement > longest) this.longest.set(key, { value: statement, at: now });
  }

  /** How long `key`'s statements ran, recent time weighing more. */
  private used(key: string, now: number): number {
    const value = decayed(this.usage.get(key), now, USAGE_HALF_LIFE_MS);
    if (value < 0.01) this.usage.delete(key);
    return value;
  }

  private next(released?: string): void {
    this.anticipated = undefined;
    if (this.quietTimer !== undefined) clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    const now = performance.now();
    const quietIn = this.quietIn(now);
    let best: string | undefined;
    let bestUsed = Infinity;
    let heavyWaiting = false;
    // Maps iterate in insertion order: among equals, the key that waited longest for a turn.
    for (const key of this.queues.keys()) {
      if (quietIn > 0 && this.heavy(key, now)) {
        heavyWaiting = true;
        continue;
      }
      const used = this.used(key, now) + (key === this.last ? 1e-6 : 0);
      if (used < bestUsed) {
        best = key;
        bestUsed = used;
      }
    }
    if (best === undefined) {
      if (heavyWaiting) {
        this.quietTimer = setTimeout(
          () => {
            this.quietTimer = undefined;
            if (!this.held && this.anticipated === undefined) this.next();
          },
          Math.ceil(quietIn) + 1,
        );
      }
      return;
    }
    if (released !== undefined && released !== best && !this.queues.has(released) && this.used(released, now) < bestUsed) {
      const timer = setTimeout(() => this.next(), ANTICIPATE_MS);
      this.anticipated = { key: released, timer };
      return;
    }
    const queue = this.queues.get(best) as (() => void)[];
    const grant = queue.shift() as () => void;
    this.queues.delete(best);
    // A key with more waiters goes to the back of the line.
    if (queue.length > 0) this.queues.set(best, queue);
    grant();
  }
}

/** The limits of {@link RequestLimiter} (from the configuration). */
export interface RequestLimits {
  readonly maxRequestsPerClient: number;
  readonly maxQueuedPerClient: number;
  readonly maxRequestsTotal: number;
  readonly maxQueueWaitMs: number;
}

/** Why a request was refused: the client's own limit (429) or the service-wide one (503). */
export type Refusal = 'client' | 'total' | 'timeout';

interface Waiter {
  readonly start: () => void;
  readonly refuse: (why: Refusal) => void;
}

/** Counts running and waiting requests per client and in total; see the module documentation. */
export class RequestLimiter {
  private total = 0;
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(readonly limits: RequestLimits) {}

  /** Requests admitted now (running and waiting), for tests and metrics. */
  get admitted(): number {
    return this.total;
  }

  /** Admits a request of `key`: resolves with its release when it may run, rejects with a {@link Refusal}. */
  acquire(key: string): Promise<() => void> {
    const { maxRequestsPerClient, maxQueuedPerClient, maxRequestsTotal, maxQueueWaitMs } = this.limits;
    if (this.total >= maxRequestsTotal) return Promise.reject<() => void>('total' satisfies Refusal);
    const running = this.running.get(key) ?? 0;
    const queue = this.waiting.get(key) ?? [];
    if (running >= maxRequestsPerClient && queue.length >= maxQueuedPerClient) return Promise.reject<() => void>('client' satisfies Refusal);
    this.total += 1;
    const release = this.releaser(key);
    if (running < maxRequestsPerClient) {
      this.running.set(key, running + 1);
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const list = this.waiting.get(key) ?? [];
        const index = list.indexOf(waiter);
        if (index >= 0) list.splice(index, 1);
        if (list.length === 0) this.waiting.delete(key);
        this.total -= 1;
        waiter.refuse('timeout');
      }, maxQueueWaitMs);
      timer.unref();
      const waiter: Waiter = {
        start: () => {
          clearTimeout(timer);
          resolve(release);
        },
        refuse: (why) => reject(why),
      };
      queue.push(waiter);
      this.waiting.set(key, queue);
    });
  }

  private releaser(key: string): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.total -= 1;
      const queue = this.waiting.get(key);
      const next = queue?.shift();
      if (queue !== undefined && queue.length === 0) this.waiting.delete(key);
      if (next !== undefined) {
        next.start(); // the slot passes to the next waiter of the same client
        return;
      }
      const running = (this.running.get(key) ?? 1) - 1;
      if (running <= 0) this.running.delete(key);
      else this.running.set(key, running);
    };
  }
}

/**
 * Registers the request limits on the tenant routes (before the tenant authorization, whose query
 * is bounded too), and the `Retry-After` header on statement timeouts.
 *
 * @param clientOf the client of a tenant request with a valid token (undefined otherwise: other
 *   routes, and requests that the authentication hook will answer with 401)
 */
export function registerLimits(app: FastifyInstance, limits: RequestLimits, clientOf: (request: FastifyRequest) => string | undefined): RequestLimiter {
  const limiter = new RequestLimiter(limits);
  const retryAfter = String(Math.max(1, Math.ceil(limits.maxQueueWaitMs / 1000 / 4)));
  const refuse = async (request: FastifyRequest, reply: FastifyReply, why: Refusal): Promise<void> => {
    const traceId = String(request.id);
    const message =
      why === 'client'
        ? `Too many concurrent requests from this client (at most ${limits.maxRequestsPerClient} running and ${limits.maxQueuedPerClient} waiting); retry after ${retryAfter} s.`
        : why === 'timeout'
          ? `The request waited longer than ${limits.maxQueueWaitMs} ms behind this client's other requests; retry after ${retryAfter} s.`
          : 'The service is handling too many requests; retry shortly.';
    const status = why === 'total' ? 503 : 429;
    const type = why === 'total' ? 'ServiceUnavailableException' : 'TooManyRequestsException';
    request.log.warn({ refusal: why }, 'request refused by the concurrency limits');
    await reply
      .code(status)
      .header('trace-id', traceId)
      .header('retry-after', retryAfter)
      .send(envelope(type, { Message: message }, traceId));
  };
  app.addHook('onRequest', (request, reply, done) => {
    const client = clientOf(request);
    if (client === undefined) {
      done();
      return;
    }
    limiter.acquire(client).then(
      (release) => {
        // Released when the response is finished or the connection closes, whichever comes first.
        reply.raw.once('close', release);
        if (reply.raw.destroyed) release();
        // The handler's database calls carry the client as their fairness key.
        dbContext.run({ key: client }, done);
      },
      (why: Refusal) => {
        // The hook answers itself: `done` is not called after a reply was sent.
        refuse(request, reply, why).catch((error: unknown) => done(error as Error));
      },
    );
  });
  app.addHook('onError', async (_request, reply, error) => {
    if (error instanceof StatementTimeoutError || error instanceof QueryPreemptedError || error instanceof DatabaseBusyError) reply.header('retry-after', '1');
  });
  return limiter;
}
