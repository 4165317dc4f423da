/** CSDL XML: reading (into CSDL JSON and into a model), writing (model → JSON, JSON → XML), and the ODataEngine.V1.MaxTop term. */
import { describe, expect, it } from 'vitest';
import {
  bindQuery,
  csdlJsonFromModel,
  csdlJsonFromXml,
  csdlXmlFromJson,
  csdlXmlFromModel,
  defineModel,
  modelFromCsdl,
  modelFromCsdlXml,
} from '../../src/index.js';
import { failure } from '../helpers/failure.js';
import { modelShape } from '../helpers/model-shape.js';

const EDMX = 'http://docs.oasis-open.org/odata/ns/edmx';
const EDM = 'http://docs.oasis-open.org/odata/ns/edm';

/** A $metadata document in the style services write: aliases, inline and external annotations, a comment, CDATA, entities, a BOM. */
const xml = `\uFEFF<?xml version="1.0" encoding="utf-8"?>
<!-- a comment before the root -->
<edmx:Edmx Version="4.0" xmlns:edmx="${EDMX}">
  <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.xml">
    <edmx:Include Namespace="Org.OData.Capabilities.V1" Alias="Cap"/>
  </edmx:Reference>
  <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml">
    <edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/>
  </edmx:Reference>
  <edmx:DataServices>
    <Schema Namespace="Assets" Alias="self" xmlns="${EDM}" xmlns:foreign="urn:foreign">
      <EnumType Name="Status"><Member Name="active"/><Member Name="retired"/><Member Name="lost" Value="7"/><Member Name="found"/></EnumType>
      <EnumType Name="Access" UnderlyingType="Edm.Int64" IsFlags="true"><Member Name="read" Value="1"/><Member Name="write" Value="2"/></EnumType>
      <TypeDefinition Name="Code" UnderlyingType="Edm.String" MaxLength="20"/>
      <ComplexType Name="Address"><Property Name="street" Type="Edm.String"/><Property Name="city" Type="Edm.String" Nullable="false"/></ComplexType>
      <EntityType Name="Named" Abstract="true">
        <Key><PropertyRef Name="id"/></Key>
        <Property Name="id" Type="Edm.Guid" Nullable="false"/>
        <Property Name="name" Type="Edm.String" Nullable="false" MaxLength="max" foreign:hint="ignored"/>
      </EntityType>
      <EntityType Name="Asset" BaseType="self.Named" OpenType="true">
        <Property Name="code" Type="self.Code" Nullable="false"/>
        <Property Name="status" Type="self.Status"/>
        <Property Name="access" Type="Assets.Access"/>
        <Property Name="tags" Type="Collection(Edm.String)" Nullable="false"/>
        <Property Name="address" Type="self.Address"/>
        <Property Name="price" Type="Edm.Decimal" Precision="10" Scale="2" DefaultValue="1.5"/>
        <Property Name="secret" Type="Edm.String"><Annotation Term="Core.Permissions"><EnumMember>Core.Permission/None</EnumMember></Annotation></Property>
        <Property Name="localityId" Type="Edm.Guid"/>
        <NavigationProperty Name="locality" Type="self.Locality" Partner="assets"><ReferentialConstraint Property="localityId" ReferencedProperty="id"/></NavigationProperty>
        <foreign:Extra/>
      </EntityType>
      <EntityType Name="Locality">
        <Key><PropertyRef Name="id"/></Key>
        <Property Name="id" Type="Edm.Guid" Nullable="false"/>
        <Property Name="name" Type="Edm.String" Nullable="false"><Annotation Term="Core.Description"><String><![CDATA[A <name> & more]]></String></Annotation></Property>
        <NavigationProperty Name="assets" Type="Collection(Assets.Asset)" Partner="locality"/>
      </EntityType>
      <Function Name="nearby" IsBound="true" IsComposable="true"><Parameter Name="it" Type="self.Locality" Nullable="false"/><Parameter Name="km" Type="Edm.Double"/><ReturnType Type="Collection(self.Asset)" Nullable="false"/></Function>
      <Function Name="nearby" IsBound="true"><Parameter Name="it" Type="Collection(self.Locality)" Nullable="false"/><ReturnType Type="Edm.Int32"/></Function>
      <Action Name="retire"><Parameter Name="id" Type="Edm.Guid"/></Action>
      <Term Name="Flag" Type="Edm.Boolean" AppliesTo="EntitySet Singleton" DefaultValue="true"/>
      <EntityContainer Name="Container">
        <EntitySet Name="assets" EntityType="self.Asset">
          <NavigationPropertyBinding Path="locality" Target="localities"/>
          <Annotation Term="Cap.SearchRestrictions"><Record><PropertyValue Property="Searchable" Bool="false"/></Record></Annotation>
          <Annotation Term="Org.OData.Capabilities.V1.TopSupported"/>
        </EntitySet>
        <EntitySet Name="localities" EntityType="self.Locality"><NavigationPropertyBinding Path="assets" Target="assets"/></EntitySet>
        <Singleton Name="home" Type="self.Locality"/>
        <FunctionImport Name="nearbyAll" Function="self.nearby" EntitySet="assets" IncludeInServiceDocument="true"/>
        <ActionImport Name="retireOne" Action="self.retire"/>
      </EntityContainer>
      <Annotations Target="self.Container/assets">
        <Annotation Term="Cap.FilterRestrictions"><Record>
          <PropertyValue Property="NonFilterableProperties"><Collection><PropertyPath>code</PropertyPath></Collection></PropertyValue>
          <PropertyValue Property="FilterExpressionRestrictions"><Collection><Record><PropertyValue Property="Property" PropertyPath="name"/><PropertyValue Property="AllowedExpressions" String="MultiValue"/></Record></Collection></PropertyValue>
        </Record></Annotation>
        <Annotation Term="Cap.SortRestrictions"><Record><PropertyValue Property="NonSortableProperties"><Collection><PropertyPath>tags</PropertyPath></Collection></PropertyValue></Record></Annotation>
        <Annotation Term="Cap.ExpandRestrictions"><Record><PropertyValue Property="NonExpandableProperties"><Collection><NavigationPropertyPath>locality</NavigationPropertyPath></Collection></PropertyValue><PropertyValue Property="MaxLevels" Int="2"/></Record></Annotation>
      </Annotations>
      <Annotations Target="Assets.Container/localities">
        <Annotation Term="Cap.SkipSupported" Bool="false"/>
        <Annotation Term="Cap.CountRestrictions"><Record><PropertyValue Property="Countable" Bool="false"/></Record></Annotation>
      </Annotations>
      <Annotations Target="self.Asset/assets">
        <Annotation Term="Cap.SearchRestrictions"><Record><PropertyValue Property="Searchable" Bool="false"/></Record></Annotation>
      </Annotations>
      <Annotations Target="self.Locality" Qualifier="ui">
        <Annotation Term="Core.Description" String="Tom &amp; Jerry&#x27;s &lt;place&gt;"/>
        <Annotation Term="Core.Example"><Record Type="Core.PrimitiveExampleValue"><PropertyValue Property="Value" Float="1.5e3"><Annotation Term="Core.Description" String="on a property value"/></PropertyValue></Record></Annotation>
        <Annotation Term="Core.Computed"><If><And><Path>a</Path><Not><Bool>false</Bool></Not></And><Apply Function="odata.concat"><String>x</String><Int>1</Int></Apply><Null/></If></Annotation>
      </Annotations>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
`;

