/**
 * Model building and writing grow linearly with the document: derived types share their base
 * type's members (no copy per derived type), a chain of derivations deeper than 100 levels is
 * refused, and the XML writer reads each object's annotations once. The tests count work (entries
 * added to maps, members listed and read), not time; the times are in bench/RESULTS.md
 * (bench/csdl-growth.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  csdlJsonFromModel,
  csdlJsonFromXml,
  csdlXmlFromJson,
  csdlXmlFromModel,
  modelFromCsdl,
  modelFromCsdlXml,
  type Model,
  type StructuredType,
} from '../../src/index.js';
import { csdlDocument, type CsdlShape } from '../fixtures/csdl-documents.js';
import { failure } from '../helpers/failure.js';
import { modelShape } from '../helpers/model-shape.js';

const EDMX = 'http://docs.oasis-open.org/odata/ns/edmx';
const EDM = 'http://docs.oasis-open.org/odata/ns/edm';
const schema = (body: string): string =>
  `<edmx:Edmx Version="4.0" xmlns:edmx="${EDMX}"><edmx:DataServices><Schema Namespace="N" xmlns="${EDM}">${body}</Schema></edmx:DataServices></edmx:Edmx>`;

/** `count` entity types, each derived from the previous one, deepest first; each declares one property. */
function chain(count: number): string {
  const types: string[] = ['<EntityType Name="T0"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>'];
  for (let i = 1; i < count; i++) types.push(`<EntityType Name="T${i}" BaseType="N.T${i - 1}"><Property Name="p${i}" Type="Edm.String"/></EntityType>`);
  return schema(`${types.reverse().join('')}<EntityContainer Name="C"><EntitySet Name="s" EntityType="N.T${count - 1}"/></EntityContainer>`);
}

const structured = (model: Model, name: string): StructuredType => model.types.get(name) as StructuredType;

describe('derivation chains', () => {
  it('a chain of 100 derived types is a model: each type has the members of all its base types, in order', () => {
    const model = modelFromCsdlXml(chain(101));
    const deepest = structured(model, 'N.T100');
    expect(deepest.properties.size).toBe(101);
    expect([...deepest.properties.keys()].slice(0, 3)).toEqual(['id', 'p1', 'p2']);
    expect(deepest.properties.get('p50')?.type).toEqual({ kind: 'primitive', name: 'Edm.String' });
    expect(deepest.properties.has('p100') && !structured(model, 'N.T99').properties.has('p100')).toBe(true);
    expect(deepest.key).toEqual(['id']);
    expect(structured(model, 'N.T0').derivedTypes.map((t) => t.name)).toEqual(['T1']);
    // Written back (each type with its own members only) and read again: the same model.
    const json = csdlJsonFromModel(model) as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(json.N?.T100 ?? {})).toEqual(['$Kind', '$BaseType', 'p100']);
    expect(modelShape(modelFromCsdl(json))).toEqual(modelShape(model));
    expect(modelShape(modelFromCsdlXml(csdlXmlFromModel(model)))).toEqual(modelShape(model));
  });

  it('a chain deeper than 100 levels is refused, and a long one is refused quickly', () => {
    expect(failure(() => modelFromCsdlXml(chain(102))).message).toMatch(/'N\.T101' has more than 100 base types above it/);
    // 30,000 types (3 MB), deepest first: the whole chain is walked once, without recursion.
    const long = chain(30_000);
    const t0 = performance.now();
    expect(failure(() => modelFromCsdlXml(long)).message).toMatch(/more than 100 base types/);
    expect(performance.now() - t0).toBeLessThan(20_000);
  }, 60_000);

  it('a type that derives from itself, an unknown base type and a member declared twice along a chain are refused', () => {
    const key = '<Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.Int32" Nullable="false"/>';
    expect(
      failure(() =>
        modelFromCsdlXml(
          schema(`<EntityType Name="A" BaseType="N.C">${key}</EntityType><EntityType Name="B" BaseType="N.A"/><EntityType Name="C" BaseType="N.B"/>`),
        ),
      ).message,
    ).toMatch(/derives from itself/);
    expect(failure(() => modelFromCsdlXml(schema('<EntityType Name="A" BaseType="N.A"/>'))).message).toMatch(/'N\.A' derives from itself/);
    expect(failure(() => modelFromCsdlXml(schema('<EntityType Name="A" BaseType="N.X"/>'))).message).toMatch(/Unknown base type 'N\.X' of 'N\.A'/);
    expect(
      failure(() =>
        modelFromCsdlXml(
          schema(
            `<EntityType Name="C" BaseType="N.B"><Property Name="id" Type="Edm.String"/></EntityType><EntityType Name="B" BaseType="N.A"/><EntityType Name="A">${key}</EntityType>`,
          ),
        ),
      ).message,
    ).toMatch(/Duplicate member 'id' in 'N\.C'/);
    expect(
      failure(() =>
        modelFromCsdlXml(
          schema(
            `<EntityType Name="B" BaseType="N.A"><NavigationProperty Name="n" Type="N.A"/></EntityType><EntityType Name="A">${key}<NavigationProperty Name="n" Type="N.A"/></EntityType>`,
          ),
        ),
      ).message,
    ).toMatch(/Duplicate member 'n' in 'N\.B'/);
  });
});

