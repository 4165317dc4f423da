/** The example service's tenant-grant cache: believed for its interval only, bounded, off at 0. */
import { describe, expect, it } from 'vitest';
import { TenantAccessCache } from '../../../examples/asset-service/src/tenant-access.js';

describe('tenant access cache', () => {
  it('believes a grant for its interval only', () => {
    let now = 1000;
    const cache = new TenantAccessCache(5000, 10, () => now);
    expect(cache.get('c', 't')).toBeUndefined();
    cache.set('c', 't', true);
    expect(cache.get('c', 't')).toEqual({ canWrite: true, until: 6000 });
    expect(cache.get('c', 'other')).toBeUndefined();
    expect(cache.get('other', 't')).toBeUndefined();
    now = 5999;
    expect(cache.get('c', 't')?.canWrite).toBe(true);
    now = 6000;
    // Expired: the database is asked again (a revoked grant stops working within the interval).
    expect(cache.get('c', 't')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries grants, the oldest going first, and nothing with an interval of 0', () => {
    const cache = new TenantAccessCache(60_000, 3, () => 0);
    for (const tenant of ['a', 'b', 'c', 'd']) cache.set('client', tenant, false);
    expect(cache.size).toBe(3);
    expect(cache.get('client', 'a')).toBeUndefined();
    expect(cache.get('client', 'd')?.canWrite).toBe(false);
    const off = new TenantAccessCache(0, 3, () => 0);
    off.set('client', 'a', true);
    expect(off.size).toBe(0);
    expect(off.get('client', 'a')).toBeUndefined();
  });
});
