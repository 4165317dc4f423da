/**
 * matchesPattern accepts only the linear-time subset (src/semantic/pattern-subset.ts), refused
 * at bind time with an ODataError; every accepted pattern runs in bounded time on adversarial
 * subjects of 10 000 characters: in memory (a JavaScript RegExp of the `js` rendering), with a
 * backtracking JavaScript RegExp of MongoDB's rendering (what mingo runs) and on PostgreSQL
 * (PGlite); and the engines agree, with RE2 (re2js, a linear-time engine) as a second opinion.
 *
 * The time bounds are generous on purpose (a loaded 2-core CI machine): they are not speed
 * measurements (those are in bench/) but catch the exponential and quadratic blow-ups the issue
 * reported (a 27-character subject took 7.7 s, doubling with each character).
 */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, defineModel, ODataError, validateQuery, type Row } from '../../src/index.js';
import { checkMatchesPattern, MAX_PATTERN_LENGTH } from '../../src/semantic/pattern-subset.js';
import { acceptedPatterns, adversarialSubjects } from '../fixtures/patterns.js';
import { load, pglite, run, type Engine } from '../fixtures/sql-engines.js';

const model = defineModel({
  namespace: 'Re',
  entityTypes: { Text: { key: ['id'], properties: { id: 'Edm.Int32', body: 'Edm.String' } } },
  entitySets: { texts: { type: 'Text' } },
});

const N = 10_000;
const SUBJECTS = adversarialSubjects(N).map((row) => row.body as string);
const rows: Row[] = adversarialSubjects(N);

