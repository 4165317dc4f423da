/**
 * parse(print(ast)) equals ast (spans aside), for arbitrary ASTs from odata-engine/testing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFilter, parseQuery, parseSearch, printExpression, printQuery, printSearch } from '../../src/index.js';
import { expressionArbitrary, queryArbitrary, searchArbitrary } from '../../src/testing/index.js';
import { withoutSpans } from '../helpers/tree.js';

const runs = { numRuns: 1500 };
const parseOptions = { maxLength: 10_000_000 };

describe('printer round trip', () => {
  it('parseFilter(printExpression(e)) equals e', () => {
    fc.assert(
      fc.property(expressionArbitrary(), (expression) => {
        const text = printExpression(expression);
        expect(withoutSpans(parseFilter(text, parseOptions)), text).toEqual(withoutSpans(expression));
      }),
      runs,
    );
  });

  it('printing is a fixed point: print(parse(print(e))) equals print(e)', () => {
    fc.assert(
      fc.property(expressionArbitrary(), (expression) => {
        const text = printExpression(expression);
        expect(printExpression(parseFilter(text, parseOptions))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('parseSearch(printSearch(s)) equals s in grammar mode', () => {
    fc.assert(
      fc.property(searchArbitrary('grammar'), (search) => {
        const text = printSearch(search);
        expect(withoutSpans(parseSearch(text, { search: 'grammar' })), text).toEqual(withoutSpans(search));
      }),
      runs,
    );
  });

  it('parseQuery(printQuery(q)) equals q ($search as text)', () => {
    fc.assert(
      fc.property(queryArbitrary(), (query) => {
        const text = printQuery(query);
        expect(withoutSpans(parseQuery(text, parseOptions)), text).toEqual(withoutSpans(query));
      }),
      runs,
    );
  });

  it('parseQuery(printQuery(q)) equals q ($search grammar)', () => {
    fc.assert(
      fc.property(queryArbitrary({ search: 'grammar' }), (query) => {
        const text = printQuery(query);
        expect(withoutSpans(parseQuery(text, { ...parseOptions, search: 'grammar' })), text).toEqual(withoutSpans(query));
      }),
      { numRuns: 500 },
    );
  });
});
