/**
 * The plan cache bench (issue 15): a request's query text to SQL (`bindQuery` then `toSql`, for
 * PostgreSQL with a tenant scope) and to a MongoDB query, compiled every time against served from
 * a `createPlanCache` (the same text again, as a server sees it), on the parse bench's medium
 * filter. `src/` bundled by esbuild as tsup builds `dist/` (no `keepNames`), loaded in this
 * process; steady state (warm-up, no forced GC), SAMPLES interleaved samples of BATCH calls each;
 * median and min–max per call. Run alone with `tsx bench/plan-cache.ts`, or by `npm run bench`;
 * writes the `plan-cache` section of bench/RESULTS.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { fmtNum, markdownTable, median } from './measure.js';
import { writeSection } from './results-file.js';
import { handParseFilter } from './hand-parser.js';
import { importSourceBundle } from './shared.js';

const SAMPLES = 15;
const BATCH = 2000;
const QUERY =
  "$filter=contains(tolower(Name),'milk') and Price gt 2.5 and (Rating ge 3 or startswith(Code,'A')) and not endswith(Code,'X') and year(ReleaseDate) eq 2020&$orderby=Price desc&$top=10";
const WORDS = ['milk', 'salt', 'rice', 'eggs', 'tea', 'bread', 'honey', 'oats'];
/**
 * The same shape with other literals (the shape cache, issue 15): a word, a price, a rating, a
 * code and a year for each call, precomputed (BATCH texts, cycled). Ratings 10–109 and years
 * 1950–2049: the values a literal keeps its class in (3 lies next to the edges 0 and 1 of the
 * integer types, so it is not replaced).
 */
const SHAPED = Array.from(
  { length: BATCH },
  (_, i) =>
    `$filter=contains(tolower(Name),'${WORDS[i % WORDS.length]}') and Price gt ${(i % 9) + 1}.${(i % 7) + 1} and (Rating ge ${10 + (i % 100)} or startswith(Code,'${'ABCDEFGH'[i % 8]}')) and not endswith(Code,'${'XYZ'[i % 3]}') and year(ReleaseDate) eq ${1950 + ((i * 7) % 100)}&$orderby=Price desc&$top=10`,
);

type Engine = typeof import('../src/index.js');

