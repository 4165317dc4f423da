/**
 * Chained and nested `concat` (issue 26) on every engine — PGlite, sql.js, DuckDB, mingo, and the
 * live PostgreSQL and MariaDB when their URLs are set — against the in-memory reference, up to the
 * default fan-out (16): the SQL reads each concat's input as one common table expression, also
 * inside a branch, and a groupby with aggregates along a navigation path reads its rows once.
 * MongoDB refuses a concat inside a concat branch (`$facet` cannot nest: unsupported_feature).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDifferential } from '../../src/testing/index.js';
import { openTargets } from '../fixtures/differential-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';

const CI = process.env.CI === 'true';
let opened: Awaited<ReturnType<typeof openTargets>> | undefined;
beforeAll(async () => {
  opened = await openTargets(fuzzModel, FUZZ_SET, fuzzRows);
  if (opened.skipped.length > 0) {
    if (CI) throw new Error(`CI needs ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL (missing: ${opened.skipped.join(', ')})`);
    console.warn(`[apply-concat-engines] skipped without a URL: ${opened.skipped.join(', ')}`);
  }
}, 60_000);
afterAll(async () => {
  await opened?.close();
});

const n = fuzzRows.length;
const positive = fuzzRows.filter((row) => typeof row.n32 === 'number' && row.n32 > 0).length;

// Entities are read with $select of columns every engine stores exactly (mingo has no Int64: DEVIATIONS).
/** Queries and the number of rows the reference must give (computed here from the rows). */
const CASES: readonly (readonly [string, number | undefined])[] = [
  // The chain at the default limit: 2^4 = 16 times the rows at most.
  [`$apply=${Array.from({ length: 4 }, () => 'concat(filter(n32 gt 0),identity)').join('/')}&$count=true&$select=id,name,n32`, countChain(4)],
  [
    '$apply=concat(identity,identity)/concat(filter(n32 gt 0),identity)/filter(n32 ne 7)/concat(identity,filter(flag eq true))&$orderby=id&$top=40&$select=id,flag,n32,name',
    undefined,
  ],
  [
    '$apply=concat(filter(n32 gt 0)/concat(filter(n32 gt 2),identity),identity)/concat(identity,identity)&$count=true',
    2 * (fuzzRows.filter((r) => typeof r.n32 === 'number' && r.n32 > 2).length + positive + n),
  ],
  ['$apply=concat(filter(n32 gt 0)/concat(identity,filter(flag eq true))/groupby((status),aggregate($count as c)),aggregate($count as c))', undefined],
  [
    '$apply=concat(filter(n32 ne 3),identity)/concat(identity,filter(n32 gt 0))/groupby((status),aggregate($count as c,n32 with sum as s))&$orderby=status',
    undefined,
  ],
  // 4 copies of 1e308: PostgreSQL's SUM failed ("value out of range: overflow"), MariaDB's gave 0;
  // now ±INF as in the reference (null on MariaDB, which has no INF: a documented deviation).
  [
    '$apply=concat(identity,identity)/concat(identity,identity)/groupby((flag),aggregate(dbl with sum as s,dbl with average as a,$count as c))&$orderby=flag',
    undefined,
  ],
  [
    '$apply=filter(n32 ne 3)/filter(id gt 1)/groupby((status),aggregate(parent/n32 with sum as s,parent/n32 with max as m,$count as c))&$orderby=status',
    undefined,
  ],
];

/** Rows of k chained `concat(filter(n32 gt 0),identity)`: each step keeps the rows and adds those with n32 > 0. */
function countChain(k: number): number {
  let all = n;
  let matching = positive;
  for (let i = 0; i < k; i++) {
    all += matching;
    matching *= 2;
  }
  return all;
}

describe('chained and nested concat give the reference rows on every engine', () => {
  for (const [query, rows] of CASES) {
    it(
      query,
      async () => {
        const result = await runDifferential(query, { model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets: opened?.targets ?? [] });
        expect(result.reference.kind, result.reference.kind === 'odata' ? result.reference.message : '').toBe('rows');
        if (rows !== undefined && result.reference.kind === 'rows') {
          const { value, count } = result.reference.result;
          expect(count ?? value.length).toBe(rows);
        }
        expect(result.findings.map((f) => `[${f.target}] ${f.class}: ${f.detail.slice(0, 300)}`)).toEqual([]);
        // Every SQL engine answered (none excused); MongoDB may refuse nested concat only.
        for (const [target, outcome] of result.outcomes) {
          if (target.startsWith('MongoDB'))
            expect(outcome.kind === 'rows' || (outcome.kind === 'odata' && outcome.code === 'unsupported_feature'), target).toBe(true);
          else expect(outcome.kind, `${target}: ${outcome.kind === 'odata' ? outcome.message : outcome.kind}`).toBe('rows');
        }
      },
      60_000,
    );
  }
});
