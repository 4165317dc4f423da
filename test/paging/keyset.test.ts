/**
 * Keyset paging (src/paging): following the continuation page by page gives exactly the unpaged
 * result, on the in-memory reference, PostgreSQL (PGlite), SQLite (sql.js) and MongoDB (mingo),
 * for random rows with nulls and duplicate sort values, random orders and page sizes.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bindQuery,
  compileQuery,
  continueAfter,
  defineModel,
  keysetFilter,
  keysetKeys,
  keysetValues,
  ODataError,
  type BoundQuery,
  type Row,
} from '../../src/index.js';
import { mingoTarget } from '../fixtures/differential-targets.js';
import { load, pglite, run, sqlite, type Engine } from '../fixtures/sql-engines.js';

const model = defineModel({
  namespace: 'Paging',
  enumTypes: { Level: { members: { low: 1, mid: 5, high: 9 } } },
  entityTypes: {
    Item: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        name: 'Edm.String',
        score: 'Edm.Int32',
        price: 'Edm.Double',
        level: 'Level',
        at: 'Edm.DateTimeOffset',
        born: 'Edm.Date',
        ref: 'Edm.Guid',
        big: 'Edm.Int64',
      },
      navigation: { parent: { type: 'Item', constraints: { score: 'id' } } },
    },
  },
  entitySets: { items: { type: 'Item' } },
});

const bind = (query: string): BoundQuery => bindQuery(query, { model, entitySet: 'items', maxTop: 100_000 });

/** Rows with few distinct values per property (duplicates) and nulls everywhere but the key. */
const rowsArbitrary = fc
  .array(
    fc.record({
      name: fc.constantFrom(null, 'a', 'B', 'b', "O'Neil", 'é', ''),
      score: fc.constantFrom(null, -1, 0, 3, 3, 7),
      price: fc.constantFrom(null, -0.5, 0, 2.25, 1e21),
      level: fc.constantFrom(null, 'low', 'mid', 'high'),
      at: fc.constantFrom(null, '2024-01-01T00:00:00Z', '2024-01-01T01:00:00+02:00', '2023-06-30T12:30:15.5Z'),
      born: fc.constantFrom(null, '2000-02-29', '1999-12-31'),
      ref: fc.constantFrom(null, '00000000-0000-4000-8000-000000000001', 'ffffffff-0000-4000-8000-000000000000', '7fffffff-0000-4000-8000-000000000000'),
      // Beyond Int32, within 2^53: sql.js reads Int64 cells as doubles (a continuation needs the exact value).
      big: fc.constantFrom(null, 0n, 4294967296n, -5n),
    }),
    { maxLength: 14 },
  )
  .map((rows) => rows.map((row, index) => ({ id: index * 3 - 7, ...row }) as Row));

const PROPERTIES = ['name', 'score', 'price', 'level', 'at', 'born', 'ref', 'big', 'id'];
const orderArbitrary = fc
  .uniqueArray(fc.constantFrom(...PROPERTIES), { maxLength: 3 })
  .chain((names) => fc.tuple(...names.map((name) => fc.constantFrom(`${name}`, `${name} desc`, `${name} asc`))))
  .map((items) => items.join(','));
const filterArbitrary = fc.constantFrom(undefined, 'score ne 0', "name ne 'a' or name eq null", 'price ge 0');

interface Runner {
  readonly name: string;
  load(rows: readonly Row[]): Promise<void>;
  run(query: BoundQuery): Promise<readonly Row[]>;
}

/** The ids of the whole result, and the ids of the pages followed by keyset continuation. */
async function pagedAndWhole(runner: Runner, options: string, pageSize: number): Promise<{ whole: unknown[]; paged: unknown[]; pages: number }> {
  const base = bind(options);
  const whole = (await runner.run({ ...base, top: 100_000 })).map((r) => r.id);
  const keys = keysetKeys(base);
  if (keys === undefined) throw new Error(`no keyset keys for ${options}`);
  const paged: unknown[] = [];
  let query: BoundQuery = { ...base, top: pageSize };
  let pages = 0;
  for (;;) {
    const page = await runner.run(query);
    pages++;
    paged.push(...page.map((r) => r.id));
    if (page.length < pageSize || pages > 100) break;
    // The values as a token stores them: through JSON.
    const values = JSON.parse(JSON.stringify(keysetValues(keys, page[page.length - 1] as Row)));
    query = { ...continueAfter(base, values, model), top: pageSize };
  }
  return { whole, paged, pages };
}

