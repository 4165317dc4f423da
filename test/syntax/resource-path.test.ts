/**
 * `parseResourcePath`: splitting at unencoded slashes, decoding each segment once, the segment
 * forms of the Chevrotain rule `resourceSegmentOption`, and errors with positions in the decoded path.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ODataError, parseResourcePath, type ResourceSegment } from '../../src/index.js';

/** A compact form of a segment for assertions. */
function show(segment: ResourceSegment): string {
  switch (segment.kind) {
    case 'name':
      return `${segment.name}${segment.lists.map((list) => `(${list.map((a) => `${a.name === undefined ? '' : `${a.name}=`}${a.value.kind === 'literal' ? String(a.value.value) : a.value.kind === 'alias' ? `@${a.value.name}` : a.value.kind}`).join(',')})`).join('')}`;
    case 'text':
      return `text:${segment.text}`;
    case 'system':
      return segment.name;
    case 'filter':
      return `$filter:${segment.predicate.kind}`;
    case 'crossjoin':
      return `$crossjoin:${segment.sets.join(',')}`;
  }
}

const shapes = (path: string): string[] => parseResourcePath(path).segments.map(show);

function error(path: string): ODataError {
  try {
    parseResourcePath(path);
  } catch (e) {
    if (e instanceof ODataError) return e;
    throw e;
  }
  throw new Error(`${path} parsed`);
}

describe('parseResourcePath', () => {
  it('reads names, keys, function parameters and $ segments', () => {
    expect(shapes('')).toEqual([]);
    expect(shapes('/')).toEqual([]);
    expect(shapes("People('russellwhyte')/Trips(0)/PlanItems/$count")).toEqual(['People(russellwhyte)', 'Trips(0)', 'PlanItems', '$count']);
    expect(shapes("OrderItems(OrderID=1,ItemID='a')")).toEqual(['OrderItems(OrderID=1,ItemID=a)']);
    expect(shapes('ProductsByCategoryId(categoryId=2)(2)')).toEqual(['ProductsByCategoryId(categoryId=2)(2)']);
    expect(shapes('Categories(@key)')).toEqual(['Categories(@key)']);
    expect(shapes('Products/$filter(@foo)/$each')).toEqual(['Products', '$filter:alias', '$each']);
    expect(shapes("Products/$filter(Category/Name eq 'x')/$count")).toEqual(['Products', '$filter:binary', '$count']);
    expect(shapes('$crossjoin(Products,Categories)')).toEqual(['$crossjoin:Products,Categories']);
    expect(shapes('$metadata')).toEqual(['$metadata']);
    expect(shapes('Suppliers(1)/Addresses/Model.AddressWithLocation/-1')).toEqual(['Suppliers(1)', 'Addresses', 'Model.AddressWithLocation', 'text:-1']);
  });

  it('splits at unencoded slashes only, and decodes each segment once', () => {
    expect(shapes('Categories/Smartphone%2FTablet')).toEqual(['Categories', 'text:Smartphone/Tablet']);
    expect(shapes("Categories('Smartphone%2FTablet')")).toEqual(['Categories(Smartphone/Tablet)']);
    expect(shapes('Customers%28%27O%27%27Neil%27%29')).toEqual(["Customers(O'Neil)"]);
    expect(shapes("People/O'Neil")).toEqual(['People', "text:O'Neil"]);
    expect(shapes("Categories('Tablet%20)small(')")).toEqual(['Categories(Tablet )small()']);
    // %2527 is the text %27, not a quote: decoded once.
    expect(shapes("People('a%2527b')")).toEqual(['People(a%27b)']);
    expect(shapes("People('%E2%82%AC')")).toEqual(['People(€)']);
    expect(parseResourcePath('Categories/Smartphone%2FTablet').text).toBe('Categories/Smartphone/Tablet');
  });

  it('refuses malformed paths with the position in the decoded path', () => {
    expect(error("Categories('Tablet/Slate')")).toMatchObject({ code: 'syntax_error', position: 18 });
    expect(error("Customers('O%27Neil')")).toMatchObject({ code: 'invalid_token', position: 17 });
    expect(error('OrderItems(OrderID=1;ItemID=2)')).toMatchObject({ code: 'syntax_error', position: 20 });
    expect(error('Products/')).toMatchObject({ code: 'syntax_error', position: 9 });
    expect(error('Products//x')).toMatchObject({ code: 'syntax_error', position: 9 });
    expect(error('Products(1')).toMatchObject({ code: 'unexpected_end' });
    expect(error('Products/%zz')).toMatchObject({ code: 'malformed_encoding', position: 9 });
    expect(error('Products/%C3')).toMatchObject({ code: 'malformed_encoding' });
    expect(error('$metadata#People')).toMatchObject({ code: 'malformed_encoding', position: 9 });
    expect(error('Products/$foo')).toMatchObject({ code: 'syntax_error' });
    expect(error('Products/$filter')).toMatchObject({ code: 'syntax_error' });
    expect(error('Products/$count(1)')).toMatchObject({ code: 'syntax_error' });
    expect(error('Products(a=1,2)')).toMatchObject({ code: 'syntax_error' });
    expect(error('x'.repeat(200_001))).toMatchObject({ code: 'input_too_long' });
    expect(error(`Products(${'('.repeat(300)}1${')'.repeat(300)})`)).toMatchObject({ code: 'too_deep' });
  });

  it('throws nothing but an ODataError for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: fc.constantFrom(..."A/()$'%2F,=@-1 .:#éx".split('')) }), (text) => {
        try {
          parseResourcePath(text);
        } catch (e) {
          expect(e).toBeInstanceOf(ODataError);
        }
      }),
      { seed: 29, numRuns: 3000 },
    );
  });
});
