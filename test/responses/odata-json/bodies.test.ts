/**
 * The response bodies (JSON Format §4.5, §6, §7, §12): control information at each metadata
 * level and version, checked against the bodies ASP.NET Core OData's media type tests expect
 * for `Orders(1)` and against the spec's rules for types, ids, links, counts and next links.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, jsonRecord, type StructuredType } from '../../../src/index.js';
import { complexValueJson, contextUrl, entityJson, odataCollectionBody, odataEntityBody, odataPropertyBody } from '../../../src/responses/odata-json/index.js';
import { trippin } from './models.js';

const root = 'http://localhost/';
const people = (query: string) => bindQuery(query, { model: trippin, entitySet: 'People' });
const type = (name: string) => trippin.types.get(name) as StructuredType;

describe('one entity as ASP.NET Core OData writes Orders(1) (its media type tests)', () => {
  const query = bindQuery('', { model: trippin, entitySet: 'Orders' });
  const stored = { Id: 1, Amount: '130', TrackingNumber: 9223372036854775807n };
  const context = contextUrl(root, { kind: 'entity', path: 'Orders' }, { version: '4.0' });

  it('full metadata, IEEE754Compatible=true: type, id, editLink, #Decimal and #Int64', () => {
    const row = jsonRecord(query, stored, { ieee754Compatible: true });
    const body = odataEntityBody(row, { query, context, metadata: 'full', version: '4.0', serviceRoot: root });
    expect(JSON.stringify(body)).toBe(
      '{"@odata.context":"http://localhost/$metadata#Orders/$entity","@odata.type":"#Trippin.Order","@odata.id":"http://localhost/Orders(1)",' +
        '"@odata.editLink":"Orders(1)","Id":1,"Amount@odata.type":"#Decimal","Amount":"130","TrackingNumber@odata.type":"#Int64","TrackingNumber":"9223372036854775807"}',
    );
  });

  it('minimal metadata: the context only; none: the data only', () => {
    const row = jsonRecord(query, stored, { ieee754Compatible: true });
    expect(JSON.stringify(odataEntityBody(row, { query, context, version: '4.0' }))).toBe(
      '{"@odata.context":"http://localhost/$metadata#Orders/$entity","Id":1,"Amount":"130","TrackingNumber":"9223372036854775807"}',
    );
    expect(JSON.stringify(odataEntityBody(row, { query, context, metadata: 'none', version: '4.0' }))).toBe(
      '{"Id":1,"Amount":"130","TrackingNumber":"9223372036854775807"}',
    );
  });

  it('a 4.01 response names control information without odata. (JSON Format §4.5), unless asked to', () => {
    const row = jsonRecord(query, stored);
    const body = odataEntityBody(row, { query, context, metadata: 'full', serviceRoot: root });
    expect(Object.keys(body)).toEqual(['@context', '@type', '@id', '@editLink', 'Id', 'Amount@type', 'Amount', 'TrackingNumber@type', 'TrackingNumber']);
    expect(body['@type']).toBe('#Trippin.Order');
    expect(body['Amount@type']).toBe('Decimal');
    expect(Object.keys(odataEntityBody(row, { query, context, odataPrefix: true }))[0]).toBe('@odata.context');
  });
});

describe('odataCollectionBody', () => {
  const query = people('$select=UserName,Age&$count=true');
  const rows = [
    { UserName: 'russellwhyte', Age: 30 },
    { UserName: 'scottketchum', Age: 25, '@odata.type': '#Trippin.Employee' },
  ];

  it('context, count, value, next link in that order; @type where an entity is of a derived type (minimal)', () => {
    const body = odataCollectionBody(rows, {
      query,
      context: contextUrl(root, { kind: 'collection', path: 'People', query }, { version: '4.0' }),
      version: '4.0',
      count: 20,
      nextLink: 'http://localhost/People?$select=UserName,Age&$count=true&$skiptoken=2',
    });
    expect(body).toEqual({
      '@odata.context': 'http://localhost/$metadata#People(UserName,Age)',
      '@odata.count': 20,
      value: [
        { UserName: 'russellwhyte', Age: 30 },
        { '@odata.type': '#Trippin.Employee', UserName: 'scottketchum', Age: 25 },
      ],
      '@odata.nextLink': 'http://localhost/People?$select=UserName,Age&$count=true&$skiptoken=2',
    });
    expect(Object.keys(body)).toEqual(['@odata.context', '@odata.count', 'value', '@odata.nextLink']);
  });

  it('metadata=none keeps count and next link only (JSON Format §3.1.3); the count is a string with IEEE754Compatible', () => {
    const body = odataCollectionBody(rows, { query, context: 'x', metadata: 'none', count: 20, nextLink: 'n', ieee754Compatible: true });
    expect(body).toEqual({
      '@count': '20',
      value: [
        { UserName: 'russellwhyte', Age: 30 },
        { UserName: 'scottketchum', Age: 25 },
      ],
      '@nextLink': 'n',
    });
  });

  it('the type of a row from a callback (rows that carry no marker)', () => {
    const body = odataCollectionBody([{ UserName: 'a' }], { query, typeOf: () => 'Trippin.Manager' });
    expect(body.value).toEqual([{ '@type': '#Trippin.Manager', UserName: 'a' }]);
  });

  it('without the query: the rows as they are', () => {
    expect(odataCollectionBody([{ a: 1 }], { context: 'c' })).toEqual({ '@context': 'c', value: [{ a: 1 }] });
  });
});

describe('full metadata: ids, links and types (JSON Format §4.5.3, §4.5.8, §4.5.9, §8.1)', () => {
  const options = { metadata: 'full', version: '4.0', serviceRoot: 'http://host/service/' } as const;

  it('navigation links for what is neither expanded nor left out; the expanded entities described at their own level', () => {
    const query = people('$select=UserName,Friends,BestFriend&$expand=Friends($select=UserName)');
    const body = entityJson({ UserName: 'russellwhyte', Friends: [{ UserName: 'scottketchum' }] }, { type: query.entityType, query, path: 'People' }, options);
    expect(body).toEqual({
      '@odata.type': '#Trippin.Person',
      '@odata.id': "http://host/service/People('russellwhyte')",
      '@odata.editLink': "People('russellwhyte')",
      UserName: 'russellwhyte',
      Friends: [
        {
          '@odata.type': '#Trippin.Person',
          '@odata.id': "http://host/service/People('scottketchum')",
          '@odata.editLink': "People('scottketchum')",
          UserName: 'scottketchum',
        },
      ],
      'BestFriend@odata.navigationLink': "People('russellwhyte')/BestFriend",
    });
  });

  it('a derived entity: its edit link and navigation links have the cast segment (PROT §4.2)', () => {
    const body = entityJson({ UserName: 'x y', '@odata.type': '#Trippin.Manager' }, { type: type('Trippin.Person'), path: 'People' }, options);
    expect(body['@odata.type']).toBe('#Trippin.Manager');
    expect(body['@odata.id']).toBe("http://host/service/People('x%20y')");
    expect(body['@odata.editLink']).toBe("People('x%20y')/Trippin.Manager");
    expect(body['DirectReports@odata.navigationLink']).toBe("People('x%20y')/Trippin.Manager/DirectReports");
    expect(body['Trips@odata.navigationLink']).toBe("People('x%20y')/Trippin.Manager/Trips");
  });

  it('types of values JSON does not tell: enums, collections, complex values, dates; none for strings, Int32, Booleans', () => {
    const person = type('Trippin.Person');
    const body = entityJson(
      {
        UserName: 'a',
        Gender: 'Female',
        Emails: ['a@b.c'],
        HomeAddress: { Address: 'x', City: { Name: 'Boise' } },
        AddressInfo: [{ '@odata.type': '#Trippin.EventLocation', BuildingInfo: 'B' }],
        Age: null,
      },
      { type: person },
      options,
    );
    expect(body).toEqual({
      '@odata.type': '#Trippin.Person',
      UserName: 'a',
      'Gender@odata.type': '#Trippin.PersonGender',
      Gender: 'Female',
      'Emails@odata.type': '#Collection(String)',
      Emails: ['a@b.c'],
      HomeAddress: { '@odata.type': '#Trippin.Location', Address: 'x', City: { '@odata.type': '#Trippin.City', Name: 'Boise' } },
      'AddressInfo@odata.type': '#Collection(Trippin.Location)',
      AddressInfo: [{ '@odata.type': '#Trippin.EventLocation', BuildingInfo: 'B' }],
      Age: null,
    });
    const trip = entityJson(
      { TripId: 1, Budget: 3.5, StartsAt: '2024-01-01T00:00:00Z', ShareId: 'c0ffee00-0000-4000-8000-000000000000' },
      { type: type('Trippin.Trip') },
      options,
    );
    expect(Object.keys(trip)).toEqual([
      '@odata.type',
      'TripId',
      'Budget@odata.type',
      'Budget',
      'StartsAt@odata.type',
      'StartsAt',
      'ShareId@odata.type',
      'ShareId',
    ]);
  });

  it("an expansion's count right before it (JSON Format §4.4), whatever the row's order", () => {
    const query = people('$expand=Friends($count=true;$select=UserName)');
    const body = entityJson({ UserName: 'r', Friends: [{ UserName: 's' }], 'Friends@odata.count': 1 }, { type: query.entityType, query }, { version: '4.0' });
    expect(Object.keys(body)).toEqual(['UserName', 'Friends@odata.count', 'Friends']);
  });

  it('compound keys, contained entities, references and expansion counts', () => {
    const line = entityJson({ OrderId: 1, Line: "O'Neil", Price: 2 }, { type: type('Trippin.OrderLine'), path: 'OrderLines' }, options);
    expect(line['@odata.id']).toBe("http://host/service/OrderLines(OrderId=1,Line='O''Neil')");
    const query = people('$expand=Trips($select=Name),Friends/$ref,BestFriend/$count');
    const body = entityJson(
      { UserName: 'r', Trips: [{ TripId: 7, Name: 'T' }], Friends: [{ UserName: 's' }], 'BestFriend@odata.count': 1 },
      { type: query.entityType, query, path: 'People' },
      { serviceRoot: 'http://host/service/', ieee754Compatible: true },
    );
    expect(body).toEqual({
      UserName: 'r',
      Trips: [{ TripId: 7, Name: 'T' }],
      Friends: [{ '@id': "http://host/service/People('s')" }],
      'BestFriend@count': '1',
    });
    const full = entityJson({ UserName: 'r', Trips: [{ TripId: 7, Name: 'T' }] }, { type: query.entityType, query, path: 'People' }, options);
    expect((full.Trips as Record<string, unknown>[])[0]?.['@odata.id']).toBe("http://host/service/People('r')/Trips(7)");
  });
});

describe('computed and aggregated values: @type where JSON does not tell (JSON Format §4.5.3), minimal and full', () => {
  it('$compute: an Int64 sum annotated, a string not', () => {
    const query = people('$compute=Age add 1 as Next,FirstName as Copy&$select=UserName,Next,Copy');
    const body = entityJson({ UserName: 'a', Next: 31, Copy: 'x' }, { type: query.entityType, query, path: 'People' }, { version: '4.0' });
    expect(body).toEqual({ UserName: 'a', 'Next@odata.type': '#Int64', Next: 31, Copy: 'x' });
  });

  it('$apply: grouped properties as declared, aggregates annotated, no entity control information', () => {
    const query = people('$apply=groupby((Gender),aggregate(Age with sum as Total,$count as N))');
    const body = odataCollectionBody([{ Gender: 'Male', Total: 55, N: 2 }], { query, metadata: 'full', version: '4.0', serviceRoot: root });
    expect(body.value).toEqual([
      { 'Gender@odata.type': '#Trippin.PersonGender', Gender: 'Male', 'Total@odata.type': '#Int64', Total: 55, 'N@odata.type': '#Int64', N: 2 },
    ]);
  });
});

describe('odataPropertyBody (JSON Format §7)', () => {
  const person = type('Trippin.Person');
  const context = (property: string) => contextUrl('http://host/service/', { kind: 'property', entity: "People('russellwhyte')", property });

  it('a primitive value and a collection in value; a complex value as an object', () => {
    expect(odataPropertyBody('Russell', { context: context('FirstName') })).toEqual({
      '@context': "http://host/service/$metadata#People('russellwhyte')/FirstName",
      value: 'Russell',
    });
    expect(odataPropertyBody(['a@b.c'], { context: context('Emails'), property: person.properties.get('Emails') })).toEqual({
      '@context': "http://host/service/$metadata#People('russellwhyte')/Emails",
      value: ['a@b.c'],
    });
    expect(odataPropertyBody({ Address: 'x' }, { context: context('HomeAddress'), property: person.properties.get('HomeAddress') })).toEqual({
      '@context': "http://host/service/$metadata#People('russellwhyte')/HomeAddress",
      Address: 'x',
    });
  });

  it('full metadata: the type of the value', () => {
    const options = { context: 'c', metadata: 'full', version: '4.0' } as const;
    expect(odataPropertyBody(30, { ...options, property: person.properties.get('Age') })).toEqual({
      '@odata.context': 'c',
      '@odata.type': '#Int64',
      value: 30,
    });
    expect(odataPropertyBody({ Address: 'x' }, { ...options, property: person.properties.get('HomeAddress') })).toEqual({
      '@odata.context': 'c',
      '@odata.type': '#Trippin.Location',
      Address: 'x',
    });
    expect(complexValueJson(type('Trippin.Location'), [{ Address: 'x' }], { metadata: 'minimal' })).toEqual([{ Address: 'x' }]);
  });
});
