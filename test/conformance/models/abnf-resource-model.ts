/**
 * A model for the resource-path cases of the OASIS ABNF test suite, made from the suite's
 * `Constraints` (odata-abnf-testcases.yaml), which name the identifiers of each grammar category
 * but give no types. Every entity type has every property the constraints name (so that a
 * property addressed on any entity exists), each entity set its own type, and every bound
 * function and action has an overload for every binding type. Keys: one Int32 `ID`, except where
 * the cases address a set by text (`People`, `Employees`, `Customers`) or by a compound key
 * (`OrderItems`: `OrderID` Int32, `ItemID` String).
 */
import { modelFromCsdl, type Model } from '../../../src/index.js';

const NS = 'Model';
const SETS = [
  'Categories',
  'Countries',
  'Customers',
  'Employees',
  'LeaveRequests',
  'Orders',
  'OrderItems',
  'People',
  'Products',
  'Sales',
  'SalesOrganizations',
  'Suppliers',
];
const STRING_KEYS = new Set(['People', 'Employees', 'Customers']);
const PRIMITIVES = [
  'AccountRepresentative',
  'Age',
  'Amount',
  'BirthDate',
  'City',
  'code',
  'CompanyName',
  'ContactName',
  'Completed',
  'Cost',
  'CountryCode',
  'eyeColor',
  'FirstName',
  'LastName',
  'LifeTime',
  'Line',
  'message',
  'Month',
  'Name',
  'Population',
  'Price',
  'Quantity',
  'Rating',
  'ReleaseDate',
  'Revenue',
  'SalesArea',
  'severity',
  'Shipped',
  'Spokesperson',
  'State',
  'Status',
  'Street',
  'style',
  'SumAmount',
  'TaxRate',
  'Title',
  'X',
  'ZipCode',
  'Code',
  'Date',
  'Size',
];
const NUMBERS = new Set(['Age', 'Amount', 'Cost', 'Population', 'Price', 'Quantity', 'Rating', 'Revenue', 'SumAmount', 'TaxRate', 'X', 'Size']);
const SINGLE_NAVIGATION = [
  'Category',
  'Continent',
  'Country',
  'Countries',
  'CountrySet',
  'Currency',
  'Customer',
  'Customers',
  'Manager',
  'Product',
  'ProductGroup',
  'Supplier',
  'Time',
];
const COLLECTION_NAVIGATION = ['DirectReports', 'Items', 'Orders', 'Products', 'Sales'];
const PARAMETERS = [
  'categoryId',
  'color',
  'colors',
  'customer',
  'Customers',
  'complex',
  'Ingredients',
  'Kind',
  'Location',
  'ManagerID',
  'Number',
  'Rank',
  'Size',
  'What',
  'Where',
  'Word',
  'Word1',
  'Word2',
  'ID',
];

const typeName = (set: string): string => `${set}Type`;

function properties(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of PRIMITIVES) out[name] = { $Type: NUMBERS.has(name) ? 'Edm.Int32' : 'Edm.String', $Nullable: true };
  out.Address = { $Type: `${NS}.Address`, $Nullable: true };
  out.Addresses = { $Type: `${NS}.Address`, $Collection: true };
  for (const name of ['EmailAddresses', 'Names', 'Sizes']) out[name] = { $Type: 'Edm.String', $Collection: true };
  out.Thumbnail = { $Type: 'Edm.Stream', $Nullable: true };
  out._at_Core_dot_Messages = { $Type: `${NS}.Address`, $Collection: true };
  return out;
}

function navigation(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of SINGLE_NAVIGATION) out[name] = { $Kind: 'NavigationProperty', $Type: `${NS}.${typeName('Products')}`, $Nullable: true };
  for (const name of COLLECTION_NAVIGATION) out[name] = { $Kind: 'NavigationProperty', $Type: `${NS}.${typeName('Products')}`, $Collection: true };
  return out;
}

/** Key properties and their types, by entity set, where a variant sets them (the constraints give no types). */
export type KeyTypes = Readonly<Record<string, Readonly<Record<string, string>>>>;

function keyOf(set: string, keys: KeyTypes): Record<string, string> {
  if (keys[set] !== undefined) return { ...keys[set] };
  if (set === 'OrderItems') return { OrderID: 'Edm.Int32', ItemID: 'Edm.String' };
  return { ID: STRING_KEYS.has(set) ? 'Edm.String' : 'Edm.Int32' };
}

function entityType(set: string, keys: KeyTypes): Record<string, unknown> {
  const key = keyOf(set, keys);
  const props: Record<string, unknown> = { ID: { $Type: 'Edm.Int32' }, ...properties() };
  // A type with a '/' is a path to a property of a complex property: the key has that alias.
  for (const [name, type] of Object.entries(key)) if (!type.includes('/')) props[name] = { $Type: type };
  const $Key = Object.entries(key).map(([name, type]) => (type.includes('/') ? { [name]: type } : name));
  return { $Kind: 'EntityType', $HasStream: true, $Key, ...props, ...navigation() };
}

/** Overloads of an operation bound to every entity type and to Address, single and collection. */
function boundOverloads(kind: 'Function' | 'Action', returnType: Record<string, unknown> | undefined): unknown[] {
  const bindings = [...SETS.map((set) => `${NS}.${typeName(set)}`), `${NS}.Address`];
  const parameters = PARAMETERS.map((name) => ({ $Name: name, $Type: 'Edm.String', $Nullable: true }));
  return bindings.flatMap((type) =>
    [false, true].map((collection) => ({
      $Kind: kind,
      $IsBound: true,
      ...(kind === 'Function' ? { $IsComposable: true } : {}),
      $Parameter: [{ $Name: 'it', $Type: type, ...(collection ? { $Collection: true } : {}) }, ...parameters],
      ...(returnType === undefined ? {} : { $ReturnType: returnType }),
    })),
  );
}

