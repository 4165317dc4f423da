/**
 * Options on `$select` items (OData 4.01): `$select=addresses($filter=…;$orderby=…;$top=…;$skip=…;
 * $count=true;$select=…;$compute=…)` on a collection of complex values, run by the reference
 * (memory) over the collection's elements and returned by the service with
 * `addresses@odata.count`; the SQL dialects that store such collections as JSON (PGlite, sql.js,
 * DuckDB, the live PostgreSQL and MariaDB) and MongoDB (mingo) run `$filter`, `$orderby`, `$top`,
 * `$skip` and a nested `$select` as the reference does and refuse the rest (`unsupported_feature`),
 * and the binder refuses options where OData allows none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, defineModel, ODataError, sqlTarget, validateQuery, type Row } from '../../src/index.js';
import { createODataHandler, memorySource } from '../../src/server/index.js';
import { runDifferential } from '../../src/testing/index.js';
import { openTargets } from '../fixtures/differential-targets.js';

const model = defineModel({
  namespace: 'P',
  complexTypes: {
    Address: { properties: { city: 'Edm.String', zip: 'Edm.Int32', phones: 'Collection(Phone)' } },
    Phone: { properties: { number: 'Edm.String', kind: 'Edm.String' } },
    Info: { properties: { note: 'Edm.String', addresses: 'Collection(Address)' } },
  },
  entityTypes: {
    Person: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: 'Edm.String', addresses: 'Collection(Address)', tags: 'Collection(Edm.String)', info: 'Info' },
    },
  },
  entitySets: { people: { type: 'Person' } },
});

const rows: Row[] = [
  {
    id: 1,
    name: 'Ann',
    addresses: [
      { city: 'Oslo', zip: 3, phones: [{ number: '1', kind: 'home' }] },
      { city: 'Bergen', zip: 1, phones: [] },
      {
        city: 'Alta',
        zip: 2,
        phones: [
          { number: '2', kind: 'work' },
          { number: '3', kind: 'home' },
        ],
      },
    ],
    tags: ['a'],
    info: { note: 'n', addresses: [{ city: 'Tromsø', zip: 9, phones: [] }] },
  },
  { id: 2, name: 'Bo', addresses: [], tags: [], info: null },
  { id: 3, name: 'Cy', addresses: null, tags: null, info: { note: null, addresses: [] } },
];

const run = (query: string): Record<string, unknown>[] =>
  compileQuery(bindQuery(query, { model, entitySet: 'people' })).apply(rows).value as Record<string, unknown>[];

describe('options on $select items in memory', () => {
  it('filter, order, page and count the elements, and select and compute their properties', () => {
    expect(run('$select=id,addresses($filter=zip gt 1;$orderby=city;$top=1;$count=true;$select=city)')).toEqual([
      { id: 1, addresses: [{ city: 'Alta' }], 'addresses@odata.count': 2 },
      { id: 2, addresses: [], 'addresses@odata.count': 0 },
      { id: 3, addresses: null },
    ]);
    expect(run('$filter=id eq 1&$select=addresses($orderby=zip desc;$skip=1;$compute=zip mul 10 as z;$select=city,z)')).toEqual([
      {
        addresses: [
          { city: 'Alta', z: 20 },
          { city: 'Bergen', z: 10 },
        ],
      },
    ]);
  });

  it('nest: options of a selected collection inside the elements, and of a collection inside a complex value', () => {
    expect(run("$filter=id eq 1&$select=addresses($select=city,phones($filter=kind eq 'home';$select=number))")).toEqual([
      {
        addresses: [
          { city: 'Oslo', phones: [{ number: '1' }] },
          { city: 'Bergen', phones: [] },
          { city: 'Alta', phones: [{ number: '3' }] },
        ],
      },
    ]);
    expect(run('$select=id,info/addresses($select=city)')).toEqual([
      { id: 1, info: { addresses: [{ city: 'Tromsø' }] } },
      { id: 2, info: { addresses: null } },
      { id: 3, info: { addresses: [] } },
    ]);
  });

  it('keeps the options of a property listed beside *, and leaves the stored rows unchanged', () => {
    const before = JSON.stringify(rows);
    const [first] = run('$filter=id eq 1&$select=*,addresses($top=1;$select=zip)');
    expect(first).toMatchObject({ id: 1, name: 'Ann', addresses: [{ zip: 3 }], tags: ['a'] });
    expect(JSON.stringify(rows)).toBe(before);
  });

  it('returns the elements and their count through the service', async () => {
    const handler = createODataHandler({ model, basePath: '/s', source: memorySource({ people: rows }) });
    const response = await handler(
      new Request("http://localhost/s/people?$filter=id%20eq%201&$select=id,addresses($filter=city%20ne%20'Oslo';$count=true;$select=city)"),
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { value: unknown }).value).toEqual([
      { id: 1, addresses: [{ city: 'Bergen' }, { city: 'Alta' }], 'addresses@odata.count': 2 },
    ]);
  });
});

/** The model without a collection inside a complex value, on every engine. */
const flat = defineModel({
  namespace: 'P',
  enumTypes: { Level: ['low', 'high'] },
  complexTypes: {
    Address: {
      properties: {
        city: 'Edm.String',
        zip: 'Edm.Int32',
        kind: 'Edm.String',
        price: 'Edm.Decimal',
        day: 'Edm.Date',
        at: 'Edm.DateTimeOffset',
        ok: 'Edm.Boolean',
        big: 'Edm.Int64',
        level: 'Level',
      },
    },
  },
  entityTypes: { Person: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', addresses: 'Collection(Address)' } } },
  entitySets: { people: { type: 'Person' } },
});
const flatRows: Row[] = [
  {
    id: 1,
    name: 'Ann',
    addresses: [
      { city: 'Oslo', zip: 3, kind: 'home', price: '12.50', day: '2024-02-29', at: '2024-01-01T00:30:00Z', ok: true, big: 9007199254740993n, level: 'high' },
      { city: 'Bergen', zip: 1, kind: null, price: '-0.001', day: '1999-12-31', at: '2023-06-30T23:59:59.5Z', ok: false, big: -5n, level: 'low' },
      { city: 'Alta', zip: 2, kind: 'work', price: null, day: null, at: null, ok: null, big: null, level: null },
      { city: null, zip: null, kind: 'home', price: '3', day: '2000-01-01', at: '2000-01-01T00:00:00Z', ok: true, big: 0n, level: 'low' },
      // A null element: it stays null, under every option (the reference read its members and failed).
      null,
    ],
  },
  { id: 2, name: 'Bo', addresses: [] },
  { id: 3, name: 'Cy', addresses: null },
  {
    id: 4,
    name: 'Di',
    addresses: [{ city: 'Ås', zip: 7, kind: 'work', price: '1', day: '2024-01-01', at: '2024-01-01T00:00:00Z', ok: false, big: 1n, level: 'high' }],
  },
];

describe('options on $select items on the engines', () => {
  let opened: Awaited<ReturnType<typeof openTargets>> | undefined;
  beforeAll(async () => {
    opened = await openTargets(flat, 'people', flatRows);
  }, 60_000);
  afterAll(async () => {
    await opened?.close();
  });
  const agree = async (query: string, mongo: 'runs' | 'refuses'): Promise<void> => {
    const result = await runDifferential(query, { model: flat, entitySet: 'people', rows: flatRows, targets: opened?.targets ?? [] });
    expect(result.reference.kind).toBe('rows');
    expect(result.findings.map((f) => `[${f.target}] ${f.class}: ${f.detail.slice(0, 300)}`)).toEqual([]);
    for (const [target, outcome] of result.outcomes) {
      const runs = mongo === 'runs';
      if (runs) expect(outcome.kind, `${target}: ${outcome.kind === 'odata' ? outcome.message : ''}`).toBe('rows');
      else expect(outcome.kind === 'odata' && outcome.code === 'unsupported_feature', `${target}: ${outcome.kind}`).toBe(true);
    }
  };
  for (const query of [
    "$select=id,addresses($filter=zip gt 1 and city ne 'Oslo')",
    '$select=id,addresses($orderby=city desc;$top=2;$select=city)',
    '$select=id,addresses($orderby=kind,zip desc;$skip=1)',
    '$select=id,addresses($orderby=city;$skip=1;$top=1;$select=zip,kind)',
    '$select=id,addresses($top=0)',
    "$select=id,addresses($filter=price gt 1 or ok eq false or level eq P.Level'high';$orderby=day desc)",
    '$select=id,addresses($orderby=at;$select=at,big,price,ok,level,day)',
    "$filter=id le 2&$orderby=id desc&$select=name,addresses($filter=kind eq 'home' or kind eq null;$select=kind)",
    '$select=id,addresses($filter=$it eq null)',
    '$select=id,addresses($filter=$it ne null and zip eq null)',
    '$select=id,addresses($orderby=zip desc;$top=3;$select=zip)',
  ]) {
    it(`every engine agrees with memory: ${query}`, async () => agree(query, 'runs'), 60_000);
  }
  for (const query of ['$select=id,addresses($count=true)', '$select=id,addresses($compute=zip add 1 as z;$select=z)']) {
    it(`MongoDB and SQL refuse: ${query}`, async () => agree(query, 'refuses'), 60_000);
  }
});

describe('options on $select items elsewhere', () => {
  it('run in SQL where the dialect numbers JSON array elements, on the request rows only', () => {
    const check = (query: string, target: ReturnType<typeof sqlTarget>): string | undefined => {
      const [diagnostic] = validateQuery(query, { model, entitySet: 'people', target });
      return diagnostic === undefined ? undefined : `${diagnostic.code}: ${diagnostic.message}`;
    };
    const query = "$select=id,addresses($filter=city eq 'Oslo';$orderby=zip;$top=1;$select=city)";
    for (const dialect of ['postgres', 'mysql', 'sqlite', 'duckdb'] as const) {
      const target = sqlTarget(dialect);
      expect(check(query, target), dialect).toBeUndefined();
      expect(check('$select=id,addresses($count=true)', target), dialect).toContain("$count in the options of the $select item 'addresses'");
      expect(check('$select=id,info/addresses($top=1)', target), dialect).toContain("options on the $select path inside a complex value 'addresses'");
    }
    // SQL Server stores no collections of complex values.
    expect(check(query, sqlTarget('mssql'))).toContain('unsupported_feature');
  });

  it('are refused by the binder where OData allows none', () => {
    const refusal = (query: string): [string, string] => {
      try {
        bindQuery(query, { model, entitySet: 'people' });
      } catch (error) {
        if (error instanceof ODataError) return [error.code, error.message];
        throw error;
      }
      return ['bound', query];
    };
    expect(refusal('$select=name($top=1)')).toEqual([
      'invalid_nested_option',
      "Options on a $select item need a collection-valued property; 'name' is single-valued.",
    ]);
    expect(refusal('$select=tags($top=1)')[0]).toBe('unsupported_feature');
    expect(refusal("$select=addresses($search='x')")[0]).toBe('unsupported_feature');
    expect(refusal('$select=addresses($filter=nope eq 1)')).toEqual(['unknown_property', "Could not find a property named 'nope' on type 'Address'."]);
    expect(refusal('$select=info,info/addresses($top=1)')[0]).toBe('unsupported_feature');
    expect(refusal('$select=*,info/addresses($top=1)')[0]).toBe('unsupported_feature');
    expect(refusal('$select=addresses($top=100000)')[0]).toBe('top_limit_exceeded');
  });
});
