/**
 * The MongoDB backend's `find` subset, run by mingo (MongoDB's query language implemented in
 * JavaScript; no MongoDB server can be installed on these machines) against the in-memory backend.
 */
import fc from 'fast-check';
import { Aggregator, Query } from 'mingo';
// mingo registers only the basic operators by default; $expr needs the expression operators too.
import 'mingo/init/system';
import { describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, defineModel, type Row } from '../../../src/index.js';
import { escapeRegex, fromMongoDocument, toMongo, toMongoDocument, type MongoFind, type MongoPipeline } from '../../../src/backends/mongo/to-mongo.js';
import { assertBackendMatchesMemory, modelQueryArbitrary, rowsArbitrary } from '../../../src/testing/index.js';

const model = defineModel({
  namespace: 'M',
  enumTypes: { Status: ['draft', 'active', 'retired'] },
  entityTypes: {
    Item: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        name: 'Edm.String',
        code: 'Edm.String',
        qty: 'Edm.Int32',
        price: 'Edm.Double',
        active: 'Edm.Boolean',
        ref: 'Edm.Guid',
        day: 'Edm.Date',
        at: 'Edm.DateTimeOffset',
      },
    },
    Tagged: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', status: 'Status' } },
  },
  entitySets: { items: { type: 'Item' }, tagged: { type: 'Tagged' } },
});
const itemType = model.entitySets.get('items')!.type;

/** Runs a compiled find with mingo on documents, and maps the result back to rows. */
function runFind(find: MongoFind | MongoPipeline, documents: Record<string, unknown>[], type = itemType): { value: Row[]; count?: number } {
  if (find.kind === 'pipeline') {
    const value = (new Aggregator([...find.pipeline]).run(documents) as Record<string, unknown>[]).map((d) => fromMongoDocument(d, type) as Row);
    return find.count === undefined ? { value } : { value, count: new Query(find.count).find(documents).count() };
  }
  let cursor = new Query(find.filter).find(documents, find.projection);
  if (find.sort !== undefined) cursor = cursor.sort(find.sort as Record<string, 1 | -1>);
  if (find.skip !== undefined) cursor = cursor.skip(find.skip);
  if (find.limit !== undefined) cursor = cursor.limit(find.limit);
  const value = (cursor.all() as Record<string, unknown>[]).map((d) => fromMongoDocument(d, type) as Row);
  return find.count === undefined ? { value } : { value, count: new Query(find.count).find(documents).count() };
}

function query(text: string, rows: Row[], set = 'items') {
  const bound = bindQuery(text, { model, entitySet: set });
  const type = model.entitySets.get(set)!.type;
  const find = toMongo(bound);
  const actual = runFind(find, rows.map((r) => toMongoDocument(r, type)), type);
  const expected = compileQuery(bound).apply(rows);
  return { find, actual, expected };
}

const rows: Row[] = [
  { id: 1, name: 'Pump', code: 'a.b*c', qty: 5, price: 1.5, active: true, ref: 'A0000000-0000-0000-0000-000000000001', day: '2024-02-29', at: '2024-01-01T00:30:00+01:00' },
  { id: 2, name: 'pump', code: '{"$gt":""}', qty: null, price: null, active: false, ref: null, day: null, at: '2023-12-31T23:30:00Z' },
  { id: 3, name: null, code: '$where', qty: 7, price: 2.5, active: null, ref: 'a0000000-0000-0000-0000-000000000003', day: '2023-01-01', at: null },
  { id: 4, name: 'line\n', code: '^x$', qty: 0, price: -1, active: true },
  { id: 5, name: null, code: null, qty: 3, price: 3 },
  { id: 6, name: 'same', code: 'same', qty: null, price: 4 },
];

