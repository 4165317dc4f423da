/**
 * The `rollup` bench (issue 30): `groupby((rollup(region,category)),aggregate(amount with sum as
 * total,$count as n))` over 100 000 generated sales, `toSql` + `readSqlRows` against hand-written
 * `GROUP BY GROUPING SETS` SQL with a hand-written mapping, on PGlite and on the live PostgreSQL
 * (`ODATA_TEST_POSTGRES_URL`, in a schema of its own, dropped after). Both sides give the same rows
 * (checked); the plans are compared by their node types (`EXPLAIN (FORMAT JSON)`). Steady state:
 * warm-up, then SAMPLES interleaved samples; median and min–max. Run alone with
 * `tsx bench/rollup.ts`, or by `npm run bench`; writes the `rollup` section of bench/RESULTS.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bindQuery, createTableSql, defineModel, readSqlRows, toSql, type Row } from '../src/index.js';
import { fmtNum, interleavedSamples, markdownTable, median, msRange } from './measure.js';
import { onPostgresEngines, planShape, type Query } from './postgres-engines.js';
import { writeSection } from './results-file.js';

const ROWS = 100_000;
const SAMPLES = 9;
const REGIONS = ['north', 'south', 'east', 'west', 'centre'];
const CATEGORIES = ['dairy', 'bakery', 'produce', 'frozen', 'drinks', 'spices', 'snacks', 'household'];
const QUERY = '$apply=groupby((rollup(region,category)),aggregate(amount with sum as total,$count as n))';
const HAND_SQL =
  'SELECT region, category, SUM(amount) AS total, COUNT(*) AS n, GROUPING(region, category) AS g FROM sales GROUP BY GROUPING SETS ((region, category), (region))';

const model = defineModel({
  namespace: 'Bench',
  entityTypes: { Sale: { key: ['id'], properties: { id: 'Edm.Int32', region: 'Edm.String', category: 'Edm.String', amount: 'Edm.Decimal' } } },
  entitySets: { sales: { type: 'Sale' } },
});

const ms = msRange;

/** Rows in a canonical order and form, to check that both sides agree. */
function canonical(rows: readonly Row[]): string {
  return rows
    .map((r) => JSON.stringify([r.region, Object.hasOwn(r, 'category') ? r.category : '~', Number(r.total), Number(r.n)]))
    .sort()
    .join('\n');
}

async function measure(label: string, query: Query): Promise<string[][]> {
  const bound = bindQuery(QUERY, { model, entitySet: 'sales' });
  const statement = toSql(bound, { dialect: 'postgres' });
  const ours = async (): Promise<Row[]> => readSqlRows(bound, statement, await query(statement.sql, [...statement.params])) as Row[];
  // What a developer would write: the grouping sets, and GROUPING() to leave the rolled-up category out.
  const hand = async (): Promise<Row[]> =>
    (await query(HAND_SQL)).map((r) => {
      const row: Record<string, unknown> = { region: r.region, total: String(Number(r.total)), n: BigInt(r.n as number) };
      if (Number(r.g) === 0) row.category = r.category;
      return row;
    });
  if (canonical(await ours()) !== canonical(await hand())) throw new Error(`${label}: toSql and the hand-written GROUPING SETS disagree`);
  const explain = async (sql: string, params: readonly unknown[] = []): Promise<string> =>
    planShape(((await query(`EXPLAIN (FORMAT JSON) ${sql}`, params))[0] as { 'QUERY PLAN': { Plan: unknown }[] })['QUERY PLAN'][0]?.Plan);
  const plans = [await explain(statement.sql, [...statement.params]), await explain(HAND_SQL)];
  const times = await interleavedSamples({ ours, hand }, SAMPLES, 2);
  return [
    [
      `${label}: \`toSql\` + \`readSqlRows\` vs hand-written \`GROUPING SETS\` and mapping`,
      ms(times.ours!),
      ms(times.hand!),
      `${fmtNum(median(times.ours!) / median(times.hand!))}x`,
    ],
    [`${label} plans`, plans[0] as string, plans[1] as string, plans[0] === plans[1] ? 'same' : 'differ'],
  ];
}

const LOAD = `INSERT INTO sales SELECT i + 1, (ARRAY[${REGIONS.map((r) => `'${r}'`).join(',')}])[(i % ${REGIONS.length}) + 1],
  (ARRAY[${CATEGORIES.map((c) => `'${c}'`).join(',')}])[(i % ${CATEGORIES.length}) + 1], ((i % 1000) / 100.0)::numeric(10,2)
  FROM generate_series(0, ${ROWS - 1}) AS i`;

export async function runRollupBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const { results, liveNote } = await onPostgresEngines(
    'rollup',
    `${createTableSql(model.entitySets.get('sales')!, 'postgres')}; ${LOAD}; ANALYZE sales`,
    measure,
  );
  const table = results.flat();
  const section = `# \`$apply\`: rollup over ${ROWS.toLocaleString('en-US')} rows (issue 30)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Query: \`${QUERY}\` (${REGIONS.length * CATEGORIES.length} groups and ${REGIONS.length} subtotals); the hand-written SQL: \`${HAND_SQL}\`, \`category\` left out where \`GROUPING\` says it is rolled up.
- Method: both sides give the same rows (checked); 2 warm-up calls, then ${SAMPLES} interleaved samples; median (min–max). Plans: the node types of \`EXPLAIN (FORMAT JSON)\`, depth first. The engine's statement also guards the Int64 range of integer sums and compares strings by code point (\`COLLATE "C"\` where it groups).

${markdownTable(['subject', 'odata-engine', 'hand-written', 'ratio'], table, ['l', 'l', 'l', 'r'])}
${liveNote}`;
  writeSection('rollup', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runRollupBench());
}
