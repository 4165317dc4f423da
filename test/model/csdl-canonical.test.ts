/**
 * The canonicaliser of the CSDL round-trip test (`test/helpers/csdl-canonical.ts`): it makes
 * equal what CSDL says is equivalent, and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { annotationCensus, canonicalCsdlXml } from '../helpers/csdl-canonical.js';

const document = (schema: string, head = ''): string =>
  `<?xml version="1.0"?><edmx:Edmx Version="4.01" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">${head}<edmx:DataServices><Schema Namespace="N" Alias="n" xmlns="http://docs.oasis-open.org/odata/ns/edm">${schema}</Schema></edmx:DataServices></edmx:Edmx>`;
const same = (a: string, b: string): void => expect(canonicalCsdlXml(document(a))).toEqual(canonicalCsdlXml(document(b)));
const differ = (a: string, b: string): void => expect(canonicalCsdlXml(document(a))).not.toEqual(canonicalCsdlXml(document(b)));

describe('the CSDL XML canonicaliser', () => {
  it('ignores prefixes, attribute order, comments and indentation', () => {
    expect(
      canonicalCsdlXml(
        `<x:Edmx xmlns:x="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><!-- c -->\n  <x:DataServices><e:Schema xmlns:e="http://docs.oasis-open.org/odata/ns/edm" Alias="a" Namespace="N"/></x:DataServices></x:Edmx>`,
      ),
    ).toEqual(
      canonicalCsdlXml(
        `<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices><Schema Namespace="N" Alias="a" xmlns="http://docs.oasis-open.org/odata/ns/edm"/></edmx:DataServices></edmx:Edmx>`,
      ),
    );
  });

  it('drops default attribute values, but not the Nullable of a collection', () => {
    same(
      '<ComplexType Name="C" Abstract="false"><Property Name="p" Type="Edm.String" Nullable="true" Unicode="true"/></ComplexType>',
      '<ComplexType Name="C"><Property Name="p" Type="Edm.String"/></ComplexType>',
    );
    same('<EnumType Name="E" UnderlyingType="Edm.Int32" IsFlags="false"><Member Name="a"/></EnumType>', '<EnumType Name="E"><Member Name="a"/></EnumType>');
    differ(
      '<ComplexType Name="C"><Property Name="p" Type="Collection(Edm.String)" Nullable="true"/></ComplexType>',
      '<ComplexType Name="C"><Property Name="p" Type="Collection(Edm.String)"/></ComplexType>',
    );
    differ(
      '<ComplexType Name="C"><Property Name="p" Type="Edm.String" Nullable="false"/></ComplexType>',
      '<ComplexType Name="C"><Property Name="p" Type="Edm.String"/></ComplexType>',
    );
  });

  it('keeps the notation, the kind and the text of constants and paths', () => {
    differ(
      '<Annotations Target="n.C"><Annotation Term="Core.Description" String="x"/></Annotations>',
      '<Annotations Target="n.C"><Annotation Term="Core.Description"><String>x</String></Annotation></Annotations>',
    );
    differ(
      '<Annotations Target="n.C"><Annotation Term="T.D" Date="2020-01-01"/></Annotations>',
      '<Annotations Target="n.C"><Annotation Term="T.D" String="2020-01-01"/></Annotations>',
    );
    differ(
      '<Annotations Target="n.C"><Annotation Term="T.D" Decimal="1.50"/></Annotations>',
      '<Annotations Target="n.C"><Annotation Term="T.D" Decimal="1.5"/></Annotations>',
    );
  });

  it('takes annotations wherever they stand among their parent’s children, but keeps the order of members, collection items and elements', () => {
    same(
      '<EnumType Name="E"><Annotation Term="Core.Description" String="x"/><Member Name="a"/></EnumType>',
      '<EnumType Name="E"><Member Name="a"/><Annotation Term="Core.Description" String="x"/></EnumType>',
    );
    differ('<EnumType Name="E"><Member Name="a"/><Member Name="b"/></EnumType>', '<EnumType Name="E"><Member Name="b"/><Member Name="a"/></EnumType>');
    differ(
      '<Annotations Target="n.C"><Annotation Term="T.L"><Collection><String>a</String><String>b</String></Collection></Annotation></Annotations>',
      '<Annotations Target="n.C"><Annotation Term="T.L"><Collection><String>b</String><String>a</String></Collection></Annotation></Annotations>',
    );
    differ('<ComplexType Name="A"/><ComplexType Name="B"/>', '<ComplexType Name="B"/><ComplexType Name="A"/>');
  });

  it('merges Annotations blocks of one target, with their qualifier on each annotation, after the other elements; keeps names as spelled', () => {
    same(
      '<Annotations Target="n.C" Qualifier="q"><Annotation Term="T.A"/></Annotations><ComplexType Name="C"/><Annotations Target="n.C"><Annotation Term="T.B"/></Annotations>',
      '<ComplexType Name="C"/><Annotations Target="n.C"><Annotation Term="T.A" Qualifier="q"/><Annotation Term="T.B"/></Annotations>',
    );
    differ('<Annotations Target="n.C"><Annotation Term="T.A"/></Annotations>', '<Annotations Target="N.C"><Annotation Term="T.A"/></Annotations>');
  });

  it('moves an overload next to the first element of its name', () => {
    same(
      '<Function Name="f" IsBound="true"><Parameter Name="a" Type="n.A"/><ReturnType Type="Edm.Int32"/></Function><ComplexType Name="A"/><Function Name="f" IsBound="true"><Parameter Name="b" Type="n.B"/><ReturnType Type="Edm.Int32"/></Function>',
      '<Function Name="f" IsBound="true"><Parameter Name="a" Type="n.A"/><ReturnType Type="Edm.Int32"/></Function><Function Name="f" IsBound="true"><Parameter Name="b" Type="n.B"/><ReturnType Type="Edm.Int32"/></Function><ComplexType Name="A"/>',
    );
  });

  it('counts annotations by namespace-qualified term and qualifier, the block’s qualifier included', () => {
    const census = annotationCensus(
      document(
        '<Annotations Target="n.C" Qualifier="q"><Annotation Term="Core.A"/></Annotations><ComplexType Name="C"><Annotation Term="Org.OData.Core.V1.A"/></ComplexType>',
        '<edmx:Reference Uri="u"><edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/></edmx:Reference>',
      ),
    );
    expect([...census]).toEqual([
      ['Org.OData.Core.V1.A#q', 1],
      ['Org.OData.Core.V1.A#', 1],
    ]);
  });
});
