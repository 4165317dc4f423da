/**
 * Dynamic properties of open types (semantic/dynamic-values.ts) on every engine: rows in stored
 * form (each row's dynamic properties in its `DynamicProperties` JSON object), the same queries on
 * the reference (memory), PGlite, sql.js, DuckDB, the live PostgreSQL and MariaDB servers and
 * mingo, each judged against the reference as the differential campaign judges. Names from the
 * request are hostile: quotes, backslashes, dots, `$`, brackets, Unicode and long names are read
 * as one member's on every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bindQuery,
  compileQuery,
  createSchemaSql,
  mapQueryExpressions,
  modelFromCsdlXml,
  ODataError,
  storedTables,
  toMongo,
  toSql,
  transformExpression,
  type BoundQuery,
  type Row,
} from '../../src/index.js';
import fc from 'fast-check';
import { DYNAMIC_PROPERTY_NAMES, generateStoredData, judge, typedQueryArbitrary } from '../../src/testing/index.js';
import { ALL_TARGETS, openStoredTargets } from '../fixtures/differential-targets.js';

const XML = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:DataServices>
    <Schema Namespace="Dyn" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <EntityType Name="Item" OpenType="true">
        <Key><PropertyRef Name="Id"/></Key>
        <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
        <Property Name="Name" Type="Edm.String"/>
      </EntityType>
      <EntityContainer Name="Container"><EntitySet Name="Items" EntityType="Dyn.Item"/></EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;

const model = modelFromCsdlXml(XML);

/** Names no URL identifier has, put into bound trees directly (a request could carry them through other APIs). */
const HOSTILE = ['we"ird\\k.e$y[0]', '$where', 'a.b', "it's", 'ü€😀', '{"$gt":""}', 'x'.repeat(300)];

const bags: (Record<string, unknown> | null)[] = [
  { dynA: 1, dynB: 'a', dynC: true },
  { dynA: 2.5, dynB: 'B', dynC: false },
  { dynA: 'a', dynB: 1, dynC: null },
  { dynA: null, dynB: '1' },
  {},
  null,
  { dynA: true, dynB: '', dynC: 'x' },
  { dynA: -1.5, dynB: 'b', dynC: 0 },
  { dynA: '1', dynB: 'a', dynC: 2 },
  { dynA: 1, dynB: 'ab', dynC: true },
  { dynA: false, dynB: 'A' },
  { dynA: 2, dynB: 'é', dynC: 'x' },
];
const items: Row[] = bags.map((bag, i) => ({
  Id: i + 1,
  Name: `n${i % 3}`,
  DynamicProperties: bag === null ? null : { ...bag, ...Object.fromEntries(HOSTILE.map((name, j) => [name, (i + j) % 3 === 0 ? `v${i}` : i])) },
}));
const data = { Items: items };

