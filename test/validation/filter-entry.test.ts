/**
 * `odata-engine/filter` (src/filter.ts): `$filter` alone. Its parseFilter, bindFilter and
 * validateFilter give what the core gives for the same filter (trees, bound predicates, errors with
 * their positions, diagnostics), on the example model and on generated models, valid and invalid
 * filters; the two constructs that need the full grammar are refused with their position. What its
 * bundle leaves out (and still does on its own: the hierarchy functions need the `$apply` binder) is
 * checked in test/package/filter-bundle.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as core from '../../src/index.js';
import * as filter from '../../src/filter.js';
import { generateModel, typedFilterArbitrary, expressionArbitrary } from '../../src/testing/index.js';
import { assetModel } from '../fixtures/asset-model.js';

/** The value, or the error as code@position: message. */
function outcome<T>(run: () => T): T | string {
  try {
    return run();
  } catch (error) {
    if (error instanceof core.ODataError) return `${error.code}@${String(error.position)} ${error.option ?? ''}: ${error.message}`;
    throw error;
  }
}

/** The core's answer for a `$filter` text: parse it, then bind it as a query's `$filter`. */
function coreBound(text: string, settings: core.BindSettings): unknown {
  return outcome(() => core.bindQuery({ kind: 'query', filter: core.parseFilter(text, settings.parse) }, settings).filter);
}

const settings = { model: assetModel, entitySet: 'assets' } as const;

describe('odata-engine/filter gives the core’s answers', () => {
  it('the example model: valid and invalid filters, the same trees, bound predicates and errors', () => {
    const texts = [
      "name eq 'Pump' and locality/name ne 'b'",
      "contains(tolower(name),'milk') or code gt 3",
      'nam eq 1',
      'name eq',
      'name eq 1',
      "tickets/any(t: t/subject eq 'x') and not (code lt 2)",
      'tickets/$count gt 2 and tickets/$filter(@x eq 1)/$count eq 1',
      '1 add',
      "name in ('a','b') and matchesPattern(name,'^P.*')",
      "matchesPattern(name,'(a*)*')",
      '$it/name eq null',
      'code div 0 eq 1',
    ];
    for (const text of texts) {
      expect(
        outcome(() => filter.parseFilter(text)),
        text,
      ).toEqual(outcome(() => core.parseFilter(text)));
      expect(
        outcome(() => filter.bindFilter(text, settings)),
        text,
      ).toEqual(coreBound(text, settings));
    }
  });

  it('generated models: typed filters (they bind) and random expressions (mostly errors)', () => {
    for (const seed of [3, 11, 29]) {
      const model = generateModel({ seed });
      const sets = [...model.entitySets.keys()].slice(0, 3);
      for (const entitySet of sets) {
        const local = { model, entitySet };
        const texts = fc.sample(typedFilterArbitrary(model, entitySet), { numRuns: 25, seed });
        texts.push(
          ...fc.sample(
            expressionArbitrary({ maxDepth: 3 }).map((e) => core.printExpression(e)),
            { numRuns: 25, seed },
          ),
        );
        for (const text of texts) {
          const parsed = outcome(() => filter.parseFilter(text));
          // The two constructs that need the full grammar: refused here, parsed by the core.
          if (typeof parsed === 'string' && parsed.startsWith('unsupported_feature')) {
            expect(parsed, text).toMatch(/needs the full OData grammar/);
            continue;
          }
          expect(parsed, text).toEqual(outcome(() => core.parseFilter(text)));
          expect(
            outcome(() => filter.bindFilter(text, local)),
            text,
          ).toEqual(coreBound(text, local));
        }
      }
    }
  });

  it('settings: the limits, allowedQueryOptions, capabilities and an unknown entity set, as bindQuery', () => {
    const cases: [string, core.BindSettings][] = [
      ['code gt 1 and code gt 2 and code gt 3', { ...settings, maxNodeCount: 4 }],
      ['code gt 1', { ...settings, allowedQueryOptions: ['top'] }],
      ['code gt', { ...settings, allowedQueryOptions: ['top'] }],
      ["contains(name,'a')", { ...settings, allowedFunctions: ['startswith'] }],
      ['code gt 1', { ...settings, allowedLogicalOperators: ['or'] }],
      ['code gt 1', { ...settings, entitySet: 'nope' }],
      ['((((code gt 1))))', { ...settings, parse: { maxDepth: 2 } }],
      ['code gt 1000000', { ...settings, parse: { maxLength: 5 } }],
    ];
    for (const [text, local] of cases) {
      const query = outcome(() => core.bindQuery(`$filter=${encodeURIComponent(text)}`, local).filter);
      const alone = outcome(() => filter.bindFilter(text, local));
      expect(alone, text).toEqual(query);
    }
  });

  it('the two constructs of the full grammar are refused with their position', () => {
    const at = (text: string): string => outcome(() => filter.parseFilter(text)) as string;
    expect(at('tickets/$count($filter=code gt 1) gt 1')).toMatch(/^unsupported_feature@8 \$filter: \$count with nested options/);
    expect(at('code gt 1 and tickets/aggregate(code with sum as s) gt 1')).toMatch(/^unsupported_feature@22 \$filter: the aggregate function in a path/);
    expect(outcome(() => core.parseFilter('tickets/$count($filter=code gt 1) gt 1'))).not.toBeTypeOf('string');
  });
});

