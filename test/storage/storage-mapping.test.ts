/**
 * The storage mapping's conventions (storage/storage-mapping.ts), one rule per test, on a model
 * that has each kind of relationship; the tables they make; and the errors for names that collide.
 */
import { describe, expect, it } from 'vitest';
import {
  createSchemaSql,
  defineModel,
  navigationLink,
  storedTables,
  type NavigationProperty,
  type StoredColumn,
  type StoredLink,
  type StructuredType,
} from '../../src/index.js';

const model = defineModel({
  namespace: 'Shop',
  entityTypes: {
    Customer: {
      key: ['id'],
      properties: { id: 'Edm.Int32', name: 'Edm.String', regionCode: 'Edm.String' },
      navigation: {
        orders: { type: 'Collection(Order)', partner: 'customer' },
        region: { type: 'Region', constraints: { regionCode: 'code' } },
        favourites: { type: 'Collection(Product)' },
        account: { type: 'Account', partner: 'holder' },
        carts: { type: 'Collection(Cart)', containsTarget: true },
      },
    },
    Order: {
      key: ['id'],
      properties: { id: 'Edm.Int32' },
      navigation: { customer: { type: 'Customer', partner: 'orders' }, products: { type: 'Collection(Product)', partner: 'orders' } },
    },
    Product: { key: ['sku'], properties: { sku: 'Edm.String' }, navigation: { orders: { type: 'Collection(Order)', partner: 'products' } } },
    Region: { key: ['code'], properties: { code: 'Edm.String' }, navigation: { customers: { type: 'Collection(Customer)', partner: 'region' } } },
    Account: { key: ['number'], properties: { number: 'Edm.Int64' }, navigation: { holder: { type: 'Customer', partner: 'account' } } },
    Cart: {
      key: ['id'],
      properties: { id: 'Edm.Int32' },
      navigation: { owner: { type: 'Customer', partner: 'carts' }, lines: { type: 'Collection(Line)', containsTarget: true } },
    },
    Line: { key: ['n'], properties: { n: 'Edm.Int32' } },
  },
  entitySets: {
    customers: { type: 'Customer' },
    orders: { type: 'Order' },
    products: { type: 'Product' },
    regions: { type: 'Region' },
    accounts: { type: 'Account' },
  },
});

const type = (name: string): StructuredType => model.types.get(`Shop.${name}`) as StructuredType;
const nav = (typeName: string, name: string): NavigationProperty => type(typeName).navigation.get(name) as NavigationProperty;
const name = (c: StoredColumn): string => c.property?.name ?? `#${c.column}`;
/** A link as text: `direct source=target,…` or `table name: link=source,… | link=target,…`. */
function shown(link: StoredLink | undefined): string {
  if (link === undefined) return 'none';
  if (link.kind === 'direct') return `direct ${link.pairs.map((p) => `${name(p.source)}=${name(p.target)}`).join(',')}`;
  return `table ${link.table}: ${link.source.map((s) => `${s.link}=${name(s.column)}`).join(',')} | ${link.target.map((t) => `${t.link}=${name(t.column)}`).join(',')}`;
}
const linkOf = (typeName: string, navigation: string, storage = {}): string => shown(navigationLink(type(typeName), nav(typeName, navigation), storage));