describe('csdlJsonFromXml', () => {
  const json = csdlJsonFromXml(xml) as Record<string, any>;

  it('maps the document, references and schema as the CSDL JSON specification does', () => {
    expect(json.$Version).toBe('4.0');
    expect(json.$EntityContainer).toBe('Assets.Container');
    expect(Object.values(json.$Reference).flatMap((r: any) => r.$Include)).toEqual([
      { $Namespace: 'Org.OData.Capabilities.V1', $Alias: 'Cap' },
      { $Namespace: 'Org.OData.Core.V1', $Alias: 'Core' },
    ]);
    expect(json.Assets.$Alias).toBe('self');
  });

  it('types: $Kind, $Type only when not Edm.String, XML nullability written out, facets, keys, inheritance', () => {
    const { Named, Asset, Locality, Address, Code } = json.Assets;
    expect(Named).toEqual({ $Kind: 'EntityType', $Abstract: true, $Key: ['id'], id: { $Type: 'Edm.Guid' }, name: {} });
    expect(Asset.$BaseType).toBe('self.Named');
    expect(Asset.$OpenType).toBe(true);
    expect(Asset.code).toEqual({ $Type: 'self.Code' });
    expect(Asset.status).toEqual({ $Type: 'self.Status', $Nullable: true });
    expect(Asset.tags).toEqual({ $Collection: true });
    expect(Asset.price).toEqual({ $Type: 'Edm.Decimal', $Nullable: true, $Precision: 10, $Scale: 2, $DefaultValue: 1.5 });
    expect(Asset.secret['@Core.Permissions']).toBe('None');
    expect(Asset.locality).toEqual({
      $Kind: 'NavigationProperty',
      $Type: 'self.Locality',
      $Nullable: true,
      $Partner: 'assets',
      $ReferentialConstraint: { localityId: 'id' },
    });
    expect(Asset.Extra).toBeUndefined();
    expect(Locality.assets).toEqual({ $Kind: 'NavigationProperty', $Type: 'Assets.Asset', $Collection: true, $Partner: 'locality' });
    expect(Locality.name['@Core.Description']).toBe('A <name> & more');
    expect(Address).toEqual({ $Kind: 'ComplexType', street: { $Nullable: true }, city: {} });
    expect(Code).toEqual({ $Kind: 'TypeDefinition', $UnderlyingType: 'Edm.String', $MaxLength: 20 });
  });

  it('enumerations: members without a value count on from the previous one', () => {
    expect(json.Assets.Status).toEqual({ $Kind: 'EnumType', active: 0, retired: 1, lost: 7, found: 8 });
    expect(json.Assets.Access).toEqual({ $Kind: 'EnumType', $UnderlyingType: 'Edm.Int64', $IsFlags: true, read: 1, write: 2 });
  });

  it('operations (overloads in one array), terms, and the container', () => {
    expect(json.Assets.nearby).toEqual([
      {
        $Kind: 'Function',
        $IsBound: true,
        $IsComposable: true,
        $Parameter: [
          { $Name: 'it', $Type: 'self.Locality' },
          { $Name: 'km', $Type: 'Edm.Double', $Nullable: true },
        ],
        $ReturnType: { $Type: 'self.Asset', $Collection: true },
      },
      {
        $Kind: 'Function',
        $IsBound: true,
        $Parameter: [{ $Name: 'it', $Type: 'self.Locality', $Collection: true }],
        $ReturnType: { $Type: 'Edm.Int32', $Nullable: true },
      },
    ]);
    expect(json.Assets.retire).toEqual([{ $Kind: 'Action', $Parameter: [{ $Name: 'id', $Type: 'Edm.Guid', $Nullable: true }] }]);
    expect(json.Assets.Flag).toEqual({ $Kind: 'Term', $Type: 'Edm.Boolean', $Nullable: true, $AppliesTo: ['EntitySet', 'Singleton'], $DefaultValue: true });
    const { assets, localities, home, nearbyAll, retireOne } = json.Assets.Container;
    expect(assets).toMatchObject({
      $Collection: true,
      $Type: 'self.Asset',
      $NavigationPropertyBinding: { locality: 'localities' },
      '@Cap.SearchRestrictions': { Searchable: false },
    });
    // An annotation without a value applies a tag: true.
    expect(assets['@Org.OData.Capabilities.V1.TopSupported']).toBe(true);
    expect(localities.$NavigationPropertyBinding).toEqual({ assets: 'assets' });
    expect(home).toEqual({ $Type: 'self.Locality' });
    expect(nearbyAll).toEqual({ $Function: 'self.nearby', $EntitySet: 'assets', $IncludeInServiceDocument: true });
    expect(retireOne).toEqual({ $Action: 'self.retire' });
  });

  it('Annotations blocks, qualifiers, records with types, annotations of property values, entities and dynamic expressions', () => {
    const blocks = json.Assets.$Annotations;
    expect(blocks['self.Container/assets']['@Cap.FilterRestrictions']).toEqual({
      NonFilterableProperties: [{ $PropertyPath: 'code' }],
      FilterExpressionRestrictions: [{ Property: { $PropertyPath: 'name' }, AllowedExpressions: 'MultiValue' }],
    });
    const locality = blocks['self.Locality'];
    expect(locality['@Core.Description#ui']).toBe("Tom & Jerry's <place>");
    expect(locality['@Core.Example#ui']).toEqual({ '@type': '#Core.PrimitiveExampleValue', Value: 1500, 'Value@Core.Description': 'on a property value' });
    expect(locality['@Core.Computed#ui']).toEqual({
      $If: [{ $And: [{ $Path: 'a' }, { $Not: false }] }, { $Apply: ['x', 1], $Function: 'odata.concat' }, null],
    });
  });
});

