/**
 * One `$apply` answer (issue 27, item 7): every backend gives the same rows, property for property
 * and in the same forms.
 * - Rows of `concat` have only their own branch's properties (Data Aggregation, examples 74 and
 *   75): in memory, on every SQL engine (through `readSqlRows`) and on MongoDB (mingo), also after
 *   a second `concat`, with `compute`, `$select`, `$orderby`, `$filter` on a property a row has not
 *   (null, as before) and `$count`.
 * - Aggregates, grouping values and computed values of every type come back in the reference's
 *   storage form from `fromMongoApplyDocument` (a DateTimeOffset as ISO text, not a `Date`), and
 *   as the same OData JSON from `readSqlRows` and `jsonRecord`.
 * - The harness finds both differences of before: the old row forms fail its comparison.
 */
import { Aggregator } from 'mingo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bindQuery,
  compileQuery,
  fromMongoApplyDocument,
  jsonRecord,
  readSqlRows,
  toMongo,
  toMongoDocument,
  toSql,
  type BoundQuery,
  type Row,
} from '../../src/index.js';
import { compareResults, runDifferential } from '../../src/testing/index.js';
import { mingoTarget, withoutBigints } from '../fixtures/differential-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';
import { duckdb, load, pglite, sqlite, type Engine } from '../fixtures/sql-engines.js';

// Rows whose values every engine stores exactly (no Decimal beyond a double, no Int64 beyond 2^53 for mingo).
const ROWS = fuzzRows.filter((row) => [2, 3, 5, 7, 8, 9, 12].includes(row.id as number));
const bind = (query: string): BoundQuery => bindQuery(query, { model: fuzzModel, entitySet: FUZZ_SET });
const reference = (bound: BoundQuery) => compileQuery(bound, { data: { [FUZZ_SET]: ROWS } }).apply(ROWS);

const SQL: readonly (readonly [string, () => Promise<Engine>])[] = [
  ['PostgreSQL (PGlite)', pglite],
  ['SQLite (sql.js)', sqlite],
  ['DuckDB', duckdb],
];
const opened = new Map<string, Engine>();
beforeAll(async () => {
  for (const [name, open] of SQL) {
    const engine = await open();
    await load(engine, fuzzModel, FUZZ_SET, ROWS, new Set());
    opened.set(name, engine);
  }
}, 60_000);
afterAll(async () => {
  for (const engine of opened.values()) await engine.close();
});

/** A record as canonical JSON text: keys sorted (readSqlRows gives the select list's order), bigints as digits. */
function canonical(record: unknown): string {
  return JSON.stringify(record, (_key, value: unknown) => {
    if (typeof value === 'bigint') return String(value);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return value;
  });
}

/** The rows as OData JSON texts, sorted (aggregated rows have no order unless asked for). */
const json = (bound: BoundQuery, rows: readonly Record<string, unknown>[]): string[] =>
  rows.map((row) => canonical(jsonRecord(bound, row, { ieee754Compatible: true }))).sort();

/** The documents mingo gives for the query, read back with fromMongoApplyDocument. */
function mongoRows(bound: BoundQuery): Record<string, unknown>[] {
  const type = fuzzModel.entitySets.get(FUZZ_SET)?.type;
  if (type === undefined) throw new Error(FUZZ_SET);
  const documents = ROWS.map((row) => withoutBigints(toMongoDocument(row, type)));
  const find = withoutBigints(toMongo(bound));
  if (find.kind !== 'pipeline') throw new Error('a query with $apply compiles to a pipeline');
  return (new Aggregator([...find.pipeline]).run(documents) as Record<string, unknown>[]).map((d) => fromMongoApplyDocument(d, bound));
}

