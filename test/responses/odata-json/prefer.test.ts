/**
 * The `Prefer` header (RFC 7240, PROT §8.2.8) and `Preference-Applied` (PROT §8.3.6): the 36
 * OASIS ABNF `preference` cases, RFC 7240's rules (first instance counts, unknown and malformed
 * preferences ignored), the 4.01 names over the 4.0 ones.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePrefer, preferenceApplied, type Preferences } from '../../../src/responses/odata-json/index.js';
import { CORPUS_DIR, corpusAvailable } from '../../conformance/corpus.js';
import { readAbnfTestCases } from '../../conformance/yaml-cases.js';

/** The fields of a parse other than `all`. */
function known(header: string): Omit<Preferences, 'all'> {
  const { all: _all, ...fields } = parsePrefer(header);
  return fields;
}

describe('parsePrefer', () => {
  it('the preferences of PROT §8.2.8, with their values', () => {
    expect(known('odata.maxpagesize=50, return=minimal, odata.include-annotations="display.*#tablet", omit-values=nulls')).toEqual({
      maxPageSize: 50,
      return: 'minimal',
      includeAnnotations: ['display.*#tablet'],
      omitValues: 'nulls',
    });
    expect(known('respond-async, wait=10')).toEqual({ respondAsync: true, wait: 10 });
    expect(known('callback; url="http://myserver/notfication/token/12345"')).toEqual({ callback: { url: 'http://myserver/notfication/token/12345' } });
    expect(known('allow-entityreferences, track-changes, continue-on-error=false')).toEqual({
      allowEntityReferences: true,
      trackChanges: true,
      continueOnError: false,
    });
  });

  it('names ignore case; the first instance of a preference counts (RFC 7240 §2); 4.01 names win over odata. ones', () => {
    expect(known('MaxPageSize=10, maxpagesize=20').maxPageSize).toBe(10);
    expect(known('odata.maxpagesize=10, maxpagesize=20').maxPageSize).toBe(20);
    expect(known('odata.include-annotations="-*", include-annotations="*"').includeAnnotations).toEqual(['*']);
  });

  it('unknown preferences are kept in all, and change nothing', () => {
    const parsed = parsePrefer('handling=lenient, foo; bar="a,b", odata.maxpagesize=5');
    expect(parsed.all.map((p) => [p.name, p.value, [...p.parameters]])).toEqual([
      ['handling', 'lenient', []],
      ['foo', undefined, [['bar', 'a,b']]],
      ['odata.maxpagesize', '5', []],
    ]);
    expect(known('handling=lenient, odata.maxpagesize=5')).toEqual({ maxPageSize: 5 });
  });

  it('invalid syntax or values are ignored, never an error: the request is served as without them', () => {
    expect(known('maxpagesize=0, return=everything, wait=-1, omit-values=all, respond-async=yes')).toEqual({});
    expect(known('odata.maxpagesize=abc')).toEqual({});
    expect(known('include-annotations="not a list"')).toEqual({});
    expect(known('"quoted"=1, odata.maxpagesize=7')).toEqual({ maxPageSize: 7 });
    expect(known('callback; url="unterminated')).toEqual({});
    expect(known('')).toEqual({});
    expect(parsePrefer(null).all).toEqual([]);
  });
});

describe('preferenceApplied', () => {
  it('the applied preferences, named as the version does', () => {
    expect(preferenceApplied({ maxPageSize: 50, omitValues: 'nulls' })).toBe('maxpagesize=50, omit-values=nulls');
    expect(preferenceApplied({ maxPageSize: 50, includeAnnotations: ['*'] }, { version: '4.0' })).toBe('odata.include-annotations="*", odata.maxpagesize=50');
    expect(preferenceApplied({ respondAsync: true, return: 'minimal', trackChanges: true })).toBe('respond-async, return=minimal, track-changes');
    expect(preferenceApplied({})).toBeUndefined();
  });

  it('round trip: what parsePrefer reads, preferenceApplied writes back', () => {
    const header = 'allow-entityreferences, continue-on-error, include-annotations="Namespace.*,-Model.Term#q", maxpagesize=5, omit-values=defaults, wait=3';
    const { all: _all, ...fields } = parsePrefer(header);
    expect(preferenceApplied(fields)).toBe(header);
  });
});

