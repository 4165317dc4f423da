/**
 * `readSqlRows` on real engines: for queries with `$select`, complex values, `$expand` (nested,
 * `/$count`, `/$ref`, `$count=true` inside) over every EDM type the SQL storage conventions cover,
 * the records read from PGlite, sql.js, DuckDB (and the live PostgreSQL and MariaDB servers when
 * their URL is set) equal the in-memory reference's records written as OData JSON, in both
 * number modes, and are plain JSON (no bigint, Date or driver object survives).
 */
import pg from 'pg';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonNumber, parseExactly, parseJsonText } from '../../../src/util/json-text.js';
import { bindQuery, compileQuery, defineModel, jsonRecord, ODataError, readSqlRows, toSql, type BoundQuery, type Row } from '../../../src/index.js';
import { compareResults } from '../../../src/testing/index.js';
import { engines, load, mysqlServer, pglite, postgresServer, sqlite, type Engine } from '../../fixtures/sql-engines.js';

const model = defineModel({
  namespace: 'Rows',
  enumTypes: { Status: ['draft', 'active', 'retired'], Access: { members: { read: 1, write: 2, admin: 4, readWrite: 3 }, flags: true } },
  complexTypes: {
    Geo: { properties: { lat: 'Edm.Double', lon: 'Edm.Double' } },
    Place: { properties: { city: 'Edm.String', zip: 'Edm.Int32', geo: 'Geo' } },
  },
  entityTypes: {
    Item: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        name: 'Edm.String',
        small: 'Edm.Int16',
        byte: 'Edm.Byte',
        big: 'Edm.Int64',
        amount: 'Edm.Decimal',
        price: 'Edm.Double',
        ratio: 'Edm.Single',
        active: 'Edm.Boolean',
        guid: 'Edm.Guid',
        born: 'Edm.Date',
        at: 'Edm.DateTimeOffset',
        opens: 'Edm.TimeOfDay',
        span: 'Edm.Duration',
        status: 'Status',
        access: 'Access',
        parentId: 'Edm.Int32',
        tags: 'Collection(Edm.String)',
        place: 'Place',
      },
      navigation: {
        parent: { type: 'Item', constraints: { parentId: 'id' }, partner: 'children' },
        children: { type: 'Collection(Item)', partner: 'parent' },
      },
    },
  },
  entitySets: { read_rows_items: { type: 'Item' } },
});
const SET = 'read_rows_items';

const rows: Row[] = [
  {
    id: 1,
    name: 'Alpha',
    small: -32768,
    byte: 255,
    big: 9223372036854775807n,
    amount: '12345678901234567890.123456789',
    price: 10.5,
    ratio: 0.25,
    active: true,
    guid: 'AAAAAAAA-0000-0000-0000-000000000001',
    born: '2000-02-29',
    at: '2024-01-01T00:30:00.123+01:00',
    opens: '08:30:00',
    span: 'P1DT2H3M4.5S',
    status: 'active',
    access: 'read,write',
    parentId: null,
    tags: ['x', 'y'],
    place: { city: 'Oslo', zip: 150, geo: { lat: 59.9, lon: 10.75 } },
  },
  {
    id: 2,
    name: 'beta "quoted" \\ ü😀',
    small: 7,
    byte: 0,
    big: -9223372036854775808n,
    amount: '0.1',
    price: -0.5,
    ratio: -1.5,
    active: false,
    guid: 'bbbbbbbb-0000-0000-0000-000000000002',
    born: '1999-12-31',
    at: '2023-12-31T23:30:00Z',
    opens: '23:59:59.5',
    span: 'PT0.001S',
    status: 'retired',
    access: 'admin',
    parentId: 1,
    tags: [],
    place: { city: 'Bergen', zip: null, geo: { lat: 60.39, lon: 5.32 } },
  },
  {
    id: 3,
    name: null,
    small: null,
    byte: null,
    big: null,
    amount: null,
    price: null,
    ratio: null,
    active: null,
    guid: null,
    born: null,
    at: null,
    opens: null,
    span: null,
    status: null,
    access: null,
    parentId: 1,
    tags: null,
    place: null,
  },
  {
    id: 4,
    name: '',
    small: 0,
    byte: 1,
    big: '9007199254740993',
    amount: '-50.25',
    price: 1e300,
    ratio: 3,
    active: true,
    guid: 'cccccccc-0000-0000-0000-000000000003',
    born: '0001-01-01',
    at: '9999-12-31T23:59:59.999Z',
    opens: '00:00:00',
    span: 'P400D',
    status: 'draft',
    access: 'readWrite,admin',
    parentId: 2,
    tags: ['z'],
    place: { city: 'Tromsø', zip: 9008, geo: null },
  },
];