const CONCAT: readonly (readonly [string, readonly string[]])[] = [
  // Examples 74 and 75 in the engine's model: each row has its own branch's properties only.
  ['$apply=concat(groupby((status)),groupby((flag)))', ['{"status":"active"}', '{"flag":false}', '{"flag":true}']],
  ['$apply=concat(groupby((status),aggregate($count as n)),aggregate(n32 with sum as s))&$orderby=status', ['{"s":"-2147450769"}', '{"n":"1","status":null}']],
  ['$apply=concat(groupby((status)),groupby((flag)))/compute(1 as one)&$select=flag,one', ['{"one":1}', '{"flag":true,"one":1}']],
  ['$apply=concat(groupby((status)),groupby((flag)))&$filter=flag eq null&$count=true', ['{"status":"retired"}']],
  ['$apply=concat(groupby((status)),groupby((flag)))&$filter=status ne null&$orderby=status desc&$top=2', ['{"status":"retired"}', '{"status":"active"}']],
  [
    '$apply=concat(groupby((status)),groupby((flag)))/concat(filter(flag eq true),groupby((status),aggregate($count as n)))',
    ['{"flag":true}', '{"n":"4","status":null}'],
  ],
  ['$apply=concat(groupby((status)),aggregate($count as n))/groupby((status),aggregate($count as rows))', ['{"rows":"2","status":null}']],
];

describe("rows of concat have only their own branch's properties on every backend", () => {
  it.each(CONCAT)('%s', async (query, some) => {
    const bound = bind(query);
    const expected = reference(bound);
    const texts = json(bound, expected.value);
    // The reference itself: no property of the other branch, not even as null.
    for (const row of some) expect(texts).toContain(canonical(JSON.parse(row)));
    for (const [name, engine] of opened) {
      const compiled = toSql(bound, { dialect: engine.dialect });
      const records = readSqlRows(bound, compiled, await engine.query(compiled.sql, compiled.params), { ieee754Compatible: true });
      expect(records.map((r) => canonical(r)).sort(), name).toEqual(texts);
    }
    expect(json(bound, mongoRows(bound)), 'MongoDB (mingo)').toEqual(texts);
    // And the harness agrees, property presence included, on every target.
    const targets = [mingoTarget(fuzzModel, FUZZ_SET, ROWS)];
    const result = await runDifferential(query, { model: fuzzModel, entitySet: FUZZ_SET, rows: ROWS, targets });
    expect(result.findings).toEqual([]);
  });
});

const SOME = 'filter(id in (2,3,5,8,9,12))';
const FORMS: readonly (readonly [string, boolean])[] = [
  // [query, whether SQL answers it (min/max of Duration and Guid are refused there)]
  [
    `$apply=${SOME}/aggregate(at with max as last,at with min as first,born with max as b,time with max as t,dec with max as d,` +
      'n64 with max as l,dbl with min as x,n32 with average as avg,status with max as st,guid with countdistinct as g)',
    true,
  ],
  [`$apply=${SOME}/aggregate(span with min as s,span with max as m)`, false],
  [`$apply=${SOME}/groupby((at,born,time,span,dec,n64,guid,status,colors,flag,dbl,address/city))`, true],
  [`$apply=${SOME}/groupby((status),aggregate(at with max as last,time with min as t,dec with sum as d,n64 with sum as l))`, true],
  [
    `$apply=${SOME}/compute(at as a2,born as b2,time as t2,span as s2,dec as d2,n64 as l2,guid as g2,status as st2,colors as c2)` +
      '&$select=id,a2,b2,t2,s2,d2,l2,g2,st2,c2',
    true,
  ],
  [`$apply=${SOME}/groupby((status),aggregate(at with max as last))/compute(last as again)`, true],
];

describe("values of $apply come back in the reference's storage forms and as the same OData JSON", () => {
  it.each(FORMS)('%s', async (query, sql) => {
    const bound = bind(query);
    const expected = reference(bound);
    const texts = json(bound, expected.value);
    const mongo = mongoRows(bound);
    expect(compareResults(bound, expected, { value: mongo, forms: 'storage' }), 'MongoDB (mingo), storage forms').toBeUndefined();
    // A DateTimeOffset is ISO text (docs/mongo.md), never a Date.
    for (const row of mongo) for (const value of Object.values(row)) expect(value).not.toBeInstanceOf(Date);
    expect(json(bound, mongo), 'MongoDB (mingo), OData JSON').toEqual(texts);
    if (!sql) return;
    for (const [name, engine] of opened) {
      const compiled = toSql(bound, { dialect: engine.dialect });
      const records = readSqlRows(bound, compiled, await engine.query(compiled.sql, compiled.params), { ieee754Compatible: true });
      expect(records.map((r) => canonical(r)).sort(), name).toEqual(texts);
    }
  });
});

