/**
 * What a model read from CSDL keeps beyond what the binder needs (issue 28): the version,
 * references, every schema with its elements in document order, operations, singletons,
 * imports, terms, type definitions and every annotation; the built-in abstract and path types,
 * which load as types the binder refuses to query.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, csdlJsonFromModel, csdlXmlFromModel, defineModel, modelFromCsdl, modelFromCsdlXml, type Model } from '../../src/index.js';
import { failure } from '../helpers/failure.js';

const XML = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:Reference Uri="https://example.org/Vocabulary.xml">
    <edmx:Include Namespace="Example.Vocabulary" Alias="Voc"/>
  </edmx:Reference>
  <edmx:DataServices>
    <Schema Namespace="Shop" Alias="self" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <Annotation Term="Voc.Owner" String="sales"/>
      <TypeDefinition Name="Code" UnderlyingType="Edm.String" MaxLength="8"/>
      <Term Name="Tag" Type="Edm.Boolean" DefaultValue="true" AppliesTo="Property"/>
      <EnumType Name="Color">
        <Member Name="Red"><Annotation Term="Voc.Label" String="red"/></Member>
        <Member Name="Blue"/>
      </EnumType>
      <EntityType Name="Product">
        <Key><PropertyRef Name="id"/></Key>
        <Property Name="id" Type="Edm.Int32" Nullable="false" xmlns:p5="urn:ef" p5:StoreGeneratedPattern="Identity"/>
        <Property Name="code" Type="self.Code"/>
        <Property Name="name" Type="Edm.String" MaxLength="max" DefaultValue="none"><Annotation Term="Voc.Since" Date="2020-01-01"/></Property>
        <Property Name="value" Type="Edm.PrimitiveType"/>
        <Property Name="path" Type="Edm.PropertyPath"/>
        <Property Name="extra" Type="Voc.External"/>
        <NavigationProperty Name="anything" Type="Edm.EntityType"/>
        <Annotation Term="Voc.Level" Decimal="1.50"/>
      </EntityType>
      <Function Name="top" IsComposable="true"><Parameter Name="n" Type="Edm.Int32"/><ReturnType Type="Collection(self.Product)"/></Function>
      <Function Name="top" IsComposable="true"><ReturnType Type="Collection(self.Product)"/></Function>
      <Action Name="reset" IsBound="true"><Parameter Name="product" Type="self.Product"/></Action>
      <EntityContainer Name="Container">
        <EntitySet Name="products" EntityType="self.Product"/>
        <Singleton Name="featured" Type="self.Product"/>
        <FunctionImport Name="top" Function="self.top" EntitySet="products"/>
      </EntityContainer>
      <Annotations Target="self.Product/name" Qualifier="short"><Annotation Term="Voc.Label" String="Name"/></Annotations>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;

describe('a model read from CSDL keeps the whole document', () => {
  const model: Model = modelFromCsdlXml(XML);

  it('has the version, the references and every schema element in document order', () => {
    expect(model.version).toBe('4.0');
    expect(Object.keys(model.references ?? {})).toEqual(['https://example.org/Vocabulary.xml']);
    const schema = model.schemas?.[0];
    expect(schema?.namespace).toBe('Shop');
    expect([...(schema?.elements ?? [])].map(([name, element]) => `${element.kind}:${name}`)).toEqual([
      'csdl:Code',
      'csdl:Tag',
      'type:Color',
      'type:Product',
      'csdl:top',
      'csdl:reset',
      'container:Container',
    ]);
    // The overloads of `top`, in CSDL JSON.
    const top = schema?.elements.get('top');
    expect(top?.kind === 'csdl' && Array.isArray(top.csdl) && top.csdl.length).toBe(2);
    const container = schema?.elements.get('Container');
    expect(container?.kind === 'container' && [...container.container.members].map(([name, member]) => `${member.kind}:${name}`)).toEqual([
      'entitySet:products',
      'csdl:featured',
      'csdl:top',
    ]);
    expect(schema?.csdl['@Voc.Owner']).toBe('sales');
    expect(Object.keys((schema?.csdl.$Annotations ?? {}) as object)).toEqual(['self.Product/name']);
  });

  it('keeps the annotations and facets of each element with it', () => {
    const product = model.types.get('Shop.Product');
    expect(product?.kind === 'entity' && product.csdl).toEqual({ '@Voc.Level': 1.5 });
    const name = product?.kind === 'entity' ? product.properties.get('name') : undefined;
    expect(name?.csdl).toEqual({ $DefaultValue: 'none', '@Voc.Since': '2020-01-01' });
    const code = product?.kind === 'entity' ? product.properties.get('code') : undefined;
    expect({ type: code?.type, declaredType: code?.declaredType }).toEqual({ type: { kind: 'primitive', name: 'Edm.String' }, declaredType: 'Shop.Code' });
    const color = model.types.get('Shop.Color');
    expect(color?.kind === 'enum' && color.csdl).toEqual({ 'Red@Voc.Label': 'red' });
  });

  it('writes the document back in both formats: constant kinds, MaxLength max and foreign attributes in XML', () => {
    const xml = csdlXmlFromModel(model);
    expect(xml).toContain('<edmx:Edmx Version="4.0"');
    expect(xml).toContain('<Annotation Term="Voc.Since" Date="2020-01-01"/>');
    expect(xml).toContain('<Annotation Term="Voc.Level" Decimal="1.50"/>');
    expect(xml).toContain('MaxLength="max"');
    expect(xml).toMatch(/<Property Name="id" Type="Edm.Int32" Nullable="false" xmlns:p5="urn:ef" p5:StoreGeneratedPattern="Identity"\/>/);
    expect(xml).toContain('<Singleton Name="featured" Type="self.Product"/>');
    expect(xml).toContain('<Annotation Term="Voc.Label" Qualifier="short" String="Name"/>');
    const json = JSON.parse(JSON.stringify(csdlJsonFromModel(model)));
    expect(JSON.parse(JSON.stringify(csdlJsonFromModel(modelFromCsdl(json))))).toEqual(json);
    expect(json.$Version).toBe('4.0');
    expect(json.Shop.top).toHaveLength(2);
    expect(json.Shop.Tag).toEqual({ $Kind: 'Term', $Type: 'Edm.Boolean', $Nullable: true, $DefaultValue: true, $AppliesTo: ['Property'] });
  });

  it('loads the built-in abstract and path types, and types of referenced documents, which the binder refuses to query', () => {
    const product = model.types.get('Shop.Product');
    const declared = product?.kind === 'entity' ? ['value', 'path', 'extra'].map((name) => product.properties.get(name)?.declaredType) : [];
    expect(declared).toEqual(['Edm.PrimitiveType', 'Edm.PropertyPath', 'Example.Vocabulary.External']);
    expect(bindQuery('$select=value,path,extra&$top=1', { model, entitySet: 'products' }).top).toBe(1);
    for (const query of ['$filter=value eq 1', '$filter=path eq null', '$orderby=extra']) {
      expect([query, failure(() => bindQuery(query, { model, entitySet: 'products' })).code]).toEqual([
        query,
        query.startsWith('$filter') ? 'not_filterable' : 'not_sortable',
      ]);
    }
    expect(failure(() => bindQuery('$expand=anything', { model, entitySet: 'products' })).code).toBe('not_expandable');
  });

  it('the OASIS vocabulary shapes load: Edm.ComplexType properties, Edm.EntityType navigation, abstract type definitions', () => {
    const vocabulary = modelFromCsdlXml(`<edmx:Edmx Version="4.01" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
      <Schema Namespace="V" xmlns="http://docs.oasis-open.org/odata/ns/edm">
        <TypeDefinition Name="Any" UnderlyingType="Edm.PrimitiveType"/>
        <ComplexType Name="Example"><Property Name="value" Type="V.Any"/><Property Name="complex" Type="Edm.ComplexType"/><Property Name="paths" Type="Collection(Edm.AnyPropertyPath)" Nullable="false"/><NavigationProperty Name="entity" Type="Edm.EntityType"/></ComplexType>
      </Schema></edmx:DataServices></edmx:Edmx>`);
    const example = vocabulary.types.get('V.Example');
    expect(example?.kind === 'complex' && [...example.properties.values()].map((p) => [p.name, p.declaredType ?? '', p.filterable])).toEqual([
      ['value', 'V.Any', false],
      ['complex', '', false],
      ['paths', 'Edm.AnyPropertyPath', false],
    ]);
    expect(example?.kind === 'complex' && example.navigation.get('entity')?.target.qualifiedName).toBe('Edm.EntityType');
  });

  it('a model from defineModel writes as before: no schemas, generated Capabilities annotations', () => {
    const defined = defineModel({
      namespace: 'Shop',
      entityTypes: { Product: { key: ['id'], properties: { id: 'Edm.Int32' } } },
      entitySets: { products: { type: 'Product', maxTop: 10 } },
    });
    expect(defined.schemas).toBeUndefined();
    expect(csdlJsonFromModel(defined).$Version).toBe('4.01');
    expect(csdlXmlFromModel(defined)).toContain('<Annotation Term="ODataEngine.MaxTop" Int="10"/>');
  });
});
