/**
 * `createODataHandler` for type-cast segments and `$entity?$id=…`: a model with derived entity
 * types, served from memory (the reference, which reads a row's type from its `@odata.type`) and
 * from PGlite (whose rows do not say their type: a cast to a derived type is refused as
 * `unsupported_feature` (400), as `isof` of structured values is; grammar/DEVIATIONS.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineModel } from '../../src/index.js';
import { createODataHandler, memorySource, sqlSource, type ODataHandler } from '../../src/server/index.js';
import { pglite, type Engine } from '../fixtures/sql-engines.js';
import { loadStoredTables } from '../fixtures/stored-tables.js';

const model = defineModel({
  namespace: 'Zoo',
  entityTypes: {
    Animal: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String' }, navigation: { keeper: { type: 'Keeper' } } },
    Bird: { baseType: 'Animal', properties: { wingspan: 'Edm.Double' } },
    Keeper: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String' } },
  },
  entitySets: { Animals: { type: 'Animal', bindings: { keeper: 'Keepers' } }, Keepers: { type: 'Keeper' } },
});

const animals = [
  { id: 1, name: 'Rex', keeper_id: 1 },
  { '@odata.type': '#Zoo.Bird', id: 2, name: 'Tweety', wingspan: 0.2, keeper_id: 2 },
  { '@odata.type': '#Zoo.Bird', id: 3, name: 'Zazu', wingspan: 0.5, keeper_id: 1 },
];
const keepers = [
  { id: 1, name: 'Ann' },
  { id: 2, name: 'Bo' },
];
const ROOT = 'http://localhost/zoo/';

async function get(handler: ODataHandler, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await handler(new Request(`${ROOT}${path.replaceAll(' ', '%20')}`));
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

describe('type casts and $entity', () => {
  const memory = createODataHandler({ model, source: memorySource({ Animals: animals, Keepers: keepers }), basePath: '/zoo' });
  let engine: Engine | undefined;
  let sql: ODataHandler | undefined;
  beforeAll(async () => {
    engine = await pglite();
    await loadStoredTables(engine, model, { Animals: animals.map(({ ['@odata.type']: _type, ...row }) => row), Keepers: keepers }, {}, true);
    const db = engine;
    sql = createODataHandler({ model, source: sqlSource({ dialect: 'postgres', query: (text, params) => db.query(text, params) }), basePath: '/zoo' });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('a cast collection has the derived entities, its options over the derived type, and the cast in its context URL', async () => {
    const birds = await get(memory, 'Animals/Zoo.Bird?$select=name,wingspan&$filter=wingspan gt 0.1&$orderby=wingspan desc');
    expect(birds.status).toBe(200);
    expect(birds.body['@odata.context']).toBe(`${ROOT}$metadata#Animals/Zoo.Bird(name,wingspan)`);
    expect(birds.body.value).toEqual([
      { name: 'Zazu', wingspan: 0.5 },
      { name: 'Tweety', wingspan: 0.2 },
    ]);
    expect((await get(memory, 'Animals/Zoo.Bird/$count')).status).toBe(200);
    const counted = await memory(new Request(`${ROOT}Animals/Zoo.Bird/$count`));
    expect(await counted.text()).toBe('2');
    // The base type itself is no cast at all.
    expect(((await get(memory, 'Animals/Zoo.Animal')).body.value as unknown[]).length).toBe(3);
  });

  it('a cast entity is found only when it is of that type; a cast before a navigation property reads through it', async () => {
    const bird = await get(memory, 'Animals(3)/Zoo.Bird');
    expect(bird.status).toBe(200);
    expect(bird.body).toMatchObject({ '@odata.context': `${ROOT}$metadata#Animals/Zoo.Bird/$entity`, id: 3, wingspan: 0.5 });
    expect((await get(memory, 'Animals(1)/Zoo.Bird')).status).toBe(404);
    const keeper = await get(memory, 'Animals(2)/Zoo.Bird/keeper');
    expect(keeper).toMatchObject({ status: 200, body: { id: 2, name: 'Bo' } });
    expect((await get(memory, 'Animals(1)/Zoo.Bird/keeper')).status).toBe(404);
    // Not served (yet): a cast after a navigation property.
    expect((await get(memory, 'Keepers(1)/Zoo.Keeper')).status).toBe(200);
  });

  it('a SQL source refuses a cast to a derived type as unsupported (its rows do not say their type), never 500', async () => {
    const birds = await get(sql as ODataHandler, 'Animals/Zoo.Bird');
    expect(birds.status).toBe(400);
    expect((birds.body.error as { code: string }).code).toBe('unsupported_feature');
    expect((await get(sql as ODataHandler, 'Animals(2)/Zoo.Bird/keeper')).status).toBe(400);
    // The base type is no cast: served.
    expect((await get(sql as ODataHandler, 'Animals/Zoo.Animal?$select=id')).body.value).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  it('$entity?$id= reads the entity its id names, relative or absolute, with $select and $expand after a cast', async () => {
    for (const handler of [memory, sql as ODataHandler]) {
      const relative = await get(handler, '$entity?$id=Animals(1)');
      expect(relative).toMatchObject({ status: 200, body: { '@odata.context': `${ROOT}$metadata#Animals/$entity`, id: 1, name: 'Rex' } });
      const absolute = await get(handler, `$entity?$id=${encodeURIComponent(`${ROOT}Keepers(2)`)}`);
      expect(absolute).toMatchObject({ status: 200, body: { id: 2, name: 'Bo' } });
      expect((await get(handler, '$entity?$id=Animals(9)')).status).toBe(404);
      // Not one entity, another service, no $id, $select without a cast: the client's mistakes.
      expect((await get(handler, '$entity?$id=Animals')).status).toBe(400);
      expect((await get(handler, `$entity?$id=${encodeURIComponent('http://elsewhere/zoo/Animals(1)')}`)).status).toBe(400);
      expect((await get(handler, '$entity')).status).toBe(400);
      expect((await get(handler, '$entity?$id=Animals(1)&$select=name')).status).toBe(400);
    }
    const cast = await get(memory, '$entity/Zoo.Bird?$id=Animals(3)&$select=name&$expand=keeper($select=name)');
    expect(cast).toMatchObject({
      status: 200,
      body: { '@odata.context': `${ROOT}$metadata#Animals/Zoo.Bird(name,keeper(name))/$entity`, name: 'Zazu', keeper: { name: 'Ann' } },
    });
    expect((await get(memory, '$entity/Zoo.Bird?$id=Animals(1)')).status).toBe(404);
  });
});
