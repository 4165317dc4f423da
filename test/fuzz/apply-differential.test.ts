/**
 * Random `$apply` pipelines (issue 16, `applyQueryArbitrary`: a typed `filter`, then `groupby`
 * with `aggregate` or `aggregate` alone over every kind of property and single-valued navigation
 * path, then `$filter`, `$orderby`, paging and `$count`) on every engine — PGlite, sql.js, DuckDB,
 * live PostgreSQL, live MariaDB and mingo — compared with the in-memory reference: each gives its
 * rows (as multisets: aggregated rows have no key) or its ODataError, but for documented
 * deviations, which the runner excuses.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyQueryArbitrary, fuzzDifferential, type DistinctFinding } from '../../src/testing/index.js';
import { model as treeModel, SET as TREE_SET } from '../fixtures/hierarchy-tree.js';
import { openTargets } from '../fixtures/differential-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';

const CI = process.env.CI === 'true';
const QUERIES = Number(process.env.FUZZ_APPLY_QUERIES ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 20261127);

let opened: Awaited<ReturnType<typeof openTargets>> | undefined;
beforeAll(async () => {
  opened = await openTargets(fuzzModel, FUZZ_SET, fuzzRows);
  if (opened.skipped.length > 0) {
    if (CI) throw new Error(`CI needs ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL (missing: ${opened.skipped.join(', ')})`);
    console.warn(`[apply-differential] skipped without a URL: ${opened.skipped.join(', ')}`);
  }
}, 60_000);
afterAll(async () => {
  await opened?.close();
});

function show(findings: readonly DistinctFinding[]): string {
  return findings.map((f) => `[${f.target}] ${f.class} (${f.occurrences}×): ${f.reproduction}\n    ${f.detail.slice(0, 300)}`).join('\n');
}

describe('random $apply pipelines on every engine', () => {
  it('hierarchical transformations go through a collection to the nodes too (children/id, 6.2.1)', () => {
    const texts = fc.sample(applyQueryArbitrary(treeModel, TREE_SET), { seed: 7, numRuns: 2000 }).map((q) => decodeURIComponent(q.text));
    const hierarchical = texts.filter((t) => /(ancestors|descendants|traverse)\(\$root\/nodes,(Tree|Names),/.test(t));
    expect(hierarchical.some((t) => /(Tree,children\/id|Names,children\/name)/.test(t))).toBe(true);
    expect(hierarchical.some((t) => /(Tree,id|Names,name),/.test(t))).toBe(true);
  });

  it(`${QUERIES} seeded pipelines give the reference's rows or its ODataError`, async () => {
    const report = await fuzzDifferential({
      model: fuzzModel,
      entitySet: FUZZ_SET,
      rows: fuzzRows,
      targets: opened?.targets ?? [],
      queries: applyQueryArbitrary(fuzzModel, FUZZ_SET),
      count: QUERIES,
      seed: SEED,
      concurrency: 8,
      maxShrinks: 8,
      shrinkTimeLimitMs: 1500,
      timeLimitMs: 40_000,
    });
    expect(report.queries).toBeGreaterThan(Math.min(QUERIES, 100));
    expect(report.bound / report.queries).toBeGreaterThan(0.9);
    expect(show(report.distinct), `findings (seed ${SEED})`).toBe('');
  }, 150_000);
});
