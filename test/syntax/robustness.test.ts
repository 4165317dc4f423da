/**
 * Bad input never crashes: random strings and random mutations of valid queries either parse
 * or throw an ODataError with a code, a status and (for syntax errors) a position.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ODataError,
  parseApply,
  parseExpand,
  parseFilter,
  parseOrderBy,
  parseQuery,
  parseSearch,
  parseSelect,
  printExpression,
  printQuery,
} from '../../src/index.js';
import { expressionArbitrary, queryArbitrary } from '../../src/testing/index.js';

function onlyODataErrors(run: () => unknown, input: string): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ODataError)) throw new Error(`non-ODataError for ${JSON.stringify(input)}: ${String(error)}`);
    expect(error.code.length).toBeGreaterThan(0);
    expect(error.status).toBeGreaterThanOrEqual(400);
    expect(error.message.length).toBeGreaterThan(0);
    expect(error.toJSON().error.code).toBe(error.code);
    if (error.position !== undefined) {
      expect(error.position).toBeGreaterThanOrEqual(0);
      expect(error.position).toBeLessThanOrEqual(input.length);
    }
  }
}

/** Characters that matter to the grammar, to make random strings likelier to reach deep. */
const ODATA_CHARS = '()[]{},;:/=\'"$@*.-+ \t%&#0123456789abcdefeqnotandoranyall'.split('').map((char) => fc.constant(char));
const odataishString = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: fc.oneof(...ODATA_CHARS), maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

const mutation = fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace', 'duplicate'), fc.oneof(...ODATA_CHARS));

function mutate(text: string, [index, kind, char]: [number, string, string]): string {
  const at = text.length === 0 ? 0 : index % text.length;
  switch (kind) {
    case 'insert':
      return text.slice(0, at) + char + text.slice(at);
    case 'delete':
      return text.slice(0, at) + text.slice(at + 1);
    case 'replace':
      return text.slice(0, at) + char + text.slice(at + 1);
    default:
      return text.slice(0, at) + text.slice(at, at + 5) + text.slice(at);
  }
}

describe('every bad input gives an ODataError and nothing else', () => {
  it('random strings into every parse function', () => {
    fc.assert(
      fc.property(odataishString, (input) => {
        onlyODataErrors(() => parseFilter(input), input);
        onlyODataErrors(() => parseOrderBy(input), input);
        onlyODataErrors(() => parseSelect(input), input);
        onlyODataErrors(() => parseExpand(input), input);
        onlyODataErrors(() => parseSearch(input, { search: 'grammar' }), input);
        onlyODataErrors(() => parseQuery(input), input);
        onlyODataErrors(() => parseQuery(`$filter=${input}`), `$filter=${input}`);
        onlyODataErrors(() => parseApply(input), input);
        onlyODataErrors(() => parseApply(input, { search: 'grammar' }), input);
        onlyODataErrors(() => parseQuery(`$apply=groupby((a),${input})`), `$apply=groupby((a),${input})`);
      }),
      { numRuns: 1500 },
    );
  });

  it('random mutations of valid filters', () => {
    fc.assert(
      fc.property(expressionArbitrary({ maxDepth: 3 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), (expression, mutations) => {
        const input = mutations.reduce(mutate, printExpression(expression));
        onlyODataErrors(() => parseFilter(input, { maxLength: 1_000_000 }), input);
      }),
      { numRuns: 1000 },
    );
  });

  it('random mutations of valid query strings', () => {
    fc.assert(
      fc.property(queryArbitrary({ maxDepth: 2 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), (query, mutations) => {
        const input = mutations.reduce(mutate, printQuery(query));
        onlyODataErrors(() => parseQuery(input, { maxLength: 1_000_000 }), input);
        onlyODataErrors(() => parseQuery(input, { maxLength: 1_000_000, search: 'grammar' }), input);
      }),
      { numRuns: 1000 },
    );
  });

  it('random mutations of valid $apply values', () => {
    const applies = [
      'groupby((Customer/Country,Product/Name),aggregate(Amount with sum from Time with average as Total,$count as N))/filter(Total gt 5)/orderby(Total desc)/top(3)',
      'concat(topcount(2,Amount),search(a OR (b AND NOT c)))/compute(Amount div $these/aggregate(Amount with sum) as R)/skip(1)/identity',
      "ancestors($root/Orgs,H,ID,filter(contains(Name,'E')),2,keep start)/join(Sales as S,nest(identity as X))/Self.fn(P=1)",
      'groupby((rollup(A,B/C),rolluprecursive($root/S,H,ID,traverse($root/S,H,ID,preorder,Name desc))),aggregate(Sales/$count as C,Forecast))',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...applies), fc.array(mutation, { minLength: 1, maxLength: 3 }), (apply, mutations) => {
        const input = mutations.reduce(mutate, apply);
        onlyODataErrors(() => parseApply(input), input);
        onlyODataErrors(() => parseApply(input, { search: 'grammar' }), input);
        onlyODataErrors(() => parseQuery(`$expand=Items($apply=${input})`, { search: 'grammar' }), `$expand=Items($apply=${input})`);
      }),
      { numRuns: 1000 },
    );
  });

  it('the shared parser recovers after every error', () => {
    expect(() => parseFilter('(((')).toThrow(ODataError);
    expect(() => parseExpand('Items($filter=')).toThrow(ODataError);
    expect(() => parseApply("search(a OR')", { search: 'grammar' })).toThrow(ODataError);
    expect(printExpression(parseFilter('a eq 1'))).toBe('a eq 1');
  });
});