const bind = (pattern: string) =>
  bindQuery(`$filter=${encodeURIComponent(`matchesPattern(body,'${pattern.replaceAll("'", "''")}')`)}&$select=id&$orderby=id`, { model, entitySet: 'texts' });

function refusal(pattern: string): ODataError | undefined {
  try {
    bind(pattern);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ODataError);
    return error as ODataError;
  }
}

describe('matchesPattern: only the shared linear-time subset binds', () => {
  it.each([
    // The issue's bypasses of the earlier heuristic guard.
    '(a|a)+$',
    '((a)+)+$',
    '(?:a|a)*$',
    '([a-z]|[a-z])+$',
    '.*.*.*.*.*.*.*.*=',
    // Their neighbours: nested and overlapping repetition, unanchored scans, non-shared syntax.
    '(a+)+',
    '(a*)*b',
    'a*a*a*b',
    '^.*a.*a.*=',
    'x.*=',
    '\\d+',
    '(a)\\1',
    'a(?=b)',
    'a+?',
    '[[:alpha:]]',
    'a{1,1000}',
    'x'.repeat(MAX_PATTERN_LENGTH + 1),
  ])('refuses %s at bind time with invalid_option_value, in bindQuery and validateQuery', (pattern) => {
    const error = refusal(pattern);
    expect(error?.code).toBe('invalid_option_value');
    expect(error?.option).toBe('$filter');
    // The position is the pattern literal's.
    expect(error?.position).toBe('matchesPattern(body,'.length);
    const diagnostics = validateQuery(`$filter=matchesPattern(body,'${pattern.replaceAll("'", "''")}')`, { model, entitySet: 'texts' });
    expect(diagnostics.map((d) => d.code)).toContain('invalid_option_value');
  });

  it.each(['^[Aa]lp', 'a', '^$', '[0-9]%', '^a+$', '^(ab|cd)x', 'b!$', '^x[.]*=', '^[ab]{2,5}c'])('accepts %s', (pattern) => {
    expect(refusal(pattern)).toBeUndefined();
  });
});

const PATTERNS = acceptedPatterns(150);

/** Patterns over the subset's syntax with line breaks, astral characters, punctuation and classes of them. */
const widePattern = fc
  .array(
    fc.constantFrom(
      'a',
      'b',
      'é',
      '😀',
      '\n',
      '&',
      '~',
      '-',
      '/',
      '.',
      '[a-z]',
      '[^b]',
      '[\\-&~]',
      '[😀-😂]',
      '[^😀]',
      '\\.',
      '\\[',
      '\\{',
      '(',
      ')',
      '|',
      '*',
      '+',
      '?',
      '{2,3}',
      '^',
      '$',
    ),
    { minLength: 1, maxLength: 10 },
  )
  .map((tokens) => tokens.join('').replaceAll('\\n', '\n'));
const wideSubject = fc
  .array(fc.constantFrom('a', 'b', 'é', '😀', '😁', '\n', '&', '~', '-', '/', '.', '[', '{', '\uD800', 'A'), { maxLength: 12 })
  .map((chars) => chars.join(''));

describe('the in-memory RegExp and RE2 read every accepted pattern alike', () => {
  it('on random patterns (line breaks, astral characters, punctuation) and subjects', () => {
    let accepted = 0;
    fc.assert(
      fc.property(widePattern, fc.array(wideSubject, { minLength: 1, maxLength: 8 }), (pattern, subjects) => {
        let checked;
        try {
          checked = checkMatchesPattern(pattern);
        } catch (error) {
          expect(error).toBeInstanceOf(ODataError);
          return;
        }
        accepted++;
        const js = new RegExp(checked.js.source, checked.js.flags);
        const re2 = RE2JS.compile(checked.re2, RE2JS.DOTALL);
        const data: Row[] = subjects.map((body, i) => ({ id: i, body }));
        const memory = compileQuery(bind(pattern), { data: { texts: data } })
          .apply(data)
          .value.map((r) => r.id);
        expect(memory, pattern).toEqual(data.filter((r) => re2.test(r.body as string)).map((r) => r.id));
        expect(memory, pattern).toEqual(data.filter((r) => js.test(r.body as string)).map((r) => r.id));
      }),
      { numRuns: 3000, seed: 20261126 },
    );
    expect(accepted).toBeGreaterThan(500);
  });

  it.each(PATTERNS)('%s on the adversarial subjects', (pattern) => {
    const checked = checkMatchesPattern(pattern);
    const re2 = RE2JS.compile(checked.re2, RE2JS.DOTALL);
    const memory = compileQuery(bind(pattern), { data: { texts: rows } })
      .apply(rows)
      .value.map((r) => r.id);
    expect(memory).toEqual(rows.filter((r) => re2.test(r.body as string)).map((r) => r.id));
  });
});

describe('every accepted pattern runs in bounded time on 10 000-character subjects', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await pglite();
    await load(engine, model, 'texts', rows, new Set());
    // The first regular expression over long text warms PGlite's WASM up (seconds on a cold machine).
    await run(engine, bind('^a'));
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('generates enough accepted patterns, with repetition and alternation among them', () => {
    expect(PATTERNS.length).toBeGreaterThanOrEqual(100);
    expect(PATTERNS.some((p) => /[*+]/.test(p) && p.includes('|'))).toBe(true);
  });

  it('in memory (a RegExp of the js rendering) and as MongoDB renders it for a backtracking JavaScript RegExp', () => {
    let slowest = 0;
    for (const pattern of PATTERNS) {
      const bound = bind(pattern);
      let start = performance.now();
      const memory = compileQuery(bound, { data: { texts: rows } })
        .apply(rows)
        .value.map((r) => r.id);
      const memoryMs = performance.now() - start;
      const { mongo } = checkMatchesPattern(pattern);
      const regex = new RegExp(mongo.regex, mongo.options);
      start = performance.now();
      const js = rows.filter((r) => regex.test(r.body as string)).map((r) => r.id);
      const jsMs = performance.now() - start;
      expect(js, pattern).toEqual(memory);
      expect(memoryMs, `${pattern} in memory`).toBeLessThan(1000);
      expect(jsMs, `${pattern} with a backtracking RegExp`).toBeLessThan(1000);
      slowest = Math.max(slowest, memoryMs, jsMs);
    }
    console.info(
      `[match-pattern] ${PATTERNS.length} accepted patterns × ${SUBJECTS.length} subjects of ${N} characters: slowest ${slowest.toFixed(1)} ms (memory or RegExp)`,
    );
  }, 120_000);

  it('on PostgreSQL (PGlite), with the same rows as memory', async () => {
    let slowest = 0;
    for (const pattern of PATTERNS) {
      const bound = bind(pattern);
      const memory = compileQuery(bound, { data: { texts: rows } })
        .apply(rows)
        .value.map((r) => r.id);
      const start = performance.now();
      const result = await run(engine, bound);
      const ms = performance.now() - start;
      expect(
        result.value.map((r) => r.id),
        pattern,
      ).toEqual(memory);
      expect(ms, `${pattern} on PGlite`).toBeLessThan(3000);
      slowest = Math.max(slowest, ms);
    }
    console.info(`[match-pattern] PGlite: slowest of ${PATTERNS.length} patterns ${slowest.toFixed(1)} ms`);
  }, 240_000);
});
