/**
 * parse(print(ast)) equals ast (spans aside), for arbitrary ASTs from odata-engine/testing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseApply, parseFilter, parseQuery, parseSearch, printExpression, printQuery, printSearch } from '../../src/index.js';
import { printApply } from '../../src/syntax/printer.js';
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

  describe('$apply: parse, print, parse gives the same tree', () => {
    const cases: [string, string][] = [
      ['aggregate(Amount  with sum as Total , $count as N)', 'aggregate(Amount with sum as Total,$count as N)'],
      [
        'aggregate(Sales/$count from Time with average as C,Forecast,Sales/Forecast,Budget from Time as B)',
        'aggregate(Sales/$count from Time with average as C,Forecast,Sales/Forecast,Budget from Time as B)',
      ],
      [
        'aggregate(Amount with sum from Time,Product/Name with Custom.m from Year with max as X)',
        'aggregate(Amount with sum from Time,Product/Name with Custom.m from Year with max as X)',
      ],
      ['aggregate(Self.DigitalProduct with Custom.discount as D)', 'aggregate(Self.DigitalProduct with Custom.discount as D)'],
      [
        'groupby((rollup(A,B), rolluprecursive($root/S,H,ID)),aggregate(Amount with countdistinct as N))',
        'groupby((rollup(A,B),rolluprecursive($root/S,H,ID)),aggregate(Amount with countdistinct as N))',
      ],
      [
        'groupby((Name))/filter(Name ne null)/orderby(Name desc,ID)/top(5)/skip(10)/identity',
        'groupby((Name))/filter(Name ne null)/orderby(Name desc,ID)/top(5)/skip(10)/identity',
      ],
      [
        'compute(Amount div $these/aggregate(Amount with average) as R, isdefined(Product) as D)',
        'compute(Amount div $these/aggregate(Amount with average) as R,isdefined(Product) as D)',
      ],
      ['concat(topcount(2,Amount),bottomsum(15,Amount))/toppercent(50,Amount)', 'concat(topcount(2,Amount),bottomsum(15,Amount))/toppercent(50,Amount)'],
      ['search(coffee OR tea)', 'search(coffee OR tea)'],
      ['join(Sales as S,filter(Amount gt 1))/Self.fn(Count=1)', 'join(Sales as S,filter(Amount gt 1))/Self.fn(Count=1)'],
    ];
    for (const [text, printed] of cases) {
      it(text, () => {
        for (const search of ['text', 'grammar'] as const) {
          const tree = parseApply(text, { search });
          expect(printApply(tree)).toBe(printed);
          expect(withoutSpans(parseApply(printApply(tree), { search }))).toEqual(withoutSpans(tree));
        }
      });
    }

    it('printQuery prints $apply, also nested in $expand', () => {
      const query = parseQuery('$expand=Items($apply=aggregate(Qty with sum as Total))&$apply=groupby((Name))');
      expect(printQuery(query)).toBe('$expand=Items($apply=aggregate(Qty with sum as Total))&$apply=groupby((Name))');
      expect(withoutSpans(parseQuery(printQuery(query)))).toEqual(withoutSpans(query));
    });
  });
});