const QUERIES = [
  // Filters of each JSON type: a comparison reads the property as the other side's JSON type.
  '$filter=dynA eq 1',
  '$filter=dynA ne 1',
  '$filter=dynA gt 1',
  '$filter=dynA le 1',
  '$filter=dynA eq 2.5',
  '$filter=dynA lt 0.5',
  "$filter=dynA eq 'a'",
  "$filter=dynA ne 'a'",
  "$filter=dynB gt 'a'",
  "$filter=dynB lt 'B'",
  "$filter=dynB eq '1'",
  '$filter=dynB eq 1',
  '$filter=dynC eq true',
  '$filter=dynC ne false',
  '$filter=not (dynA gt 1)',
  "$filter=dynA eq 1 or dynB eq 'a'",
  '$filter=dynA eq Id',
  '$filter=dynA in (1, 2, -1.5)',
  "$filter=dynB in ('a', 'B', '1')",
  '$filter=dynB eq Name',
  // Null and absent.
  '$filter=dynA eq null',
  '$filter=dynA ne null',
  '$filter=dynC eq null',
  '$filter=nothere eq null',
  // Ordering across mixed types: null, numbers, strings, Booleans.
  '$orderby=dynA,Id',
  '$orderby=dynA desc,Id',
  '$orderby=dynB,Id&$top=5',
  '$orderby=dynC desc,Id&$skip=2',
  // Grouping and aggregating.
  '$apply=groupby((dynA))',
  '$apply=groupby((dynB),aggregate($count as n))',
  '$apply=groupby((Name,dynC),aggregate(dynA with sum as total))',
  '$apply=aggregate(dynA with sum as s,dynA with average as a,dynA with min as lo,dynA with max as hi)',
  '$apply=aggregate(dynA with countdistinct as d,dynB with countdistinct as e)',
  '$apply=groupby((Name),aggregate(dynB with countdistinct as d,dynA with max as hi))',
  "$apply=filter(dynB ne 'a')/groupby((dynA),aggregate(dynC with min as m))",
  // rollup of a dynamic property (model 1318, seed 2901): GROUPING() cannot repeat its parameterised expression, one GROUP BY per level instead.
  '$apply=groupby((rollup(dynB,Name)),aggregate($count as n,dynA with sum as s))',
  '$apply=groupby((rollup(Name,dynC)),aggregate($count as n))&$filter=n ge 1',
  // In the rows of nest: their JSON values, not their JSON text (MongoDB has no nest at the end of groupby: apply-nesting-engines.test.ts).
  '$apply=nest(groupby((dynA)) as x)',
  '$apply=filter(Id gt 2)/nest(groupby((dynB),aggregate($count as n)) as x,groupby((Name,dynC)) as y)',
  // $select: declared properties beside them, and the dynamic properties themselves (null where absent).
  '$filter=dynA ge 1&$select=Name',
  '$select=Id,dynA,dynB,dynC,nothere',
  "$select=dynB&$filter=dynB ne 'a'&$orderby=dynB desc,Id",
  '$compute=Id mul 2 as twice&$select=twice,dynA',
];

/** `bound` with every dynamic property named `from` named `to` (a name no URL identifier has). */
function renamed(bound: BoundQuery, from: string, to: string): BoundQuery {
  return mapQueryExpressions(bound, (root) =>
    transformExpression(root, (node) =>
      node.kind === 'path' && node.steps.some((s) => s.kind === 'dynamic' && s.name === from)
        ? { ...node, steps: node.steps.map((s) => (s.kind === 'dynamic' && s.name === from ? { ...s, name: to } : s)) }
        : node,
    ),
  );
}

const bind = (query: string): BoundQuery => bindQuery(query, { model, entitySet: 'Items' });

describe('dynamic properties: the reference', () => {
  it('reads stored rows (inside the JSON column) and plain rows (top-level) alike', () => {
    const plain = items.map((row) => ({ Id: row.Id, Name: row.Name, ...(row.DynamicProperties as object | null) }));
    for (const query of ['$filter=dynA eq 1', '$orderby=dynA,Id', '$apply=groupby((dynB),aggregate(dynA with sum as s))']) {
      const bound = bind(query);
      const stored = compileQuery(bound, { data }).apply(items).value;
      expect(compileQuery(bound).apply(plain).value).toEqual(stored);
    }
  });

  it('compares by JSON type: 1 is not the string "1", and a string is not ordered against numbers', () => {
    const ids = (query: string): unknown[] =>
      compileQuery(bind(query), { data })
        .apply(items)
        .value.map((r) => r.Id);
    expect(ids('$filter=dynA eq 1')).toEqual([1, 10]);
    expect(ids("$filter=dynA eq '1'")).toEqual([9]);
    expect(ids('$filter=dynA gt 0')).toEqual([1, 2, 10, 12]);
    expect(ids('$filter=dynA eq null')).toEqual([4, 5, 6]);
    expect(ids('$orderby=dynA,Id')).toEqual([4, 5, 6, 8, 1, 10, 12, 2, 9, 3, 11, 7]);
  });

  it('aggregates the numbers only, and groups by JSON value', () => {
    const [row] = compileQuery(bind('$apply=aggregate(dynA with sum as s,dynA with min as lo,dynA with countdistinct as d)'), { data }).apply(items).value;
    expect(row).toEqual({ s: 5, lo: -1.5, d: 8n });
    const groups = compileQuery(bind('$apply=groupby((dynA))'), { data })
      .apply(items)
      .value.map((r) => r.dynA);
    expect(groups).toHaveLength(9);
  });
});