const QUERIES = [
  '$orderby=id',
  '$select=id,big,amount,at,born,opens,span,active,guid&$orderby=id desc',
  '$select=id,place&$orderby=id',
  '$select=id,place/city,place/geo&$orderby=id',
  '$select=id,status,access,tags,price,ratio,small,byte&$filter=id ne 3&$orderby=id',
  '$expand=parent&$orderby=id',
  '$select=id&$expand=children($orderby=id desc;$select=id,amount,at,place)&$orderby=id',
  '$select=id&$expand=children($select=id,name;$expand=parent($select=id,big,span,opens),children($select=id;$count=true)),parent($select=id)&$orderby=id',
  '$select=id&$expand=children/$count,parent/$ref&$orderby=id',
  '$select=id&$expand=children($filter=active eq true;$top=1;$count=true;$select=big,access)&$orderby=id',
];

/** The reference's records as OData JSON, on the rows the engine stores (Decimal as doubles where it stores REAL/DOUBLE). */
function reference(query: BoundQuery, stored: readonly Row[], ieee754Compatible: boolean): Record<string, unknown>[] {
  const { value } = compileQuery(query, { data: { [SET]: stored } }).apply(stored);
  return value.map((row) => jsonRecord(query, row, { ieee754Compatible }));
}

/** PostgreSQL's `json` type (OID 114) as text: the drivers would `JSON.parse` it, rounding Int64 and Decimal digits. */
const JSON_OID = 114;

const pgliteExact = (): Promise<Engine> => pglite({ parsers: { [JSON_OID]: (text: string) => text } });

/** The live PostgreSQL server through node-postgres with `json` as text. */
function postgresExact(url: string): Promise<Engine> {
  const getTypeParser = ((oid: number, format?: 'text' | 'binary') =>
    oid === JSON_OID ? (text: string) => text : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser;
  return postgresServer(url, { getTypeParser });
}

/** The shared engines (fixtures/sql-engines.ts), each opened with its driver set to keep digits. */
const EXACT: Record<string, () => Promise<Engine>> = {
  'PostgreSQL (PGlite)': pgliteExact,
  'SQLite (sql.js)': () => sqlite({ useBigInt: true }),
  'PostgreSQL server': () => postgresExact(process.env.ODATA_TEST_POSTGRES_URL as string),
  'MySQL/MariaDB server': () => mysqlServer(process.env.ODATA_TEST_MYSQL_URL as string, { jsonStrings: true }),
};
const ENGINES = engines().map(([name, open, skipped]) => [name, EXACT[name] ?? open, skipped] as const);
/** Engines whose Decimal columns are doubles (the storage conventions). */
const INEXACT_DECIMAL = new Set(['sqlite', 'duckdb']);

/** Whether a value is plain JSON: what JSON.stringify writes and JSON.parse gives back the same. */
function plainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(plainJson);
  return typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && Object.values(value as object).every(plainJson);
}

for (const [name, open, skipped] of ENGINES) {
  describe.skipIf(skipped)(`readSqlRows on ${name}`, () => {
    let engine: Engine;
    let stored: Row[];
    beforeAll(async () => {
      engine = await open();
      await load(engine, model, SET, rows, new Set());
      stored = INEXACT_DECIMAL.has(engine.dialect) ? rows.map((row) => ({ ...row, amount: row.amount === null ? null : Number(row.amount) })) : rows;
    });
    afterAll(async () => {
      await engine?.close();
    });

    it.each(QUERIES)('%s', async (text) => {
      const query = bindQuery(text, { model, entitySet: SET });
      const compiled = toSql(query, { dialect: engine.dialect });
      const raw = await engine.query(compiled.sql, compiled.params);
      for (const ieee754Compatible of [false, true]) {
        const records = readSqlRows(query, compiled, raw, { ieee754Compatible });
        expect(plainJson(records)).toBe(true);
        // The same rows and values as the reference by the harness's own comparison…
        expect(compareResults(query, compileQuery(query, { data: { [SET]: stored } }).apply(stored), { value: records }, { ordered: true })).toBeUndefined();
        // …and exactly its records written as OData JSON (same members, same order, same forms).
        expect(JSON.stringify(records)).toBe(JSON.stringify(reference(query, stored, ieee754Compatible)));
      }
    });
  });
}

