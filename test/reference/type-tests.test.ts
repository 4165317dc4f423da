/**
 * `isof` and `cast` of structured values in the reference (URL 5.1.1.10): the instance is of its
 * own type and its base types, never of a primitive, enum or complex type (an entity) or of an
 * unrelated type; a derived type is known from the value's `@odata.type`. A failed cast is null.
 */
import { describe, expect, it } from 'vitest';
import { DIALECTS, bindQuery, compileQuery, defineModel, mongoTarget, sqlTarget, toMongo, toSql, validateQuery, type Row } from '../../src/index.js';

const model = defineModel({
  namespace: 'Shop',
  enumTypes: { Tier: ['basic', 'gold'] },
  complexTypes: { Address: { properties: { city: 'Edm.String' } } },
  entityTypes: {
    Category: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String' } },
    VipCategory: { baseType: 'Category', properties: { perk: 'Edm.String' } },
    GoldCategory: { baseType: 'VipCategory', properties: {} },
    Product: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: 'Edm.String', categoryId: 'Edm.Int32', address: 'Address' },
      navigation: { category: { type: 'Category', constraints: { categoryId: 'id' } } },
    },
  },
  entitySets: { products: { type: 'Product' }, categories: { type: 'Category' } },
});

const categories: Row[] = [
  { id: 1, name: 'plain' },
  { id: 2, name: 'vip', perk: 'lounge', '@odata.type': '#Shop.VipCategory' },
];
const products: Row[] = [
  { id: 10, name: 'a', categoryId: 1, address: { city: 'Oslo' } },
  { id: 11, name: 'b', categoryId: 2, address: null },
  { id: 12, name: 'c', categoryId: null, address: { city: 'Bergen' } },
];
const data = { products, categories };

const ids = (filter: string): number[] =>
  compileQuery(bindQuery(`$filter=${filter}`, { model, entitySet: 'products' }), { data })
    .apply(products)
    .value.map((row) => row.id as number);

describe('isof and cast of structured values in the reference', () => {
  it('isof(Type) of the instance: its own type and base types yes; primitive, enum, complex types no', () => {
    expect(ids('isof(Shop.Product)')).toEqual([10, 11, 12]);
    expect(ids('isof(Edm.String)')).toEqual([]);
    expect(ids('isof(Shop.Tier)')).toEqual([]);
    expect(ids('isof(Shop.Address)')).toEqual([]);
    expect(ids('not isof(Shop.Category)')).toEqual([10, 11, 12]);
    // Decided by the binder: every backend gets the same literal.
    const bound = bindQuery('$filter=isof(Edm.String)', { model, entitySet: 'products' });
    expect(bound.filter).toMatchObject({ kind: 'literal', value: false });
    expect(toSql(bound, { dialect: 'sqlite' }).sql).toContain('1 = 0');
    expect(JSON.stringify(toMongo(bound))).not.toContain('isof');
  });

  it('isof(navigation, Type): the static type and its bases yes; a derived type by @odata.type; null no', () => {
    expect(ids('isof(category,Shop.Category)')).toEqual([10, 11]);
    expect(ids('isof(category,Shop.VipCategory)')).toEqual([11]);
    expect(ids('isof(address,Shop.Address)')).toEqual([10, 12]);
    expect(ids('isof(address,Shop.Category)')).toEqual([]);
  });

  it('a failed cast is null: cast($it, complex) eq null keeps the row; cast to a derived type by @odata.type', () => {
    expect(ids('cast(Shop.Address) eq null')).toEqual([10, 11, 12]);
    expect(ids('cast(category,Shop.VipCategory) ne null')).toEqual([11]);
  });
});

