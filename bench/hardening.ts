/**
 * The hardening bench (issue 12): what the bounds cost and what they prevent.
 *
 * - matchesPattern: the worst of the accepted patterns of a seeded random sample on adversarial
 *   subjects of 1 000, 10 000 and 100 000 characters, in memory (a JavaScript RegExp of the
 *   subset's `js` rendering), with RE2 (re2js, linear whatever the pattern) for comparison, and with a
 *   backtracking JavaScript RegExp on MongoDB's rendering (what mingo runs), against a
 *   hand-written baseline (`String.prototype.includes` of a literal) and against a refused pattern
 *   on a backtracking engine (what the earlier guard let through): `(a|a)+$` on 16 to 24 characters.
 * - Refusals: the time to refuse the issue's oversized inputs (a 2 000-hop navigation path, a
 *   Decimal literal of 93 KB), which is all they cost now.
 *
 * Run alone with `tsx bench/hardening.ts`; `npm run bench` runs it and appends its section to
 * bench/RESULTS.md. Steady state: every timing is the median of several runs after a warm-up.
 */
import os from 'node:os';
import { RE2JS } from 're2js';
import { bindQuery, compileQuery, defineModel, ODataError } from '../src/index.js';
import { checkMatchesPattern } from '../src/semantic/pattern-subset.js';
import { acceptedPatterns, adversarialSubjects } from '../test/fixtures/patterns.js';
import { fmtNum, markdownTable, median } from './measure.js';

const model = defineModel({
  namespace: 'Bench',
  entityTypes: {
    Text: { key: ['id'], properties: { id: 'Edm.Int32', body: 'Edm.String' } },
    Node: {
      key: ['id'],
      properties: { id: 'Edm.Int32', parentId: 'Edm.Int32', amount: 'Edm.Decimal' },
      navigation: { parent: { type: 'Node', constraints: { parentId: 'id' } } },
    },
  },
  entitySets: { texts: { type: 'Text' }, nodes: { type: 'Node' } },
});

const subjects = adversarialSubjects;

/** A pattern inside a Markdown table cell. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

/** Median of `runs` timings of `fn` in ms, after one warm-up call. */
function time(fn: () => unknown, runs = 5): number {
  fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

export async function runHardeningBench(): Promise<{ results: string }> {
  const started = performance.now();
  const patterns = acceptedPatterns(150);
  const rows: string[][] = [];
  for (const n of [1_000, 10_000, 100_000]) {
    const data = subjects(n);
    let worstMemory = 0;
    let worstMemoryPattern = '';
    let worstJs = 0;
    let worstJsPattern = '';
    let worstRe2 = 0;
    let worstRe2Pattern = '';
    for (const pattern of patterns) {
      const bound = bindQuery(`$filter=${encodeURIComponent(`matchesPattern(body,'${pattern}')`)}&$select=id`, { model, entitySet: 'texts' });
      const compiled = compileQuery(bound, { data: { texts: data } });
      const memoryMs = time(() => compiled.apply(data), 3);
      const { mongo } = checkMatchesPattern(pattern);
      const regex = new RegExp(mongo.regex, mongo.options);
      const jsMs = time(() => data.filter((r) => regex.test(r.body as string)), 3);
      const re2 = RE2JS.compile(checkMatchesPattern(pattern).re2, RE2JS.DOTALL);
      const re2Ms = time(() => data.filter((r) => re2.test(r.body as string)), 3);
      if (re2Ms > worstRe2) [worstRe2, worstRe2Pattern] = [re2Ms, pattern];
      if (memoryMs > worstMemory) [worstMemory, worstMemoryPattern] = [memoryMs, pattern];
      if (jsMs > worstJs) [worstJs, worstJsPattern] = [jsMs, pattern];
    }
    const hand = time(() => data.filter((r) => (r.body as string).includes('=b!')), 9);
    rows.push([
      fmtNum(n),
      `${fmtNum(worstMemory)} ms (\`${cell(worstMemoryPattern)}\`)`,
      `${fmtNum(worstJs)} ms (\`${cell(worstJsPattern)}\`)`,
      `${fmtNum(worstRe2)} ms (\`${cell(worstRe2Pattern)}\`)`,
      `${fmtNum(hand, 2)} ms`,
      `${fmtNum(worstMemory / Math.max(hand, 1e-3))}x`,
    ]);
  }
  const refusedRows: string[][] = [];
  const refused = /^(a|a)+$/;
  for (const n of [16, 20, 22, 24]) {
    const subject = `${'a'.repeat(n)}!`;
    const start = performance.now();
    refused.test(subject);
    refusedRows.push([`\`(a\\|a)+$\` on ${n} × 'a' + '!'`, `${fmtNum(performance.now() - start)} ms`]);
  }

  const longPath = `$filter=${Array.from({ length: 2000 }, () => 'parent').join('/')}/id eq 1`;
  const bigDecimal = `$filter=amount eq ${'9'.repeat(93_000)}.5`;
  const refuse = (query: string): string => {
    try {
      bindQuery(query, { model, entitySet: 'nodes' });
      return 'accepted';
    } catch (error) {
      return error instanceof ODataError ? error.code : 'other error';
    }
  };
  const refusals = [
    [`2 000-hop navigation path (${fmtNum(longPath.length / 1024)} KB)`, refuse(longPath), `${fmtNum(time(() => refuse(longPath), 9))} ms`],
    [`Decimal literal of ${fmtNum(bigDecimal.length / 1024)} KB`, refuse(bigDecimal), `${fmtNum(time(() => refuse(bigDecimal), 9))} ms`],
  ];

  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
  const results = `# Hardening: bounded cost (issue 12)

- Date: ${new Date().toISOString()}; run time ${((performance.now() - started) / 1000).toFixed(1)} s; Node ${process.version}; ${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores; load average ${load}
- ${patterns.length} accepted \`matchesPattern\` patterns (a seeded random sample over the subset's syntax; test/backends/match-pattern.test.ts runs the same sample on PGlite too) on six adversarial subjects per length (long runs of one character, near misses, alternations). Times are for all six subjects, median of 3 runs after a warm-up.

## matchesPattern: the worst accepted pattern

| subject length | memory (RegExp of the \`js\` rendering) | RegExp of MongoDB's rendering (what mingo runs) | RE2 (re2js), for comparison | hand-written \`includes\` of a literal | memory vs hand-written |
| ---: | ---: | ---: | ---: | ---: | ---: |
${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}

What the subset refuses, on a backtracking engine (one run each; it doubles with every character):

${markdownTable(['refused pattern and subject', 'JavaScript RegExp'], refusedRows, ['l', 'r'])}

## Refusing oversized input

${markdownTable(['input', 'error code', 'time to refuse (median of 9)'], refusals, ['l', 'l', 'r'])}
`;
  return { results };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { results } = await runHardeningBench();
  process.stdout.write(results);
}
