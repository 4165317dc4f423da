/**
 * The `join` bench (issue 30): `customers?$apply=outerjoin(orders as o)/groupby((region,o/status),
 * aggregate($count as n,o/amount with sum as total))` over 10 000 customers and 100 000 orders,
 * `toSql` + `readSqlRows` against a hand-written `LEFT JOIN … GROUP BY` with a hand-written mapping,
 * on PGlite and on the live PostgreSQL (`ODATA_TEST_POSTGRES_URL`, in a schema of its own, dropped
 * after). Both sides give the same rows (checked); the plans are compared by their node types
 * (`EXPLAIN (FORMAT JSON)`). Steady state: warm-up, then SAMPLES interleaved samples; median and
 * min–max. Run alone with `tsx bench/join.ts`, or by `npm run bench`; writes the `join` section of
 * bench/RESULTS.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bindQuery, createTableSql, defineModel, readSqlRows, toSql, type Row } from '../src/index.js';
import { fmtNum, interleavedSamples, markdownTable, median, msRange } from './measure.js';
import { onPostgresEngines, planShape, type Query } from './postgres-engines.js';
import { writeSection } from './results-file.js';

const CUSTOMERS = 10_000;
const ORDERS = 100_000;
const SAMPLES = 9;
const QUERY = '$apply=outerjoin(orders as o)/groupby((region,o/status),aggregate($count as n,o/amount with sum as total))';
const HAND_SQL =
  'SELECT c.region, o.status, COUNT(*) AS n, SUM(o.amount) AS total FROM customers c LEFT JOIN orders o ON o.customerid = c.id GROUP BY c.region, o.status';

const model = defineModel({
  namespace: 'Bench',
  entityTypes: {
    Customer: {
      key: ['id'],
      properties: { id: 'Edm.Int32', region: 'Edm.String' },
      navigation: { orders: { type: 'Collection(Order)', partner: 'customer' } },
    },
    Order: {
      key: ['id'],
      properties: { id: 'Edm.Int32', customerid: 'Edm.Int32', status: 'Edm.String', amount: 'Edm.Decimal' },
      navigation: { customer: { type: 'Customer', constraints: { customerid: 'id' }, partner: 'orders' } },
    },
  },
  entitySets: { customers: { type: 'Customer' }, orders: { type: 'Order' } },
});

const ms = msRange;

/** Rows in a canonical order and form, to check that both sides agree. */
function canonical(rows: readonly Row[]): string {
  return rows
    .map((r) => JSON.stringify([r.region, r.status ?? null, Number(r.n), r.total === null ? null : Number(r.total)]))
    .sort()
    .join('\n');
}

async function measure(label: string, query: Query): Promise<string[][]> {
  const bound = bindQuery(QUERY, { model, entitySet: 'customers' });
  const statement = toSql(bound, { dialect: 'postgres' });
  const ours = async (): Promise<Row[]> =>
    (readSqlRows(bound, statement, await query(statement.sql, [...statement.params])) as Row[]).map((r) => ({
      region: r.region,
      status: (r.o as { status?: unknown } | null)?.status ?? null,
      n: r.n,
      total: r.total,
    }));
  const hand = async (): Promise<Row[]> => await query(HAND_SQL);
  if (canonical(await ours()) !== canonical(await hand())) throw new Error(`${label}: toSql and the hand-written LEFT JOIN disagree`);
  const explain = async (sql: string, params: readonly unknown[] = []): Promise<string> =>
    planShape(((await query(`EXPLAIN (FORMAT JSON) ${sql}`, params))[0] as { 'QUERY PLAN': { Plan: unknown }[] })['QUERY PLAN'][0]?.Plan);
  const plans = [await explain(statement.sql, [...statement.params]), await explain(HAND_SQL)];
  const times = await interleavedSamples({ ours, hand }, SAMPLES, 2);
  return [
    [
      `${label}: \`toSql\` + \`readSqlRows\` vs hand-written \`LEFT JOIN … GROUP BY\` and mapping`,
      ms(times.ours!),
      ms(times.hand!),
      `${fmtNum(median(times.ours!) / median(times.hand!))}x`,
    ],
    [`${label} plans`, plans[0] as string, plans[1] as string, plans[0] === plans[1] ? 'same' : 'differ'],
  ];
}

const REGIONS = ['north', 'south', 'east', 'west', 'centre'];
const STATUSES = ['open', 'paid', 'shipped', 'returned'];
const LOAD = `INSERT INTO customers SELECT i + 1, (ARRAY[${REGIONS.map((r) => `'${r}'`).join(',')}])[(i % ${REGIONS.length}) + 1]
  FROM generate_series(0, ${CUSTOMERS - 1}) AS i;
INSERT INTO orders SELECT i + 1, ((i * 7) % ${CUSTOMERS - 100}) + 1, (ARRAY[${STATUSES.map((s) => `'${s}'`).join(',')}])[(i % ${STATUSES.length}) + 1],
  ((i % 1000) / 100.0)::numeric(10,2) FROM generate_series(0, ${ORDERS - 1}) AS i;
CREATE INDEX orders_customer ON orders (customerid)`;

const tables = (): string =>
  `${createTableSql(model.entitySets.get('customers')!, 'postgres')}; ${createTableSql(model.entitySets.get('orders')!, 'postgres')}`;

export async function runJoinBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const { results, liveNote } = await onPostgresEngines('join', `${tables()}; ${LOAD}; ANALYZE customers; ANALYZE orders`, measure);
  const table = results.flat();
  const section = `# \`$apply\`: outerjoin then groupby over ${CUSTOMERS.toLocaleString('en-US')} customers and ${ORDERS.toLocaleString('en-US')} orders (issue 30)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Query: \`customers?${QUERY}\` (100 customers have no order: their rows have \`o\` null); the hand-written SQL: \`${HAND_SQL}\`.
- Method: both sides give the same rows (checked); 2 warm-up calls, then ${SAMPLES} interleaved samples; median (min–max). Plans: the node types (and join types) of \`EXPLAIN (FORMAT JSON)\`, depth first. The engine's statement also guards the Int64 range of integer sums and compares strings by code point (\`COLLATE "C"\` where it groups).

${markdownTable(['subject', 'odata-engine', 'hand-written', 'ratio'], table, ['l', 'l', 'l', 'r'])}
${liveNote}`;
  writeSection('join', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runJoinBench());
}
