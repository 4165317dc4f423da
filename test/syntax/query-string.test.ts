import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/index.js';
import { tree } from '../helpers/tree.js';
import { failure } from '../helpers/failure.js';

describe('parseQuery splits on & and the first =, then decodes once (URL 2.1)', () => {
  it("$filter=Name eq 'a%26b'&$top=10", () => {
    const query = parseQuery("$filter=Name eq 'a%26b'&$top=10");
    expect(query.filter && tree(query.filter)).toBe("(Name eq 'a&b')");
    expect(query.top).toBe(10);
  });

  it('?$filter=Price%20gt%205 (leading ? and percent-encoded spaces)', () => {
    expect(tree(parseQuery('?$filter=Price%20gt%205').filter!)).toBe('(Price gt 5)');
  });

  it("$filter=Note eq 'x=y' keeps everything after the first =", () => {
    expect(tree(parseQuery("$filter=Note eq 'x=y'").filter!)).toBe("(Note eq 'x=y')");
  });

  it('%2524 decodes to a literal %24, not to $ (decoded exactly once)', () => {
    expect(tree(parseQuery("$filter=Code eq '%2524'").filter!)).toBe("(Code eq '%24')");
  });

  it('+ is a literal plus: 2012-09-03T14:53+02:00 keeps its offset', () => {
    const query = parseQuery('$filter=At gt 2012-09-03T14:53+02:00');
    expect(query.filter).toMatchObject({ right: { type: 'Edm.DateTimeOffset', value: '2012-09-03T14:53+02:00' } });
  });

  it('plusAsSpace: $filter=Name+eq+%27a%2Bb%27 for form-encoding clients', () => {
    const query = parseQuery('$filter=Name+eq+%27a%2Bb%27', { plusAsSpace: true });
    expect(tree(query.filter!)).toBe("(Name eq 'a+b')");
  });

  it("a '+' where an operator was expected, or one read as a space, says how to send spaces and plus signs", () => {
    // Form-encoded spaces without plusAsSpace: the '+' is a plus sign, and the message says so.
    expect(() => parseQuery("$filter=status+eq+'active'")).toThrow(
      expect.objectContaining({
        code: 'invalid_token',
        position: 6,
        message: expect.stringContaining("send a space as '%20', or parse with plusAsSpace and send a plus sign as '%2B'"),
      }),
    );
    // With plusAsSpace, an unencoded plus sign became a space: the error in that value says so.
    expect(() => parseQuery('$filter=At+gt+2012-09-03T14:53+02:00', { plusAsSpace: true })).toThrow(
      expect.objectContaining({ option: '$filter', message: expect.stringContaining("('+' in the query string is a space here: send a plus sign as '%2B')") }),
    );
    // An error in another value, or without a '+', has no hint.
    expect(() => parseQuery('$top=x&$filter=a+eq+1', { plusAsSpace: true })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('%2B') }));
    expect(parseQuery('$filter=At+gt+2012-09-03T14:53%2B02:00', { plusAsSpace: true }).filter).toMatchObject({ right: { value: '2012-09-03T14:53+02:00' } });
  });

  it('URLSearchParams input', () => {
    const params = new URLSearchParams({ $filter: "Name eq 'a b'", $orderby: 'Name desc', $count: 'true' });
    const query = parseQuery(params);
    expect(tree(query.filter!)).toBe("(Name eq 'a b')");
    expect(query.orderBy?.[0]?.direction).toBe('desc');
    expect(query.count).toBe(true);
  });

  it('option names are case-insensitive and $ is optional (4.01)', () => {
    const query = parseQuery('filter=true&$OrderBy=Name&TOP=5&skip=2&$Count=FALSE');
    expect(query.filter).toMatchObject({ kind: 'literal', value: true });
    expect(query.orderBy).toHaveLength(1);
    expect(query).toMatchObject({ top: 5, skip: 2, count: false });
  });

  it('every option of a collection request', () => {
    const query = parseQuery(
      '$filter=Price gt 5&$orderby=Name&$select=Name,Price&$expand=Items($top=2)&$top=10&$skip=20&$count=true&$search=blue&$compute=Price mul 2 as Double',
    );
    expect(Object.keys(query).sort()).toEqual(['compute', 'count', 'expand', 'filter', 'kind', 'orderBy', 'search', 'select', 'skip', 'top']);
    expect(query.search).toEqual({ kind: 'searchText', text: 'blue', span: { start: 0, end: 4 } });
  });

  it('custom options pass through; $format and $skiptoken are kept aside', () => {
    const query = parseQuery('!deltatoken=0412&debug=1&$format=json&$skiptoken=abc');
    expect(query.custom).toEqual({ '!deltatoken': '0412', debug: '1' });
    expect(query.passthrough).toEqual({ $format: 'json', $skiptoken: 'abc' });
  });

  it('__proto__ and constructor are plain names for custom options and aliases', () => {
    const query = parseQuery('__proto__=x&constructor=y&@__proto__=1');
    expect(Object.keys(query.custom!)).toEqual(['__proto__', 'constructor']);
    expect(query.custom!['__proto__']).toBe('x');
    expect(Object.keys(query.aliases!)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("parameter aliases: $filter=contains(Title,@word)&@word='Black'", () => {
    const query = parseQuery("$filter=contains(Title,@word)&@word='Black'");
    expect(query.aliases?.word).toMatchObject({ kind: 'literal', value: 'Black' });
  });
});

describe('parseQuery rejects', () => {
  const cases: [string, string, string | undefined][] = [
    ['$filter=a eq 1&$FILTER=b', 'duplicate_option', '$FILTER'],
    ['$top=1&top=2', 'duplicate_option', 'top'],
    ['$bogus=1', 'unknown_option', '$bogus'],
    ['$apply=aggregate()', 'syntax_error', '$apply'],
    ['$expand=Items($apply=Filter(true))', 'syntax_error', '$expand'],
    ['$select=Name($apply=identity)', 'invalid_nested_option', '$select'],
    ['$levels=2', 'unsupported_option', '$levels'],
    ['$count', 'invalid_option_value', '$count'],
    ['$count=yes', 'invalid_option_value', '$count'],
    ['$top=', 'invalid_option_value', '$top'],
    ['$top=-1', 'invalid_option_value', '$top'],
    ['$top=+1', 'invalid_option_value', '$top'],
    ['$top=1.5', 'invalid_option_value', '$top'],
    ['$filter=', 'invalid_option_value', '$filter'],
    ["$filter=Name eq '%E0%A4%A'", 'malformed_encoding', undefined],
    ['$search=#1', 'malformed_encoding', undefined],
    ['$search=a;b', 'invalid_token', '$search'],
    ['$orderby=Name sideways', 'syntax_error', '$orderby'],
  ];
  for (const [input, code, option] of cases) {
    it(input, () => {
      const error = failure(() => parseQuery(input));
      expect(error.code).toBe(code);
      expect(error.option).toBe(option);
    });
  }

  it('$top=99999999999999999999 is kept exactly, as a bigint, for the binder to compare', () => {
    expect(parseQuery('$top=99999999999999999999&$skip=9007199254740993')).toMatchObject({ top: 99999999999999999999n, skip: 9007199254740993n });
    expect(parseQuery('$top=9007199254740991').top).toBe(9007199254740991);
  });

  it('$apply (and apply, any case) is parsed, also inside $expand(...)', () => {
    expect(parseQuery('$apply=identity').apply).toEqual([{ kind: 'identity', span: { start: 0, end: 8 } }]);
    expect(parseQuery('APPLY=top(2)').apply).toMatchObject([{ kind: 'top', count: 2 }]);
    expect(parseQuery('$expand=Items($apply=filter(Qty gt 1)/top(1);$top=2)').expand?.[0]?.options).toMatchObject({
      apply: [{ kind: 'filter' }, { kind: 'top', count: 1 }],
      top: 2,
    });
    expect(failure(() => parseQuery('$apply=identity&apply=identity')).code).toBe('duplicate_option');
  });
});