describe('MongoDB find (run by mingo)', () => {
  const cases = [
    "$filter=name eq 'Pump'",
    "$filter=name ne 'Pump'",
    '$filter=name eq null',
    '$filter=qty gt 4',
    '$filter=not (qty gt 4)',
    '$filter=qty ge null',
    '$filter=5 lt qty',
    '$filter=active',
    '$filter=not active',
    "$filter=contains(code,'.b*')",
    "$filter=contains(code,'$gt')",
    "$filter=code eq '{\"$gt\":\"\"}'",
    "$filter=code eq '$where'",
    "$filter=startswith(code,'^x')",
    "$filter=endswith(name,'\n')",
    "$filter=endswith(name,'p')",
    "$filter=not startswith(name,'P')",
    "$filter=contains(tolower(name),'pu')",
    "$filter=startswith(tolower(name),'PU')",
    "$filter=not startswith(tolower(name),'PU')",
    "$filter=not endswith(tolower(name),'mp')",
    "$filter=contains(tolower(code),'$WHERE')",
    "$filter=tolower(name) eq 'pump'",
    "$filter=tolower(name) eq 'Pump'",
    "$filter=toupper(name) eq 'PUMP'",
    "$filter=tolower(name) ne 'pump'",
    "$filter=tolower(code) eq 'a.b*c'",
    "$filter=not (toupper(name) eq 'PUMP')",
    '$search=PUMP',
    '$search=pu b*',
    '$search=where&$filter=qty gt 1&$count=true',
    '$filter=qty gt price',
    '$filter=qty le price',
    '$filter=not (qty ge price)',
    '$filter=qty eq price',
    '$filter=qty ne price',
    '$filter=name eq code',
    '$filter=qty in (5, 7, null)',
    '$filter=not (qty in (5, 7))',
    "$filter=ref eq A0000000-0000-0000-0000-000000000003",
    '$filter=day lt 2024-01-01',
    '$filter=at gt 2023-12-31T23:00:00Z',
    '$filter=at eq 2023-12-31T23:30:00Z',
    '$orderby=qty desc,name&$top=3&$skip=1&$count=true',
    '$orderby=name&$select=id,name,qty',
    '$top=0&$count=true',
    '$filter=price le 1.5 or active eq false&$orderby=price',
  ];
  it.each(cases)('%s', (text) => {
    const { actual, expected } = query(text, rows);
    expect(actual.value.map((r) => r.id)).toEqual(expected.value.map((r) => r.id));
    expect(actual.count).toEqual(expected.count);
  });

  it('enums are stored and compared as member names', () => {
    const tagged = [{ id: 1, status: 'active' }, { id: 2, status: 'draft' }, { id: 3, status: null }];
    const { actual, expected } = query("$filter=status eq 'active' or status eq null", tagged, 'tagged');
    expect(actual.value.map((r) => r.id)).toEqual([1, 3]);
    expect(expected.value.map((r) => r.id)).toEqual([1, 3]);
    // Ordered by member value (draft < active < retired), not by name.
    for (const text of ["$filter=status gt 'draft'", "$filter=status le 'active'", "$filter=not (status lt 'retired')", "$filter=M.Status'active' ge status"]) {
      const result = query(text, tagged, 'tagged');
      expect(result.actual.value.map((r) => r.id), text).toEqual(result.expected.value.map((r) => r.id));
    }
    expect(query("$filter=status gt 'draft'", tagged, 'tagged').actual.value.map((r) => r.id)).toEqual([1]);
    // $orderby on an enum: an aggregation pipeline with the member values as a computed sort key.
    for (const text of ['$orderby=status desc', '$orderby=status,id&$top=2&$skip=1&$count=true', "$filter=status ne 'retired'&$orderby=status&$select=id", '$orderby=status&$top=0&$count=true']) {
      const result = query(text, [...tagged, { id: 4, status: 'retired' }, { id: 5 }], 'tagged');
      expect(result.find.kind, text).toBe('pipeline');
      expect(result.actual.value.map((r) => r.id), text).toEqual(result.expected.value.map((r) => r.id));
      expect(result.actual.count, text).toEqual(result.expected.count);
    }
    expect(query('$orderby=status desc', tagged, 'tagged').actual.value.map((r) => r.id)).toEqual([1, 2, 3]);
  });

  it('values stay operands: the generated documents for hostile text', () => {
    const find = toMongo(bindQuery("$filter=name eq '$where' and contains(code,'{\"$gt\":1}')&$top=2", { model, entitySet: 'items' }));
    expect(find).toEqual({
      kind: 'find',
      filter: { $and: [{ name: { $eq: '$where' } }, { code: { $regex: '\\{"\\$gt":1\\}' } }] },
      sort: { _id: 1 },
      limit: 2,
    });
  });

  it('escapeRegex: any string matches itself literally, and only itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (text, other) => {
        const exact = new RegExp(`^${escapeRegex(text)}(?![\\s\\S])`, 'u');
        expect(exact.test(text)).toBe(true);
        expect(exact.test(other)).toBe(other === text);
      }),
    );
  });

  it('regex and operator injection: hostile text in contains/startswith/endswith/eq matches only literally', () => {
    const hostile = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'.*+?^$()[]{}|\\/-abAB\n$'.split(''), '$gt', '$where', '{"$ne":null}', '(?i)', '\\z') , maxLength: 6 }),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(fc.option(hostile), { minLength: 1, maxLength: 8 }), hostile, fc.constantFrom('contains', 'startswith', 'endswith', 'eq', 'not contains', 'tolower'), (names, pattern, fn) => {
        const data = names.map((name, i) => ({ id: i, name }));
        const literal = `'${pattern.replaceAll("'", "''")}'`;
        const filter =
          fn === 'eq' ? `name eq ${literal}` : fn === 'not contains' ? `not contains(name,${literal})` : fn === 'tolower' ? `contains(tolower(name),${literal})` : `${fn}(name,${literal})`;
        const { actual, expected } = query(`$filter=${encodeURIComponent(filter)}`, data);
        expect(actual.value.map((r) => r.id)).toEqual(expected.value.map((r) => r.id));
      }),
      { numRuns: 300 },
    );
  });

  it('$search in grammar mode (AND, OR, NOT, phrases) and random terms give the in-memory backend\'s rows', () => {
    for (const text of ['pump AND NOT line', '"a.b" OR same', 'NOT (pump OR same)']) {
      const bound = bindQuery(`$search=${encodeURIComponent(text)}`, { model, entitySet: 'items', parse: { search: 'grammar' } });
      const got = runFind(toMongo(bound), rows.map((r) => toMongoDocument(r, itemType))).value.map((r) => r.id);
      expect(got.sort(), text).toEqual(compileQuery(bound).apply(rows).value.map((r) => r.id).sort());
    }
    fc.assert(
      fc.property(fc.array(fc.option(fc.string({ maxLength: 5 })), { minLength: 1, maxLength: 6 }), fc.string({ minLength: 1, maxLength: 4 }).filter((t) => t.trim() !== ''), (names, text) => {
        const data = names.map((name, i) => ({ id: i, name, code: i % 2 === 0 ? name?.toUpperCase() ?? null : 'x' }));
        const { actual, expected } = query(`$search=${encodeURIComponent(text)}`, data);
        expect(actual.value.map((r) => r.id).sort()).toEqual(expected.value.map((r) => r.id).sort());
      }),
      { numRuns: 200 },
    );
    const hooked = toMongo(bindQuery('$search=pump', { model, entitySet: 'items' }), { search: (_e, { field }) => ({ $text: { $search: 'pump' }, [field('id')]: { $gt: 0 } }) });
    expect(hooked.kind === 'find' && hooked.filter).toEqual({ $text: { $search: 'pump' }, _id: { $gt: 0 } });
  });

  it('an unsupported part is an ODataError pointing at it: code, status, option and position', () => {
    const error = (text: string) => {
      try {
        toMongo(bindQuery(text, { model, entitySet: 'items' }));
      } catch (e) {
        return e as { code: string; status: number; option: string; position: number };
      }
      throw new Error(`no error for ${text}`);
    };
    expect(error('$filter=qty gt 1 and qty add 1 gt 2')).toMatchObject({ code: 'unsupported_feature', status: 400, option: '$filter', position: 13 });
    expect(error('$orderby=name,length(name)')).toMatchObject({ code: 'unsupported_feature', status: 400, option: '$orderby', position: 5 });
  });

  it('unsupported parts are rejected with unsupported_feature, never dropped', () => {
    for (const text of ['$filter=qty add 1 gt 2', "$filter=tolower(name) gt 'a'", '$filter=length(name) gt qty']) {
      expect(() => toMongo(bindQuery(text, { model, entitySet: 'items' }))).toThrow(expect.objectContaining({ code: 'unsupported_feature' }));
    }
  });

  it('the cross-backend harness: random rows and queries give the in-memory backend\'s rows', async () => {
    await assertBackendMatchesMemory({
      model,
      entitySet: 'items',
      numRuns: 150,
      queries: modelQueryArbitrary(model, 'items', { functions: false, navigation: false, collections: false }),
      // mingo orders strings by UTF-16 code unit, MongoDB and the reference by code point: they differ
      // only between U+E000–U+FFFF and astral characters, so the former are replaced here (README).
      rows: rowsArbitrary(model, 'items', { maxLength: 12 }).map((rows) =>
        rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' ? v.replace(/[\uE000-\uFFFF]/g, '?') : v]))),
      ),
      runner: (bound, testRows) => runFind(toMongo(bound), testRows.map((r) => toMongoDocument(r, itemType))),
    });
  });
});