describe('dynamic properties: the storage mapping', () => {
  it('puts a JSON column in an open type`s table, named by the convention or the mapping', () => {
    expect(createSchemaSql(model, 'postgres')[0]).toContain('"DynamicProperties" jsonb');
    expect(createSchemaSql(model, 'mysql')[0]).toContain('`DynamicProperties` JSON');
    expect(createSchemaSql(model, 'sqlite')[0]).toContain('"DynamicProperties" TEXT');
    expect(createSchemaSql(model, 'duckdb')[0]).toContain('"DynamicProperties" JSON');
    expect(createSchemaSql(model, 'postgres', { dynamicProperties: { 'Dyn.Item': 'extra' } })[0]).toContain('"extra" jsonb');
    expect(storedTables(model, { dynamicProperties: { Item: 'extra' } })[0]).toMatchObject({ dynamic: 'extra' });
  });

  it('refuses a column name that collides with a declared property (invalid_model)', () => {
    expect(() => storedTables(model, { dynamicProperties: { Item: 'Name' } })).toThrow(ODataError);
  });

  it('SQL Server is refused with its reason; other untyped uses are refused on SQL and MongoDB', () => {
    expect(() => toSql(bind('$filter=dynA eq 1'), { dialect: 'mssql' })).toThrow(/no SQL Server engine/);
    // A grouped dynamic property is an untyped column: SQL orders it not (MongoDB does, by BSON order).
    expect(() => toSql(bind('$apply=groupby((dynA))&$orderby=dynA'), { dialect: 'sqlite' })).toThrow(/the dynamic property 'dynA' here/);
    expect(() => toMongo(bind('$apply=groupby((dynA))&$orderby=dynA'))).not.toThrow();
    expect(() => toMongo(bind("$apply=groupby((dynA))&$filter=dynA eq 'a'"))).toThrow(/the dynamic property 'dynA' here/);
    for (const query of [
      '$filter=length(dynB) eq 1',
      '$filter=dynA add 1 eq 2',
      '$filter=dynA eq dynB',
      '$filter=dynC',
      '$filter=dynA eq 2024-01-01',
      "$filter=dynA in (1, 'a')",
    ]) {
      const bound = bind(query);
      expect(() => toSql(bound, { dialect: 'postgres' }), query).toThrow(expect.objectContaining({ code: 'unsupported_feature' }));
      expect(() => toMongo(bound), query).toThrow(expect.objectContaining({ code: 'unsupported_feature' }));
      // The reference answers (with the untyped semantics).
      expect(() => compileQuery(bound, { data }).apply(items)).not.toThrow();
    }
  });

  it('passes a hostile name as a parameter (SQL) or a $literal (MongoDB), never as SQL text, a path or an operator', () => {
    const bound = renamed(bind('$filter=dynA eq 1'), 'dynA', 'x"); DROP TABLE t; --$.a');
    const compiled = toSql(bound, { dialect: 'postgres' });
    expect(compiled.sql).not.toContain('DROP');
    expect(compiled.params).toContain('x"); DROP TABLE t; --$.a');
    const nul = renamed(bind('$filter=dynA eq 1'), 'dynA', 'a\u0000b');
    expect(() => toSql(nul, { dialect: 'postgres' })).toThrow(expect.objectContaining({ code: 'unsupported_feature' }));
    expect(() => toMongo(nul)).toThrow(expect.objectContaining({ code: 'unsupported_feature' }));
    const mongo = JSON.stringify(toMongo(bound));
    expect(mongo).toContain('{"$literal":"x\\"); DROP TABLE t; --$.a"}');
  });
});