/** What each valid case of the ABNF rule `preference` reads as (the case's input → the fields). */
const EXPECTED: Readonly<Record<string, Omit<Preferences, 'all'>>> = {
  'odata.callback;url="please://call/me?back#here"': { callback: { url: 'please://call/me?back#here' } },
  'odata.callback;url="http://myserver/notfication/token/12345"': { callback: { url: 'http://myserver/notfication/token/12345' } },
  'odata.callback;url="some:where"': { callback: { url: 'some:where' } },
  'odata.callback;url="some:/where"': { callback: { url: 'some:/where' } },
  'callback;url="some:/where"': { callback: { url: 'some:/where' } },
  'odata.continue-on-error': { continueOnError: true },
  'continue-on-error': { continueOnError: true },
  'odata.continue-on-error=true': { continueOnError: true },
  'continue-on-error=true': { continueOnError: true },
  'odata.continue-on-error=false': { continueOnError: false },
  'continue-on-error=false': { continueOnError: false },
  'odata.include-annotations="*"': { includeAnnotations: ['*'] },
  'odata.include-annotations="*#qualified"': { includeAnnotations: ['*#qualified'] },
  'odata.include-annotations="-*"': { includeAnnotations: ['-*'] },
  'odata.include-annotations="-*#qualified"': { includeAnnotations: ['-*#qualified'] },
  'odata.include-annotations="Namespace.*"': { includeAnnotations: ['Namespace.*'] },
  'odata.include-annotations="Namespace.*#quali"': { includeAnnotations: ['Namespace.*#quali'] },
  'odata.include-annotations="-Namespace.*"': { includeAnnotations: ['-Namespace.*'] },
  'odata.include-annotations="-Namespace.*#quali"': { includeAnnotations: ['-Namespace.*#quali'] },
  'odata.include-annotations="Namespace.SomeTerm"': { includeAnnotations: ['Namespace.SomeTerm'] },
  'odata.include-annotations="Namespace.SomeTerm#qual"': { includeAnnotations: ['Namespace.SomeTerm#qual'] },
  'odata.include-annotations="-Namespace.SomeTerm"': { includeAnnotations: ['-Namespace.SomeTerm'] },
  'odata.include-annotations="-Namespace.SomeTerm#qual"': { includeAnnotations: ['-Namespace.SomeTerm#qual'] },
  'odata.include-annotations="Namespace.SomeTerm,Model.AnotherTerm,Namespace.*"': {
    includeAnnotations: ['Namespace.SomeTerm', 'Model.AnotherTerm', 'Namespace.*'],
  },
  'include-annotations="*"': { includeAnnotations: ['*'] },
  'odata.maxpagesize=50': { maxPageSize: 50 },
  'maxpagesize=50': { maxPageSize: 50 },
  'omit-values=defaults': { omitValues: 'defaults' },
  'omit-values=nulls': { omitValues: 'nulls' },
  'return=minimal': { return: 'minimal' },
  'return=representation': { return: 'representation' },
  'respond-async': { respondAsync: true },
  'odata.track-changes': { trackChanges: true },
  'track-changes': { trackChanges: true },
  'wait=0': { wait: 0 },
  'wait = 0': { wait: 0 },
};

describe.skipIf(!corpusAvailable)('the OASIS ABNF test cases of the rule preference', () => {
  const cases = corpusAvailable
    ? readAbnfTestCases(readFileSync(resolve(CORPUS_DIR, 'odata-abnf-testcases.yaml'), 'utf8'), 'abnf').filter((c) => c.rule === 'preference')
    : [];

  it('36 cases, all valid, each with its expected reading', () => {
    expect(cases.length).toBe(36);
    expect(cases.every((c) => c.valid)).toBe(true);
    expect(cases.map((c) => c.input).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s', (input, expected) => {
    expect(known(input)).toEqual(expected);
    // Alone or among others in one header.
    expect(known(`foo=bar, ${input}, baz`)).toEqual(expected);
  });
});
