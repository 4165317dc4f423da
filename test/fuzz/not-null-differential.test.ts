/**
 * A short seeded differential run of filters heavy in `not`, `and`/`or` and nulls (the lowering
 * of conditions, src/passes/lower-conditions.ts) on every in-process target (PGlite, sql.js,
 * DuckDB, mingo; live servers when their URLs are set) against the reference, which does not lower.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fuzzDifferential, type GeneratedQuery } from '../../src/testing/index.js';
import { openTargets } from '../fixtures/differential-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';
import { notNullHeavyFilter } from '../fixtures/not-null-filters.js';

const queries: fc.Arbitrary<GeneratedQuery> = notNullHeavyFilter().map((filter) => ({
  text: `$filter=${encodeURIComponent(filter)}&$orderby=id`,
  readable: `$filter=${filter}&$orderby=id`,
}));

describe('not/null-heavy filters on every backend', () => {
  let opened: Awaited<ReturnType<typeof openTargets>> | undefined;
  beforeAll(async () => {
    opened = await openTargets(fuzzModel, FUZZ_SET, fuzzRows);
  }, 60_000);
  afterAll(async () => {
    await opened?.close();
  });

  it('give the reference rows or its ODataError on every target (300 seeded queries)', async () => {
    const targets = opened?.targets ?? [];
    const campaign = { count: 300, seed: 20261127, concurrency: 4, maxShrinks: 4, shrinkTimeLimitMs: 1500, timeLimitMs: 60_000 };
    const report = await fuzzDifferential({ model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets, queries, ...campaign });
    expect(report.queries).toBeGreaterThan(100);
    expect(report.bound / report.queries).toBeGreaterThan(0.99);
    // Rows on every target: the filters are of the subset every backend compiles.
    expect(report.referenceRows).toBeGreaterThan(0);
    expect(report.distinct.map((f) => `[${f.target}] ${f.class}: ${f.reproduction}\n    ${f.detail.slice(0, 240)}`).join('\n')).toBe('');
  }, 150_000);
});
