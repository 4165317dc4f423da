/**
 * One rule for the entity set a navigation property leads to (model/navigation.ts), carried by the
 * bound tree, and followed the same way by every backend: the in-memory reference, SQL (sql.js and
 * PGlite) and MongoDB (mingo). Two entity sets of one type: the binding decides; without one, every
 * backend refuses the same way.
 */
import { Aggregator, Query } from 'mingo';
import 'mingo/init/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bindQuery,
  compileQuery,
  defineModel,
  parseQuery,
  fromMongoDocument,
  toMongo,
  toMongoDocument,
  toSql,
  type BoundPath,
  type BoundQuery,
  type Model,
  type Row,
} from '../../src/index.js';
import { navigationTarget } from '../../src/model/navigation.js';
import { load, pglite, run, sqlite, type Engine } from '../fixtures/sql-engines.js';

const model = defineModel({
  namespace: 'Travel',
  entityTypes: {
    City: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String' } },
    Person: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: 'Edm.String', cityId: 'Edm.Int32', bossId: 'Edm.Int32' },
      navigation: {
        city: { type: 'City', constraints: { cityId: 'id' } },
        boss: { type: 'Person', constraints: { bossId: 'id' } },
        staff: { type: 'Collection(Person)', partner: 'boss' },
      },
    },
  },
  entitySets: {
    people: { type: 'Person', bindings: { city: 'capitals' } },
    formerPeople: { type: 'Person' },
    cities: { type: 'City' },
    capitals: { type: 'City' },
  },
});

// Cities and capitals share their ids: a backend that reads the wrong set finds other names.
const data: Record<string, Row[]> = {
  people: [
    { id: 1, name: 'Ada', cityId: 1, bossId: null },
    { id: 2, name: 'Bo', cityId: 2, bossId: 1 },
    { id: 3, name: 'Cy', cityId: 1, bossId: 1 },
  ],
  formerPeople: [{ id: 1, name: 'Dee', cityId: 2, bossId: null }],
  cities: [
    { id: 1, name: 'Bergen' },
    { id: 2, name: 'Turku' },
  ],
  capitals: [
    { id: 1, name: 'Oslo' },
    { id: 2, name: 'Helsinki' },
  ],
};

const set = (name: string) => model.entitySets.get(name)!;
const person = set('people').type;

