/**
 * Context URLs (PROT §10): the spec's own examples (§10.1–§10.20) rebuilt on the test models,
 * select lists from bound `$select`, `$expand`, `$compute` and `$apply`, and every valid case of
 * the OASIS ABNF rule `context` that a response of this library can have.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bindQuery, type StructuredType } from '../../../src/index.js';
import { contextUrl, keyPredicate, selectList, type ContextTarget } from '../../../src/responses/odata-json/index.js';
import { CORPUS_DIR, corpusAvailable } from '../../conformance/corpus.js';
import { readAbnfTestCases } from '../../conformance/yaml-cases.js';
import { abnfModel, trippin } from './models.js';

const root = 'http://host/service/';
const people = (query: string) => bindQuery(query, { model: trippin, entitySet: 'People', maxExpansionDepth: 6 });
const type = (name: string, model = trippin) => model.types.get(name) as StructuredType;

describe('contextUrl: the examples of PROT §10', () => {
  it('service document (§10.1), with or without a trailing slash on the root', () => {
    expect(contextUrl(root, { kind: 'service' })).toBe('http://host/service/$metadata');
    expect(contextUrl('http://host/service', { kind: 'service' })).toBe('http://host/service/$metadata');
  });

  it('collections of entities, contained ones (§10.2, examples 11, 12)', () => {
    expect(contextUrl(root, { kind: 'collection', path: 'Customers' })).toBe('http://host/service/$metadata#Customers');
    expect(contextUrl(root, { kind: 'collection', path: 'Orders(4711)/Items' })).toBe('http://host/service/$metadata#Orders(4711)/Items');
  });

  it('an entity, a contained entity, a singleton (§10.3, §10.4, examples 13-15)', () => {
    expect(contextUrl(root, { kind: 'entity', path: 'Customers' })).toBe('http://host/service/$metadata#Customers/$entity');
    expect(contextUrl(root, { kind: 'entity', path: 'Orders(4711)/Items' })).toBe('http://host/service/$metadata#Orders(4711)/Items/$entity');
    expect(contextUrl(root, { kind: 'entity', path: 'MainSupplier', single: true })).toBe('http://host/service/$metadata#MainSupplier');
  });

  it('derived entities, by name or by type (§10.5, §10.6, examples 16, 17)', () => {
    expect(contextUrl(root, { kind: 'collection', path: 'Customers', cast: 'Model.VipCustomer' })).toBe(
      'http://host/service/$metadata#Customers/Model.VipCustomer',
    );
    const vip = type('Model.VipCustomer', abnfModel);
    expect(contextUrl(root, { kind: 'entity', path: 'Customers', cast: vip })).toBe('http://host/service/$metadata#Customers/Model.VipCustomer/$entity');
    // Members of the cast type need no cast of their own, whether the cast is given by type or by name.
    const rating = bindQuery('$select=Name,Model.VipCustomer/Rating', { model: abnfModel, entitySet: 'Customers' });
    for (const cast of [vip, 'Model.VipCustomer']) {
      expect(contextUrl(root, { kind: 'collection', path: 'Customers', cast, query: rating })).toBe(
        'http://host/service/$metadata#Customers/Model.VipCustomer(Name,Rating)',
      );
    }
  });

  it('projected entities (§10.7, §10.8, examples 18, 19)', () => {
    const customers = (query: string) => bindQuery(query, { model: abnfModel, entitySet: 'Customers' });
    expect(contextUrl(root, { kind: 'collection', path: 'Customers', query: customers('$select=Address,Orders') })).toBe(
      'http://host/service/$metadata#Customers(Address,Orders)',
    );
    expect(contextUrl(root, { kind: 'entity', path: 'Customers', query: customers('$select=Name,Model.VipCustomer/Rating') })).toBe(
      'http://host/service/$metadata#Customers(Name,Model.VipCustomer/Rating)/$entity',
    );
  });

  it('expanded entities: $ref not shown, $levels as + (§10.9, §10.10, examples 21-23)', () => {
    const customers = bindQuery('$expand=Orders/$ref', { model: abnfModel, entitySet: 'Customers' });
    expect(contextUrl(root, { kind: 'collection', path: 'Customers', query: customers })).toBe('http://host/service/$metadata#Customers');
    const manager = type('Trippin.Manager');
    const reports = people('$select=Trippin.Manager/DirectReports&$expand=Trippin.Manager/DirectReports($select=FirstName,LastName;$levels=4)');
    expect(contextUrl(root, { kind: 'collection', path: 'People', cast: manager, query: reports })).toBe(
      'http://host/service/$metadata#People/Trippin.Manager(DirectReports,DirectReports+(FirstName,LastName))',
    );
    const one = people('$expand=Trippin.Manager/DirectReports($select=FirstName,LastName;$levels=4)');
    expect(contextUrl(root, { kind: 'entity', path: 'People', cast: manager, query: one })).toBe(
      'http://host/service/$metadata#People/Trippin.Manager(DirectReports+(FirstName,LastName))/$entity',
    );
  });

  it('references, a property, values of types (§10.11-§10.15, examples 24-28)', () => {
    expect(contextUrl(root, { kind: 'references' })).toBe('http://host/service/$metadata#Collection($ref)');
    expect(contextUrl(root, { kind: 'reference' })).toBe('http://host/service/$metadata#$ref');
    expect(contextUrl(root, { kind: 'property', entity: 'Customers(1)', property: 'Addresses' })).toBe('http://host/service/$metadata#Customers(1)/Addresses');
    expect(contextUrl(root, { kind: 'type', type: 'Edm.String', collection: true })).toBe('http://host/service/$metadata#Collection(Edm.String)');
    expect(contextUrl(root, { kind: 'type', type: 'Edm.String' })).toBe('http://host/service/$metadata#Edm.String');
  });
});

describe('selectList', () => {
  it('$select and nested $select of an expansion', () => {
    expect(selectList(people('$select=FirstName,LastName&$expand=Friends($select=UserName)'))).toBe('(FirstName,LastName,Friends(UserName))');
    expect(selectList(people('$expand=Trips($select=Name)'))).toBe('(Trips(Name))');
  });

  it('an expansion without nested options: Friends() in 4.01, left out in 4.0', () => {
    expect(selectList(people('$expand=Friends'))).toBe('(Friends())');
    expect(selectList(people('$expand=Friends'), { version: '4.0' })).toBe('');
    expect(selectList(people('$expand=*'))).toBe('(Friends(),BestFriend(),Trips())');
    expect(selectList(people('$expand=*'), { version: '4.0' })).toBe('');
    expect(selectList(people('$select=FirstName&$expand=Friends,BestFriend($select=Age)'), { version: '4.0' })).toBe('(FirstName,BestFriend(Age))');
  });

  it('paths into complex properties, members of derived types cast, navigation selected and expanded', () => {
    expect(selectList(people('$select=HomeAddress/City/Name,Trippin.Employee/Cost'))).toBe('(HomeAddress/City/Name,Trippin.Employee/Cost)');
    expect(selectList(people('$select=Friends&$expand=Friends'))).toBe('(Friends,Friends())');
    expect(selectList(people('$select=*,Friends'))).toBe('(*,Friends)');
    expect(selectList(people('$expand=Trippin.Manager/DirectReports($select=UserName)'))).toBe('(Trippin.Manager/DirectReports(UserName))');
  });

  it('computed properties: by name, with * first when every structural property comes too', () => {
    expect(selectList(people('$compute=Age add 1 as Next&$select=FirstName,Next'))).toBe('(FirstName,Next)');
    expect(selectList(people('$compute=Age add 1 as Next'))).toBe('(*,Next)');
    expect(selectList(people('$compute=Age add 1 as Next&$expand=Friends($select=Age)'))).toBe('(*,Next,Friends(Age))');
    expect(selectList(people('$apply=compute(Age add 1 as Next)'))).toBe('(*,Next)');
  });

  it('$apply: grouping and aggregated properties; navigation paths nested, complex paths as paths', () => {
    expect(selectList(people('$apply=groupby((Gender),aggregate(Age with sum as Total))'))).toBe('(Gender,Total)');
    expect(selectList(people('$apply=aggregate(Age with max as Oldest)'))).toBe('(Oldest)');
    expect(selectList(people('$apply=groupby((BestFriend/FirstName,HomeAddress/City/Name))'))).toBe('(BestFriend(FirstName),HomeAddress/City/Name)');
    expect(selectList(people('$apply=filter(Age gt 1)/groupby((Gender),aggregate($count as N))&$select=N'))).toBe('(N)');
    expect(selectList(people('$apply=filter(Age gt 1)'))).toBe('');
  });

  it('nothing but the structural properties: no list', () => {
    expect(selectList(people(''))).toBe('');
    expect(selectList(people('$select=*'))).toBe('');
    expect(selectList(people('$expand=Friends/$count'))).toBe('');
  });
});

describe('contextUrl: fragments are not percent-encoded (JSON Format §4.5.1)', () => {
  it("keys in canonical form as they are: quotes doubled, spaces and '#' kept", () => {
    const person = type('Trippin.Person');
    const path = `People${keyPredicate(person, { UserName: "O'Neil #1" })}/Trips`;
    expect(contextUrl(root, { kind: 'collection', path })).toBe("http://host/service/$metadata#People('O''Neil #1')/Trips");
  });
});

/** How each valid case of the ABNF rule `context` is produced (the input without its `#`), or why it is out of scope. */
const customers = (query: string) => bindQuery(query, { model: abnfModel, entitySet: 'Customers' });
const employees = (query: string) => bindQuery(query, { model: abnfModel, entitySet: 'Employees', maxExpansionDepth: 6 });
const vip = () => type('Model.VipCustomer', abnfModel);
const alfki = () => `Customers${keyPredicate(type('Model.Customer', abnfModel), { ID: 'ALFKI' })}`;
const PRODUCED: Readonly<Record<string, () => ContextTarget>> = {
  'Customers(Address/Street,Orders)': () => ({ kind: 'collection', path: 'Customers', query: customers('$select=Address/Street,Orders') }),
  'Customers(Address/Country)': () => ({ kind: 'collection', path: 'Customers', query: customers('$select=Address/Country') }),
  'Customers(Address/Name,Orders)': () => ({ kind: 'collection', path: 'Customers', query: customers('$select=Address/Name,Orders') }),
  'Customers/Model.VipCustomer(Orders(ID))': () => ({ kind: 'collection', path: 'Customers', cast: vip(), query: customers('$expand=Orders($select=ID)') }),
  'Customers(Name,Address/Country,Model.VipCustomer/Rating)': () => ({
    kind: 'collection',
    path: 'Customers',
    query: customers('$select=Name,Address/Country,Model.VipCustomer/Rating'),
  }),
  'Customers/Model.VipCustomer(Orders,Orders())': () => ({
    kind: 'collection',
    path: 'Customers',
    cast: vip(),
    query: customers('$select=Orders&$expand=Orders'),
  }),
  'Customers/Model.VipCustomer(Orders,Orders(ID,Items(Price)))': () => ({
    kind: 'collection',
    path: 'Customers',
    cast: vip(),
    query: customers('$select=Orders&$expand=Orders($select=ID;$expand=Items($select=Price))'),
  }),
  'Employees(Title,DirectReports+(FirstName,LastName))': () => ({
    kind: 'collection',
    path: 'Employees',
    query: employees('$select=Title&$expand=DirectReports($select=FirstName,LastName;$levels=3)'),
  }),
  'Collection(Model.Employee)(Title,DirectReports+(FirstName,LastName))': () => ({
    kind: 'type',
    type: 'Model.Employee',
    collection: true,
    query: employees('$select=Title&$expand=DirectReports($select=FirstName,LastName;$levels=2)'),
  }),
  'Customers/Model.VipCustomer': () => ({ kind: 'collection', path: 'Customers', cast: 'Model.VipCustomer' }),
  'Customers/$entity': () => ({ kind: 'entity', path: 'Customers' }),
  SingletonEntity: () => ({ kind: 'entity', path: 'SingletonEntity', single: true }),
  'SingletonEntity/Orders': () => ({ kind: 'collection', path: 'SingletonEntity/Orders' }),
  'SingletonEntity/Orders(3)/Items': () => ({ kind: 'collection', path: 'SingletonEntity/Orders(3)/Items' }),
  "Customers('ALFKI')/Orders": () => ({ kind: 'collection', path: `${alfki()}/Orders` }),
  "Customers('ALFKI')/Orders/$entity": () => ({ kind: 'entity', path: `${alfki()}/Orders` }),
  "Customers('ALFKI')/Orders(1)/Items": () => ({ kind: 'collection', path: `${alfki()}/Orders(1)/Items` }),
  "Customers('ALFKI')/Orders(1)/Items(Product)/$entity": () => ({
    kind: 'entity',
    path: `${alfki()}/Orders(1)/Items`,
    query: bindQuery('$select=Product', { model: abnfModel, entitySet: 'AllItems' }),
  }),
  "Customers('ALFKI')/Model.VipCustomer/Address/Orders": () => ({ kind: 'collection', path: `${alfki()}/Model.VipCustomer/Address/Orders` }),
  'SingletonEntity(Address,Orders)': () => ({ kind: 'entity', path: 'SingletonEntity', single: true, query: customers('$select=Address,Orders') }),
  'Customers(Address,Orders)/$entity': () => ({ kind: 'entity', path: 'Customers', query: customers('$select=Address,Orders') }),
  'Customers/Model.VipCustomer/$entity': () => ({ kind: 'entity', path: 'Customers', cast: vip() }),
  'Customers(1)/Addresses': () => ({ kind: 'property', entity: 'Customers(1)', property: 'Addresses' }),
  'Customers(1)/Addresses(Country)': () => ({ kind: 'property', entity: 'Customers(1)', property: 'Addresses', select: ['Country'] }),
  'Model.MonetaryAmount': () => ({ kind: 'type', type: 'Model.MonetaryAmount' }),
  'Collection(Edm.String)': () => ({ kind: 'type', type: 'Edm.String', collection: true }),
  'Collection($ref)': () => ({ kind: 'references' }),
  $ref: () => ({ kind: 'reference' }),
  'Collection(Edm.EntityType)': () => ({ kind: 'type', type: 'Edm.EntityType', collection: true }),
  'Collection(Edm.ComplexType)': () => ({ kind: 'type', type: 'Edm.ComplexType', collection: true }),
};

