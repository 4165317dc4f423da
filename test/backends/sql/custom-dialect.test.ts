/**
 * The dialect seam: a dialect is an object of hooks, and the compiler never tests its name. A
 * user-defined dialect (a built-in spread under a name of its own, with overrides) compiles and
 * runs on a real engine, and a hook it leaves out is a capability it lacks, refused by name.
 */
import { describe, expect, it } from 'vitest';
import { DIALECTS, bindQuery, compileQuery, defineModel, toSql, type Dialect, type Row } from '../../../src/index.js';
import { load, sqlite } from '../../fixtures/sql-engines.js';

const model = defineModel({
  namespace: 'Shop',
  entityTypes: {
    Product: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        name: 'Edm.String',
        price: 'Edm.Double',
        at: 'Edm.DateTimeOffset',
        tags: 'Collection(Edm.String)',
        categoryId: 'Edm.Int32',
      },
      navigation: { category: { type: 'Category', constraints: { categoryId: 'id' } } },
    },
    Category: { key: ['id'], properties: { id: 'Edm.Int32', title: 'Edm.String' } },
  },
  entitySets: { products: { type: 'Product' }, categories: { type: 'Category' } },
});

const rows: Row[] = [
  { id: 1, name: ' Pump ', price: 2.5, at: '2024-01-01T00:00:00Z', tags: ['a', 'b'] },
  { id: 2, name: 'pump', price: 10, at: '2024-06-01T12:00:00Z', tags: [] },
  { id: 3, name: 'Valve', price: null, at: '2025-03-01T00:00:00Z', tags: ['b'] },
];

describe('a user-defined dialect', () => {
  const libsql: Dialect = { ...DIALECTS.sqlite, name: 'libsql', displayName: 'libSQL' };

  it.each([
    "$filter=trim(name) eq 'Pump'",
    "$filter=contains(name,'ump') and year(at) eq 2024&$orderby=id",
    "$filter=tags/any(t:t eq 'b')&$orderby=id",
    '$search=pump&$orderby=id desc&$top=1',
    "$filter=startswith(name,'p') or endswith(name,'e')",
  ])('%s: runs on sql.js with the reference answer', async (text) => {
    const bound = bindQuery(text, { model, entitySet: 'products' });
    const expected = compileQuery(bound)
      .apply(rows)
      .value.map((row) => row.id);
    const engine = await sqlite();
    try {
      await load(engine, model, 'products', rows, new Set());
      const { sql, params, columns } = toSql(bound, { dialect: libsql });
      const id = columns.find((column) => column.property.name === 'id')!.alias;
      const got = (await engine.query(sql, params)).map((row) => row[id]);
      expect(got).toEqual(expected);
    } finally {
      await engine.close();
    }
  });

  it('an override is used where the built-in hook was', () => {
    const bound = bindQuery("$filter=trim(name) eq 'x'", { model, entitySet: 'products' });
    const custom: Dialect = { ...DIALECTS.postgres, name: 'cockroach', displayName: 'CockroachDB', trim: (e) => `TRIM(BOTH ' ' FROM ${e})` };
    expect(toSql(bound, { dialect: 'postgres' }).sql).toContain('btrim(t0."name")');
    expect(toSql(bound, { dialect: custom }).sql).toContain(`TRIM(BOTH ' ' FROM t0."name")`);
  });

  it('the search hook sees the custom name', () => {
    const bound = bindQuery('$search=x', { model, entitySet: 'products' });
    let seen: string | undefined;
    toSql(bound, {
      dialect: libsql,
      search: (_search, { dialect, column }) => {
        seen = dialect;
        return `${column('name')} IS NOT NULL`;
      },
    });
    expect(seen).toBe('libsql');
  });

  it('a hook left out is a capability the dialect lacks: unsupported_feature naming the engine', () => {
    const bare: Dialect = {
      ...DIALECTS.postgres,
      name: 'bare',
      displayName: 'BareSQL',
      matchesPattern: undefined,
      shiftInstant: undefined,
      collectionElements: undefined,
      expandOne: undefined,
      expandMany: undefined,
    };
    const refused = (text: string, what: string) =>
      expect(() => toSql(bindQuery(text, { model, entitySet: 'products' }), { dialect: bare })).toThrow(
        expect.objectContaining({ code: 'unsupported_feature', message: expect.stringContaining(what) }),
      );
    refused("$filter=matchesPattern(name,'^p')", "'matchesPattern' on BareSQL");
    refused("$filter=year(at add duration'P1D') eq 2024", 'date arithmetic on BareSQL');
    refused("$filter=tags/any(t:t eq 'b')", 'collection properties on BareSQL');
    refused('$expand=category', '$expand on BareSQL');
    // The same queries compile on the built-in dialect the custom one came from.
    expect(() => toSql(bindQuery("$filter=matchesPattern(name,'^p')", { model, entitySet: 'products' }), { dialect: 'postgres' })).not.toThrow();
  });
});