describe('growth with the size of the document', () => {
  /**
   * The number of entries `run` adds to any Map or Set: a count of work that does not depend on
   * the machine's load. Building a model adds a few per member; copying inherited members into
   * each derived type adds one per member per derived type.
   */
  function entriesAdded(run: () => unknown): number {
    const { set } = Map.prototype;
    const { add } = Set.prototype;
    let count = 0;
    Map.prototype.set = function (this: Map<unknown, unknown>, key: unknown, value: unknown) {
      count++;
      return set.call(this, key, value);
    };
    Set.prototype.add = function (this: Set<unknown>, value: unknown) {
      count++;
      return add.call(this, value);
    };
    try {
      run();
    } finally {
      Map.prototype.set = set;
      Set.prototype.add = add;
    }
    return count;
  }

  it.each<[CsdlShape, number]>([
    // One base type with many properties and as many types derived from it (was: every property copied into every derived type).
    ['star', 100_000],
    // Chains of 100 derived types.
    ['chains', 100_000],
    ['types', 100_000],
    ['annotations', 100_000],
    ['navigation', 100_000],
    ['schemas', 100_000],
  ])(
    'model building: %s, four times larger, does four times the work',
    (shape, size) => {
      const [small, large] = [csdlJsonFromXml(csdlDocument(shape, size)), csdlJsonFromXml(csdlDocument(shape, 4 * size))];
      const ratio = entriesAdded(() => modelFromCsdl(large)) / entriesAdded(() => modelFromCsdl(small));
      expect(ratio).toBeGreaterThan(3);
      expect(ratio).toBeLessThan(5);
    },
    60_000,
  );

  /** A proxy of `object` that counts how often its members are listed and read. */
  function counted(object: Record<string, unknown>): { proxy: Record<string, unknown>; listed: () => number; read: () => number } {
    let listed = 0;
    let read = 0;
    const proxy = new Proxy(object, {
      ownKeys: (target) => {
        listed++;
        return Reflect.ownKeys(target);
      },
      get: (target, key) => {
        read++;
        return Reflect.get(target, key);
      },
    });
    return { proxy, listed: () => listed, read: () => read };
  }

  it.each([
    // Many annotations of one target, many values of one record, many members of one enumeration (each was: the object listed once per annotation, value or member).
    [
      'qualified',
      (json: Record<string, any>) => json.N.$Annotations['N.T'],
      (json: Record<string, any>, proxy: unknown) => (json.N.$Annotations['N.T'] = proxy),
    ],
    [
      'record',
      (json: Record<string, any>) => json.N.$Annotations['N.T']['@Core.Example'],
      (json: Record<string, any>, proxy: unknown) => (json.N.$Annotations['N.T']['@Core.Example'] = proxy),
    ],
    ['enum', (json: Record<string, any>) => json.N.E, (json: Record<string, any>, proxy: unknown) => (json.N.E = proxy)],
  ] as const)('CSDL XML writing: %s, an object with many members is listed once and each member read a few times', (shape, find, replace) => {
    const json = csdlJsonFromXml(csdlDocument(shape as CsdlShape, 100_000)) as Record<string, any>;
    const expected = csdlXmlFromJson(json);
    const object = find(json) as Record<string, unknown>;
    const members = Object.keys(object).length;
    expect(members).toBeGreaterThan(1000);
    const { proxy, listed, read } = counted(object);
    replace(json, proxy);
    expect(csdlXmlFromJson(json)).toBe(expected);
    expect(listed()).toBeLessThanOrEqual(4);
    expect(read()).toBeLessThan(20 * members);
  });
});

describe('nesting in the XML writer', () => {
  const nested = (depth: number) => ({
    $Version: '4.01',
    N: { T: { $Kind: 'ComplexType', '@Core.Description': JSON.parse(`${'{"$Not":'.repeat(depth)}true${'}'.repeat(depth)}`) } },
  });

  it('JSON that the reader can read back is written; deeper nesting is an invalid_model error, not a stack overflow', () => {
    // Edmx, DataServices, Schema, ComplexType, Annotation, 94 × Not, Bool: 100 levels.
    const deepest = nested(94);
    expect(csdlJsonFromXml(csdlXmlFromJson(deepest))).toEqual(deepest);
    // Lines are indented up to 20 levels: the text written stays within a few times the text read.
    const xml = csdlDocument('nesting', 100_000);
    const written = csdlXmlFromJson(csdlJsonFromXml(xml));
    expect(written.length).toBeLessThan(8 * xml.length);
    expect(csdlJsonFromXml(written)).toEqual(csdlJsonFromXml(xml));
    for (const depth of [95, 100_000]) {
      const error = failure(() => csdlXmlFromJson(nested(depth)));
      expect(error.code).toBe('invalid_model');
      expect(error.message).toMatch(/deeper than 100 levels/);
    }
  });
});
