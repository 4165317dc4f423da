/**
 * A model may come from untyped input (JSON, XML, JavaScript, a config file): whatever its shape,
 * defineModel, modelFromCsdl and modelFromCsdlXml throw only the invalid_model ODataError.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csdlXmlFromJson, defineModel, modelFromCsdl, modelFromCsdlXml, ODataError } from '../../src/index.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('malformed model input', () => {
  it.each([
    ['null', null],
    ['a string', 'model'],
    ['no entity types', { namespace: 'N', entitySets: {} }],
    ['an entity set without a type', { namespace: 'N', entityTypes: { T: { key: ['id'], properties: { id: 'Edm.Int32' } } }, entitySets: { ts: 'T' } }],
    ['null properties', { namespace: 'N', entityTypes: { T: { key: ['id'], properties: null } }, entitySets: {} }],
    ['no namespace', { entityTypes: { T: { key: ['id'], properties: { id: 'Edm.Int32' } } }, entitySets: { ts: { type: 'T' } } }],
  ])('defineModel with %s is an invalid_model ODataError', (_, input) => {
    const error = thrown(() => defineModel(input as never));
    expect(error).toBeInstanceOf(ODataError);
    expect((error as ODataError).code).toBe('invalid_model');
  });

  it('any JSON value, as a whole or in place of a part, gives a model or an ODataError', () => {
    const shapes = (v: unknown, w: unknown): unknown[] => [
      v,
      { namespace: 'N', entityTypes: v, entitySets: w },
      { namespace: 'N', entityTypes: { T: { key: ['id'], properties: v } }, entitySets: { ts: w } },
      { $Version: '4.0', N: v },
      { $Version: '4.0', $EntityContainer: 'N.C', N: { C: { $Kind: 'EntityContainer', S: w }, T: v } },
    ];
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.jsonValue({ maxDepth: 4 }), (v, w) => {
        for (const input of shapes(v, w)) {
          for (const build of [() => defineModel(input as never), () => modelFromCsdl(input as never)]) {
            const error = thrown(build);
            if (error !== undefined) expect(error).toBeInstanceOf(ODataError);
          }
        }
      }),
      { numRuns: 1500, seed: 7 },
    );
  });

  it.each([
    ['a string that is no integer', '"abc"'],
    ['a fraction', '1.5'],
    ['an exponent in a string', '"1e3"'],
    ['a value beyond Int64', '"9223372036854775808"'],
    ['200,000 digits', `"${'9'.repeat(200_000)}"`],
  ])('modelFromCsdl with an enumeration member value that is %s is an invalid_model ODataError', (_, value) => {
    const error = thrown(() => modelFromCsdl(`{"$Version":"4.01","N":{"E":{"$Kind":"EnumType","a":${value}}}}`));
    expect(error).toBeInstanceOf(ODataError);
    expect((error as ODataError).message).toContain("member 'a' of enumeration type 'N.E' must be an Int64 integer");
  });

  it('enumeration member values up to the Int64 limits are read, as numbers or strings', () => {
    const model = modelFromCsdl(
      '{"$Version":"4.01","N":{"E":{"$Kind":"EnumType","$UnderlyingType":"Edm.Int64","a":-5,"b":"9223372036854775807","c":"-9223372036854775808"}}}',
    );
    const type = model.types.get('N.E');
    expect(type?.kind === 'enum' ? [...type.members.values()] : []).toEqual([-5n, 9223372036854775807n, -9223372036854775808n]);
  });

  const EDMX = 'http://docs.oasis-open.org/odata/ns/edmx';
  const EDM = 'http://docs.oasis-open.org/odata/ns/edm';
  const valid = `<edmx:Edmx Version="4.0" xmlns:edmx="${EDMX}"><edmx:DataServices><Schema Namespace="N" xmlns="${EDM}"><EntityType Name="T"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.Int32" Nullable="false"/><Property Name="e" Type="N.E"/></EntityType><EnumType Name="E"><Member Name="a"/></EnumType><EntityContainer Name="C"><EntitySet Name="ts" EntityType="N.T"><Annotation Term="Org.OData.Capabilities.V1.TopSupported" Bool="false"/></EntitySet></EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`;
  const schema = (body: string) =>
    `<edmx:Edmx Version="4.0" xmlns:edmx="${EDMX}"><edmx:DataServices><Schema Namespace="N" xmlns="${EDM}">${body}</Schema></edmx:DataServices></edmx:Edmx>`;

  it.each([
    ['empty text', '', 'not well-formed'],
    ['text that is no XML', 'hello', 'not well-formed'],
    ['an unclosed element', valid.slice(0, -20), 'not well-formed'],
    ['an undefined entity', schema('<Annotation Term="Core.Description" String="&nope;"/>'), 'not well-formed'],
    ['a DOCTYPE with an entity declaration', `<!DOCTYPE x [<!ENTITY a "aaaa">]>${valid}`, 'DOCTYPE'],
    [
      'OData v2/v3 metadata',
      '<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"><edmx:DataServices/></edmx:Edmx>',
      'OData v2/v3',
    ],
    ['another root element', `<Schema Namespace="N" xmlns="${EDM}"/>`, 'root element'],
    ['a root without the edmx namespace', '<Edmx Version="4.0"/>', 'root element'],
    ['version 3.0 in the v4 namespace', `<edmx:Edmx Version="3.0" xmlns:edmx="${EDMX}"/>`, "Version '3.0'"],
    ['no schema', `<edmx:Edmx Version="4.0" xmlns:edmx="${EDMX}"><edmx:DataServices/></edmx:Edmx>`, 'no schema'],
    ['a property without a type', schema('<EntityType Name="T"><Property Name="p"/></EntityType>'), 'needs the attribute Type'],
    [
      'an unknown type',
      schema('<EntityType Name="T"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="N.Nope"/></EntityType>'),
      "Unknown type 'N.Nope'",
    ],
    ['a type declared twice', schema('<ComplexType Name="A"/><ComplexType Name="A"/>'), "declares 'A' twice"],
    ['an enumeration member value that is no integer', schema('<EnumType Name="E"><Member Name="a" Value="x"/></EnumType>'), 'must be an integer'],
    ['a Bool that is no Boolean', schema('<Annotations Target="N.T"><Annotation Term="Core.Computed" Bool="yes"/></Annotations>'), 'not a Boolean'],
    [
      'an unknown annotation expression',
      schema('<Annotations Target="N.T"><Annotation Term="Core.Computed"><Frobnicate/></Annotation></Annotations>'),
      'Unknown annotation expression',
    ],
    [
      'a negative ODataEngine.V1.MaxTop',
      valid.replace('Org.OData.Capabilities.V1.TopSupported" Bool="false"', 'ODataEngine.V1.MaxTop" Int="-1"'),
      'ODataEngine.V1.MaxTop',
    ],
    [
      'elements nested 200 deep',
      schema(`<Annotations Target="N.T"><Annotation Term="X.Y">${'<Collection>'.repeat(200)}${'</Collection>'.repeat(200)}</Annotation></Annotations>`),
      'deeper than',
    ],
  ])('modelFromCsdlXml with %s is an invalid_model ODataError', (_, text, message) => {
    const error = thrown(() => modelFromCsdlXml(text));
    expect(error).toBeInstanceOf(ODataError);
    expect((error as ODataError).code).toBe('invalid_model');
    expect((error as ODataError).message).toContain(message);
  });

  it('a document longer than maxLength is refused before parsing', () => {
    expect(modelFromCsdlXml(valid).entitySets.get('ts')?.capabilities.topSupported).toBe(false);
    const error = thrown(() => modelFromCsdlXml(valid, { maxLength: 100 }));
    expect(error).toBeInstanceOf(ODataError);
    expect((error as ODataError).message).toContain('more than the limit of 100');
  });

  it('a value that is no string, and any cut, splice or character change of a document, gives a model or an ODataError', () => {
    for (const input of [null, undefined, 42, {}, []]) expect(thrown(() => modelFromCsdlXml(input as never))).toBeInstanceOf(ODataError);
    expect(thrown(() => csdlXmlFromJson(null as never))).toBeInstanceOf(ODataError);
    fc.assert(
      fc.property(fc.nat(valid.length), fc.nat(valid.length), fc.string({ maxLength: 12 }), (a, b, insert) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        for (const text of [valid.slice(0, from), valid.slice(0, from) + insert + valid.slice(to), valid.slice(0, from) + valid.slice(to)]) {
          const error = thrown(() => modelFromCsdlXml(text));
          if (error !== undefined) expect(error).toBeInstanceOf(ODataError);
        }
      }),
      { numRuns: 1500, seed: 11 },
    );
  });
});
