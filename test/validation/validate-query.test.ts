/** validateQuery: every independent problem, with ranges into the query text. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIALECTS, bindQuery, mongoTarget, sqlTarget, validateQuery, type Dialect } from '../../src/index.js';
import { modelQueryArbitrary } from '../../src/testing/index.js';
import { assetModel } from '../fixtures/asset-model.js';

const settings = { model: assetModel, entitySet: 'assets' };
const check = (query: string) => validateQuery(query, settings);
/** The text each diagnostic underlines. */
const underlined = (query: string) => check(query).map((d) => [d.code, query.slice(d.range.start, d.range.end)]);

describe('validateQuery', () => {
  it('a valid query has no diagnostics', () => {
    expect(check("$filter=name eq 'a' and locality/name ne 'b'&$orderby=code&$top=5&$expand=locality&$select=id,name,locality")).toEqual([]);
  });

  it("$filter=nam eq 'a' and sise gt 1: two unknown properties, each underlined", () => {
    const query = "$filter=nam eq 'a' and sise gt 1";
    expect(underlined(query)).toEqual([
      ['unknown_property', 'nam'],
      ['unknown_property', 'sise'],
    ]);
    expect(check(query)[0]).toMatchObject({ severity: 'error', option: '$filter', status: 400, range: { start: 8, end: 11 } });
  });

  it('problems in several options: a syntax error in one does not hide the others', () => {
    const query = '$filter=name eq&$orderby=nope desc,code&$top=x&$select=id,bogus&$expand=tickets,nowhere';
    // In the order of the text.
    expect(underlined(query).map(([code]) => code)).toEqual([
      'unexpected_end',
      'unknown_property',
      'invalid_option_value',
      'unknown_property',
      'unknown_property',
    ]);
    expect(underlined(query)[0]).toEqual(['unexpected_end', 'q']);
    expect(underlined(query).map(([, text]) => text)).toContain('nope');
    expect(underlined(query).map(([, text]) => text)).toContain('bogus');
    expect(underlined(query).map(([, text]) => text)).toContain('nowhere');
  });

  it('type errors, the top limit, duplicates and unknown options', () => {
    expect(underlined("$filter=name gt 1 or code eq 2 or not (status eq 'nope')").map(([code]) => code)).toEqual([
      'type_mismatch',
      'type_mismatch',
      expect.any(String),
    ]);
    const top = check('$top=500');
    expect(top).toHaveLength(1);
    expect(top[0]!.message).toContain("The limit of '100' for Top query has been exceeded. The value from the incoming request is '500'.");
    expect(underlined('$top=1&$TOP=2&$bogus=1').map(([code]) => code)).toEqual(['duplicate_option', 'unknown_option']);
  });

  it('ranges point into the text as written, percent-encoding included', () => {
    const query = '$filter=name%20eq%20%27%C3%BC%27%20and%20nme%20eq%20null';
    const [diagnostic] = check(query);
    expect(diagnostic?.code).toBe('unknown_property');
    expect(query.slice(diagnostic!.range.start, diagnostic!.range.end)).toBe('nme');
  });

  it('never throws, and agrees with bindQuery on whether a query is valid', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          modelQueryArbitrary(assetModel, 'assets'),
          fc.string({ maxLength: 40 }),
          fc.string({ maxLength: 30 }).map((s) => `$filter=${s}`),
        ),
        (query) => {
          const diagnostics = validateQuery(query, settings);
          let valid = true;
          try {
            bindQuery(query, settings);
          } catch {
            valid = false;
          }
          expect(diagnostics.length === 0).toBe(valid);
          for (const d of diagnostics) {
            expect(d.range.start).toBeGreaterThanOrEqual(0);
            expect(d.range.end).toBeLessThanOrEqual(query.length);
            expect(d.range.start).toBeLessThanOrEqual(d.range.end);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('validateQuery with a target: what that backend cannot run, before a request is sent', () => {
  const query = "$filter=matchesPattern(name,'^P') and tags/any(t:t eq 'x') and code eq 'a'";
  const forTarget = (target: Parameters<typeof sqlTarget>[0]) => validateQuery(query, { ...settings, target: sqlTarget(target) });

  it('the binder alone calls it valid', () => {
    expect(check(query)).toEqual([]);
    expect(validateQuery(query, { ...settings, target: sqlTarget('postgres') })).toEqual([]);
    expect(validateQuery(query, { ...settings, target: mongoTarget() })).toEqual([]);
  });

  it('SQLite: matchesPattern is underlined (it has no regular expressions)', () => {
    const diagnostics = forTarget('sqlite');
    expect(diagnostics.map((d) => [d.code, query.slice(d.range.start, d.range.end)])).toEqual([['unsupported_feature', 'matchesPattern']]);
    expect(diagnostics[0]?.message).toContain('SQLite');
    // What the target refuses is exactly what compiling for it refuses.
    expect(() => bindQuery(query, settings)).not.toThrow();
  });

  it('a dialect lacking two hooks: both problems, each underlined, in the order of the text', () => {
    const bare: Dialect = { ...DIALECTS.postgres, name: 'bare', displayName: 'BareSQL', matchesPattern: undefined, collectionElements: undefined };
    const diagnostics = forTarget(bare);
    expect(diagnostics.map((d) => d.code)).toEqual(['unsupported_feature', 'unsupported_feature']);
    expect(diagnostics.map((d) => query.slice(d.range.start, d.range.end))).toEqual(['matchesPattern', 'tags']);
    expect(diagnostics.every((d) => d.message.includes('BareSQL'))).toBe(true);
  });

  it('binding errors come first, then the target is checked on what binds', () => {
    const diagnostics = validateQuery("$filter=nope eq 1 or matchesPattern(name,'a')", { ...settings, target: sqlTarget('sqlite') });
    expect(diagnostics.map((d) => d.code)).toEqual(['unknown_property', 'unsupported_feature']);
  });
});
