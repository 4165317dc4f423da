/**
 * What a model read from CSDL keeps beyond what the binder needs (issue 28): the version,
 * references, every schema with its elements in document order, operations, singletons,
 * imports, terms, type definitions and every annotation; the built-in abstract and path types,
 * which load as types the binder refuses to query.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, csdlJsonFromModel, csdlXmlFromModel, defineModel, modelFromCsdl, modelFromCsdlXml, type Model } from '../../src/index.js';
import { failure } from '../helpers/failure.js';
import { annotationCensus, canonicalCsdlXml } from '../helpers/csdl-canonical.js';

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

  it('every CSDL 4.01 element, attribute and annotation expression comes back, in XML and in JSON', () => {
    const everything = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.01" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" xmlns="http://docs.oasis-open.org/odata/ns/edm">
  <edmx:Reference Uri="https://example.org/Vocabulary.xml">
    <edmx:Include Namespace="Example.Vocabulary" Alias="Voc"><Annotation Term="Voc.Note" String="included"/></edmx:Include>
    <edmx:IncludeAnnotations TermNamespace="Example.Vocabulary" Qualifier="Tablet" TargetNamespace="Shop"/>
    <Annotation Term="Voc.Note" String="reference"/>
  </edmx:Reference>
  <edmx:DataServices>
    <Schema Namespace="Shop" Alias="self" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <TypeDefinition Name="Amount" UnderlyingType="Edm.Decimal" Precision="10" Scale="2"><Annotation Term="Voc.Unit" String="EUR"/></TypeDefinition>
      <TypeDefinition Name="Anything" UnderlyingType="Edm.PrimitiveType"/>
      <Term Name="Level" Type="Edm.Int32" BaseTerm="Voc.Base" AppliesTo="EntityType Property" DefaultValue="1" Nullable="false"/>
      <EnumType Name="Access" UnderlyingType="Edm.Byte" IsFlags="true">
        <Member Name="None" Value="0"/><Member Name="Read" Value="1"><Annotation Term="Voc.Note" String="r"/></Member><Member Name="Write" Value="2"/>
      </EnumType>
      <ComplexType Name="Address" OpenType="true" Abstract="true"><Property Name="street" Type="Edm.String" MaxLength="80" Unicode="false" DefaultValue="-"/></ComplexType>
      <ComplexType Name="Place" BaseType="self.Address"><Property Name="where" Type="Edm.GeographyPoint" SRID="variable"/></ComplexType>
      <EntityType Name="Customer">
        <Key><PropertyRef Name="id"/></Key>
        <Property Name="id" Type="Edm.Int64" Nullable="false"/>
        <Property Name="address" Type="self.Address"/>
        <NavigationProperty Name="orders" Type="Collection(self.Order)" Partner="customer"><OnDelete Action="Cascade"><Annotation Term="Voc.Note" String="cascade"/></OnDelete></NavigationProperty>
      </EntityType>
      <EntityType Name="Order" HasStream="true">
        <Key><PropertyRef Name="id"/><PropertyRef Name="info/number" Alias="number"/></Key>
        <Property Name="id" Type="Edm.Int32" Nullable="false"/>
        <Property Name="info" Type="self.Info" Nullable="false"/>
        <Property Name="customerId" Type="Edm.Int64"/>
        <Property Name="total" Type="self.Amount"/>
        <Property Name="tags" Type="Collection(Edm.String)" Nullable="true"/>
        <NavigationProperty Name="customer" Type="self.Customer" Nullable="false" Partner="orders">
          <ReferentialConstraint Property="customerId" ReferencedProperty="id"><Annotation Term="Voc.Note" String="fk"/></ReferentialConstraint>
        </NavigationProperty>
        <NavigationProperty Name="lines" Type="Collection(self.Line)" ContainsTarget="true"/>
      </EntityType>
      <ComplexType Name="Info"><Property Name="number" Type="Edm.Int32" Nullable="false"/></ComplexType>
      <EntityType Name="Line"><Key><PropertyRef Name="n"/></Key><Property Name="n" Type="Edm.Int32" Nullable="false"/></EntityType>
      <Action Name="ship" IsBound="true" EntitySetPath="order/customer">
        <Parameter Name="order" Type="self.Order" Nullable="false"><Annotation Term="Voc.Note" String="binding"/></Parameter>
        <Parameter Name="note" Type="Edm.String" MaxLength="200"/>
        <ReturnType Type="self.Customer" Nullable="false" xmlns:x="urn:x" x:hint="h"><Annotation Term="Voc.Note" String="returns"/></ReturnType>
      </Action>
      <Function Name="count" IsComposable="true"><Parameter Name="since" Type="Edm.Date"/><ReturnType Type="Edm.Int32"/></Function>
      <Function Name="count" IsComposable="true"><ReturnType Type="Edm.Int32"/></Function>
      <EntityContainer Name="Container">
        <EntitySet Name="customers" EntityType="self.Customer" IncludeInServiceDocument="false"><NavigationPropertyBinding Path="orders" Target="orders"/></EntitySet>
        <EntitySet Name="orders" EntityType="self.Order"><NavigationPropertyBinding Path="customer" Target="Shop.Container/customers"/></EntitySet>
        <Singleton Name="best" Type="self.Customer" Nullable="true"><NavigationPropertyBinding Path="orders" Target="orders"/></Singleton>
        <ActionImport Name="shipAll" Action="self.ship" EntitySet="orders"/>
        <FunctionImport Name="count" Function="self.count" IncludeInServiceDocument="true"/>
        <Annotation Term="Voc.Note" String="container"/>
      </EntityContainer>
      <Annotations Target="self.Customer" Qualifier="Phone">
        <Annotation Term="Voc.Expressions">
          <Record Type="Voc.Everything">
            <PropertyValue Property="binary" Binary="T0RhdGE"/>
            <PropertyValue Property="bool" Bool="false"/>
            <PropertyValue Property="date" Date="2000-01-01"/>
            <PropertyValue Property="dateTimeOffset" DateTimeOffset="2000-01-01T16:00:00.000Z"/>
            <PropertyValue Property="decimal" Decimal="3.140"/>
            <PropertyValue Property="duration" Duration="P7D"/>
            <PropertyValue Property="enum" EnumMember="self.Access/Read self.Access/Write"/>
            <PropertyValue Property="float" Float="3.5E2"/>
            <PropertyValue Property="guid" Guid="21EC2020-3AEA-1069-A2DD-08002B30309D"/>
            <PropertyValue Property="int" Int="42"/>
            <PropertyValue Property="string"><String>  spaced
 text </String></PropertyValue>
            <PropertyValue Property="timeOfDay" TimeOfDay="21:45:00"/>
            <PropertyValue Property="annotationPath" AnnotationPath="orders/@Voc.Note"/>
            <PropertyValue Property="modelElementPath" ModelElementPath="/self.ship"/>
            <PropertyValue Property="navigationPropertyPath" NavigationPropertyPath="orders"/>
            <PropertyValue Property="propertyPath" PropertyPath="address/street"/>
            <PropertyValue Property="path" Path="id"/>
            <PropertyValue Property="logic"><And><Or><Bool>true</Bool><Not><Path>flag</Path></Not></Or><Eq><Int>1</Int><Int>1</Int></Eq></And></PropertyValue>
            <PropertyValue Property="comparisons"><Collection><Ne><Int>1</Int><Int>2</Int></Ne><Gt><Int>2</Int><Int>1</Int></Gt><Ge><Int>2</Int><Int>1</Int></Ge><Lt><Int>1</Int><Int>2</Int></Lt><Le><Int>1</Int><Int>2</Int></Le><Has><Path>access</Path><EnumMember>self.Access/Read</EnumMember></Has><In><Int>1</Int><Collection><Int>1</Int></Collection></In></Collection></PropertyValue>
            <PropertyValue Property="arithmetic"><Collection><Add><Int>1</Int><Int>2</Int></Add><Sub><Int>1</Int><Int>2</Int></Sub><Neg><Int>1</Int></Neg><Mul><Int>1</Int><Int>2</Int></Mul><Div><Int>1</Int><Int>2</Int></Div><DivBy><Decimal>1</Decimal><Decimal>2</Decimal></DivBy><Mod><Int>1</Int><Int>2</Int></Mod></Collection></PropertyValue>
            <PropertyValue Property="apply"><Apply Function="odata.concat"><String>Customers(</String><Path>id</Path><String>)</String><Annotation Term="Voc.Note" String="concat"/></Apply></PropertyValue>
            <PropertyValue Property="cast"><Cast Type="Edm.Decimal" Precision="5" Scale="2"><Path>id</Path></Cast></PropertyValue>
            <PropertyValue Property="isOf"><IsOf Type="Collection(self.Order)"><Path>orders</Path></IsOf></PropertyValue>
            <PropertyValue Property="if"><If><Path>flag</Path><String>yes</String><String>no</String></If></PropertyValue>
            <PropertyValue Property="labeled"><LabeledElement Name="label" Path="id"/></PropertyValue>
            <PropertyValue Property="reference"><LabeledElementReference>self.label</LabeledElementReference></PropertyValue>
            <PropertyValue Property="null"><Null/></PropertyValue>
            <PropertyValue Property="annotatedNull"><Null><Annotation Term="Voc.Note" String="unknown"/></Null></PropertyValue>
            <PropertyValue Property="urlRef"><UrlRef><String>http://example.org/help</String></UrlRef></PropertyValue>
            <PropertyValue Property="empty"><Collection/></PropertyValue>
            <Annotation Term="Voc.Note" String="record"/>
          </Record>
          <Annotation Term="Voc.Note" String="on the annotation"/>
        </Annotation>
        <Annotation Term="Voc.Tag"/>
      </Annotations>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;
    const read = modelFromCsdlXml(everything);
    const written = csdlXmlFromModel(read);
    expect(canonicalCsdlXml(written)).toEqual(canonicalCsdlXml(everything));
    expect(annotationCensus(written)).toEqual(annotationCensus(everything));
    const json = JSON.parse(JSON.stringify(csdlJsonFromModel(read)));
    expect(JSON.parse(JSON.stringify(csdlJsonFromModel(modelFromCsdl(json))))).toEqual(json);
    expect(json.Shop.$Annotations['self.Customer']['@Voc.Expressions#Phone'].annotatedNull).toEqual({ $Null: null, '@Voc.Note': 'unknown' });
  });

  it('a CSDL JSON document comes back as written, explicit defaults included', () => {
    const json = {
      $Version: '4.01',
      $EntityContainer: 'J.C',
      J: {
        T: {
          $Kind: 'EntityType',
          $Key: ['id'],
          id: { $Type: 'Edm.Int32', $Nullable: false },
          name: { $Type: 'Edm.String', $Collection: false },
          self: { $Kind: 'NavigationProperty', $Type: 'J.T', $Nullable: false, $ContainsTarget: false },
        },
        C: { $Kind: 'EntityContainer', ts: { $Collection: true, $Type: 'J.T', $IncludeInServiceDocument: true } },
      },
    };
    expect(JSON.parse(JSON.stringify(csdlJsonFromModel(modelFromCsdl(json))))).toEqual(json);
  });
});