describe('modelFromCsdlXml', () => {
  const model = modelFromCsdlXml(xml);

  it('reads the same model as the CSDL JSON reader from the converted document', () => {
    expect(modelShape(model)).toEqual(modelShape(modelFromCsdl(JSON.stringify(csdlJsonFromXml(xml)))));
    const asset = model.types.get('Assets.Asset');
    if (asset?.kind !== 'entity') throw new Error('no Asset');
    expect([...asset.properties.keys()]).toEqual(['id', 'name', 'code', 'status', 'access', 'tags', 'address', 'price', 'secret', 'localityId']);
    // A TypeDefinition is its underlying type.
    expect(asset.properties.get('code')?.type).toEqual({ kind: 'primitive', name: 'Edm.String' });
    expect(asset.properties.get('secret')).toMatchObject({ selectable: false, filterable: false, sortable: false });
    expect(asset.navigation.get('locality')).toMatchObject({
      nullable: true,
      partner: 'assets',
      constraints: [{ property: 'localityId', referencedProperty: 'id' }],
    });
    expect(model.types.get('Assets.Status')).toMatchObject({
      members: new Map([
        ['active', 0n],
        ['retired', 1n],
        ['lost', 7n],
        ['found', 8n],
      ]),
    });
  });

  it('applies Capabilities written inline and in Annotations blocks, by alias or full name, and only to the set targeted', () => {
    const assets = model.entitySets.get('assets')?.capabilities;
    expect(assets).toMatchObject({ searchable: false, topSupported: true, maxLevels: 2 });
    expect([...(assets?.nonFilterableProperties ?? [])]).toEqual(['code']);
    expect([...(assets?.nonSortableProperties ?? [])]).toEqual(['tags']);
    expect([...(assets?.nonExpandableProperties ?? [])]).toEqual(['locality']);
    // `self.Asset/assets` names a member of a type: not the set `assets` (nor `localities`).
    expect(model.entitySets.get('localities')?.capabilities).toMatchObject({ searchable: true, skipSupported: false, countable: false });
    expect(failure(() => bindQuery("$filter=code eq 'x'", { model, entitySet: 'assets' })).code).toBe('not_filterable');
    expect(failure(() => bindQuery('$skip=1', { model, entitySet: 'localities' })).code).toBe('query_option_not_supported');
    expect(bindQuery("$filter=status eq 'lost' and address/city eq 'Oslo'", { model, entitySet: 'assets' }).filter?.kind).toBe('binary');
    expect(bindQuery('$expand=assets', { model, entitySet: 'localities' }).expand[0]?.entitySet?.name).toBe('assets');
  });

  it('a property named __proto__ is an ordinary property', () => {
    const withProto = modelFromCsdlXml(xml.replace('<Property Name="localityId"', '<Property Name="__proto__" Type="Edm.Int32"/><Property Name="localityId"'));
    const asset = withProto.types.get('Assets.Asset');
    expect(asset?.kind === 'entity' && asset.properties.get('__proto__')?.type).toEqual({ kind: 'primitive', name: 'Edm.Int32' });
    expect(Object.getPrototypeOf(csdlJsonFromXml(xml))).toBe(Object.prototype);
  });

  it('modelFromCsdl points XML text to modelFromCsdlXml', () => {
    const error = failure(() => modelFromCsdl(xml));
    expect(error).toMatchObject({ code: 'invalid_model', status: 500 });
    expect(error.message).toContain('modelFromCsdlXml');
  });
});

