/**
 * Temporal literals at the edges of what databases store, on every engine (PGlite, sql.js, a live
 * PostgreSQL, a live MariaDB, mingo) against the in-memory reference:
 * - a DateTimeOffset, TimeOfDay or Duration literal finer than the database's fraction of a second
 *   (PostgreSQL and MariaDB keep microseconds, BSON dates milliseconds) is compared exactly, never
 *   rounded by the database (`time eq 00:00:00.0000005` matches nothing);
 * - Date and DateTimeOffset literals outside the years 0001 to 9999 are the binder's
 *   `invalid_literal` everywhere, never a database error (PostgreSQL has no year 0000 in ISO input).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDifferential, type DifferentialTarget } from '../../src/testing/index.js';
import { openTargets } from '../fixtures/differential-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';

const CI = process.env.CI === 'true';
let targets: DifferentialTarget[] = [];
let close: () => Promise<void> = async () => {};

beforeAll(async () => {
  const opened = await openTargets(fuzzModel, FUZZ_SET, fuzzRows);
  if (opened.skipped.length > 0) {
    if (CI) throw new Error(`CI needs ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL (missing: ${opened.skipped.join(', ')})`);
    console.warn(`[temporal-edges] skipped without a URL: ${opened.skipped.join(', ')}`);
  }
  targets = opened.targets;
  close = opened.close;
}, 60_000);
afterAll(() => close());

/** Every target gives the reference's rows (never a refusal), and the reference gives `rows` ids. */
async function sameRows(text: string): Promise<number[]> {
  const result = await runDifferential(text, { model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets });
  expect(result.findings, text).toEqual([]);
  for (const [name, outcome] of result.outcomes) expect(outcome.kind, `${name}: ${text}`).toBe('rows');
  const reference = result.reference as { kind: string; result?: { value: { id: number }[] } };
  expect(reference.kind, text).toBe('rows');
  return (reference.result?.value ?? []).map((row) => row.id);
}

describe('literals finer than a database stores are compared exactly', () => {
  it('TimeOfDay: eq matches nothing, ne everything, order comparisons use the stored fraction', async () => {
    expect(await sameRows('$filter=time eq 00:00:00.0000005')).toEqual([]);
    expect(await sameRows('$filter=00:00:00.0000005 eq time')).toEqual([]);
    expect((await sameRows('$filter=time ne 00:00:00.0000005')).length).toBe(fuzzRows.length);
    // Rows 5 and 11 are 00:00:00: below the literal, not at it.
    expect(await sameRows('$filter=time lt 00:00:00.0000005&$orderby=id')).toEqual([5, 11]);
    expect(await sameRows('$filter=time le 00:00:00.0000005&$orderby=id')).toEqual([5, 11]);
    expect(await sameRows('$filter=00:00:00.0000005 gt time&$orderby=id')).toEqual([5, 11]);
    expect(await sameRows('$filter=time ge 23:59:59.9999999&$orderby=id')).toEqual([]);
    await sameRows('$filter=time gt 00:00:00.0000005&$orderby=id');
    await sameRows('$filter=not (time le 12:00:00.0000001)&$orderby=id');
  });

  it('DateTimeOffset, also against a Date column, and in lists', async () => {
    expect(await sameRows('$filter=born eq 1970-01-01T00:00:00.0000001Z')).toEqual([]);
    expect(await sameRows('$filter=at eq 1970-01-01T00:00:00.0000001Z')).toEqual([]);
    expect(await sameRows('$filter=at gt 1970-01-01T00:00:00.0000001Z and at lt 1970-01-02T00:00:00Z')).toEqual([]);
    expect(await sameRows('$filter=at ge 1969-12-31T23:59:59.9999999Z and at le 1970-01-01T00:00:00.0000001Z')).toEqual([5]);
    expect(await sameRows('$filter=at lt 2024-02-29T12:00:00.1230005Z and at gt 2024-02-29T12:00:00Z')).toEqual([4]);
    expect(await sameRows('$filter=at in (1970-01-01T00:00:00.0000001Z,1970-01-01T00:00:00Z)')).toEqual([5]);
    expect(await sameRows('$filter=at in (1970-01-01T00:00:00.0000001Z)')).toEqual([]);
    expect((await sameRows('$filter=not (at in (1970-01-01T00:00:00.0000001Z))')).length).toBe(fuzzRows.length);
    await sameRows('$filter=at le 9999-12-31T23:59:59.9999999Z');
    await sameRows('$expand=children($filter=at gt 2024-02-29T12:00:00.1230005Z;$orderby=id)');
  });

  it('Durations', async () => {
    expect(await sameRows("$filter=span eq duration'PT0.0000001S'")).toEqual([]);
    expect(await sameRows("$filter=span lt duration'PT0.0000001S'&$orderby=id")).toEqual([5]);
    await sameRows("$filter=span gt duration'-PT0.0000001S'&$orderby=id");
  });

  it('elsewhere (arithmetic) such a literal is refused by the backends that would round it, with its position', async () => {
    const text = "$filter=(at add duration'PT0.0000001S') eq at";
    const result = await runDifferential(text, { model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets });
    expect(result.findings).toEqual([]);
    for (const [name, outcome] of result.outcomes) {
      if (outcome.kind === 'odata') expect(outcome.code, name).toBe('unsupported_feature');
      else expect(outcome.kind, name).toBe('rows');
    }
  });

  it('where the backend stores such an instant (SQLite: 12 digits), shifting it keeps it in range up to the last picosecond (seed 20261136)', async () => {
    const finest = 'case((name eq null):at,true:9999-12-31T23:59:59.9999999Z)';
    const cases: [string, number[]][] = [
      [`$filter=at eq (${finest} add duration'PT0S')&$orderby=id`, [7]],
      [`$filter=(${finest} add duration'PT0.000001S') eq null and id le 3&$orderby=id`, [1, 2, 3]],
      [`$filter=(${finest} sub duration'PT1S') gt 9999-12-31T23:59:58.9999998Z and id le 3&$orderby=id`, [1, 2, 3]],
      [`$filter=(case((name eq null):at,true:0001-01-01T00:00:00.0000001Z) sub duration'PT0.000001S') eq null and id le 3&$orderby=id`, [1, 2, 3]],
    ];
    for (const [text, ids] of cases) {
      const result = await runDifferential(text, { model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets });
      expect(result.findings, text).toEqual([]);
      expect(
        (result.reference as { result?: { value: { id: number }[] } }).result?.value.map((r) => r.id),
        text,
      ).toEqual(ids);
      for (const [name, outcome] of result.outcomes) {
        if (/sqlite/i.test(name)) expect(outcome.kind, `${name}: ${text}`).toBe('rows');
        else if (outcome.kind === 'odata') expect(outcome.code, name).toBe('unsupported_feature');
        else expect(outcome.kind, name).toBe('rows');
      }
    }
  });
});