/** Valid cases no response of this library has, and why. */
const OUT_OF_SCOPE: Readonly<Record<string, string>> = {
  'Customers(Address/Model.AddressWithLocation,Orders)': 'a $select item ending with a type cast: the binder refuses it',
  'Customers/Model.VipCustomer(Name,Address/Country,Model.*)': 'operations in $select (Model.*): the binder refuses them',
  'Customers/Model.VipCustomer(Name,Address/Country(Code,Model.ActionName,Model.MostPopularAddress))': 'actions and functions in $select',
  'Customers/Model.VipCustomer(*,Orders(ID))/$entity':
    "'*' beside an expansion: the bound $select does not keep the '*', so the list is the equivalent (Orders(ID)) (PROT §10.9)",
  'Employees(@Core.Messages,Title,DirectReports+(@Core.Messages,FirstName,LastName))': 'instance annotations in $select: the binder refuses them',
  'Employees(@Core.Messages/code,@Core.Messages/message,Title,DirectReports+(@Core.Messages#second,FirstName,LastName))': 'instance annotations in $select',
  'Employees(@Namespace.EntityTerm(FirstName,LastName))': 'instance annotations in $expand',
  'Customers/$delta': 'delta responses are not built here',
  'Orders/$deletedEntity': 'delta responses are not built here',
  'Customers/$link': 'delta responses are not built here',
  'Orders/$deletedLink': 'delta responses are not built here',
};

