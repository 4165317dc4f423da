import { describe, expect, it } from 'vitest';
import { parseExpand, parseFilter, parseOrderBy, parseQuery, parseSelect } from '../../src/index.js';
import { failure } from '../helpers/failure.js';

describe('syntax errors say what was expected and where', () => {
  it('Name eq', () => {
    const error = failure(() => parseFilter('Name eq'));
    expect(error.message).toBe("Expected an expression after 'eq' at position 7 in $filter");
    expect(error.code).toBe('unexpected_end');
    expect(error.status).toBe(400);
    expect(error.position).toBe(7);
  });

  const cases: [string, () => unknown, string, number][] = [
    ["Name eq 'x' foo", () => parseFilter("Name eq 'x' foo"), 'syntax_error', 12],
    ['(Name eq 1', () => parseFilter('(Name eq 1'), 'unexpected_end', 10],
    ['Name eq 1)', () => parseFilter('Name eq 1)'), 'syntax_error', 9],
    ["Name eq 'unterminated", () => parseFilter("Name eq 'unterminated"), 'invalid_token', 8],
    ['Name eq #', () => parseFilter('Name eq #'), 'invalid_token', 8],
    ['contains(Name)', () => parseFilter('contains(Name)'), 'wrong_arity', 0],
    ["frobnicate(Name,'x')", () => parseFilter("frobnicate(Name,'x')"), 'unknown_function', 0],
    ['Items/all()', () => parseFilter('Items/all()'), 'syntax_error', 10],
    ['Items/any(x:x eq 1)/Name', () => parseFilter('Items/any(x:x eq 1)/Name'), 'syntax_error', 20],
    ["Name in (Code, 'b')", () => parseFilter("Name in (Code, 'b')"), 'syntax_error', 9],
    ["Name eq ('a','b')", () => parseFilter("Name eq ('a','b')"), 'syntax_error', 12],
    ['Model.Available', () => parseFilter('Model.Available'), 'syntax_error', 15],
    ['Name asc desc', () => parseOrderBy('Name asc desc'), 'syntax_error', 9],
    ['Name,', () => parseSelect('Name,'), 'unexpected_end', 5],
    ['Items($top=-1)', () => parseExpand('Items($top=-1)'), 'invalid_option_value', 11],
    ['Items($levels=04)', () => parseExpand('Items($levels=04)'), 'invalid_option_value', 14],
    ['Items($top=1;$top=2)', () => parseExpand('Items($top=1;$top=2)'), 'duplicate_option', 13],
    ['Items/$ref($select=Name)', () => parseExpand('Items/$ref($select=Name)'), 'invalid_nested_option', 10],
    ['Items/$count($count=true)', () => parseExpand('Items/$count($count=true)'), 'invalid_nested_option', 12],
    ['Items($bogus=1)', () => parseExpand('Items($bogus=1)'), 'invalid_nested_option', 6],
  ];
  for (const [title, run, code, position] of cases) {
    it(title, () => {
      const error = failure(run);
      expect(error.code).toBe(code);
      expect(error.position).toBe(position);
      // Syntax errors say where; an unknown function keeps OData.net's sentence (position in `position`).
      if (code === 'unknown_function') expect(error.message).toMatch(/^An unknown function with name 'frobnicate' was found\./);
      else expect(error.message).toMatch(new RegExp(`at position ${position} in \\$\\w+$`));
    });
  }
});

describe('the OData JSON error body', () => {
  it('has a non-empty code, the message, the option as target and details', () => {
    const error = failure(() => parseQuery("$filter=Name eq 'x' and"));
    const body = error.toJSON();
    expect(body).toEqual({
      error: {
        code: 'unexpected_end',
        message: "Expected an expression after 'and' at position 15 in $filter",
        target: '$filter',
        details: [],
        innererror: { position: 15 },
      },
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual(body);
  });

  it('is an Error with name ODataError', () => {
    const error = failure(() => parseFilter(''));
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ODataError');
    expect(error.code).toBe('invalid_option_value');
  });
});

describe('bounds', () => {
  it('a filter nested 100 000 parentheses deep is an ODataError, not a RangeError', () => {
    const input = '('.repeat(100_000) + 'a eq 1' + ')'.repeat(100_000);
    const error = failure(() => parseFilter(input, { maxLength: 1_000_000 }));
    expect(error.code).toBe('too_deep');
    expect(error.position).toBe(256);
  });

  it('100 000 nested brackets and lambdas are bounded too', () => {
    expect(failure(() => parseFilter('['.repeat(100_000), { maxLength: 1_000_000 })).code).toBe('too_deep');
    const lambdas = 'A/any(a:'.repeat(50_000) + 'true' + ')'.repeat(50_000);
    expect(failure(() => parseFilter(lambdas, { maxLength: 1_000_000 })).code).toBe('too_deep');
  });

  it('nesting up to the limit parses', () => {
    const depth = 256;
    const node = parseFilter('('.repeat(depth) + 'a eq 1' + ')'.repeat(depth));
    expect(node.kind).toBe('binary');
  });

  it('the depth limit is configurable', () => {
    expect(failure(() => parseFilter('((a eq 1))', { maxDepth: 1 })).code).toBe('too_deep');
    expect(parseFilter('((a eq 1))', { maxDepth: 2 }).kind).toBe('binary');
  });

  it('100 000 prefix operators do not recurse', () => {
    const node = parseFilter('not '.repeat(100_000) + 'a', { maxLength: 1_000_000 });
    expect(node.kind).toBe('unary');
  });

  it('input length is bounded', () => {
    const error = failure(() => parseFilter('a eq 1 or '.repeat(20_000) + 'a eq 1'));
    expect(error.code).toBe('input_too_long');
    expect(error.message).toContain('the limit is 100000');
    expect(parseFilter('a eq 1', { maxLength: 6 }).kind).toBe('binary');
    expect(failure(() => parseFilter('a eq 1', { maxLength: 5 })).code).toBe('input_too_long');
  });
});