describe('Date and DateTimeOffset literals outside the years 0001 to 9999', () => {
  for (const text of [
    '$filter=born eq -0001-12-31',
    '$filter=0001-01-01 in (0000-01-01)',
    '$filter=at ge 10000-01-01T00:00:00Z',
    '$filter=born lt 10000-01-01',
  ]) {
    it(`${text} is invalid_literal, the same on every engine`, async () => {
      const result = await runDifferential(text, { model: fuzzModel, entitySet: FUZZ_SET, rows: fuzzRows, targets });
      expect(result.findings).toEqual([]);
      expect(result.bound).toBeUndefined();
      expect(result.reference).toMatchObject({ kind: 'odata', code: 'invalid_literal' });
    });
  }
});

describe('dates of the years 1 to 99 leave every driver as written (fuzz seed 777: PGlite read 0001 as 2001)', () => {
  const computed = ['mindatetime()', '0001-01-01T00:00:00Z', '0099-12-31T23:59:59.5Z', '0050-06-15T12:00:00+05:30', "at sub duration'P739000D'"];
  for (const value of computed) {
    it(`$compute=${value} as m, selected, filtered and ordered by`, async () => {
      await sameRows(`$compute=${value} as m&$select=id,m&$orderby=id`);
      await sameRows(`$compute=${value} as m&$filter=m lt 0100-01-01T00:00:00Z or m eq null&$select=id,m&$orderby=m,id`);
    });
  }
  it('Dates of those years, computed from instants and as literals', async () => {
    await sameRows('$compute=date(mindatetime()) as d,0042-03-04 as e&$select=id,d,e&$orderby=id');
    // Date arithmetic is refused by the SQL backend (unsupported_feature), the same wherever refused.
    const result = await runDifferential(`$compute=born sub duration'P730000D' as d&$select=id,d&$orderby=id`, {
      model: fuzzModel,
      entitySet: FUZZ_SET,
      rows: fuzzRows,
      targets,
    });
    expect(result.findings).toEqual([]);
  });
});
