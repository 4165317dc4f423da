/**
 * The differential runner compares what users get too (issue 27, item 7): a target's OData JSON
 * records (`BackendResult.json`, what readSqlRows gives) against the reference's rows through
 * jsonRecord, property for property and in the reference's JSON forms; only SQLite's and DuckDB's
 * Decimals held as doubles are excused, by `decimal-json-as-double`.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, jsonRecord, type BoundQuery, type Row } from '../../src/index.js';
import { compareJson, judge, type Outcome } from '../../src/testing/index.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';

const ROWS = fuzzRows.filter((row) => row.id === 1 || row.id === 2);
const bind = (query: string): BoundQuery => bindQuery(query, { model: fuzzModel, entitySet: FUZZ_SET });
const reference = (query: BoundQuery): Outcome => ({ kind: 'rows', result: compileQuery(query, { data: { [FUZZ_SET]: ROWS } }).apply(ROWS) });
/** The reference's rows as a target gives them, with `change` made to its OData JSON records. */
function target(query: BoundQuery, change: (record: Record<string, unknown>) => void): Outcome {
  const result = compileQuery(query, { data: { [FUZZ_SET]: ROWS } }).apply(ROWS);
  const json = result.value.map((row) => {
    const record = jsonRecord(query, row, { ieee754Compatible: true });
    change(record);
    return record;
  });
  return { kind: 'rows', result: { ...result, json } };
}
const first = (f: (record: Record<string, unknown>) => void) => (record: Record<string, unknown>) => void (record.id === 1 && f(record));

describe('the OData JSON comparison', () => {
  const query = bind('$select=id,n64,dec,dbl,at&$orderby=id');

  it('accepts the reference own records', () => {
    expect(
      compareJson(query, (reference(query) as unknown as { result: never }).result, (target(query, () => {}) as unknown as { result: never }).result),
    ).toBeUndefined();
    expect(
      judge(
        query,
        '',
        'DuckDB',
        reference(query),
        target(query, () => {}),
      ),
    ).toEqual({});
  });

  it('finds lost Int64 digits, a value in another JSON form and a property too many or missing', () => {
    const cases: [string, (record: Record<string, unknown>) => void][] = [
      ['n64: expected "9223372036854775807", got "9223372036854775808"', first((r) => (r.n64 = '9223372036854775808'))],
      ['n64: expected the JSON form string', first((r) => (r.n64 = 9223372036854775807))],
      ['dbl: expected the JSON form number', first((r) => (r.dbl = '10.5'))],
    ];
    for (const [detail, change] of cases) {
      const { finding } = judge(query, 'q', 'SQLite (sql.js)', reference(query), target(query, change));
      expect(finding?.class).toBe('row disagreement');
      expect(finding?.detail).toContain('OData JSON (readSqlRows against jsonRecord)');
      expect(finding?.detail).toContain(detail);
    }
    const grouped = bind('$apply=concat(groupby((status)),groupby((flag)))');
    const extra = judge(
      grouped,
      'q',
      'DuckDB',
      reference(grouped),
      target(grouped, (r) => void (Object.hasOwn(r, 'status') && (r.flag = null))),
    );
    expect(extra.finding?.detail).toContain('flag: expected no such property');
  });

  it("excuses a Decimal with its double's digits on SQLite and DuckDB only, and nothing else there", () => {
    const double = first((r) => (r.dec = '12345678901234567000'));
    for (const name of ['SQLite (sql.js)', 'DuckDB'])
      expect(judge(query, 'q', name, reference(query), target(query, double))).toEqual({ excusedBy: 'decimal-json-as-double' });
    expect(judge(query, 'q', 'PostgreSQL (PGlite)', reference(query), target(query, double)).finding?.class).toBe('row disagreement');
    // Not a Decimal that differs at double precision, not another property.
    expect(
      judge(
        query,
        'q',
        'DuckDB',
        reference(query),
        target(
          query,
          first((r) => (r.dec = '12345678901234600000')),
        ),
      ).excusedBy,
    ).toBeUndefined();
    expect(
      judge(
        query,
        'q',
        'DuckDB',
        reference(query),
        target(
          query,
          first((r) => (r.n64 = '9223372036854775808')),
        ),
      ).excusedBy,
    ).toBeUndefined();
    // Not when the rows themselves (the typed comparison) disagree on something else.
    const other = target(query, double);
    const rows = (other as unknown as { result: { value: Row[] } }).result.value.map((row) => (row.id === 2 ? { ...row, dbl: 12345.25 } : row));
    const wrong: Outcome = { kind: 'rows', result: { ...(other as { result: object }).result, value: rows } };
    const verdict = judge(query, 'q', 'DuckDB', reference(query), wrong);
    expect(verdict.excusedBy).toBeUndefined();
  });

  it('judges a Double total beside an enumeration value without failing itself (campaign seed 3120: the judge read an enum type as a structured one)', () => {
    const query = bind('$apply=groupby((status),aggregate(dbl with sum as s))');
    const expected = reference(query);
    if (expected.kind !== 'rows') throw new Error('rows expected');
    // The same totals in their last digits (another order of addition): excused; another total: a finding.
    const nudged = (factor: number): Outcome => ({
      kind: 'rows',
      result: { ...expected.result, value: expected.result.value.map((row) => ({ ...row, s: typeof row.s === 'number' ? row.s * factor : row.s })) },
    });
    expect(judge(query, 'q', 'PostgreSQL (PGlite)', expected, nudged(1 + 2 ** -50))).toEqual({ excusedBy: 'double-sum-order' });
    expect(judge(query, 'q', 'PostgreSQL (PGlite)', expected, nudged(1.5)).finding?.class).toBe('row disagreement');
  });
});