describe('navigationTarget: the one rule', () => {
  it('a binding decides; else the one set of the type; else the source set of that type; else none', () => {
    expect(navigationTarget(model, set('people'), person.navigation.get('city')!)?.name).toBe('capitals');
    // Two sets of City and no binding: unknown.
    expect(navigationTarget(model, set('formerPeople'), person.navigation.get('city')!)).toBeUndefined();
    // Two sets of Person: the relationship stays in the set it starts from.
    expect(navigationTarget(model, set('people'), person.navigation.get('boss')!)?.name).toBe('people');
    expect(navigationTarget(model, set('formerPeople'), person.navigation.get('staff')!)?.name).toBe('formerPeople');
    const single = defineModel({
      namespace: 'One',
      entityTypes: {
        City: { key: ['id'], properties: { id: 'Edm.Int32' } },
        Person: { key: ['id'], properties: { id: 'Edm.Int32', cityId: 'Edm.Int32' }, navigation: { city: { type: 'City', constraints: { cityId: 'id' } } } },
      },
      entitySets: { people: { type: 'Person' }, towns: { type: 'City' } },
    });
    expect(navigationTarget(single, single.entitySets.get('people'), single.entitySets.get('people')!.type.navigation.get('city')!)?.name).toBe('towns');
  });

  it('a binding that names no entity set is a model error', () => {
    expect(() =>
      defineModel({
        namespace: 'Bad',
        entityTypes: {
          City: { key: ['id'], properties: { id: 'Edm.Int32' } },
          Person: { key: ['id'], properties: { id: 'Edm.Int32', cityId: 'Edm.Int32' }, navigation: { city: { type: 'City', constraints: { cityId: 'id' } } } },
        },
        entitySets: { people: { type: 'Person', bindings: { city: 'nowhere' } }, towns: { type: 'City' } },
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_model', message: expect.stringContaining("'nowhere'") }));
  });

  it('the bound tree carries the target of every navigation step and expanded item', () => {
    const bound = bindQuery("$filter=boss/city/name eq 'Oslo' and staff/any(s:s/city/name eq 'Oslo')&$expand=city,staff($expand=city)", {
      model,
      entitySet: 'people',
    });
    const filter = bound.filter as Extract<typeof bound.filter, { kind: 'binary' }>;
    const path = (filter.left as Extract<typeof filter.left, { kind: 'binary' }>).left as BoundPath;
    expect(path.steps.map((step) => (step.kind === 'navigation' ? step.entitySet?.name : step.kind))).toEqual(['people', 'capitals', 'property']);
    const lambda = filter.right as Extract<typeof filter.right, { kind: 'lambda' }>;
    expect(lambda.collection.steps.map((step) => step.kind === 'navigation' && step.entitySet?.name)).toEqual(['people']);
    const inner = (lambda.predicate as Extract<typeof filter.left, { kind: 'binary' }>).left as BoundPath;
    expect(inner.steps[0]?.kind === 'navigation' && inner.steps[0].entitySet?.name).toBe('capitals');
    expect(bound.expand.map((item) => item.entitySet?.name)).toEqual(['capitals', 'people']);
    expect(bound.expand[1]?.options.expand[0]?.entitySet?.name).toBe('capitals');
    const former = bindQuery("$filter=city/name eq 'Oslo'&$expand=city", { model, entitySet: 'formerPeople' });
    expect(former.expand[0]?.entitySet).toBeUndefined();
  });
});

/** Runs a bound query in MongoDB (mingo) over `rows` (one collection per entity set). */
function mingo(bound: BoundQuery, rows: Record<string, Row[]> = data, of: Model = model): Row[] {
  const query = toMongo(bound);
  const entitySet = bound.entitySet.name;
  const collections = Object.fromEntries(
    Object.entries(rows).map(([name, list]) => [name, list.map((row) => toMongoDocument(row, of.entitySets.get(name)!.type))]),
  );
  const documents = collections[entitySet]!;
  const found =
    query.kind === 'pipeline'
      ? (new Aggregator([...query.pipeline], { collectionResolver: (name: string) => collections[name] ?? [] }).run(documents) as Record<string, unknown>[])
      : (new Query(query.filter)
          .find(documents, query.projection)
          .sort((query.sort ?? { id: 1 }) as Record<string, 1 | -1>)
          .all() as Record<string, unknown>[]);
  return found.map((document) => fromMongoDocument(document, bound.entityType, {}, bound.expand) as Row);
}

const CASES: [string, string][] = [
  ['people', "$filter=city/name eq 'Oslo'&$orderby=id"],
  ['people', "$filter=boss/city/name eq 'Oslo'&$orderby=id"],
  ['people', "$filter=staff/any(s:s/city/name eq 'Helsinki')&$orderby=id"],
  ['people', '$expand=city($select=name)&$select=id&$orderby=id'],
];

describe.each([
  ['SQLite (sql.js)', sqlite],
  ['PostgreSQL (PGlite)', pglite],
])('%s follows the bound target', (_name, open) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await open();
    const created = new Set<string>();
    for (const [name, rows] of Object.entries(data)) await load(engine, model, name, rows, created);
  });
  afterAll(async () => {
    await engine.close();
  });

  it.each(CASES)('%s?%s: the reference, SQL and MongoDB give the same rows', async (entitySet, text) => {
    const bound = bindQuery(text, { model, entitySet });
    const expected = compileQuery(bound, { data }).apply(data[entitySet]!).value;
    expect(expected.length).toBeGreaterThan(0);
    expect((await run(engine, bound)).value).toEqual(expected);
    expect(mingo(bound)).toEqual(expected);
  });

  it('the binding is followed: Oslo is a capital, not a city', async () => {
    const bound = bindQuery("$filter=city/name eq 'Oslo'&$orderby=id", { model, entitySet: 'people' });
    expect((await run(engine, bound)).value.map((row) => row.id)).toEqual([1, 3]);
  });

  // The third: constant folding makes `(null mul 0) add …` null; the navigation is refused all the same.
  it.each(["$filter=city/name eq 'Oslo'", '$expand=city', '$filter=(null mul 0) add length(city/name) eq 3'])(
    'formerPeople?%s (no binding, two sets of City): the same unsupported_feature everywhere',
    (text) => {
      const bound = bindQuery(text, { model, entitySet: 'formerPeople' });
      const refused = expect.objectContaining({
        code: 'unsupported_feature',
        message: expect.stringContaining("'city', whose entity set the model does not say"),
      });
      expect(() => compileQuery(bound, { data })).toThrow(refused);
      expect(() => toSql(bound, { dialect: engine.dialect })).toThrow(refused);
      expect(() => toMongo(bound)).toThrow(refused);
      // Each places it in the same option; in $filter at the navigation step.
      const place = (compile: () => unknown): unknown => {
        try {
          compile();
        } catch (error) {
          const { option, position } = error as { option?: string; position?: number };
          return text.startsWith('$filter') ? { option, position } : { option };
        }
        return undefined;
      };
      const expected = text.startsWith('$filter') ? { option: '$filter', position: text.indexOf('city') - '$filter='.length } : { option: '$expand' };
      expect(place(() => compileQuery(bound, { data }))).toEqual(expected);
      expect(place(() => toSql(bound, { dialect: engine.dialect }))).toEqual(expected);
      expect(place(() => toMongo(bound))).toEqual(expected);
    },
  );
});