function unboundFunction(returnType: Record<string, unknown>): unknown[] {
  return [
    {
      $Kind: 'Function',
      $IsComposable: true,
      $Parameter: PARAMETERS.map((name) => ({ $Name: name, $Type: 'Edm.String', $Nullable: true })),
      $ReturnType: returnType,
    },
  ];
}

const ENTITY = { $Type: `${NS}.${typeName('Products')}` };
const ENTITIES = { ...ENTITY, $Collection: true };
const COMPLEX = { $Type: `${NS}.Address` };
const COMPLEXES = { ...COMPLEX, $Collection: true };
const PRIMITIVE = { $Type: 'Edm.String' };
const PRIMITIVE_COLLECTION = { $Type: 'Edm.String', $Collection: true };

/** The CSDL JSON document of the model. */
export function abnfResourceCsdl(keys: KeyTypes = {}): Record<string, unknown> {
  const schema: Record<string, unknown> = {
    Address: {
      $Kind: 'ComplexType',
      Street: { $Type: 'Edm.String' },
      City: { $Type: 'Edm.String' },
      Number: { $Type: 'Edm.Int32', $Nullable: false },
      ...navigation(),
    },
    AddressWithLocation: { $Kind: 'ComplexType', $BaseType: `${NS}.Address`, Location: { $Type: 'Edm.String' } },
  };
  for (const set of SETS) schema[typeName(set)] = entityType(set, keys);
  const derived: Record<string, string> = {
    BestSellingProduct: 'Products',
    Customer: 'Customers',
    VipCustomer: 'Customers',
    Employee: 'Employees',
    Manager: 'Employees',
    PreferredSupplier: 'Suppliers',
  };
  for (const [name, set] of Object.entries(derived)) schema[name] = { $Kind: 'EntityType', $BaseType: `${NS}.${typeName(set)}` };
  for (const name of ['AllOrders', 'ProductsByColor', 'WithIngredients']) schema[name] = boundOverloads('Function', ENTITIES);
  for (const name of ['BestProduct', 'MostExpensive']) schema[name] = boundOverloads('Function', ENTITY);
  schema.MostPopularAddresses = boundOverloads('Function', COMPLEXES);
  schema.MostPopularAddress = boundOverloads('Function', COMPLEX);
  schema.MostPopularNames = boundOverloads('Function', PRIMITIVE_COLLECTION);
  for (const name of ['Available', 'MostPopularCategory', 'MostPopularName', 'PhoneticallySimilar', 'GeoLocation'])
    schema[name] = boundOverloads('Function', PRIMITIVE);
  for (const name of ['ActionName', 'Cluster', 'Discount', 'Rejection']) schema[name] = boundOverloads('Action', undefined);
  const imports: Record<string, Record<string, unknown>> = {};
  const functionImport = (name: string, returnType: Record<string, unknown>): void => {
    schema[`${name}Function`] = unboundFunction(returnType);
    imports[name] = { $Function: `${NS}.${name}Function` };
  };
  for (const name of [
    'AllProductsByColor',
    'AllProductsByCategoryId',
    'EmployeesByManager',
    'ProductsByCategoryId',
    'ProductsByColor',
    'ProductsByComplex',
    'ProductsByCustomer',
    'ProductsOrderedBy',
  ])
    functionImport(name, ENTITIES);
  functionImport('TheBestProduct', ENTITY);
  functionImport('TheMostPopularAddress', COMPLEX);
  functionImport('TheMostPopularAddresses', COMPLEXES);
  functionImport('TheMostPopularName', PRIMITIVE);
  functionImport('TheMostPopularNames', PRIMITIVE_COLLECTION);
  schema.ActivationAction = [{ $Kind: 'Action' }];
  imports.Activation = { $Action: `${NS}.ActivationAction` };
  const container: Record<string, unknown> = { $Kind: 'EntityContainer', ...imports };
  for (const set of SETS) container[set] = { $Collection: true, $Type: `${NS}.${typeName(set)}` };
  for (const name of ['BestProductEverCreated', 'MainSupplier', 'SingletonEntity']) container[name] = { $Type: `${NS}.${typeName('Products')}` };
  schema.Container = container;
  // Cases call some operations qualified by another namespace of the constraints (`Special.Cluster`).
  const special: Record<string, unknown> = { ProductsByColor: schema.ProductsByColor, Cluster: schema.Cluster, Discount: schema.Discount };
  return { $Version: '4.01', $EntityContainer: `${NS}.Container`, [NS]: schema, Special: special };
}

/** The model, read by the library's own CSDL JSON reader. */
export function abnfResourceModel(keys: KeyTypes = {}): Model {
  return modelFromCsdl(abnfResourceCsdl(keys));
}

/**
 * The variants of the model a valid case may bind to: the constraints do not say of what type a
 * key is, and cases address `Categories` by an integer, a string, an instant, a time of day and a
 * compound key, and `Customers` and `People` by text and by number.
 */
export const KEY_VARIANTS: readonly KeyTypes[] = [
  {},
  { Categories: { ID: 'Edm.String' }, Customers: { ID: 'Edm.Int32' }, People: { ID: 'Edm.Int32' } },
  { Categories: { ID: 'Edm.DateTimeOffset' } },
  { Categories: { ID: 'Edm.TimeOfDay' } },
  { Categories: { ID: 'Edm.Int32', Size: 'Edm.Int32' } },
  // A key alias (`KeyAlias` for `Address/Street`, CSDL `<PropertyRef Name="Address/Street" Alias="KeyAlias"/>`).
  { Categories: { KeyAlias: 'Address/Number' } },
];
