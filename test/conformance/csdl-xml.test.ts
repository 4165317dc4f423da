/**
 * The CSDL XML reader and writers on real published `$metadata` documents (the conformance
 * corpus, never copied into the project): every document reads into CSDL JSON that the XML
 * writer turns back into the same JSON; every service document reads into a model that survives
 * XML → model → JSON → model and model → XML → model unchanged; counts agree with a census of
 * the XML text; Capabilities come through as the JSON reader reads the same annotations.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bindQuery,
  csdlJsonFromModel,
  csdlJsonFromXml,
  csdlXmlFromJson,
  csdlXmlFromModel,
  modelFromCsdl,
  modelFromCsdlXml,
  type CsdlJsonObject,
} from '../../src/index.js';
import { failure } from '../helpers/failure.js';
import { modelShape } from '../helpers/model-shape.js';
import { CORPUS_DIR, corpusAvailable } from './corpus.js';

const read = (file: string): string => readFileSync(resolve(CORPUS_DIR, 'metadata', file), 'utf8');
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

const VOCABULARIES = ['Org.OData.Core.V1.xml', 'Org.OData.Capabilities.V1.xml', 'capabilities-filterrestrictions-sample.xml'];
const SERVICES = [
  'trippin-v4-servicerw.xml',
  'trippin-restier-openapi.xml',
  'trippin-restier-sap-modified.xml',
  'northwind-v4.xml',
  'capabilities-annotations-openapi.xml',
  'sap-rap-vh-billingblockreason.xml',
  'sap-s4-c_salesordermanage_sd.xml',
  'msgraph-v1.0-clean.xml',
];

describe.skipIf(!corpusAvailable)('CSDL XML on published metadata documents', () => {
  it.each([...VOCABULARIES, ...SERVICES])(
    '%s: XML → JSON → XML → JSON gives the same JSON',
    (file) => {
      const json = plain(csdlJsonFromXml(read(file)));
      expect(plain(csdlJsonFromXml(csdlXmlFromJson(json as object)))).toEqual(json);
    },
    60_000,
  );

  it.each(['Org.OData.Core.V1.xml', 'Org.OData.Capabilities.V1.xml'])('%s: every Term, TypeDefinition and EnumType is read', (file) => {
    const text = read(file);
    const schema = Object.values(csdlJsonFromXml(text)).find(
      (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && '$Alias' in v,
    ) as CsdlJsonObject;
    const kinds = Object.values(schema).map((v) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v.$Kind : undefined));
    for (const kind of ['Term', 'TypeDefinition', 'EnumType', 'ComplexType']) {
      expect({ kind, n: kinds.filter((k) => k === kind).length }).toEqual({ kind, n: count(text, new RegExp(`<${kind}\\s`, 'g')) });
    }
  });

  it.each(SERVICES)('%s: every type facet of a property (MaxLength, Precision, Scale, SRID) is in the model and written back', (file) => {
    const text = read(file);
    const model = modelFromCsdlXml(text);
    // Each property object once (a derived type's map also holds its base type's properties).
    const properties = new Set([...model.types.values()].flatMap((t) => (t.kind === 'enum' ? [] : [...t.properties.values()])));
    const inModel = (facet: 'maxLength' | 'precision' | 'scale' | 'srid'): number => [...properties].filter((p) => p.facets?.[facet] !== undefined).length;
    // A census of the text: the attribute on <Property> elements (MaxLength="max" is no length).
    const census = (attribute: string, value = '[^"]+'): number => count(text, new RegExp(`<Property\\s[^>]*\\b${attribute}="${value}"`, 'g'));
    const expected = { maxLength: census('MaxLength', '\\d+'), precision: census('Precision'), scale: census('Scale'), srid: census('SRID') };
    expect({ maxLength: inModel('maxLength'), precision: inModel('precision'), scale: inModel('scale'), srid: inModel('srid') }).toEqual(expected);
    const written = csdlXmlFromModel(model);
    const writtenCensus = (attribute: string, value = '[^"]+'): number => count(written, new RegExp(`<Property\\s[^>]*\\b${attribute}="${value}"`, 'g'));
    expect({
      maxLength: writtenCensus('MaxLength', '\\d+'),
      precision: writtenCensus('Precision'),
      scale: writtenCensus('Scale'),
      srid: writtenCensus('SRID'),
    }).toEqual(expected);
  });

  it.each(SERVICES)('%s: Abstract and HasStream of every type are in the model and written back', (file) => {
    const text = read(file);
    const model = modelFromCsdlXml(text);
    const types = [...model.types.values()].flatMap((t) => (t.kind === 'enum' ? [] : [t]));
    const census = (xml: string, attribute: string): number => count(xml, new RegExp(`<(EntityType|ComplexType)\\s[^>]*\\b${attribute}="true"`, 'g'));
    const expected = { abstract: census(text, 'Abstract'), hasStream: census(text, 'HasStream') };
    expect({ abstract: types.filter((t) => t.abstract === true).length, hasStream: types.filter((t) => t.hasStream === true).length }).toEqual(expected);
    const written = csdlXmlFromModel(model);
    expect({ abstract: census(written, 'Abstract'), hasStream: census(written, 'HasStream') }).toEqual(expected);
  });

  it.each(SERVICES)('%s: ContainsTarget of every navigation property is in the model and written back', (file) => {
    const text = read(file);
    const model = modelFromCsdlXml(text);
    const census = (xml: string): number => count(xml, /<NavigationProperty\s[^>]*\bContainsTarget="true"/g);
    const contained = [...model.types.values()].flatMap((t) => (t.kind === 'enum' ? [] : [...t.navigation.values()].filter((n) => n.containsTarget === true)));
    // Navigation properties are shared with derived types: count each declaration once.
    expect(new Set(contained).size).toBe(census(text));
    expect(census(csdlXmlFromModel(model))).toBe(census(text));
  });

  it.each(SERVICES)(
    '%s: XML → model → JSON → model, and model → XML → model, give the same model',
    (file) => {
      const text = read(file);
      const model = modelFromCsdlXml(text);
      const shape = modelShape(model);
      expect(modelShape(modelFromCsdl(JSON.stringify(csdlJsonFromXml(text))))).toEqual(shape);
      expect(modelShape(modelFromCsdl(JSON.stringify(csdlJsonFromModel(model))))).toEqual(shape);
      expect(modelShape(modelFromCsdlXml(csdlXmlFromModel(model)))).toEqual(shape);
      // A census of the text: every entity set, entity, complex and enum type, and partner.
      expect(model.entitySets.size).toBe(count(text, /<EntitySet\s/g));
      expect(model.types.size).toBe(count(text, /<(EntityType|ComplexType|EnumType)\s/g));
      const partners = [...model.types.values()].flatMap((t) =>
        t.kind === 'enum' ? [] : [...t.navigation.values()].filter((n) => n.partner !== undefined && t.baseType?.navigation.get(n.name) !== n),
      );
      expect(partners.length).toBe(count(text, /<NavigationProperty\s[^>]*Partner="/g));
    },
    120_000,
  );

  it('Northwind: composite keys, cross-schema types, referential constraints', () => {
    const text = read('northwind-v4.xml');
    const model = modelFromCsdlXml(text);
    const invoice = model.types.get('NorthwindModel.Invoice');
    const keyText = /<EntityType Name="Invoice"[\s\S]*?<Key>([\s\S]*?)<\/Key>/.exec(text)?.[1] ?? '';
    expect(invoice?.kind === 'entity' && invoice.key).toEqual([...keyText.matchAll(/Name="([^"]+)"/g)].map((m) => m[1]));
    const constraints = [...model.types.values()].flatMap((t) => (t.kind === 'enum' ? [] : [...t.navigation.values()].flatMap((n) => n.constraints)));
    expect(constraints.length).toBe(count(text, /<ReferentialConstraint\s/g));
    expect(bindQuery("$filter=Order/Customer/Country eq 'Norway'&$expand=Product", { model, entitySet: 'Order_Details' }).expand[0]?.entitySet?.name).toBe(
      'Products',
    );
  });

  it('TripPin: bindings with type-cast paths, containment, inheritance, open types', () => {
    const model = modelFromCsdlXml(read('trippin-v4-servicerw.xml'));
    const people = model.entitySets.get('People');
    expect(people?.bindings.get('Microsoft.OData.SampleService.Models.TripPin.Flight/From')).toBe('Airports');
    const flight = model.types.get('Microsoft.OData.SampleService.Models.TripPin.Flight');
    expect(flight?.kind === 'entity' && flight.baseType?.baseType?.name).toBe('PlanItem');
    expect(
      bindQuery("$filter=Emails/any(e:endswith(e,'@example.com'))&$expand=Friends($top=2)", { model, entitySet: 'People' }).expand[0]?.entitySet?.name,
    ).toBe('People');
  });

  it('Capabilities come through as the JSON reader reads the same annotations (inline in the set, or in an Annotations block)', () => {
    const text = read('capabilities-annotations-openapi.xml');
    const model = modelFromCsdlXml(text);
    // The same types and sets in CSDL JSON, without any annotation, plus the set annotations written by hand in JSON from the file.
    const json = plain(csdlJsonFromXml(text)) as Record<string, any>;
    const schema = json[Object.keys(json).find((k) => !k.startsWith('$')) as string];
    delete schema.$Annotations;
    const container = schema.Container;
    for (const name of Object.keys(container)) {
      if (!name.startsWith('$')) for (const key of Object.keys(container[name])) if (key.startsWith('@')) delete container[name][key];
    }
    const readOnly = {
      '@Org.OData.Capabilities.V1.SkipSupported': false,
      '@Org.OData.Capabilities.V1.TopSupported': false,
      '@Org.OData.Capabilities.V1.CountRestrictions': { Countable: false },
      '@Org.OData.Capabilities.V1.FilterRestrictions': { Filterable: false },
      '@Org.OData.Capabilities.V1.SearchRestrictions': { Searchable: false },
      '@Org.OData.Capabilities.V1.SortRestrictions': { Sortable: false },
      '@Org.OData.Capabilities.V1.SelectSupport': { Supported: false },
      '@Org.OData.Capabilities.V1.ExpandRestrictions': { Expandable: false },
    };
    Object.assign(container.ReadListOnlySet, readOnly);
    Object.assign(container.TwoReadOnlySet, readOnly);
    Object.assign(container.AllSet, { '@Org.OData.Capabilities.V1.SortRestrictions': { NonSortableProperties: ['Example'] } });
    Object.assign(container.TwoAllSet, { '@Org.OData.Capabilities.V1.SortRestrictions': { NonSortableProperties: ['Two'] } });
    expect(modelShape(model)).toEqual(modelShape(modelFromCsdl(json)));
    expect(failure(() => bindQuery('$top=1', { model, entitySet: 'TwoReadOnlySet' })).code).toBe('query_option_not_supported');
  });

  it('SAP S/4HANA and Microsoft Graph: Capabilities in Annotations blocks, through SAP__ aliases and full names, reach exactly the targeted sets', () => {
    const sap = modelFromCsdlXml(read('sap-s4-c_salesordermanage_sd.xml'));
    const searchable = [...sap.entitySets.values()]
      .filter((s) => !s.capabilities.searchable)
      .map((s) => s.name)
      .sort();
    const text = read('sap-s4-c_salesordermanage_sd.xml');
    // The census: Annotations blocks on a container's set whose SearchRestrictions say Searchable false.
    const expected = [...text.matchAll(/<Annotations Target="SAP__self\.Container\/(\w+)">([\s\S]*?)<\/Annotations>/g)]
      .filter((m) => /Term="SAP__capabilities\.SearchRestrictions">\s*<Record>\s*<PropertyValue Property="Searchable" Bool="false"/.test(m[2] as string))
      .map((m) => m[1])
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(searchable).toEqual(expected);
    const graph = modelFromCsdlXml(read('msgraph-v1.0-clean.xml'));
    expect([...(graph.entitySets.get('contacts')?.capabilities.nonExpandableProperties ?? [])]).toEqual(['onPremisesSyncBehavior']);
    // `microsoft.graph.user/contacts` restricts a navigation property, not the entity set `contacts`.
    expect(graph.entitySets.get('contacts')?.capabilities.searchable).toBe(true);
  }, 60_000);
});