describe('type-cast path segments (URL 4.11) and types derived twice', () => {
  // A third category, of a type derived from VipCategory, and a product in it.
  const allCategories: Row[] = [...categories, { id: 3, name: 'gold', perk: 'spa', '@odata.type': '#Shop.GoldCategory' }];
  const allProducts: Row[] = [...products, { id: 13, name: 'd', categoryId: 3, address: null }];
  const where = (filter: string): number[] =>
    compileQuery(bindQuery(`$filter=${filter}`, { model, entitySet: 'products' }), { data: { products: allProducts, categories: allCategories } })
      .apply(allProducts)
      .value.map((row) => row.id as number);

  it('a cast to a derived type is null for an instance of another type, and keeps instances of types derived from it', () => {
    expect(where("category/Shop.VipCategory/perk eq 'lounge'")).toEqual([11]);
    expect(where("category/Shop.VipCategory/name eq 'plain'")).toEqual([]);
    expect(where('category/Shop.VipCategory/name eq null')).toEqual([10, 12]);
    expect(where("category/Shop.GoldCategory/perk eq 'spa'")).toEqual([13]);
    expect(where("category/Shop.GoldCategory/perk eq 'lounge'")).toEqual([]);
  });

  it('isof and cast see a type derived twice as an instance of every type between', () => {
    expect(where('isof(category,Shop.VipCategory)')).toEqual([11, 13]);
    expect(where('isof(category,Shop.GoldCategory)')).toEqual([13]);
    expect(where('cast(category,Shop.VipCategory) ne null')).toEqual([11, 13]);
  });

  it('a cast to the type the path already has is no step: every backend runs it', () => {
    const bound = bindQuery("$filter=category/Shop.Category/name eq 'plain'", { model, entitySet: 'products' });
    expect(where("category/Shop.Category/name eq 'plain'")).toEqual([10]);
    expect(bound.filter).toMatchObject({ left: { steps: [{ kind: 'navigation' }, { kind: 'property' }] } });
    for (const dialect of Object.keys(DIALECTS) as (keyof typeof DIALECTS)[]) expect(toSql(bound, { dialect }).sql).toContain('JOIN');
    expect(toMongo(bound).kind).toBe('pipeline');
  });

  it("a cast to the path's own type keeps the navigation binding path: the bound set is still found", () => {
    const bound = defineModel({
      namespace: 'Shop',
      entityTypes: {
        Category: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String' } },
        Product: {
          key: ['id'],
          properties: { id: 'Edm.Int32', categoryId: 'Edm.Int32' },
          navigation: { category: { type: 'Category', constraints: { categoryId: 'id' } } },
        },
      },
      entitySets: { products: { type: 'Product', bindings: { category: 'archived' } }, categories: { type: 'Category' }, archived: { type: 'Category' } },
    });
    for (const filter of ["category/name eq 'x'", "Shop.Product/category/name eq 'x'"]) {
      const query = bindQuery(`$filter=${filter}`, { model: bound, entitySet: 'products' });
      expect(query.filter, filter).toMatchObject({ left: { steps: [{ kind: 'navigation', entitySet: { name: 'archived' } }, { kind: 'property' }] } });
    }
  });

  it('SQL and MongoDB refuse a cast to a derived type (rows do not say their type), and the validator says so first', () => {
    const query = "$filter=category/Shop.VipCategory/perk eq 'lounge'";
    const start = query.indexOf('Shop.VipCategory');
    for (const target of [...Object.values(DIALECTS).map((dialect) => sqlTarget(dialect)), mongoTarget()]) {
      const diagnostics = validateQuery(query, { model, entitySet: 'products', target });
      expect(diagnostics, target.name).toEqual([
        expect.objectContaining({ code: 'unsupported_feature', option: '$filter', range: expect.objectContaining({ start }) }),
      ]);
      expect(diagnostics[0]?.message).toContain("the type cast to 'Shop.VipCategory', a derived type");
    }
  });
});