describe('readSqlRows values', () => {
  const query = bindQuery('$select=id,big,amount,price,at,born,opens,span,guid,active,status,access,tags,place&$expand=parent($select=big,amount)', {
    model,
    entitySet: SET,
  });
  const compiled = toSql(query, { dialect: 'postgres' });
  const alias = (path: string): string => compiled.columns.find((c) => c.path.join('/') === path)?.alias as string;
  const cells = (values: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(values).map(([path, value]) => [path === 'parent' ? 'e0' : alias(path), value]));

  it('writes each EDM type as OData JSON says, Int64 and Decimal exactly with ieee754Compatible', () => {
    const row = cells({
      id: 1,
      big: '9007199254740993',
      amount: '12345678901234567890.1234567890',
      price: 'NaN',
      at: '2024-01-01 00:30:00.123456+01',
      born: '2024-02-29',
      opens: '08:30:00.000000',
      span: '1 day 02:03:04.5',
      guid: 'AAAAAAAA-0000-0000-0000-000000000001',
      active: 1,
      status: 'active',
      access: '3',
      tags: '["a","b"]',
      'place/city': null,
      'place/zip': null,
      'place/geo/lat': null,
      'place/geo/lon': null,
      parent: '{"big": 9223372036854775807, "amount": 0.10000000000000000001}',
    });
    const exact = readSqlRows(query, compiled, [row], { ieee754Compatible: true })[0];
    expect(exact).toEqual({
      id: 1,
      big: '9007199254740993',
      amount: '12345678901234567890.123456789',
      price: 'NaN',
      at: '2023-12-31T23:30:00.123456Z',
      born: '2024-02-29',
      opens: '08:30:00',
      span: 'P1DT2H3M4.5S',
      guid: 'aaaaaaaa-0000-0000-0000-000000000001',
      active: true,
      status: 'active',
      access: 'readWrite',
      tags: ['a', 'b'],
      place: null,
      parent: { big: '9223372036854775807', amount: '0.10000000000000000001' },
    });
    const numbers = readSqlRows(query, compiled, [row])[0] as Record<string, unknown>;
    expect([numbers.big, numbers.amount, (numbers.parent as Record<string, unknown>).amount]).toEqual([9007199254740992, 12345678901234567000, 0.1]);
  });

  it('refuses a value that is not of its type with an ODataError (500)', () => {
    for (const [path, value] of [
      ['big', 'x'],
      ['at', 'yesterday'],
      ['status', 'unknown'],
      ['tags', '[1,'],
      ['parent', '{"big": true}'],
    ] as const) {
      const row = cells({ [path]: value });
      let error: unknown;
      try {
        readSqlRows(query, compiled, [row]);
      } catch (e) {
        error = e;
      }
      expect(error, path).toBeInstanceOf(ODataError);
      expect(error).toMatchObject({ code: 'invalid_result', status: 500 });
    }
  });
});

describe('readSqlRows spatial values in expanded rows', () => {
  it('reads a point from JSON text that also holds a long number (read exactly, coordinates included), found by the generated-model campaign', () => {
    const places = defineModel({
      namespace: 'Geo',
      entityTypes: {
        Place: {
          key: ['id'],
          properties: { id: 'Edm.Int32', amount: 'Edm.Decimal', p: 'Edm.GeographyPoint', nextId: 'Edm.Int32' },
          navigation: { next: { type: 'Place', constraints: { nextId: 'id' } } },
        },
      },
      entitySets: { places: { type: 'Place' } },
    });
    const query = bindQuery('$select=id&$expand=next($select=amount,p)', { model: places, entitySet: 'places' });
    const compiled = toSql(query, { dialect: 'mysql' });
    const row = { [compiled.columns[0]!.alias]: 1, e0: '{"amount": 0.10000000000000000001, "p": {"type": "Point", "coordinates": [-128, -7.5]}}' };
    expect(readSqlRows(query, compiled, [row], { ieee754Compatible: true })[0]).toEqual({
      id: 1,
      next: { amount: '0.10000000000000000001', p: { type: 'Point', coordinates: [-128, -7.5], crs: { type: 'name', properties: { name: 'EPSG:4326' } } } },
    });
  });
});

describe('the exact JSON reader', () => {
  /** A parsed value with every JsonNumber read as JSON.parse reads it. */
  const asParsed = (value: unknown): unknown =>
    value instanceof JsonNumber
      ? JSON.parse(value.text)
      : Array.isArray(value)
        ? value.map(asParsed)
        : value !== null && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asParsed(v)]))
          : value;

  it('reads what JSON.parse reads, and refuses what it refuses', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(asParsed(parseExactly(text))).toEqual(JSON.parse(text));
        expect(asParsed(parseJsonText(text))).toEqual(JSON.parse(text));
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          expect(() => parseExactly(text)).toThrow(SyntaxError);
          return;
        }
        expect(asParsed(parseExactly(text))).toEqual(expected);
      }),
    );
  });

  it('keeps the digits of long numbers, and __proto__ as an own member', () => {
    const parsed = parseJsonText('{"big": 9223372036854775807, "d": -0.10000000000000000001e-3, "__proto__": 1}') as Record<string, unknown>;
    expect(parsed.big).toEqual(new JsonNumber('9223372036854775807'));
    expect(parsed.d).toEqual(new JsonNumber('-0.10000000000000000001e-3'));
    expect(Object.hasOwn(parsed, '__proto__') && Object.getPrototypeOf(parsed) === Object.prototype).toBe(true);
  });
});
