/**
 * The model generator of the testing kit: deterministic per seed, every shape over a few seeds,
 * every model read back from its own CSDL XML, storable (the SQL schema for every dialect, the
 * stored tables loaded into sql.js and PGlite), and a short differential campaign over three
 * generated models that agrees with the in-memory reference on sql.js, PGlite and mingo.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSchemaSql, csdlXmlFromModel, modelFromCsdlXml, storedTables, type DialectName } from '../../src/index.js';
import {
  MODEL_SHAPES,
  fuzzDifferential,
  generateModel,
  generateModelCsdl,
  generateStoredData,
  generatedModelShapes,
  modelArbitrary,
  typedQueryArbitrary,
  type ModelShape,
} from '../../src/testing/index.js';
import { openStoredTargets } from '../fixtures/differential-targets.js';
import { loadStoredTables } from '../fixtures/stored-tables.js';
import { pglite, sqlite } from '../fixtures/sql-engines.js';
import { DIALECTS } from '../../src/backends/sql/dialects/index.js';

const SEEDS = Array.from({ length: 60 }, (_, i) => i);
const DIALECT_NAMES: readonly DialectName[] = ['postgres', 'mysql', 'sqlite', 'mssql', 'duckdb'];

describe('generateModel', () => {
  it('is deterministic per seed, and seeds differ', () => {
    expect(generateModelCsdl({ seed: 5 })).toBe(generateModelCsdl({ seed: 5 }));
    expect(new Set(SEEDS.slice(0, 20).map((seed) => generateModelCsdl({ seed }))).size).toBe(20);
    const [a, b] = fc.sample(modelArbitrary(), { seed: 9, numRuns: 2 });
    const [c, d] = fc.sample(modelArbitrary(), { seed: 9, numRuns: 2 });
    expect(csdlXmlFromModel(a!)).toBe(csdlXmlFromModel(c!));
    expect(csdlXmlFromModel(b!)).toBe(csdlXmlFromModel(d!));
  });

  it('covers every shape over 60 seeds, each seed a different mix', () => {
    const counts = new Map<ModelShape, number>(MODEL_SHAPES.map((s) => [s, 0]));
    const mixes = new Set<string>();
    for (const seed of SEEDS) {
      const model = generateModel({ seed });
      const types = [...model.types.values()].filter((t) => t.kind === 'entity').length;
      expect(types, `seed ${seed}`).toBeGreaterThanOrEqual(3);
      expect(types, `seed ${seed}`).toBeLessThanOrEqual(8);
      const shapes = generatedModelShapes(model);
      mixes.add(shapes.join());
      for (const shape of shapes) counts.set(shape, (counts.get(shape) ?? 0) + 1);
    }
    for (const [shape, count] of counts) expect(count, shape).toBeGreaterThanOrEqual(3);
    expect(mixes.size).toBeGreaterThanOrEqual(50);
  });

  it('builds for every seed: a derived type and its base never declare one name twice (seed 313 did, found by a campaign)', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const model = generateModel({ seed });
      for (const type of model.types.values()) {
        if (type.kind === 'enum' || type.baseType === undefined) continue;
        const own = [...type.properties.keys(), ...type.navigation.keys()];
        expect(new Set(own.map((n) => n.toLowerCase())).size, `seed ${seed}, ${type.name}`).toBe(own.length);
      }
    }
  });

  it('leaves out what the options turn off', () => {
    for (const seed of SEEDS.slice(0, 20)) {
      const shapes = generatedModelShapes(
        generateModel({
          seed,
          openTypes: false,
          geo: false,
          containment: false,
          derivedTypes: false,
          primitiveCollections: false,
          complexCollections: false,
          hierarchies: false,
        }),
      );
      for (const off of [
        'recursive hierarchy',
        'open type',
        'spatial property',
        'containment',
        'derived type',
        'collection of primitive values',
        'collection of complex values',
      ] as const)
        expect(shapes, `seed ${seed}`).not.toContain(off);
    }
  });

  it('every model reads back from the CSDL XML written from it, and is storable in every SQL dialect', () => {
    for (const seed of SEEDS) {
      const model = generateModel({ seed });
      const xml = csdlXmlFromModel(model);
      const again = modelFromCsdlXml(xml);
      expect(csdlXmlFromModel(again), `seed ${seed}`).toBe(xml);
      expect([...again.entitySets.keys()]).toEqual([...model.entitySets.keys()]);
      const tables = storedTables(model);
      for (const dialect of DIALECT_NAMES) expect(createSchemaSql(model, dialect), `seed ${seed} ${dialect}`).toHaveLength(tables.length);
    }
  });

  it('its stored tables load into sql.js and PGlite with generated rows', async () => {
    for (const seed of [11, 12, 13]) {
      const model = generateModel({ seed });
      const data = generateStoredData(model, { seed });
      // PGlite once (it loads slowly); the differential test below loads three more models into both.
      for (const open of seed === 12 ? [sqlite, pglite] : [sqlite]) {
        const engine = await open();
        try {
          await loadStoredTables(engine, model, data, {}, true);
          for (const table of storedTables(model)) {
            const quote = (engine.sqlDialect ?? DIALECTS[engine.dialect]).quote;
            const rows = await engine.query(`SELECT COUNT(*) AS n FROM ${quote(table.name)}`, []);
            expect(Number(rows[0]?.n), `seed ${seed} ${engine.dialect} ${table.name}`).toBe(data[table.name]?.length ?? 0);
          }
        } finally {
          await engine.close();
        }
      }
    }
  }, 30_000);

  it('a seeded differential campaign over three generated models agrees on sql.js, PGlite and mingo', async () => {
    for (const seed of [1, 2, 3]) {
      const model = generateModel({ seed });
      const data = generateStoredData(model, { seed });
      const set = [...model.entitySets.keys()][seed % model.entitySets.size] as string;
      const { targets, close } = await openStoredTargets(model, data, ['sqlite', 'pglite', 'mingo'], {}, {}, true);
      try {
        const report = await fuzzDifferential({
          model,
          entitySet: set,
          rows: data[set] ?? [],
          data,
          settings: { maxAnyAllExpressionDepth: 3 },
          targets,
          count: 30,
          seed,
          shrink: false,
          queries: typedQueryArbitrary(model, set, { maxDepth: 2 }),
        });
        expect(report.queries).toBe(30);
        expect(
          report.distinct.map((f) => `${f.target} ${f.class}: ${f.reproduction} ${f.detail.slice(0, 200)}`),
          `model ${seed}, set ${set}`,
        ).toEqual([]);
      } finally {
        await close();
      }
    }
  }, 60_000);
});