/** Runs the bench, writes its section, returns it. */
export async function runPlanCacheBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const m: Engine = await importSourceBundle();
  const model = m.defineModel({
    namespace: 'Bench',
    entityTypes: {
      Product: {
        key: ['Id'],
        properties: { Id: 'Edm.Int32', Name: 'Edm.String', Price: 'Edm.Decimal', Rating: 'Edm.Int32', Code: 'Edm.String', ReleaseDate: 'Edm.Date' },
      },
    },
    entitySets: { Products: { type: 'Product' } },
  });
  const settings = { model, entitySet: 'Products' };
  const sqlOptions = { dialect: 'postgres', scope: { tenant_id: 'c0ffee00-0000-4000-8000-000000000001' } } as const;
  const cache = m.createPlanCache();
  // Its own cache: the exact texts of the rows above do not fill it.
  const shapes = m.createPlanCache();
  let n = 0;
  const next = (): string => SHAPED[n++ % SHAPED.length]!;
  // The baseline of issue 31: a hand-written parser building parseFilter's tree for the $filter alone.
  const filterText = decodeURIComponent(QUERY.slice('$filter='.length, QUERY.indexOf('&')));
  const subjects: Record<string, () => unknown> = {
    'hand-written parse of the $filter (the same tree)': () => handParseFilter(filterText),
    'text → SQL, compiled': () => m.toSql(m.bindQuery(QUERY, settings), sqlOptions),
    // The options as a server writes them for each request: an object literal (a spread with one more
    // property, \`{ ...sqlOptions, cache }\`, costs about a microsecond more on Node 20: V8 gives each
    // such copy a map of its own).
    'text → SQL, from the plan cache': () => m.toSql(cache.bind(QUERY, settings), { dialect: 'postgres', scope: sqlOptions.scope, cache }),
    'text → SQL, same shape, new literals, compiled': () => m.toSql(m.bindQuery(next(), settings), sqlOptions),
    'text → SQL, same shape, new literals, from the plan cache': () =>
      m.toSql(shapes.bind(next(), settings), { dialect: 'postgres', scope: sqlOptions.scope, cache: shapes }),
    'text → MongoDB, compiled': () => m.toMongo(m.bindQuery(QUERY, settings)),
    'text → MongoDB, from the plan cache': () => m.toMongo(cache.bind(QUERY, settings), { cache }),
    'text → MongoDB, same shape, new literals, compiled': () => m.toMongo(m.bindQuery(next(), settings)),
    'text → MongoDB, same shape, new literals, from the plan cache': () => m.toMongo(shapes.bind(next(), settings), { cache: shapes }),
  };
  if (JSON.stringify(handParseFilter(filterText)) !== JSON.stringify(m.parseFilter(filterText))) throw new Error("the hand-written parser's tree differs");
  if (JSON.stringify(subjects['text → SQL, compiled']!()) !== JSON.stringify(subjects['text → SQL, from the plan cache']!()))
    throw new Error('the cached SQL differs');
  // Every text of the shape, from the cache, is its fresh compile; and the shape is one plan.
  for (const text of SHAPED) {
    const fresh = JSON.stringify([m.toSql(m.bindQuery(text, settings), sqlOptions), m.toMongo(m.bindQuery(text, settings))]);
    if (
      JSON.stringify([m.toSql(shapes.bind(text, settings), { ...sqlOptions, cache: shapes }), m.toMongo(shapes.bind(text, settings), { cache: shapes })]) !==
      fresh
    )
      throw new Error(`the shape cache's plan differs for ${text}`);
  }
  // (One bound query, the shape, and for SQL and MongoDB a template and the first text's compiled form.)
  if (shapes.size > 6) throw new Error(`the shape cache keeps ${shapes.size} plans for one shape`);
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
  for (const fn of Object.values(subjects)) for (let i = 0; i < 5 * BATCH; i++) fn();
  for (let round = 0; round < SAMPLES; round++) {
    for (const [key, fn] of Object.entries(subjects)) {
      const t0 = performance.now();
      for (let i = 0; i < BATCH; i++) fn();
      times[key]!.push(((performance.now() - t0) * 1000) / BATCH);
    }
  }
  const us = (values: number[]): string => `${fmtNum(median(values))} µs (${fmtNum(Math.min(...values))}–${fmtNum(Math.max(...values))})`;
  const ratio = (a: string, b: string): string => `${fmtNum(median(times[a]!) / median(times[b]!))}x`;
  const section = `# Plan cache: a repeated query text to SQL and MongoDB

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Method: \`src/\` bundled by esbuild as \`dist/\` is built (no \`keepNames\`), in one process; the query is the parse bench's medium filter with \`$orderby\` and \`$top\` (\`${QUERY}\`); "compiled" is \`toSql(bindQuery(text, settings), { dialect: 'postgres', scope })\` (and \`toMongo(bindQuery(…))\`), "from the plan cache" the same (the options an object literal per call, as a server writes them) through \`createPlanCache()\` (\`cache.bind\` and the \`cache\` option), the text seen before, as a server sees its clients' queries; warm-up of ${5 * BATCH} calls each, then ${SAMPLES} interleaved samples of ${BATCH} calls, no forced GC; per call, median (min–max).

${markdownTable(
  ['subject', 'per call'],
  Object.keys(subjects).map((key) => [key, us(times[key]!)]),
  ['l', 'r'],
)}

A cached plan is ${ratio('text → SQL, compiled', 'text → SQL, from the plan cache')} faster for SQL and ${ratio('text → MongoDB, compiled', 'text → MongoDB, from the plan cache')} for MongoDB. The same shape with new literals (a word, a price, a rating, two codes and a year for each call, from ${BATCH} precomputed texts; the shape cache fills the first text's plan with each text's literals) is ${ratio('text → SQL, same shape, new literals, compiled', 'text → SQL, same shape, new literals, from the plan cache')} faster for SQL and ${ratio('text → MongoDB, same shape, new literals, compiled', 'text → MongoDB, same shape, new literals, from the plan cache')} for MongoDB; a shape hit costs ${ratio('text → SQL, same shape, new literals, from the plan cache', 'text → SQL, from the plan cache')} an exact-text hit (SQL).
A compile without the cache (text → SQL) costs ${ratio('text → SQL, compiled', 'hand-written parse of the $filter (the same tree)')} the hand-written parse of the query's \`$filter\` (bench/hand-parser.ts, checked to build \`parseFilter\`'s tree).

Issue 31's targets: exact-text hit ≤ 1 µs (SQL: ${fmtNum(median(times['text → SQL, from the plan cache']!))} µs, ${median(times['text → SQL, from the plan cache']!) <= 1 ? 'met' : 'not met'}; MongoDB: ${fmtNum(median(times['text → MongoDB, from the plan cache']!))} µs, ${median(times['text → MongoDB, from the plan cache']!) <= 1 ? 'met' : 'not met'}); same shape with new literals ≤ 5 µs (SQL: ${fmtNum(median(times['text → SQL, same shape, new literals, from the plan cache']!))} µs, ${median(times['text → SQL, same shape, new literals, from the plan cache']!) <= 5 ? 'met' : 'not met'}); parse + bind + \`toSql\` ≤ 5x the hand-written parse (${ratio('text → SQL, compiled', 'hand-written parse of the $filter (the same tree)')}, ${median(times['text → SQL, compiled']!) / median(times['hand-written parse of the $filter (the same tree)']!) <= 5 ? 'met' : 'not met'}).
`;
  writeSection('plan-cache', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runPlanCacheBench());
}