describe('bound $search', () => {
  const searchModel = defineModel({
    namespace: 'Docs',
    entityTypes: {
      Doc: {
        key: ['id'],
        properties: { id: 'Edm.Int32', title: 'Edm.String', body: 'Edm.String', pages: 'Edm.Int32', wholeId: 'Edm.Int32' },
        navigation: { parts: { type: 'Collection(Doc)', partner: 'whole' }, whole: { type: 'Doc', constraints: { wholeId: 'id' } } },
      },
    },
    entitySets: { docs: { type: 'Doc' } },
  });

  it('free text becomes the conjunction of its terms; the grammar keeps NOT, OR and phrases; the properties are listed', () => {
    const bound = bindQuery('$search=pump  valve', { model: searchModel, entitySet: 'docs' });
    expect(bound.search).toMatchObject({
      kind: 'search',
      text: 'pump  valve',
      root: { kind: 'and', left: { kind: 'term', value: 'pump' }, right: { kind: 'term', value: 'valve' } },
    });
    expect(bound.search?.properties.map((p) => p.name)).toEqual(['title', 'body']);
    const grammar = bindQuery('$search=pump OR NOT "red valve"', { model: searchModel, entitySet: 'docs', parse: { search: 'grammar' } });
    expect(grammar.search?.root).toEqual({
      kind: 'or',
      left: { kind: 'term', value: 'pump', phrase: false },
      right: { kind: 'not', operand: { kind: 'term', value: 'red valve', phrase: true } },
    });
    // Blanks only (refused by the parser, but a syntax tree built by hand may hold them): everything matches.
    const blank = { ...parseQuery(''), search: { kind: 'searchText', text: ' ', span: { start: 0, end: 1 } } } as const;
    expect(bindQuery(blank, { model: searchModel, entitySet: 'docs' }).search?.root).toEqual({ kind: 'everything' });
  });

  it('a long free text is a balanced tree, not a deep one', () => {
    const bound = bindQuery(`$search=${Array.from({ length: 1024 }, (_, i) => `t${i}`).join(' ')}`, { model: searchModel, entitySet: 'docs' });
    const depth = (node: unknown): number => {
      const n = node as { kind: string; left?: unknown; right?: unknown };
      return n.kind === 'and' ? 1 + Math.max(depth(n.left), depth(n.right)) : 1;
    };
    expect(depth(bound.search?.root)).toBe(11);
  });

  it('$count($search=…) counts only the matching related entities, in memory and SQL', async () => {
    const rows: Row[] = [
      { id: 1, title: 'Manual', body: null, pages: 3, wholeId: null },
      { id: 2, title: 'Pump chapter', body: 'valves', pages: 1, wholeId: 1 },
      { id: 3, title: 'Index', body: 'pump list', pages: 1, wholeId: 1 },
      { id: 4, title: 'Cover', body: null, pages: 1, wholeId: 1 },
    ];
    const bound = bindQuery('$filter=parts/$count($search=pump) eq 2&$select=id', { model: searchModel, entitySet: 'docs', parse: { search: 'grammar' } });
    const expected = compileQuery(bound, { data: { docs: rows } }).apply(rows).value;
    expect(expected).toEqual([{ id: 1 }]);
    const engine = await sqlite();
    try {
      await load(engine, searchModel, 'docs', rows, new Set());
      expect((await run(engine, bound)).value).toEqual(expected);
      expect(mingo(bound, { docs: rows }, searchModel)).toEqual(expected);
    } finally {
      await engine.close();
    }
  });
});
