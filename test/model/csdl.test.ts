import { describe, expect, it } from 'vitest';
import { bindQuery, csdlJsonFromModel, modelFromCsdl } from '../../src/index.js';
import { failure } from '../helpers/failure.js';

/** A CSDL JSON document as `$metadata?$format=json` returns it, with Capabilities annotations. */
const csdl = {
  $Version: '4.01',
  $EntityContainer: 'Assets.Container',
  $Reference: {
    'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.json': {
      $Include: [{ $Namespace: 'Org.OData.Capabilities.V1', $Alias: 'Capabilities' }],
    },
  },
  Assets: {
    $Alias: 'self',
    Status: { $Kind: 'EnumType', active: 0, retired: 1 },
    Access: { $Kind: 'EnumType', $IsFlags: true, $UnderlyingType: 'Edm.Int64', read: 1, write: 2 },
    Address: { $Kind: 'ComplexType', street: { $Nullable: true }, city: { $Nullable: true } },
    Named: { $Kind: 'EntityType', $Abstract: true, $Key: ['id'], id: { $Type: 'Edm.Guid' }, name: {} },
    Asset: {
      $Kind: 'EntityType',
      $BaseType: 'self.Named',
      code: {},
      status: { $Type: 'self.Status', $Nullable: true },
      access: { $Type: 'Assets.Access', $Nullable: true },
      tags: { $Type: 'Edm.String', $Collection: true },
      address: { $Type: 'Assets.Address', $Nullable: true },
      localityId: { $Type: 'Edm.Guid', $Nullable: true },
      __proto__x: { $Type: 'Edm.Int32' },
      locality: { $Kind: 'NavigationProperty', $Type: 'Assets.Locality', $Nullable: true, $Partner: 'assets', $ReferentialConstraint: { localityId: 'id' } },
    },
    Locality: {
      $Kind: 'EntityType',
      $Key: ['id'],
      id: { $Type: 'Edm.Guid' },
      name: {},
      assets: { $Kind: 'NavigationProperty', $Type: 'Assets.Asset', $Collection: true, $Partner: 'locality' },
    },
    Container: {
      $Kind: 'EntityContainer',
      assets: {
        $Collection: true,
        $Type: 'Assets.Asset',
        $NavigationPropertyBinding: { locality: 'localities' },
        '@Capabilities.SearchRestrictions': { Searchable: false },
        '@Org.OData.Capabilities.V1.TopSupported': true,
      },
      localities: { $Collection: true, $Type: 'self.Locality', $NavigationPropertyBinding: { assets: 'assets' } },
    },
    $Annotations: {
      'self.Container/assets': {
        '@Capabilities.FilterRestrictions': { NonFilterableProperties: [{ $PropertyPath: 'code' }] },
        '@Capabilities.SortRestrictions': { NonSortableProperties: ['tags'] },
        '@Capabilities.ExpandRestrictions': { NonExpandableProperties: [{ $NavigationPropertyPath: 'locality' }] },
      },
      'Assets.Container/localities': {
        '@Capabilities.SkipSupported': false,
        '@Capabilities.CountRestrictions': { Countable: false },
      },
    },
  },
};