describe('validateFilter', () => {
  it('the TSDoc example: two unknown properties, each underlined', () => {
    const shop = filter.defineModel({
      namespace: 'Shop',
      entityTypes: { Product: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double' } } },
      entitySets: { products: { type: 'Product' } },
    });
    const found = filter.validateFilter("nam eq 'a' and prise gt 1", { model: shop, entitySet: 'products' });
    expect(found.map((d) => [d.code, d.range.start, d.range.end])).toEqual([
      ['unknown_property', 0, 3],
      ['unknown_property', 15, 20],
    ]);
    expect(filter.validateFilter("name eq 'a'", { model: shop, entitySet: 'products' })).toEqual([]);
  });

  it('gives validateQuery’s $filter diagnostics, at the same places in the value', () => {
    const texts = [
      "nam eq 'a' and sise gt 1",
      "name gt 1 or code eq 2 or not (status eq 'nope')",
      'name eq',
      'code gt 1 and',
      "tickets/any(t: t/nope eq 1) or bogus eq 2 and name eq 'x'",
      '(((',
      'code gt 1 ¤',
      "contains(nam,'x') and code eq 'y'",
    ];
    const model = generateModel({ seed: 5 });
    const entitySet = [...model.entitySets.keys()][0] as string;
    const generated = fc.sample(
      expressionArbitrary({ maxDepth: 3 }).map((e) => core.printExpression(e)),
      { numRuns: 60, seed: 5 },
    );
    const cases: [string, core.BindSettings][] = [
      ...texts.map((t): [string, core.BindSettings] => [t, settings]),
      ...generated.map((t): [string, core.BindSettings] => [t, { model, entitySet }]),
    ];
    let compared = 0;
    for (const [text, local] of cases) {
      // Characters a query string would carry percent-encoded: there the ranges index the encoded text.
      if (/[%&#+]/.test(text) || /[^\x20-\x7e]/.test(text)) continue;
      const alone = filter.validateFilter(text, local);
      if (alone.some((d) => d.message.includes('needs the full OData grammar'))) continue;
      const inQuery = core.validateQuery(`$filter=${text}`, local).map((d) => ({ ...d, range: { start: d.range.start - 8, end: d.range.end - 8 } }));
      expect(alone, text).toEqual(inQuery);
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('never throws: an internal error would be a diagnostic, bad settings one too', () => {
    expect(filter.validateFilter('code gt 1', { ...settings, entitySet: 'nope' }).map((d) => [d.code, d.status])).toEqual([['unknown_entity_set', 500]]);
    expect(filter.validateFilter('', settings).map((d) => d.code)).toEqual(['invalid_option_value']);
    expect(filter.validateFilter('x'.repeat(200_001), settings).map((d) => d.code)).toEqual(['input_too_long']);
  });
});
