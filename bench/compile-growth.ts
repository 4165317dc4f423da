/**
 * Compiled size and compile time against the nesting of an expression (issue 26, items 1 and 9):
 * for nested forms (Boolean comparisons of Boolean values, alternating and/or, Double cases,
 * arithmetic, string functions), the compiled size at nesting 8 and 16 on every SQL dialect and
 * MongoDB and its growth from 8 to 16 (about 2 when linear; the query text itself grows 1.7–1.9),
 * and the time `compileQuery` (in memory), `toSql` and `toMongo` take for alternating and/or
 * trees 50 to 800 deep. Sizes do not depend on the machine; times are the best of 5.
 *
 * Run alone with `tsx bench/compile-growth.ts`, or by `npm run bench`; writes the
 * `compile-growth` section of bench/RESULTS.md.
 */
import os from 'node:os';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bindQuery, compileQuery, DIALECTS, ODataError, toMongo, toSql, type BoundQuery, type DialectName } from '../src/index.js';
import { nestedFilter, nestingSettings as settings } from '../test/fixtures/nesting-forms.js';
import { markdownTable } from './measure.js';
import { writeSection } from './results-file.js';

/** The bench's forms, of test/fixtures/nesting-forms.ts, as the table names them. */
const FORMS: Record<string, string> = {
  '`not (e eq (a eq i))`': 'Boolean eq comparison',
  '`(e) ge (a ge i)`': 'Boolean ge comparison',
  '`(e or/and a eq i)`': 'and/or alternating',
  '`case(e eq i.5:1.5,true:x)`': 'Double case in an equality',
  '`(e add n64)`': 'Int64 addition',
  '`(e mul x)`': 'Double multiplication',
  '`substring(e,1,a)`': 'substring',
  "`(e add duration'P1D')`": 'instant plus a duration',
};
const DIALECT_NAMES = Object.keys(DIALECTS) as DialectName[];

function nest(form: string, depth: number): string {
  return nestedFilter(FORMS[form] as string, depth);
}

function size(run: () => string): number | string {
  try {
    return run().length;
  } catch (error) {
    if (error instanceof ODataError) return error.code;
    throw error;
  }
}

function sizesTable(): string {
  const rows = Object.keys(FORMS).map((form) => {
    const [b8, b16] = [bindQuery(nest(form, 8), settings), bindQuery(nest(form, 16), settings)];
    const cell = (compile: (b: BoundQuery) => string): string => {
      const [s8, s16] = [size(() => compile(b8)), size(() => compile(b16))];
      if (typeof s8 !== 'number') return String(s8);
      if (typeof s16 !== 'number') return `${s8.toLocaleString('en-US')} → ${s16}`;
      return `${s8.toLocaleString('en-US')} → ${s16.toLocaleString('en-US')} (×${(s16 / s8).toFixed(1)})`;
    };
    return [
      form,
      `${nest(form, 8).length} → ${nest(form, 16).length}`,
      ...DIALECT_NAMES.map((dialect) => cell((b) => toSql(b, { dialect }).sql)),
      cell((b) => JSON.stringify(toMongo(b))),
    ];
  });
  return markdownTable(['form', 'text at 8 → 16', ...DIALECT_NAMES, 'MongoDB JSON'], rows);
}

function best(run: () => unknown): number {
  let min = Infinity;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    run();
    min = Math.min(min, performance.now() - started);
  }
  return min;
}

function timesTable(): string {
  const form = '`(e or/and a eq i)`';
  const rows = [50, 100, 200, 400, 800].map((depth) => {
    const bound = bindQuery(nest(form, depth), settings);
    return [
      String(depth),
      ...[() => bindQuery(nest(form, depth), settings), () => compileQuery(bound), () => toSql(bound, { dialect: 'postgres' }), () => toMongo(bound)].map(
        (run) => `${best(run).toFixed(2)} ms`,
      ),
    ];
  });
  return markdownTable(['depth', 'bindQuery', 'compileQuery (memory)', 'toSql (postgres)', 'toMongo'], rows);
}

export async function runCompileGrowthBench(): Promise<string> {
  const commit = execSync('git rev-parse --short HEAD').toString().trim();
  const section = `# Compiled size and compile time against nesting (issue 26)

- Date: ${new Date().toISOString()}; commit ${commit}; Node ${process.version}; ${os.cpus().length} cores; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')} (\`tsx bench/compile-growth.ts\`)

Compiled size at nesting 8 → 16 of each form (characters of the SQL statement, of the MongoDB
pipeline's JSON; a code where \`toSql\` refuses with \`query_too_complex\` past
\`maxStatementLength\` or the dialect's parameters). About ×2 is linear. Before issue 26, on
460192b: \`(e) ge (a ge i)\` at 4 → 6 → 8 levels was 6 380 → 57 985 → 528 162 characters on
PostgreSQL, 83 408 → 3 068 205 → 112 430 951 on SQL Server and 343 325 → 12 368 261 → 445 265 957 of
MongoDB JSON (137 characters of \`$filter\` at 8); \`case(e eq i.5:1.5,true:x)\` grew ×82 per 4 levels on
PostgreSQL and DuckDB and ×17 on MongoDB; MongoDB's \`not (e eq (a eq i))\` ×17 per 4 levels.
MySQL/MariaDB and SQL Server repeat the operands of checked Double arithmetic and \`substring\`
(no correlated derived table): there those stop at the statement bound (grammar/DEVIATIONS.md,
"Statements are bounded").

${sizesTable()}

Time to compile alternating \`and\`/\`or\` nested \`depth\` deep (best of 5). Before issue 26 the
in-memory compiler compiled both operands of each \`and\`/\`or\` twice: depth 14 took 716 ms, 18
took 7.3 s and 22 ran out of memory; the issue measured 9.7 → 198 ms for same-operator nesting 200 → 400.
The step of \`toSql\` and \`toMongo\` past depth 600 is the same on 460192b (measured side by side:
recursion that deep, not work per node); the binder stops at 1 000 levels (\`too_deep\`).

${timesTable()}
`;
  writeSection('compile-growth', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runCompileGrowthBench());
}