describe('the harness finds the differences of before', () => {
  it("a row of concat carrying the other branch's property as null (memory and SQL before) differs from the reference's", () => {
    const bound = bind('$apply=concat(groupby((status)),groupby((flag)))');
    const expected = reference(bound);
    const output = bound.apply?.output;
    const names = [...(output?.properties.keys() ?? [])];
    // The old form: every property of the output type on every row, null where the branch has none.
    const old: Row[] = expected.value.map((row) => Object.fromEntries(names.map((name) => [name, Object.hasOwn(row, name) ? row[name] : null])));
    expect(compareResults(bound, expected, { value: old })).toMatch(/expected no such property, got null/);
    expect(compareResults(bound, expected, { value: expected.value.map((row) => ({ ...row })) })).toBeUndefined();
  });

  it('a DateTimeOffset aggregate as a Date (fromMongoApplyDocument before) is no storage form, though the same instant', () => {
    const bound = bind(`$apply=${SOME}/aggregate(at with max as last,born with max as b)`);
    const expected = reference(bound);
    const [row] = expected.value;
    expect(typeof row?.last).toBe('string');
    const old = [{ ...row, last: new Date(row?.last as string) }];
    expect(compareResults(bound, expected, { value: old, forms: 'storage' })).toMatch(/last: expected the storage form string, got Date/);
    // A driver's row may hold a Date (PostgreSQL's timestamptz): compared by value only.
    expect(compareResults(bound, expected, { value: old })).toBeUndefined();
    // And an instant that differs is found in either form.
    expect(compareResults(bound, expected, { value: [{ ...row, last: '2099-12-31T23:59:58Z' }], forms: 'storage' })).toMatch(/last: expected/);
  });
});

describe("a concat branch of entities gives its type's properties, null where the stored row lacks one", () => {
  // Row 5 stored without name and address: SQL reads its columns as null, MongoDB has no such fields.
  // (A concat of entities, which have a primitive collection, and groupby rows: PostgreSQL needs the collection's null typed.)
  const without = (row: Row): Row => Object.fromEntries(Object.entries(row).filter(([name]) => name !== 'name' && name !== 'address'));
  const sparse: Row[] = ROWS.map((row) => (row.id === 5 ? without(row) : row));
  const sparseEngines = new Map<string, Engine>();
  beforeAll(async () => {
    for (const [name, open] of SQL) {
      const engine = await open();
      await load(engine, fuzzModel, FUZZ_SET, sparse, new Set());
      sparseEngines.set(name, engine);
    }
  }, 60_000);
  afterAll(async () => {
    for (const engine of sparseEngines.values()) await engine.close();
  });

  it.each([
    '$apply=concat(filter(id le 5),groupby((status)))&$select=id,name,address,status',
    '$apply=concat(filter(id eq 5)/compute(id add 1 as next),groupby((flag)))',
    '$apply=concat(filter(id eq 5),groupby((flag)))/concat(filter(name eq null),identity)&$filter=id eq 5 or id eq null',
  ])('%s', async (query) => {
    const bound = bind(query);
    const expected = compileQuery(bound, { data: { [FUZZ_SET]: sparse } }).apply(sparse);
    const five = expected.value.find((row) => row.id === 5);
    expect(five?.name).toBeNull();
    const texts = json(bound, expected.value);
    for (const [name, engine] of sparseEngines) {
      const compiled = toSql(bound, { dialect: engine.dialect });
      const records = readSqlRows(bound, compiled, await engine.query(compiled.sql, compiled.params), { ieee754Compatible: true });
      expect(records.map((r) => canonical(r)).sort(), name).toEqual(texts);
    }
    const type = fuzzModel.entitySets.get(FUZZ_SET)?.type;
    if (type === undefined) throw new Error(FUZZ_SET);
    const documents = sparse.map((row) => withoutBigints(toMongoDocument(row, type)));
    const find = withoutBigints(toMongo(bound));
    if (find.kind !== 'pipeline') throw new Error('a query with $apply compiles to a pipeline');
    const mongo = (new Aggregator([...find.pipeline]).run(documents) as Record<string, unknown>[]).map((d) => fromMongoApplyDocument(d, bound));
    expect(json(bound, mongo), 'MongoDB (mingo)').toEqual(texts);
    expect(compareResults(bound, expected, { value: mongo, forms: 'storage' })).toBeUndefined();
  });
});