describe.skipIf(!corpusAvailable)('the OASIS ABNF test cases of the rule context', () => {
  // A YAML double-quoted scalar continued with '\' at a line end joins the lines without a space.
  const cases = corpusAvailable
    ? readAbnfTestCases(readFileSync(resolve(CORPUS_DIR, 'odata-abnf-testcases.yaml'), 'utf8'), 'abnf')
        .filter((c) => c.rule === 'context')
        .map((c) => ({ ...c, input: c.input.replaceAll('\\ ', '') }))
    : [];
  const valid = cases.filter((c) => c.valid);

  it('43 cases, 41 valid; each valid one produced or out of scope with a reason', () => {
    expect(cases.length).toBe(43);
    expect(valid.length).toBe(41);
    const fragments = valid.map((c) => c.input.slice(1));
    expect(fragments.filter((f) => PRODUCED[f] === undefined && OUT_OF_SCOPE[f] === undefined)).toEqual([]);
    expect(Object.keys(PRODUCED).length + Object.keys(OUT_OF_SCOPE).length).toBe(41);
  });

  it.each(Object.entries(PRODUCED))('#%s', (fragment, target) => {
    expect(valid.some((c) => c.input === `#${fragment}`)).toBe(true);
    expect(contextUrl(root, target())).toBe(`http://host/service/$metadata#${fragment}`);
  });

  it('the invalid cases: a qualifier percent-encoded (%23), an unqualified cast; a fragment is never encoded here', () => {
    expect(cases.filter((c) => !c.valid).map((c) => c.input)).toEqual([
      '#Customers(Address/AddressWithLocation,Orders)',
      '#Employees(@Core.Messages/code,@Core.Messages/message,Title,DirectReports+(@Core.Messages%23second,FirstName,LastName))',
    ]);
  });
});
