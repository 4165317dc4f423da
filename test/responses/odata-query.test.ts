/**
 * `odataQuery` with real `Request` and `URL` objects: the bound query (checked by running it on
 * the in-memory backend), or the OData error response (status, headers, body) for every kind of
 * failure; the body of a request is never read.
 */
import { describe, expect, it } from 'vitest';
import { compileQuery, createPlanCache, defineModel, ODataError, odataQuery, type BindSettings, type Row } from '../../src/index.js';

const model = defineModel({
  namespace: 'Shop',
  entityTypes: { Product: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double' } } },
  entitySets: { products: { type: 'Product', maxTop: 50 } },
});
const settings: BindSettings = { model, entitySet: 'products' };
const products: Row[] = [
  { id: 1, name: 'Pump', price: 120 },
  { id: 2, name: 'Tromsø valve', price: 35.5 },
  { id: 3, name: "O'Neil fan", price: 80 },
  { id: 4, name: 'a + b', price: 5 },
];

/** The names the bound query returns from the products (it must be ok). */
function names(result: ReturnType<typeof odataQuery>): unknown[] {
  if (!result.ok) throw new Error(`expected a query, got ${result.status} ${JSON.stringify(result.body)}`);
  return compileQuery(result.query)
    .apply(products)
    .value.map((row) => row.name);
}

/** The failure (it must be one), with its body checked against the error it carries. */
function failure(result: ReturnType<typeof odataQuery>) {
  if (result.ok) throw new Error('expected an error response');
  expect(result.headers).toEqual({ 'content-type': 'application/json; charset=utf-8', 'odata-version': '4.01' });
  if (result.error instanceof ODataError) expect(result.body).toEqual(result.error.toJSON());
  return result;
}

describe('odataQuery', () => {
  it('binds the query of a URL, a Request, or a URL or path as text', () => {
    const text = '/products?$filter=price gt 50&$orderby=name desc&$top=2';
    expect(names(odataQuery(new URL(text, 'http://shop.example'), settings))).toEqual(['Pump', "O'Neil fan"]);
    expect(names(odataQuery(new Request(new URL(text, 'http://shop.example')), settings))).toEqual(['Pump', "O'Neil fan"]);
    expect(names(odataQuery(text, settings))).toEqual(['Pump', "O'Neil fan"]);
    expect(names(odataQuery(`http://shop.example${text}#fragment`, settings))).toEqual(['Pump', "O'Neil fan"]);
    // No query string: every product.
    expect(names(odataQuery('/products', settings))).toHaveLength(4);
  });

  it('with a plan cache, binds a query text once and gives the same answer as without', () => {
    const cache = createPlanCache();
    const text = '/products?$filter=price gt 50&$orderby=name desc&$top=2';
    const first = odataQuery(text, settings, { cache });
    const again = odataQuery(text, settings, { cache });
    expect(first.ok && again.ok && first.query === again.query).toBe(true);
    // (A Request's URL is percent-encoded: another text, bound once in its turn.)
    const request = () => odataQuery(new Request(new URL(text, 'http://shop.example')), settings, { cache });
    const fromRequest = request();
    expect(fromRequest.ok && fromRequest.query === (request() as { query: unknown }).query).toBe(true);
    expect(names(again)).toEqual(names(odataQuery(text, settings)));
    // Errors are answered as without the cache, and not kept.
    const size = cache.size;
    expect(failure(odataQuery('/products?$filter=nope eq 1', settings, { cache })).body).toEqual(
      failure(odataQuery('/products?$filter=nope eq 1', settings)).body,
    );
    expect(cache.size).toBe(size);
  });

  it('decodes what the URL parser percent-encoded (quotes, spaces, non-ASCII) exactly once', () => {
    const url = new URL("http://shop.example/products?$filter=name eq 'Tromsø valve' or name eq 'O''Neil fan'&$orderby=id");
    expect(url.search).toContain('%C3%B8');
    expect(names(odataQuery(url, settings))).toEqual(['Tromsø valve', "O'Neil fan"]);
    // %2B is a plus sign; a plus is a plus by default, a space with plusAsSpace.
    expect(names(odataQuery("/products?$filter=name eq 'a %2B b'", settings))).toEqual(['a + b']);
    expect(names(odataQuery("/products?$filter=name+eq+'Pump'", { ...settings, parse: { plusAsSpace: true } }))).toEqual(['Pump']);
    expect(failure(odataQuery("/products?$filter=name+eq+'Pump'", settings)).status).toBe(400);
  });

  it('gives the parsed options binding does not keep, and IEEE754Compatible from Accept or $format', () => {
    const plain = odataQuery('/products?$top=1&$format=json&tenant=a', settings);
    expect(plain.ok && plain.parsed.custom).toEqual({ tenant: 'a' });
    expect(plain.ok && plain.ieee754Compatible).toBe(false);
    const accept = new Request('http://shop.example/products', {
      headers: { accept: 'text/plain, application/json;odata.metadata=minimal;IEEE754Compatible=true' },
    });
    expect(odataQuery(accept, settings)).toMatchObject({ ok: true, ieee754Compatible: true });
    expect(odataQuery('/products?$format=application/json;IEEE754Compatible=true', settings)).toMatchObject({ ok: true, ieee754Compatible: true });
    // The Accept header of a framework's own request object, with the URL as text.
    expect(odataQuery('/products', settings, { accept: 'application/json;IEEE754Compatible=true' })).toMatchObject({ ok: true, ieee754Compatible: true });
    expect(odataQuery('/products', settings, { accept: undefined })).toMatchObject({ ok: true, ieee754Compatible: false });
    const no = new Request('http://shop.example/products', { headers: { accept: 'application/json;IEEE754Compatible=false' } });
    expect(odataQuery(no, settings)).toMatchObject({ ok: true, ieee754Compatible: false });
  });

  it('never reads the body of a request', () => {
    const request = new Request('http://shop.example/products?$top=1', { method: 'POST', body: '{"not":"read"}' });
    expect(odataQuery(request, settings).ok).toBe(true);
    expect(request.bodyUsed).toBe(false);
  });

  it('answers every problem with the OData error response and its status', () => {
    const cases: [string, BindSettings, number, string][] = [
      ['/products?$filter=nme eq 1', settings, 400, 'unknown_property'],
      ['/products?$filter=name eq', settings, 400, 'unexpected_end'],
      ['/products?$top=51', settings, 400, 'top_limit_exceeded'],
      ['/products?$filter=name eq %ZZ', settings, 400, 'malformed_encoding'],
      ['/products?$top=1&$TOP=2', settings, 400, 'duplicate_option'],
      ['/products?$index=1', settings, 501, 'unsupported_option'],
      ['/products?$apply=aggregate(name with sum as total)', settings, 400, 'type_mismatch'],
      ['/products?$top=1', { model, entitySet: 'nowhere' }, 500, 'unknown_entity_set'],
    ];
    for (const [url, using, status, code] of cases) {
      const result = failure(odataQuery(new Request(new URL(url, 'http://shop.example')), using));
      expect([url, result.status, result.body.error.code]).toEqual([url, status, code]);
    }
  });

  it('turns an unexpected throw into a 500 that reveals nothing', () => {
    const broken = {
      get url(): string {
        throw new Error('secret detail');
      },
    } as unknown as Request;
    const result = failure(odataQuery(broken, settings));
    expect(result.status).toBe(500);
    expect(JSON.stringify(result.body)).not.toContain('secret');
  });
});