describe('writing CSDL', () => {
  const model = defineModel({
    namespace: 'Shop',
    enumTypes: { Color: ['red', 'green'], Perm: { members: { read: 1, write: 2 }, flags: true, underlyingType: 'Edm.Int64' } },
    complexTypes: {
      Address: { properties: { city: 'Edm.String', lines: 'Collection(Edm.String)' } },
      Located: { baseType: 'Address', properties: { geo: 'Edm.GeographyPoint' } },
    },
    entityTypes: {
      Base: { key: ['id'], properties: { id: 'Edm.Int32' }, open: true },
      Product: {
        baseType: 'Base',
        properties: {
          name: { type: 'Edm.String', nullable: false },
          color: 'Color',
          perm: 'Perm',
          address: 'Address',
          secret: { type: 'Edm.String', selectable: false, filterable: false, sortable: false },
          categoryId: 'Edm.Int32',
        },
        navigation: { category: { type: 'Category', constraints: { categoryId: 'id' }, partner: 'products' } },
      },
      Category: {
        key: ['id'],
        properties: { id: 'Edm.Int32', title: 'Edm.String' },
        navigation: { products: { type: 'Collection(Product)', partner: 'category' } },
      },
    },
    entitySets: {
      products: {
        type: 'Product',
        maxTop: 50,
        searchable: false,
        filterable: true,
        nonFilterable: ['address'],
        nonSortable: ['color'],
        nonExpandable: ['category'],
        maxLevels: 1,
        nonCountable: ['name', 'category'],
        topSupported: true,
        bindings: { category: 'categories' },
      },
      categories: { type: 'Category', filterable: false, sortable: false, expandable: false, countable: false, topSupported: false, skipSupported: false },
    },
  });

  it('model → CSDL JSON → model and model → CSDL XML → model give the same model', () => {
    expect(modelShape(modelFromCsdl(csdlJsonFromModel(model)))).toEqual(modelShape(model));
    expect(modelShape(modelFromCsdl(JSON.stringify(csdlJsonFromModel(model))))).toEqual(modelShape(model));
    expect(modelShape(modelFromCsdlXml(csdlXmlFromModel(model)))).toEqual(modelShape(model));
  });

  it('writes the capabilities as vocabulary annotations with references, and the per-set maximum $top as ODataEngine.V1.MaxTop', () => {
    const json = csdlJsonFromModel(model, { containerName: 'Shop' }) as Record<string, any>;
    expect(json.$EntityContainer).toBe('Shop.Shop');
    expect(
      Object.values(json.$Reference)
        .flatMap((r: any) => r.$Include.map((i: any) => i.$Namespace))
        .sort(),
    ).toEqual(['ODataEngine.V1', 'Org.OData.Capabilities.V1', 'Org.OData.Core.V1']);
    const products = json.Shop.Shop.products;
    expect(products['@ODataEngine.MaxTop']).toBe(50);
    expect(products['@Capabilities.CountRestrictions']).toEqual({
      NonCountableProperties: [{ $PropertyPath: 'name' }],
      NonCountableNavigationProperties: [{ $NavigationPropertyPath: 'category' }],
    });
    expect(json.Shop.Shop.categories['@Capabilities.TopSupported']).toBe(false);
    const text = csdlXmlFromModel(model);
    expect(text).toContain('<Annotation Term="ODataEngine.MaxTop" Int="50"/>');
    expect(text).toContain('<Annotation Term="Core.Permissions" EnumMember="Org.OData.Core.V1.Permission/None"/>');
    expect(failure(() => bindQuery('$top=51', { model: modelFromCsdlXml(text), entitySet: 'products' })).code).toBe('top_limit_exceeded');
    expect(bindQuery('$top=50', { model: modelFromCsdlXml(text), entitySet: 'products' }).top).toBe(50);
  });

  it('the MaxTop term is read by full name or alias, in JSON and XML; a value that is no non-negative integer is an invalid_model error', () => {
    const doc = (annotation: Record<string, unknown>) => ({
      $Version: '4.01',
      N: {
        T: { $Kind: 'EntityType', $Key: ['id'], id: { $Type: 'Edm.Int32' } },
        C: { $Kind: 'EntityContainer', ts: { $Collection: true, $Type: 'N.T', ...annotation } },
      },
    });
    expect(modelFromCsdl(doc({ '@ODataEngine.V1.MaxTop': 7 })).entitySets.get('ts')?.capabilities.maxTop).toBe(7);
    expect(
      modelFromCsdl({ ...doc({ '@E.MaxTop': 8 }), $Reference: { 'urn:x': { $Include: [{ $Namespace: 'ODataEngine.V1', $Alias: 'E' }] } } }).entitySets.get('ts')
        ?.capabilities.maxTop,
    ).toBe(8);
    for (const bad of [-1, 1.5, '10', null]) {
      const error = failure(() => modelFromCsdl(doc({ '@ODataEngine.V1.MaxTop': bad })));
      expect(error.code).toBe('invalid_model');
      expect(error.message).toContain('ODataEngine.V1.MaxTop');
    }
    const text = csdlXmlFromJson(doc({ '@ODataEngine.V1.MaxTop': 9 }));
    expect(modelFromCsdlXml(text).entitySets.get('ts')?.capabilities.maxTop).toBe(9);
  });

  it('CSDL JSON → XML → JSON is the identity on a document with every kind of element', () => {
    const json = JSON.parse(JSON.stringify(csdlJsonFromXml(xml)));
    expect(JSON.parse(JSON.stringify(csdlJsonFromXml(csdlXmlFromJson(json))))).toEqual(json);
  });
});
