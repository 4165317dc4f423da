/**
 * `bindResourcePath` and `checkResourceQuery` on TripPin (a published model from the conformance
 * corpus) and on a small model of our own: what each path addresses, the targets of navigation,
 * keys (in parentheses, named, aliased, as segments, compound), and the 404 and 400 errors.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bindQuery,
  bindResourcePath,
  checkResourceQuery,
  compileQuery,
  defineModel,
  modelFromCsdlXml,
  ODataError,
  parseQuery,
  type BoundResourcePath,
  type Model,
} from '../../src/index.js';
import { CORPUS_DIR, corpusAvailable } from '../conformance/corpus.js';

const corpus = process.env.ODATA_CONFORMANCE_DIR ?? CORPUS_DIR;
const available = corpusAvailable || existsSync(corpus);
const trippin: Model | undefined = available ? modelFromCsdlXml(readFileSync(resolve(corpus, 'metadata', 'trippin-v4-servicerw.xml'), 'utf8')) : undefined;
const NS = 'Microsoft.OData.SampleService.Models.TripPin';

const shop = defineModel({
  namespace: 'Shop',
  entityTypes: {
    Order: {
      key: ['id'],
      properties: { id: 'Edm.Int32', placed: 'Edm.Date', total: 'Edm.Decimal' },
      navigation: { lines: { type: 'Collection(Line)', partner: 'order' } },
    },
    Line: {
      key: ['orderId', 'no'],
      properties: { orderId: 'Edm.Int32', no: 'Edm.Int16', sku: 'Edm.String' },
      navigation: { order: { type: 'Order', constraints: { orderId: 'id' }, partner: 'lines' } },
    },
    Tag: { key: ['at'], properties: { at: 'Edm.DateTimeOffset', label: 'Edm.String' } },
  },
  entitySets: { orders: { type: 'Order' }, lines: { type: 'Line' }, tags: { type: 'Tag' } },
});

function bind(model: Model, path: string, query = ''): BoundResourcePath {
  const parsed = parseQuery(query, { allowId: true });
  const bound = bindResourcePath(path, { model, ...(parsed.aliases === undefined ? {} : { aliases: parsed.aliases }) });
  checkResourceQuery(bound, parsed);
  return bound;
}

function failure(model: Model, path: string, query = ''): ODataError {
  try {
    bind(model, path, query);
  } catch (error) {
    if (error instanceof ODataError) return error;
    throw error;
  }
  throw new Error(`${path}?${query} bound`);
}

const summary = (b: BoundResourcePath) => ({
  shape: b.shape,
  type: b.type?.name,
  set: b.entitySet?.name,
  property: b.property?.name,
  segments: b.segments.map((s) => s.kind),
});

describe.skipIf(trippin === undefined)('bindResourcePath on TripPin', () => {
  const model = trippin as Model;
  it('addresses sets, entities, navigation, containment, properties and singletons', () => {
    expect(summary(bind(model, ''))).toEqual({ shape: 'serviceDocument', type: undefined, set: undefined, property: undefined, segments: [] });
    expect(summary(bind(model, "People('russellwhyte')/Friends"))).toMatchObject({ shape: 'entityCollection', type: 'Person', set: 'People' });
    expect(summary(bind(model, 'People/russellwhyte/Friends/scottketchum'))).toMatchObject({
      shape: 'entity',
      set: 'People',
      segments: ['entitySet', 'key', 'navigation', 'key'],
    });
    // Trips are contained in a Person: their set is the implicit set of the containment.
    expect(summary(bind(model, "People('russellwhyte')/Trips(0)/PlanItems/$count"))).toMatchObject({ shape: 'count', type: 'PlanItem', set: 'Trip_PlanItems' });
    expect(summary(bind(model, "People('x')/AddressInfo/0/City/Name"))).toMatchObject({ shape: 'primitive', property: 'Name' });
    expect(summary(bind(model, "People('x')/FirstName/$value"))).toMatchObject({ shape: 'value', property: 'FirstName' });
    expect(summary(bind(model, "People('x')/Emails/$count"))).toMatchObject({ shape: 'count', property: 'Emails' });
    expect(summary(bind(model, 'Me/Friends'))).toMatchObject({ shape: 'entityCollection', set: 'People', segments: ['singleton', 'navigation'] });
    expect(summary(bind(model, 'Photos(1)/$value'))).toMatchObject({ shape: 'stream', type: 'Photo' });
    expect(summary(bind(model, "People('x')/Friends/$ref"))).toMatchObject({ shape: 'references' });
    expect(summary(bind(model, "People('x')/$ref"))).toMatchObject({ shape: 'reference' });
    expect(summary(bind(model, "Airports('KSFO')/Location/Loc"))).toMatchObject({ shape: 'primitive', property: 'Loc' });
  });

  it('binds functions and actions, bound and imported, without running them', () => {
    const favourite = bind(model, `People('x')/${NS}.GetFavoriteAirline()`);
    expect(summary(favourite)).toMatchObject({ shape: 'entity', type: 'Airline', segments: ['entitySet', 'key', 'operation'] });
    expect(favourite.operation).toBe(true);
    expect(summary(bind(model, 'GetNearestAirport(lat=1,lon=2)'))).toMatchObject({ shape: 'entity', type: 'Airport' });
    expect(summary(bind(model, 'ResetDataSource'))).toMatchObject({ shape: 'operationResult' });
    expect(summary(bind(model, `People/$each/${NS}.ShareTrip`))).toMatchObject({ shape: 'operationResult', segments: ['entitySet', 'each', 'operation'] });
    // GetFavoriteAirline is bound to one Person, not to the collection.
    expect(failure(model, `People/${NS}.GetFavoriteAirline()`)).toMatchObject({ code: 'resource_not_found', status: 404 });
    expect(failure(model, 'GetNearestAirport(lat=1,height=2)')).toMatchObject({ code: 'resource_not_found' });
    expect(failure(model, 'ResetDataSource()')).toMatchObject({ code: 'syntax_error' });
  });

  it('answers 404 for names the model does not have there, 400 for the rest', () => {
    expect(failure(model, 'Peeple')).toMatchObject({ code: 'resource_not_found', status: 404, position: 0 });
    expect(failure(model, "People('x')/Frends")).toMatchObject({ code: 'resource_not_found', status: 404, position: 12 });
    // A string key takes any segment as a key value; Photos have Int64 keys.
    expect(summary(bind(model, 'People/FirstName'))).toMatchObject({ shape: 'entity', segments: ['entitySet', 'key'] });
    expect(failure(model, 'Photos/Name')).toMatchObject({ code: 'resource_not_found', status: 404, position: 7 });
    expect(failure(model, 'People(1)')).toMatchObject({ code: 'type_mismatch', status: 400 });
    expect(failure(model, "People(Name='x')")).toMatchObject({ code: 'syntax_error', status: 400, position: 7 });
    expect(failure(model, "People(UserName='x',UserName='y')")).toMatchObject({ code: 'syntax_error' });
    expect(failure(model, 'People(@k)')).toMatchObject({ code: 'syntax_error' });
    expect(failure(model, "People('x')/$count")).toMatchObject({ code: 'syntax_error' });
    expect(failure(model, 'People/$count/$ref')).toMatchObject({ code: 'syntax_error' });
    expect(failure(model, "People('x')/AddressInfo/$value")).toMatchObject({ code: 'syntax_error' });
    expect(failure(model, "People('x')/FirstName/Length")).toMatchObject({ code: 'resource_not_found' });
    expect(failure(model, '$metadata/People')).toMatchObject({ code: 'syntax_error' });
    expect(failure(model, 'Airlines/$filter(Nope eq 1)')).toMatchObject({ code: 'unknown_property' });
  });

  it('allows the query options each path takes', () => {
    expect(bind(model, 'People', "$filter=FirstName eq 'x'&$top=2&$count=true").shape).toBe('entityCollection');
    expect(bind(model, 'People/$count', "$filter=FirstName eq 'x'").shape).toBe('count');
    expect(failure(model, 'People/$count', '$top=1')).toMatchObject({ code: 'query_option_not_supported', option: '$top' });
    expect(bind(model, "People('x')", '$select=FirstName&$expand=Friends').shape).toBe('entity');
    expect(failure(model, "People('x')", '$top=1').message).toBe(
      'The requested resource is not a collection. Query options $filter, $orderby, $count, $skip, and $top can be applied only on collections.',
    );
    expect(bind(model, '$entity', "$id=People('x')").shape).toBe('entityId');
    expect(failure(model, '$entity', '$select=FirstName')).toMatchObject({ code: 'invalid_option_value', option: '$id' });
    expect(failure(model, '$entity', "$id=People('x')&$select=FirstName")).toMatchObject({ code: 'query_option_not_supported' });
    expect(bind(model, `$entity/${NS}.Person`, "$id=People('x')&$select=FirstName").shape).toBe('entityId');
    expect(failure(model, 'People', "$id=People('x')")).toMatchObject({ code: 'query_option_not_supported', option: '$id' });
    expect(failure(model, '$metadata', '$top=1')).toMatchObject({ code: 'query_option_not_supported' });
    expect(bind(model, 'People(@k)/Friends(@f)', "@k='x'&@f='y'").shape).toBe('entity');
  });
});

describe('bindResourcePath on a model of our own', () => {
  it('binds compound keys, in parentheses and as segments, and key values of other types', () => {
    expect(summary(bind(shop, 'lines(orderId=1,no=2)'))).toMatchObject({ shape: 'entity', type: 'Line' });
    expect(summary(bind(shop, 'lines/1/2/order'))).toMatchObject({
      shape: 'entity',
      type: 'Order',
      set: 'orders',
      segments: ['entitySet', 'key', 'navigation'],
    });
    expect(summary(bind(shop, 'orders(7)/lines(orderId=7,no=1)/sku/$value'))).toMatchObject({ shape: 'value', property: 'sku' });
    expect(summary(bind(shop, 'tags(2024-01-01T00:00:00Z)'))).toMatchObject({ shape: 'entity' });
    expect(summary(bind(shop, 'tags/2024-01-01T00:00:00Z'))).toMatchObject({ shape: 'entity' });
    expect(failure(shop, 'lines(1)')).toMatchObject({ code: 'syntax_error' });
    expect(failure(shop, 'lines(orderId=1)')).toMatchObject({ code: 'syntax_error' });
    expect(failure(shop, 'lines/1')).toMatchObject({ code: 'syntax_error' });
    expect(failure(shop, 'orders/seven')).toMatchObject({ code: 'resource_not_found', status: 404 });
    expect(failure(shop, 'orders(1)/lines(1)')).toMatchObject({ code: 'syntax_error' });
    expect(failure(shop, "orders(1)/lines(orderId=1,no='x')")).toMatchObject({ code: 'type_mismatch' });
    const noSegments = (() => {
      try {
        bindResourcePath('orders/7', { model: shop, keyAsSegment: false });
      } catch (error) {
        return error;
      }
    })();
    expect(noSegments).toMatchObject({ code: 'resource_not_found' });
  });

  it("binds a key to a filter that selects the entity on the reference's rows", () => {
    const rows = [
      { orderId: 1, no: 1, sku: 'a' },
      { orderId: 1, no: 2, sku: 'b' },
      { orderId: 2, no: 1, sku: 'c' },
    ];
    for (const [path, sku] of [
      ['lines(orderId=1,no=2)', 'b'],
      ['lines/2/1', 'c'],
      ['lines(no=1,orderId=1)', 'a'],
    ] as const) {
      const key = bind(shop, path).segments[1];
      if (key?.kind !== 'key') throw new Error('no key');
      const query = { ...bindQuery('', { model: shop, entitySet: 'lines' }), filter: key.filter };
      expect(
        compileQuery(query)
          .apply(rows)
          .value.map((row) => row.sku),
      ).toEqual([sku]);
    }
  });

  it('throws nothing but an ODataError for generated paths', () => {
    const names = [
      'orders',
      'lines',
      'tags',
      'lines',
      'order',
      'sku',
      '1',
      "'x'",
      '$count',
      '$ref',
      '$value',
      '$filter(no eq 1)',
      'Shop.Line',
      '-1',
      '(1)',
      '(orderId=1,no=2)',
    ];
    let seed = 29;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % names.length;
    for (let i = 0; i < 3000; i++) {
      const path = Array.from({ length: 1 + (i % 5) }, () => names[next()])
        .join('/')
        .replaceAll('/(', '(');
      try {
        bindResourcePath(path, { model: shop });
      } catch (error) {
        expect(error, path).toBeInstanceOf(ODataError);
      }
    }
  });
});