describe('modelFromCsdl', () => {
  const model = modelFromCsdl(csdl);

  it('reads types, inheritance, enums, complex types, collections and navigation', () => {
    const asset = model.types.get('Assets.Asset');
    expect(asset?.kind).toBe('entity');
    if (asset?.kind !== 'entity') return;
    expect(asset.key).toEqual(['id']);
    expect([...asset.properties.keys()]).toEqual(['id', 'name', 'code', 'status', 'access', 'tags', 'address', 'localityId', '__proto__x']);
    expect(asset.properties.get('name')?.nullable).toBe(false);
    expect(asset.properties.get('tags')).toMatchObject({ collection: true, type: { kind: 'primitive', name: 'Edm.String' } });
    expect(asset.navigation.get('locality')).toMatchObject({
      collection: false,
      nullable: true,
      constraints: [{ property: 'localityId', referencedProperty: 'id' }],
    });
    const access = model.types.get('Assets.Access');
    expect(access).toMatchObject({ kind: 'enum', isFlags: true, underlyingType: 'Edm.Int64' });
  });

  it('binds queries against the read model', () => {
    const bound = bindQuery("$filter=status eq 'active' and address/city eq 'Oslo' and tags/any(t:t eq 'x')&$orderby=name", { model, entitySet: 'assets' });
    expect(bound.filter?.type).toEqual({ kind: 'primitive', name: 'Edm.Boolean' });
    expect(bindQuery('$expand=assets', { model, entitySet: 'localities' }).expand[0]?.entitySet?.name).toBe('assets');
  });

  it('applies Capabilities annotations written inline, in $Annotations, by alias or full name', () => {
    expect(failure(() => bindQuery('$search=x', { model, entitySet: 'assets' })).code).toBe('query_option_not_supported');
    expect(failure(() => bindQuery("$filter=code eq 'x'", { model, entitySet: 'assets' })).code).toBe('not_filterable');
    expect(failure(() => bindQuery('$orderby=tags', { model, entitySet: 'assets' })).code).toBe('not_sortable');
    expect(failure(() => bindQuery('$expand=locality', { model, entitySet: 'assets' })).code).toBe('not_expandable');
    expect(failure(() => bindQuery('$skip=1', { model, entitySet: 'localities' })).code).toBe('query_option_not_supported');
    expect(failure(() => bindQuery('$count=true', { model, entitySet: 'localities' })).code).toBe('not_countable');
    expect(bindQuery('$search=x&$top=5', { model, entitySet: 'localities' }).top).toBe(5);
  });

  it('an $Annotations target Type/member is that member, not the entity set of the same name', () => {
    const annotations = { ...csdl.Assets.$Annotations, 'Assets.Asset/localities': { '@Capabilities.TopSupported': false } };
    const read = modelFromCsdl({ ...csdl, Assets: { ...csdl.Assets, $Annotations: annotations } });
    expect(bindQuery('$top=1', { model: read, entitySet: 'localities' }).top).toBe(1);
    const onSet = modelFromCsdl({
      ...csdl,
      Assets: { ...csdl.Assets, $Annotations: { ...annotations, 'self.Container/localities': { '@Capabilities.TopSupported': false } } },
    });
    expect(failure(() => bindQuery('$top=1', { model: onSet, entitySet: 'localities' })).code).toBe('query_option_not_supported');
  });

  it('Aggregation.ApplySupported with no transformations turns $apply off for a set, and the writer keeps it', () => {
    const annotations = { ...csdl.Assets.$Annotations, 'self.Container/localities': { '@Org.OData.Aggregation.V1.ApplySupported': { Transformations: [] } } };
    const read = modelFromCsdl({ ...csdl, Assets: { ...csdl.Assets, $Annotations: annotations } });
    expect(failure(() => bindQuery('$apply=aggregate($count as n)', { model: read, entitySet: 'localities' }))).toMatchObject({
      code: 'query_option_not_supported',
      option: '$apply',
      position: 0,
    });
    // Another set, or a record that lists transformations, keeps it on.
    expect(bindQuery('$apply=groupby((name))', { model: read, entitySet: 'assets' }).apply?.output.properties.has('name')).toBe(true);
    const listed = modelFromCsdl({
      ...csdl,
      Assets: {
        ...csdl.Assets,
        $Annotations: {
          ...csdl.Assets.$Annotations,
          'self.Container/localities': { '@Org.OData.Aggregation.V1.ApplySupported': { Transformations: ['aggregate'] } },
        },
      },
    });
    expect(bindQuery('$apply=aggregate($count as n)', { model: listed, entitySet: 'localities' }).apply).toBeDefined();
    const written = modelFromCsdl(csdlJsonFromModel(read));
    expect(failure(() => bindQuery('$apply=identity', { model: written, entitySet: 'localities' })).code).toBe('query_option_not_supported');
    expect(bindQuery('$apply=identity', { model: written, entitySet: 'assets' }).apply?.entity).toBe(true);
  });

  it('a property named __proto__ (from JSON text) is an ordinary property', () => {
    const text = JSON.stringify(csdl).replace('"__proto__x"', '"__proto__"');
    const withProto = modelFromCsdl(text);
    const asset = withProto.types.get('Assets.Asset');
    expect(asset?.kind === 'entity' && asset.properties.get('__proto__')?.type).toEqual({ kind: 'primitive', name: 'Edm.Int32' });
    expect(bindQuery('$filter=__proto__ eq 1', { model: withProto, entitySet: 'assets' }).filter?.kind).toBe('binary');
  });

  it('accepts the document as text', () => {
    expect(modelFromCsdl(JSON.stringify(csdl)).entitySets.size).toBe(2);
  });

  it('rejects documents that are not a usable model with invalid_model (500)', () => {
    expect(failure(() => modelFromCsdl('{not json')).code).toBe('invalid_model');
    const unknownType = { ...csdl, Assets: { ...csdl.Assets, Broken: { $Kind: 'EntityType', $Key: ['id'], id: { $Type: 'Assets.Nope' } } } };
    const error = failure(() => modelFromCsdl(unknownType));
    expect(error).toMatchObject({ code: 'invalid_model', status: 500 });
    expect(error.message).toContain("Unknown type 'Assets.Nope'");
  });
});
