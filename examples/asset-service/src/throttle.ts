/**
 * Throttling of failed client authentications at the token endpoint: at most `limit` failures per
 * key (a client id, a client address) in a sliding window. Once a key is over its limit, every
 * attempt with it (right or wrong) is refused with 429 `slow_down` until the oldest failure leaves
 * the window, so guessing a secret costs time. Successful attempts are not counted.
 *
 * The counts are kept in memory, for at most `maxKeys` keys (the least recently failed are
 * forgotten first), so a flood of made-up client ids cannot exhaust memory.
 */
import { OAuthError } from './errors.js';

/** Failures per key in a sliding window. */
export class FailureWindow {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string, now: number): number[] {
    const times = this.failures.get(key);
    if (times === undefined) return [];
    while (times.length > 0 && (times[0] as number) <= now - this.windowMs) times.shift();
    if (times.length === 0) this.failures.delete(key);
    return times;
  }

  /** Seconds until `key` may try again (0: it may try now). */
  retryAfterSeconds(key: string): number {
    const now = this.now();
    const times = this.recent(key, now);
    if (times.length < this.limit) return 0;
    return Math.max(1, Math.ceil(((times[0] as number) + this.windowMs - now) / 1000));
  }

  /** Counts a failure of `key`. */
  fail(key: string): void {
    const now = this.now();
    const times = this.recent(key, now);
    times.push(now);
    if (times.length > this.limit) times.shift();
    // Re-inserted, so that the Map's order is the order of the last failure.
    this.failures.delete(key);
    this.failures.set(key, times);
    if (this.failures.size > this.maxKeys) this.prune(now);
  }

  private prune(now: number): void {
    for (const key of [...this.failures.keys()]) this.recent(key, now);
    for (const key of this.failures.keys()) {
      if (this.failures.size <= this.maxKeys) break;
      this.failures.delete(key);
    }
  }

  /** How many keys are tracked (for tests). */
  get size(): number {
    return this.failures.size;
  }
}

/** What {@link issueToken} asks before checking a secret and tells after a failed check. */
export interface TokenGuard {
  /** @throws {OAuthError} 429 `slow_down` when the client id or the address is over its limit */
  check(clientId: string): void;
  /** Counts a failed authentication of `clientId` (and of the address). */
  failed(clientId: string): void;
}

/** The throttle of the token endpoint: one window per client id, one per client address. */
export class TokenThrottle {
  private readonly byClient: FailureWindow;
  private readonly byAddress: FailureWindow;

  constructor(
    options: { readonly failuresPerClient: number; readonly failuresPerAddress: number; readonly failureWindowSeconds: number },
    now: () => number = Date.now,
  ) {
    this.byClient = new FailureWindow(options.failuresPerClient, options.failureWindowSeconds * 1000, 10_000, now);
    this.byAddress = new FailureWindow(options.failuresPerAddress, options.failureWindowSeconds * 1000, 10_000, now);
  }

  /** The guard of one token request from `address`. */
  guard(address: string): TokenGuard {
    return {
      check: (clientId) => {
        const wait = Math.max(this.byAddress.retryAfterSeconds(address), this.byClient.retryAfterSeconds(clientKey(clientId)));
        if (wait > 0)
          throw new OAuthError('slow_down', `Too many failed authentication attempts; try again in ${wait} s.`, 429, { 'retry-after': String(wait) });
      },
      failed: (clientId) => {
        this.byAddress.fail(address);
        this.byClient.fail(clientKey(clientId));
      },
    };
  }
}

/** Client ids are counted by their first 256 characters (longer ones are never valid anyway). */
function clientKey(clientId: string): string {
  return clientId.length > 256 ? clientId.slice(0, 256) : clientId;
}