describe('the storage conventions', () => {
  it('1. referential constraints: the properties', () => expect(linkOf('Customer', 'region')).toBe('direct regionCode=code'));
  it("2. the partner's constraints, reversed", () => expect(linkOf('Region', 'customers')).toBe('direct code=regionCode'));
  it("3. containment: the targets' table holds the container's stored key (its container's first, when it is contained too)", () => {
    expect(linkOf('Customer', 'carts')).toBe('direct id=#Customer_id');
    expect(linkOf('Cart', 'lines')).toBe('direct #Customer_id=#Cart_Customer_id,id=#Cart_id');
  });
  it('4. the way back to the container: the containment reversed', () => expect(linkOf('Cart', 'owner')).toBe('direct #Customer_id=id'));
  it('5. a single-valued navigation with a collection partner: a foreign key of its own', () =>
    expect(linkOf('Order', 'customer')).toBe('direct #customer_id=id'));
  it("5. a collection whose partner is single-valued: the partner's foreign key, reversed", () =>
    expect(linkOf('Customer', 'orders')).toBe('direct id=#customer_id'));
  it('5. a collection without a partner: a link table', () =>
    expect(linkOf('Customer', 'favourites')).toBe('table Customer_favourites: Customer_id=id | favourites_sku=sku'));
  it('5. two collection partners share one link table, owned by the side that sorts first', () => {
    expect(linkOf('Order', 'products')).toBe('table Order_products: Order_id=id | products_sku=sku');
    expect(linkOf('Product', 'orders')).toBe('table Order_products: products_sku=sku | Order_id=id');
  });
  it('5. two single-valued partners: the side that sorts first holds the foreign key', () => {
    expect(linkOf('Account', 'holder')).toBe('direct #holder_id=id');
    expect(linkOf('Customer', 'account')).toBe('direct id=#holder_id');
  });
  it("5. a link table of a navigation property named as its own type: the targets' columns named apart (seed 2837, model 1119)", () => {
    const tree = defineModel({
      namespace: 'T',
      entityTypes: { Node: { key: ['id'], properties: { id: 'Edm.Int32' }, navigation: { Node: { type: 'Collection(Node)' } } } },
      entitySets: { nodes: { type: 'Node' } },
    });
    const node = tree.types.get('T.Node') as StructuredType;
    expect(shown(navigationLink(node, node.navigation.get('Node') as NavigationProperty, {}))).toBe('table Node_Node: Node_id=id | Node_target_id=id');
    expect(createSchemaSql(tree, 'postgres').join('\n')).toContain('CREATE TABLE "Node_Node" ("Node_id" integer NOT NULL, "Node_target_id" integer NOT NULL');
    // Names the mapping gives are kept as they are.
    const named = { navigation: { 'Node.Node': { linkTable: 'edges', sourceColumns: ['parent'], targetColumns: ['child'] } } };
    expect(shown(navigationLink(node, node.navigation.get('Node') as NavigationProperty, named))).toBe('table edges: parent=id | child=id');
    // Named as its own type but for case (model 1312): MySQL/MariaDB column names ignore case.
    const parts = defineModel({
      namespace: 'T',
      entityTypes: { Part: { key: ['kind'], properties: { kind: 'Edm.Int64' }, navigation: { part: { type: 'Collection(Part)' } } } },
      entitySets: { parts: { type: 'Part' } },
    });
    const part = parts.types.get('T.Part') as StructuredType;
    expect(shown(navigationLink(part, part.navigation.get('part') as NavigationProperty, {}))).toBe('table Part_part: Part_kind=kind | part_target_kind=kind');
  });

  it('overrides: a foreign key, a link table, the container columns; the partner follows', () => {
    const storage = {
      navigation: {
        'Order.customer': { foreignKey: ['buyer'] },
        'Shop.Order.products': { linkTable: 'order_lines', sourceColumns: ['order'], targetColumns: ['product'] },
        'Customer.carts': { parentColumns: ['shopper'] },
      },
    };
    expect(linkOf('Order', 'customer', storage)).toBe('direct #buyer=id');
    expect(linkOf('Customer', 'orders', storage)).toBe('direct id=#buyer');
    expect(linkOf('Product', 'orders', storage)).toBe('table order_lines: product=sku | order=id');
    expect(linkOf('Cart', 'owner', storage)).toBe('direct #shopper=id');
  });
});

describe('storedTables and createSchemaSql', () => {
  it('lists every table: entity sets, contained entities at any depth, link tables once', () => {
    const tables = storedTables(model).map((t) =>
      t.kind === 'entities' ? `${t.name}(${t.key.join('+')}; ${t.hidden.map((h) => h.column).join(',')})` : `${t.name}[link]`,
    );
    expect(tables).toEqual([
      'customers(id; )',
      'Customer_carts(Customer_id+id; Customer_id)',
      'Cart_lines(Cart_Customer_id+Cart_id+n; Cart_Customer_id,Cart_id)',
      'orders(id; customer_id)',
      'products(sku; )',
      'regions(code; )',
      'accounts(number; holder_id)',
      'Customer_favourites[link]',
      'Order_products[link]',
    ]);
  });

  it('writes a schema: foreign keys typed as the keys they hold, link tables keyed by both sides', () => {
    const schema = createSchemaSql(model, 'postgres', { naming: 'snake_case' });
    expect(schema).toContain('CREATE TABLE "orders" ("customer_id" integer, "id" integer NOT NULL, PRIMARY KEY ("id"))');
    expect(schema).toContain('CREATE TABLE "customer_carts" ("customer_id" integer NOT NULL, "id" integer NOT NULL, PRIMARY KEY ("customer_id", "id"))');
    expect(schema).toContain(
      'CREATE TABLE "order_products" ("order_id" integer NOT NULL, "products_sku" varchar(255) NOT NULL, PRIMARY KEY ("order_id", "products_sku"))',
    );
  });

  it('refuses names that collide, naming the table', () => {
    expect(() => storedTables(model, { navigation: { 'Order.customer': { foreignKey: ['id'] } } })).not.toThrow();
    expect(() =>
      storedTables(model, {
        navigation: {
          'Account.holder': { foreignKey: ['x'] },
          'Order.customer': { foreignKey: ['x'] },
          'Customer.favourites': { linkTable: 'orders', sourceColumns: [], targetColumns: [] },
        },
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_model', message: expect.stringContaining("Two tables would be named 'orders'") }));
  });
});