describe('keyset paging', () => {
  const runners: Runner[] = [];
  const engines: Engine[] = [];

  beforeAll(async () => {
    let rows: readonly Row[] = [];
    runners.push({ name: 'memory', load: async (r) => void (rows = r), run: async (q) => compileQuery(q).apply(rows as Row[]).value });
    for (const [name, open] of [
      ['PGlite', pglite],
      ['sql.js', sqlite],
    ] as const) {
      const engine = await open();
      engines.push(engine);
      const created = new Set<string>();
      runners.push({ name, load: (r) => load(engine, model, 'items', r, created), run: async (q) => (await run(engine, q)).value });
    }
    let mingo = mingoTarget(model, 'items', []);
    runners.push({ name: 'mingo', load: async (r) => void (mingo = mingoTarget(model, 'items', r)), run: async (q) => (await mingo.run(q)).value });
  }, 60_000);
  afterAll(async () => {
    for (const engine of engines) await engine.close();
  });

  it('the keys: $orderby properties, then the entity key; none for expressions and navigation', () => {
    expect(keysetKeys(bind('$orderby=name desc,score'))?.map((k) => `${k.property.name} ${k.direction}`)).toEqual(['name desc', 'score asc', 'id asc']);
    expect(keysetKeys(bind('$orderby=id desc,name'))?.map((k) => `${k.property.name} ${k.direction}`)).toEqual(['id desc', 'name asc']);
    expect(keysetKeys(bind('$orderby=name,name desc'))?.map((k) => k.property.name)).toEqual(['name', 'id']);
    expect(keysetKeys(bind('$orderby=tolower(name)'))).toBeUndefined();
    expect(keysetKeys(bind('$orderby=parent/name'))).toBeUndefined();
    expect(() => continueAfter(bind('$orderby=length(name)'), [1, 2], model)).toThrow(ODataError);
  });

  it('the continuation condition: null first ascending, last descending', () => {
    const keys = keysetKeys(bind('$orderby=name,score desc')) ?? [];
    expect(keysetFilter(keys, ['a', 3, 5])).toBe(
      "name ge 'a' and ((name gt 'a') or (name eq 'a' and (score lt 3 or score eq null)) or (name eq 'a' and score eq 3 and id gt 5))",
    );
    expect(keysetFilter(keys, [null, null, 5])).toBe('(name ne null) or (name eq null and score eq null and id gt 5)');
    expect(keysetFilter(keysetKeys(bind('$orderby=level desc')) ?? [], ['mid', 1])).toBe(
      "(level le Paging.Level'mid' or level eq null) and (((level lt Paging.Level'mid' or level eq null)) or (level eq Paging.Level'mid' and id gt 1))",
    );
    // The key cannot be null: no null case.
    expect(keysetFilter(keysetKeys(bind('$orderby=id desc')) ?? [], [4])).toBe('(id lt 4)');
  });

  it.each([
    ['a value of another type', [5, 1]],
    ['a filter smuggled into a value', ["x') or (true", 1]],
    ['a forged integer', ['a', '1 or true']],
    ['a fraction for an integer key', ['a', 1.5]],
    ['a date that does not exist', ['a', 1], '$orderby=born'],
    ['too few values', ['a']],
    ['an object', [{ $ne: null }, 1]],
  ] as [string, unknown[], string?][])('%s is an invalid $skiptoken (400), never other filter text', (_name, values, order = '$orderby=name') => {
    const base = bind(order);
    if (order === '$orderby=born') values = ['2023-02-29', 1];
    let thrown: unknown;
    try {
      continueAfter(base, values, model);
    } catch (error) {
      thrown = error;
    }
    if (_name === 'a filter smuggled into a value') {
      // A string key takes any text: it stays one quoted literal.
      expect(thrown).toBeUndefined();
      expect(keysetFilter(keysetKeys(base) ?? [], values)).toBe(
        "name ge 'x'') or (true' and ((name gt 'x'') or (true') or (name eq 'x'') or (true' and id gt 1))",
      );
      return;
    }
    expect(thrown).toBeInstanceOf(ODataError);
    expect((thrown as ODataError).code).toBe('invalid_option_value');
    expect((thrown as ODataError).status).toBe(400);
  });

  it('keeps the query filter: the continuation is ANDed into it', async () => {
    const runner = runners[0] as Runner;
    await runner.load([1, 2, 3, 4, 5].map((id) => ({ id, score: id % 2 })));
    const { whole, paged } = await pagedAndWhole(runner, '$filter=score eq 1&$orderby=score desc', 1);
    expect(whole).toEqual([1, 3, 5]);
    expect(paged).toEqual(whole);
  });

  it('concatenated pages equal the unpaged result on every backend (random rows, orders, page sizes)', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(rowsArbitrary, orderArbitrary, filterArbitrary, fc.integer({ min: 1, max: 4 }), async (rows, order, filter, pageSize) => {
        const options = [filter === undefined ? '' : `$filter=${filter}`, order === '' ? '' : `$orderby=${order}`].filter((o) => o !== '').join('&');
        let reference: unknown[] | undefined;
        for (const runner of runners) {
          await runner.load(rows);
          const { whole, paged, pages } = await pagedAndWhole(runner, options, pageSize);
          expect({ runner: runner.name, options, pageSize, paged }).toEqual({ runner: runner.name, options, pageSize, paged: whole });
          expect(pages).toBe(Math.floor(whole.length / pageSize) + 1);
          // And every backend's order is the reference's.
          reference ??= whole;
          expect({ runner: runner.name, options, whole }).toEqual({ runner: runner.name, options, whole: reference });
        }
        checked++;
      }),
      { numRuns: 60, seed: 20260514 },
    );
    expect(checked).toBe(60);
  }, 240_000);
});