describe('dynamic properties on every engine', () => {
  let opened: Awaited<ReturnType<typeof openStoredTargets>>;
  beforeAll(async () => {
    opened = await openStoredTargets(model, data, ALL_TARGETS);
    if (process.env.CI === 'true') expect(opened.skipped).toEqual([]);
  });
  afterAll(async () => {
    await opened?.close();
  });

  const check = async (bound: BoundQuery, text: string): Promise<void> => {
    const expected = compileQuery(bound, { data }).apply(items);
    const differences: Record<string, string> = {};
    for (const target of opened.targets) {
      let actual;
      try {
        actual = await target.run(bound);
      } catch (error) {
        differences[target.name] = String(error instanceof Error ? error.message : error);
        continue;
      }
      const result = { ...expected, value: expected.value as Row[] };
      const finding = judge(bound, text, target.name, { kind: 'rows', result }, { kind: 'rows', result: actual }, items).finding;
      if (finding !== undefined) differences[target.name] = finding.detail;
    }
    expect(differences).toEqual({});
    expect(opened.targets.length).toBeGreaterThanOrEqual(4);
  };

  for (const query of QUERIES) it(`Items?${query}`, () => check(bind(query), query));

  for (const name of HOSTILE) {
    const label = name.length > 40 ? `${name.slice(0, 10)}… (${name.length} characters)` : name;
    for (const query of [
      '$filter=dynA eq 3',
      "$filter=dynA eq 'v3'",
      '$orderby=dynA,Id',
      '$apply=groupby((dynA),aggregate(dynA with sum as s))',
      '$select=Id,dynA',
    ]) {
      it(`the member ${JSON.stringify(label)}: ${query}`, () => check(renamed(bind(query), 'dynA', name), `${query} (dynA as ${label})`));
    }
  }
});

describe('dynamic properties in campaigns', () => {
  const generated = generateStoredData(model, { seed: 7, rows: 12 });
  const queries = fc.sample(typedQueryArbitrary(model, 'Items'), { seed: 28, numRuns: 300 }).map((q) => q.readable);
  const dynamic = queries.filter((q) => DYNAMIC_PROPERTY_NAMES.some((name) => q.includes(name)));

  it('generateStoredData fills open types` rows with mixed dynamic values, some absent', () => {
    const values = (generated.Items ?? []).flatMap((row) => Object.values((row.DynamicProperties as Record<string, unknown> | null) ?? {}));
    expect(new Set(values.map((v) => (v === null ? 'null' : typeof v)))).toEqual(new Set(['null', 'number', 'string', 'boolean']));
    expect((generated.Items ?? []).some((row) => row.DynamicProperties === null || Object.keys(row.DynamicProperties as object).length < 3)).toBe(true);
  });

  it('typedQueryArbitrary sometimes reads dynamic properties of open types', () => {
    expect(dynamic.length).toBeGreaterThan(20);
    expect(dynamic.length).toBeLessThan(queries.length);
  });

  let opened: Awaited<ReturnType<typeof openStoredTargets>>;
  beforeAll(async () => {
    opened = await openStoredTargets(model, generated, ALL_TARGETS);
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('the generated queries that read them agree with the reference on every engine', async () => {
    const rows = generated.Items ?? [];
    const differences: string[] = [];
    for (const text of dynamic.slice(0, 60)) {
      let bound: BoundQuery;
      try {
        bound = bind(text);
      } catch {
        continue;
      }
      let expected;
      try {
        expected = compileQuery(bound, { data: generated }).apply(rows);
      } catch {
        continue;
      }
      for (const target of opened.targets) {
        let actual;
        try {
          actual = await target.run(bound);
        } catch (error) {
          // A declared refusal is no disagreement; anything else is.
          if (error instanceof ODataError && error.code === 'unsupported_feature') continue;
          differences.push(`${target.name} ${text}: ${String(error)}`);
          continue;
        }
        const result = { ...expected, value: expected.value as Row[] };
        const finding = judge(bound, text, target.name, { kind: 'rows', result }, { kind: 'rows', result: actual }, rows).finding;
        if (finding !== undefined) differences.push(`${target.name} ${text}: ${finding.detail}`);
      }
    }
    expect(differences).toEqual([]);
  });
});
