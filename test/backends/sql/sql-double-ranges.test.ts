/**
 * Order comparisons of a Double with a number literal (`price gt 50`) where NaN is a stored value
 * above every number (PostgreSQL, DuckDB): the column stays bare so an index serves the range, and
 * NaN still compares false as in the reference. Each query must give the in-memory reference's rows
 * on PGlite, DuckDB, a live PostgreSQL and mingo; the plan on PGlite uses the index's range.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindQuery, createTableSql, defineModel, toSql, type Row } from '../../../src/index.js';
import { runDifferential, type DifferentialTarget } from '../../../src/testing/index.js';
import { openTargets } from '../../fixtures/differential-targets.js';
import { pgliteDataDir } from '../../fixtures/pglite-data-dir.js';

const CI = process.env.CI === 'true';
const model = defineModel({
  namespace: 'Ranges',
  entityTypes: {
    Reading: { key: ['id'], properties: { id: 'Edm.Int32', value: { type: 'Edm.Double', nullable: true }, exact: { type: 'Edm.Double', nullable: false } } },
  },
  entitySets: { readings: { type: 'Reading' } },
});
const values = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, null, -1.5, 0, 50, 55, 60, 1e308];
const rows: Row[] = values.map((value, i) => ({ id: i + 1, value, exact: value ?? 7 }));

let targets: DifferentialTarget[] = [];
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  const opened = await openTargets(model, 'readings', rows, ['pglite', 'duckdb', 'postgres', 'mingo']);
  if (opened.skipped.length > 0) {
    if (CI) throw new Error(`CI needs ODATA_TEST_POSTGRES_URL (missing: ${opened.skipped.join(', ')})`);
    console.warn(`[sql-double-ranges] skipped without a URL: ${opened.skipped.join(', ')}`);
  }
  targets = opened.targets;
  close = opened.close;
}, 60_000);
afterAll(() => close());

describe('Double order comparisons with a literal', () => {
  it('give the reference rows with NaN, infinities and null stored, in every position and negated', async () => {
    const problems: string[] = [];
    const queries: string[] = [];
    for (const column of ['value', 'exact']) {
      for (const operator of ['gt', 'ge', 'lt', 'le']) {
        for (const literal of ['50', '-1.5', '0', 'INF', '-INF', '1e308']) {
          queries.push(
            `$filter=${column} ${operator} ${literal}`,
            `$filter=${literal} ${operator} ${column}`,
            `$filter=not (${column} ${operator} ${literal})`,
            `$filter=not (${literal} ${operator} ${column}) or id eq 1`,
          );
        }
      }
    }
    queries.push('$filter=value gt 50 and value lt 60', '$filter=(value add 1) gt 50', '$filter=value gt NaN', '$filter=not (value lt NaN)');
    for (const text of queries) {
      const result = await runDifferential(`${text}&$select=id&$orderby=id`, { model, entitySet: 'readings', rows, targets });
      for (const f of result.findings) problems.push(`[${f.target}] ${f.class}: ${text}\n    ${f.detail.slice(0, 300)}`);
    }
    expect(problems.join('\n')).toBe('');
  }, 120_000);

  it('leave the column bare on PostgreSQL, so that an index serves the range', async () => {
    const db = new PGlite(pgliteDataDir());
    try {
      await db.exec(createTableSql(model.entitySets.get('readings')!, 'postgres'));
      await db.exec('CREATE INDEX readings_value_idx ON "readings" ("value"); SET enable_seqscan = off;');
      const { sql, params } = toSql(bindQuery('$filter=value gt 50 and value lt 60', { model, entitySet: 'readings' }), { dialect: 'postgres' });
      const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${sql}`, [...params])).rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index Cond: \(\(value > '50'::double precision\) AND \(value < 'NaN'::double precision\) AND \(value < '60'::double precision\)\)/);
    } finally {
      await db.close();
    }
  }, 60_000);
});
