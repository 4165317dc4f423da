/**
 * The SQL text each dialect produces: parameters everywhere, quoted identifiers, the spec's null
 * semantics written out. SQL Server cannot run on these machines, so its dialect is covered here.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, defineModel, toSql } from '../../../src/index.js';
import { assetModel } from '../../fixtures/asset-model.js';

const model = defineModel({
  namespace: 'T',
  entityTypes: { Item: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double' } } },
  entitySets: { items: { type: 'Item' } },
});
const bound = (query: string) => bindQuery(query, { model, entitySet: 'items' });

describe('SQL text per dialect', () => {
  const query = "$filter=name ne 'O''Neil' and contains(name,'50%25_off')&$orderby=name desc&$top=5&$skip=10&$select=id,name";

  it('postgres', () => {
    const sql = toSql(bound(query), { dialect: 'postgres' });
    expect(sql.sql).toBe(
      `SELECT t0."id" AS "c0", t0."name" AS "c1" FROM "items" t0 WHERE ((t0."name" <> $1::text OR t0."name" IS NULL) AND t0."name" LIKE $2::text ESCAPE '\\') ORDER BY t0."name" COLLATE "C" DESC, t0."id" ASC LIMIT $3::bigint OFFSET $4::bigint`,
    );
    expect(sql.params).toEqual(["O'Neil", '%50\\%\\_off%', 5, 10]);
  });

  it('mysql', () => {
    const sql = toSql(bound(query), { dialect: 'mysql' });
    expect(sql.sql).toContain('`name` COLLATE utf8mb4_bin LIKE ? ESCAPE');
    expect(sql.sql).toContain('ORDER BY CAST(t0.`name` AS BINARY) DESC, t0.`id` ASC LIMIT ? OFFSET ?');
    expect(sql.params).toEqual(["O'Neil", '%50\\%\\_off%', 5, 10]);
  });

  it('mssql', () => {
    const sql = toSql(bound(query), { dialect: 'mssql' });
    expect(sql.sql).toContain('FROM [items] t0 WHERE');
    expect(sql.sql).toContain('@p1');
    expect(sql.sql).toContain('ORDER BY t0.[name] COLLATE Latin1_General_100_BIN2 DESC, t0.[id] ASC OFFSET @p3 ROWS FETCH NEXT @p4 ROWS ONLY');
    // Placeholders are numbered in the order of the text: the skip (10) before the top (5).
    expect(sql.params).toEqual(["O'Neil", '%50\\%\\_off%', 10, 5]);
  });

  it('index-friendly PostgreSQL: plain equality, no NULLS clause where nulls cannot occur, joins for to-one navigation', () => {
    const nav = defineModel({
      namespace: 'N',
      entityTypes: {
        Product: {
          key: ['id'],
          properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double', categoryId: 'Edm.Int32' },
          navigation: { category: { type: 'Category', constraints: { categoryId: 'id' } } },
        },
        Category: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String' } },
      },
      entitySets: { products: { type: 'Product' }, categories: { type: 'Category' } },
    });
    const sql = (query: string) => toSql(bindQuery(query, { model: nav, entitySet: 'products' }), { dialect: 'postgres' });
    // Equality and `in` need no COLLATE "C" (deterministic collations compare bytes); ordering does.
    expect(sql("$filter=name eq 'a' or name in ('b','c')").where?.sql).toBe('(t0."name" = $1::text OR t0."name" IN ($2::text, $3::text))');
    // Keys are never null; `price gt 1` rejects null prices: no NULLS clause, so a plain index serves the order.
    expect(sql('$filter=price gt 1&$orderby=price desc,id').orderBy?.sql).toBe('t0."price" DESC, t0."id" ASC');
    // Without such a filter the spec's order needs it.
    expect(sql('$orderby=price desc').orderBy?.sql).toBe('t0."price" DESC NULLS LAST');
    // `category/name` in $filter and $orderby: one LEFT JOIN, used twice, also in the count statement.
    const joined = sql("$filter=category/name eq 'x'&$orderby=category/name&$count=true");
    expect(joined.sql).toBe(
      'SELECT t0."id" AS "c0", t0."name" AS "c1", t0."price" AS "c2", t0."categoryId" AS "c3" FROM "products" t0 LEFT JOIN "categories" t1 ON t1."id" = t0."categoryId" WHERE t1."name" = $1::text ORDER BY t1."name" COLLATE "C" ASC NULLS FIRST',
    );
    expect(joined.count?.sql).toBe(
      'SELECT COUNT(*) AS "count" FROM "products" t0 LEFT JOIN "categories" t1 ON t1."id" = t0."categoryId" WHERE t1."name" = $1::text',
    );
    // The composable WHERE piece has no FROM to join into: it keeps a correlated subquery.
    expect(joined.where?.sql).toBe('(SELECT t1."name" FROM "categories" t1 WHERE t1."id" = t0."categoryId") = $1::text');
  });

  it('SQL Server $expand: FOR JSON PATH objects and ordered, paged arrays ([] for none), nested JSON through JSON_QUERY', () => {
    const sql = (query: string) => toSql(bindQuery(query, { model: assetModel, entitySet: 'assets' }), { dialect: 'mssql' });
    expect(sql('$select=id&$expand=locality($select=name)').sql).toBe(
      'SELECT t0.[id] AS [c0], (SELECT t1.[name] AS [name] FROM [localities] t1 WHERE t1.[id] = t0.[localityId] FOR JSON PATH, WITHOUT_ARRAY_WRAPPER, INCLUDE_NULL_VALUES) AS [e0] FROM [assets] t0',
    );
    const nested = sql(
      '$select=id&$expand=tickets($filter=estimatedHours gt 1;$orderby=openedAt desc;$top=2;$skip=1;$select=id;$count=true;$expand=asset($select=id))',
    );
    expect(nested.sql).toBe(
      'SELECT t0.[id] AS [c0], COALESCE((SELECT t1.[id] AS [id], JSON_QUERY((SELECT t2.[id] AS [id] FROM [assets] t2 WHERE t2.[id] = t1.[assetId] FOR JSON PATH, WITHOUT_ARRAY_WRAPPER, INCLUDE_NULL_VALUES)) AS [asset] ' +
        "FROM [maintenance-tickets] t1 WHERE t1.[assetId] = t0.[id] AND t1.[estimatedHours] > @p1 ORDER BY t1.[openedAt] DESC, t1.[id] ASC OFFSET @p2 ROWS FETCH NEXT @p3 ROWS ONLY FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]') AS [e0], " +
        '(SELECT COUNT(*) FROM [maintenance-tickets] t3 WHERE t3.[assetId] = t0.[id] AND t3.[estimatedHours] > @p4) AS [e1] FROM [assets] t0',
    );
    expect(nested.params).toEqual([1, 1, 2, 1]);
    expect(sql('$select=id&$expand=tickets/$ref').sql).toContain(
      "COALESCE((SELECT t1.[id] AS [id] FROM [maintenance-tickets] t1 WHERE t1.[assetId] = t0.[id] ORDER BY t1.[id] ASC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')",
    );
  });

  it('identifiers come from the model mapping, quoted with their quote characters doubled', () => {
    const q = bound("$select=name&$filter=name eq 'x'");
    const columns = { name: 'we"ird]`' };
    expect(toSql(q, { dialect: 'postgres', columns }).sql).toContain('t0."we""ird]`"');
    expect(toSql(q, { dialect: 'mysql', columns }).sql).toContain('t0.`we"ird]```');
    expect(toSql(q, { dialect: 'mssql', columns }).sql).toContain('t0.[we"ird]]`]');
  });

  it('eq null is IS NULL; not (x gt 1) keeps null rows; a count statement with $count=true', () => {
    expect(toSql(bound('$filter=name eq null'), { dialect: 'postgres' }).sql).toContain('WHERE t0."name" IS NULL');
    expect(toSql(bound('$filter=not (price gt 1)'), { dialect: 'sqlite' }).sql).toContain('WHERE NOT (((t0."price" IS NOT NULL AND t0."price" > ?)))');
    const counted = toSql(bound('$filter=price gt 1&$count=true&$top=1'), { dialect: 'sqlite' });
    expect(counted.count).toEqual({ sql: 'SELECT COUNT(*) AS "count" FROM "items" t0 WHERE t0."price" > ?', params: [1] });
  });

  it('snake_case naming and overrides', () => {
    const q = bound("$filter=name eq 'x'");
    expect(toSql(q, { dialect: 'postgres', naming: 'snake_case', tables: { items: 'stock_items' }, columns: { name: 'item_name' } }).sql).toContain(
      'FROM "stock_items" t0 WHERE t0."item_name"',
    );
  });

  it('a $search hook replaces the default search (e.g. with full-text search)', () => {
    const search = bindQuery('$search=pump valve', { model, entitySet: 'items' });
    const sql = toSql(search, {
      dialect: 'postgres',
      search: (search, { column, value }) => `to_tsvector('simple', ${column('name')}) @@ plainto_tsquery('simple', ${value(search.text)})`,
    });
    expect(sql.sql).toContain(`WHERE (to_tsvector('simple', t0."name") @@ plainto_tsquery('simple', $1::text))`);
    expect(sql.params).toEqual(['pump valve']);
  });

  it('an unsupported part is an unsupported_feature error with its option and position', () => {
    const error = (query: string, set = 'assets') => {
      try {
        toSql(bindQuery(query, { model: assetModel, entitySet: set }), { dialect: 'postgres' });
      } catch (e) {
        return e as { code: string; option?: string; position?: number };
      }
      throw new Error(`no error for ${query}`);
    };
    expect(error("$filter=code eq 'a' and cast(code,Edm.Int32) gt 1")).toMatchObject({ code: 'unsupported_feature', option: '$filter', position: 16 });
    expect(error('$orderby=code,cast(code,Edm.Int32)')).toMatchObject({ code: 'unsupported_feature', option: '$orderby', position: 5 });
    expect(error('$expand=tickets($filter=cast(code,Edm.Int32) gt 1)')).toMatchObject({ code: 'unsupported_feature', option: '$expand' });
    // The difference of two instants: on PostgreSQL an interval, on SQLite refused at its position.
    expect(
      toSql(bindQuery("$filter=createdAt sub updatedAt gt duration'P1D'", { model: assetModel, entitySet: 'assets' }), { dialect: 'postgres' }).where?.sql,
    ).toMatch(/^\(t0."createdAt" - t0."updatedAt"\) > \$1/);
    expect(() =>
      toSql(bindQuery("$filter=code eq 'a' and createdAt sub updatedAt gt duration'P1D'", { model: assetModel, entitySet: 'assets' }), { dialect: 'sqlite' }),
    ).toThrow(expect.objectContaining({ code: 'unsupported_feature', option: '$filter', position: 16 }));
    const sqlite = (query: string) => () => toSql(bindQuery(query, { model: assetModel, entitySet: 'assets' }), { dialect: 'sqlite' });
    expect(sqlite("$filter=code eq 'a' or matchesPattern(name,'^P')")).toThrow(
      expect.objectContaining({ code: 'unsupported_feature', option: '$filter', position: 15 }),
    );
    // A pattern outside the shared subset is refused already by the binder, at the pattern.
    expect(() =>
      toSql(bindQuery("$filter=code eq 'a' or matchesPattern(name,'(a+)+')", { model: assetModel, entitySet: 'assets' }), { dialect: 'postgres' }),
    ).toThrow(expect.objectContaining({ code: 'invalid_option_value', status: 400, option: '$filter', position: 35 }));
    // A NUL in a value (PostgreSQL cannot store it) points at its literal too.
    expect(() => toSql(bindQuery("$filter=code eq 'a' or name eq 'x%00y'", { model: assetModel, entitySet: 'assets' }), { dialect: 'postgres' })).toThrow(
      expect.objectContaining({ code: 'invalid_literal', status: 400, option: '$filter', position: 23 }),
    );
  });

  it('integer arithmetic is one size wider, so it cannot overflow where the reference does not', () => {
    const sql = (dialect: 'postgres' | 'mysql' | 'sqlite' | 'mssql', filter: string) =>
      toSql(bindQuery(`$filter=${filter}`, { model: assetModel, entitySet: 'assets' }), { dialect }).sql;
    expect(sql('postgres', 'estimatedHours add 1 gt 5'.replace('estimatedHours', 'serialNumber'))).toContain(
      '(CAST(t0."serialNumber" AS numeric) + $1::bigint)',
    );
    expect(sql('mysql', 'serialNumber sub 1 gt 5')).toContain('(CAST(t0.`serialNumber` AS DECIMAL(65, 0)) - ');
    expect(sql('mssql', '-serialNumber gt 5')).toContain('(-CAST(t0.[serialNumber] AS DECIMAL(38, 0)))');
    expect(sql('sqlite', 'serialNumber mul 2 gt 5')).toContain('(t0."serialNumber" * ');
  });

  it('complex values are flattened columns: address/city is address_city; SQL Server nests them with dotted aliases', () => {
    const sql = (query: string, dialect: 'postgres' | 'mssql') => toSql(bindQuery(query, { model: assetModel, entitySet: 'localities' }), { dialect }).sql;
    expect(sql("$filter=address/city eq 'Oslo'&$select=id,address/city", 'postgres')).toBe(
      'SELECT t0."id" AS "c0", t0."address_city" AS "c1" FROM "localities" t0 WHERE t0."address_city" = $1::text',
    );
    expect(sql('$filter=address eq null&$select=id', 'postgres')).toContain(
      'WHERE (t0."address_street" IS NULL AND t0."address_city" IS NULL AND t0."address_postalCode" IS NULL)',
    );
    const mssql = toSql(bindQuery('$select=id&$expand=locality($select=address)', { model: assetModel, entitySet: 'assets' }), { dialect: 'mssql' }).sql;
    expect(mssql).toContain('t1.[address_city] AS [address.city]');
    expect(() => sql('$filter=address gt null', 'postgres')).toThrow();
  });

  it('a DateTimeOffset plus or minus a constant duration, exact to the microsecond, per dialect', () => {
    const sql = (dialect: 'postgres' | 'mysql' | 'sqlite' | 'mssql') =>
      toSql(bindQuery("$orderby=createdAt add duration'P1DT0.5S' desc", { model: assetModel, entitySet: 'assets' }), { dialect });
    // Null outside years 1 to 9999: shifted only where the result stays inside (a bound computed
    // exactly on the side the shift moves to, exclusive: instants may be finer than microseconds).
    expect(sql('postgres').sql).toContain(
      '(SELECT (CASE WHEN "_w"."_v0" < $1::timestamptz THEN ("_w"."_v0" + $2::interval) END) FROM (SELECT t0."createdAt" AS "_v0" OFFSET 0) AS "_w") DESC NULLS LAST',
    );
    expect(sql('postgres').params.slice(0, 2)).toEqual(['9999-12-30T23:59:59.5Z', '86400500000 microseconds']);
    const back = toSql(bindQuery("$filter=createdAt sub duration'PT1S' gt createdAt", { model: assetModel, entitySet: 'assets' }), { dialect: 'postgres' });
    expect(back.sql).toContain('(CASE WHEN "_w"."_v0" >= $1::timestamptz THEN ("_w"."_v0" + $2::interval) END)');
    expect(back.params.slice(0, 2)).toEqual(['0001-01-01T00:00:01Z', '-1000000 microseconds']);
    expect(sql('mysql').sql).toContain('DATE_ADD(t0.`createdAt`, INTERVAL CAST(? AS SIGNED) MICROSECOND)');
    expect(sql('mssql').sql).toContain('(CASE WHEN t0.[createdAt] < @p1 THEN DATEADD(microsecond, @p2, DATEADD(second, @p3, t0.[createdAt])) END)');
    expect(sql('mssql').params.slice(1)).toEqual([500000, '86400']);
    // SQLite: whole seconds through strftime, the 12 fraction digits as picoseconds with their carry.
    expect(sql('sqlite').sql).toContain(`strftime('%Y-%m-%dT%H:%M:%S', (CAST(strftime('%s', substr(`);
    expect(sql('sqlite').params).toContain('86400');
    expect(sql('sqlite').params).toContain('500000000000');
  });
});
