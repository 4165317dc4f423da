/**
 * The top-n-per-group bench (issue 30): `orders?$apply=groupby((status),topcount(3,amount))` over
 * 100 000 orders (Data Aggregation 3.2.3.1: a `groupby` whose nested transformations end in a
 * ranking), `toSql` + `readSqlRows` against a hand-written `ROW_NUMBER() OVER (PARTITION BY …)`
 * with a hand-written mapping, on PGlite and on the live PostgreSQL (`ODATA_TEST_POSTGRES_URL`, in
 * a schema of its own, dropped after). Both sides give the same rows (checked); the plans are
 * compared by their node types (`EXPLAIN (FORMAT JSON)`). Steady state: warm-up, then SAMPLES
 * interleaved samples; median and min–max. Run alone with `tsx bench/top-per-group.ts`, or by
 * `npm run bench`; writes the `top-per-group` section of bench/RESULTS.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bindQuery, createTableSql, defineModel, readSqlRows, toSql, type Row } from '../src/index.js';
import { fmtNum, interleavedSamples, markdownTable, median, msRange } from './measure.js';
import { onPostgresEngines, planShape, type Query } from './postgres-engines.js';
import { writeSection } from './results-file.js';

const ORDERS = 100_000;
const SAMPLES = 9;
const QUERY = '$apply=groupby((status),topcount(3,amount))';
const HAND_SQL =
  'SELECT id, customerid, status, amount FROM (SELECT o.*, ROW_NUMBER() OVER (PARTITION BY status ORDER BY amount DESC, id) AS rn FROM orders o) t WHERE rn <= 3';

const model = defineModel({
  namespace: 'Bench',
  entityTypes: {
    Order: { key: ['id'], properties: { id: 'Edm.Int32', customerid: 'Edm.Int32', status: 'Edm.String', amount: 'Edm.Decimal' } },
  },
  entitySets: { orders: { type: 'Order' } },
});

const ms = msRange;

/** Rows in a canonical order and form, to check that both sides agree. */
function canonical(rows: readonly Row[]): string {
  return rows
    .map((r) => JSON.stringify([Number(r.id), Number(r.customerid), r.status, Number(r.amount)]))
    .sort()
    .join('\n');
}

async function measure(label: string, query: Query): Promise<string[][]> {
  const bound = bindQuery(QUERY, { model, entitySet: 'orders' });
  const statement = toSql(bound, { dialect: 'postgres' });
  const ours = async (): Promise<Row[]> => readSqlRows(bound, statement, await query(statement.sql, [...statement.params])) as Row[];
  const hand = async (): Promise<Row[]> => await query(HAND_SQL);
  if (canonical(await ours()) !== canonical(await hand())) throw new Error(`${label}: toSql and the hand-written ROW_NUMBER() disagree`);
  const explain = async (sql: string, params: readonly unknown[] = []): Promise<string> =>
    planShape(((await query(`EXPLAIN (FORMAT JSON) ${sql}`, params))[0] as { 'QUERY PLAN': { Plan: unknown }[] })['QUERY PLAN'][0]?.Plan);
  const plans = [await explain(statement.sql, [...statement.params]), await explain(HAND_SQL)];
  const times = await interleavedSamples({ ours, hand }, SAMPLES, 2);
  return [
    [
      `${label}: \`toSql\` + \`readSqlRows\` vs hand-written \`ROW_NUMBER() OVER (PARTITION BY status …)\``,
      ms(times.ours!),
      ms(times.hand!),
      `${fmtNum(median(times.ours!) / median(times.hand!))}x`,
    ],
    [`${label} plans`, plans[0] as string, plans[1] as string, plans[0] === plans[1] ? 'same' : 'differ'],
  ];
}

const STATUSES = ['open', 'paid', 'shipped', 'returned', 'lost'];
// Distinct amounts (no ties, so that both sides keep the same rows whatever breaks a tie), statuses in turn.
const LOAD = `INSERT INTO orders SELECT i + 1, (i % 997) + 1, (ARRAY[${STATUSES.map((s) => `'${s}'`).join(',')}])[(i % ${STATUSES.length}) + 1],
  (((i * 7919) % ${ORDERS}) / 100.0)::numeric(12,2) FROM generate_series(0, ${ORDERS - 1}) AS i`;

export async function runTopPerGroupBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const { results, liveNote } = await onPostgresEngines(
    'top_per_group',
    `${createTableSql(model.entitySets.get('orders')!, 'postgres')}; ${LOAD}; ANALYZE orders`,
    measure,
  );
  const table = results.flat();
  const section = `# \`$apply\`: the top 3 orders per status over ${ORDERS.toLocaleString('en-US')} orders (issue 30)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Query: \`orders?${QUERY}\` (a \`groupby\` whose nested transformations end in a ranking, 3.2.3.1: 15 rows); the hand-written SQL: \`${HAND_SQL}\`.
- Method: both sides give the same rows (checked); 2 warm-up calls, then ${SAMPLES} interleaved samples; median (min–max). Plans: the node types of \`EXPLAIN (FORMAT JSON)\`, depth first. The engine's statement also partitions strings by code point (\`COLLATE "C"\`), puts null amounts last and breaks ties by the key.

${markdownTable(['subject', 'odata-engine', 'hand-written', 'ratio'], table, ['l', 'l', 'l', 'r'])}
${liveNote}`;
  writeSection('top-per-group', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runTopPerGroupBench());
}
