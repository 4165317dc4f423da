/**
 * Which tenants a client may use, remembered for a short time. Every request that names a tenant
 * is authorized against `client_tenants` (see auth.ts); the answer is kept for
 * `TENANT_ACCESS_CACHE_SECONDS` (default 5, 0 turns it off), so a client's steady stream of
 * requests costs one authorization query per interval instead of one per request.
 *
 * Invalidation: grants only change in the database (the seed, `ensureClient`, an operator); a
 * granted access is believed for at most the interval after it was read, so a revoked grant stops
 * working within it. Refusals are never kept (a refused request always asks the database), so
 * unknown tenant ids cannot fill the cache; it holds at most `maxEntries` grants, the oldest going
 * first.
 */
export class TenantAccessCache {
  private readonly grants = new Map<string, { readonly canWrite: boolean; readonly until: number }>();

  /**
   * @param ttlMs how long a grant is believed (0: never kept)
   * @param maxEntries most grants kept
   * @param now the clock (tests give their own)
   */
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether the client may write in the tenant, if a grant read within the interval says so. */
  get(clientId: string, tenantId: string): { readonly canWrite: boolean } | undefined {
    const key = `${clientId}\n${tenantId}`;
    const grant = this.grants.get(key);
    if (grant === undefined) return undefined;
    if (grant.until <= this.now()) {
      this.grants.delete(key);
      return undefined;
    }
    return grant;
  }

  /** Remembers a grant read from the database. */
  set(clientId: string, tenantId: string, canWrite: boolean): void {
    if (this.ttlMs <= 0) return;
    const key = `${clientId}\n${tenantId}`;
    this.grants.delete(key);
    this.grants.set(key, { canWrite, until: this.now() + this.ttlMs });
    while (this.grants.size > this.maxEntries) this.grants.delete(this.grants.keys().next().value as string);
  }

  /** How many grants are kept. */
  get size(): number {
    return this.grants.size;
  }
}
