/** The handler's shared read deadlines: one controller per window, each read given at least its timeout. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ODataError } from '../../src/index.js';
import { deadlines } from '../../src/server/deadlines.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('deadlines', () => {
  it('reads that start within a window share a signal; a later read gets its own', () => {
    const next = deadlines(1000, 50);
    const a = next();
    vi.advanceTimersByTime(20);
    const b = next();
    vi.advanceTimersByTime(40);
    const c = next();
    expect(b.signal).toBe(a.signal);
    expect(c.signal).not.toBe(a.signal);
    for (const d of [a, b, c]) d.done();
  });

  it('a read still running after its timeout is aborted with a 503, never before it', async () => {
    const next = deadlines(1000, 50);
    const first = next();
    vi.advanceTimersByTime(49);
    const late = next();
    let reason: unknown;
    late.expired.catch((error: unknown) => {
      reason = error;
    });
    // The late read has had 1 ms of its 1 000: nothing yet.
    vi.advanceTimersByTime(1000);
    await Promise.resolve();
    expect(late.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    await Promise.resolve();
    expect(late.signal.aborted).toBe(true);
    expect(reason).toBeInstanceOf(ODataError);
    expect((reason as ODataError).status).toBe(503);
    first.done();
    late.done();
  });

  it('a closed window whose reads have all ended keeps no timer', () => {
    const next = deadlines(1000, 50);
    const a = next();
    a.done();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(60);
    const b = next();
    // The first window was closed with nothing pending: its timer is gone.
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(60);
    const c = next();
    expect(vi.getTimerCount()).toBe(2);
    b.done();
    expect(vi.getTimerCount()).toBe(1);
    c.done();
    // done twice counts once.
    c.done();
    expect(vi.getTimerCount()).toBe(1);
  });
});