describe('isof of an integer type in the reference', () => {
  it('is true exactly where the cast to it succeeds: an integral value in the type range', () => {
    // Product ids 10, 11, 12 and categoryId 1, 2, null: every id fits in a Byte, a null does not.
    expect(ids('isof(id,Edm.Byte)')).toEqual([10, 11, 12]);
    expect(ids('isof(categoryId,Edm.Byte)')).toEqual([10, 11]);
    expect(ids('isof(id mul 100,Edm.Byte)')).toEqual([]);
    expect(ids('isof(id mul 100,Edm.Int16)')).toEqual([10, 11, 12]);
    expect(ids('isof(id sub 11,Edm.Byte)')).toEqual([11, 12]);
    expect(ids('isof(id sub 11,Edm.SByte)')).toEqual([10, 11, 12]);
    // And the cast agrees: null exactly where isof is false.
    for (const [value, type] of [
      ['id mul 100', 'Edm.Byte'],
      ['id sub 11', 'Edm.Byte'],
      ['categoryId', 'Edm.Byte'],
    ]) {
      expect(ids(`cast(${value},${type}) ne null`), `${value} as ${type}`).toEqual(ids(`isof(${value},${type})`));
    }
  });
});

describe('cast and isof with enumerations and failed casts in the reference (URL 5.1.1.10.1)', () => {
  const enums = defineModel({
    namespace: 'E',
    enumTypes: { Status: ['draft', 'active', 'retired'], Colors: { members: { red: 1, green: 2, blue: 4 }, flags: true } },
    complexTypes: { Spot: { properties: { x: 'Edm.Int32' } } },
    entityTypes: { Thing: { key: ['id'], properties: { id: 'Edm.Int32', n: 'Edm.Int32', text: 'Edm.String', status: 'Status', colors: 'Colors' } } },
    entitySets: { things: { type: 'Thing' } },
  });
  const things: Row[] = [
    { id: 1, n: 1, text: 'active', status: 'active', colors: 'red' },
    { id: 2, n: 5, text: 'retired,draft', status: 'retired', colors: 'red,blue' },
    { id: 3, n: 3, text: '0', status: null, colors: null },
    { id: 4, n: null, text: 'hello', status: 'draft', colors: 'green' },
  ];
  const where = (filter: string): number[] =>
    compileQuery(bindQuery(`$filter=${filter}`, { model: enums, entitySet: 'things' }), { data: { things } })
      .apply(things)
      .value.map((row) => row.id as number);

  it('an integer casts by the members values; a flag enumeration takes any value of its type', () => {
    expect(where("cast(n,E.Status) eq E.Status'active'")).toEqual([1]);
    expect(where('cast(n,E.Status) eq null')).toEqual([2, 3, 4]);
    expect(where("cast(n,E.Colors) eq E.Colors'red,blue'")).toEqual([2]);
    expect(where("cast(n,E.Colors) has E.Colors'green'")).toEqual([3]);
    expect(where('isof(n,E.Status)')).toEqual([1]);
  });

  it('text casts when it holds member names or a number; isof says where', () => {
    expect(where("cast(text,E.Status) eq E.Status'active'")).toEqual([1]);
    expect(where("cast(text,E.Status) eq E.Status'draft'")).toEqual([3]);
    expect(where('isof(text,E.Status)')).toEqual([1, 3]);
    expect(where('isof(text,E.Colors)')).toEqual([3]);
    expect(where("cast(status,E.Status) eq E.Status'retired'")).toEqual([2]);
  });

  it('an enumeration to an integer type is refused at bind time, as OData.net refuses it', () => {
    expect(() => bindQuery('$filter=cast(status,Edm.Int32) eq 1', { model: enums, entitySet: 'things' })).toThrow(
      expect.objectContaining({ code: 'type_mismatch' }),
    );
  });

  it('failed casts are null, not errors: an entity to text, text to a complex type; no text is a stream', () => {
    expect(where('cast($it,Edm.String) eq null')).toEqual([1, 2, 3, 4]);
    expect(where("cast('',E.Spot) eq null")).toEqual([1, 2, 3, 4]);
    expect(where("isof('hello',Edm.Stream)")).toEqual([]);
    expect(where("isof('OData',Edm.Binary)")).toEqual([]);
    expect(where("isof('T0RhdGE',Edm.Binary)")).toEqual([1, 2, 3, 4]);
  });
});
