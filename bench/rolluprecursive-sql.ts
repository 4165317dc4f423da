/**
 * rolluprecursive in SQL: `groupby((rolluprecursive($root/nodes,Tree,id)),aggregate($count as
 * n,amount with sum as total))` compiled by `toSql` for PostgreSQL, against the `WITH RECURSIVE` a
 * developer would write (each node with its ancestors, the rows joined to them, grouped by the
 * ancestor), over a tree of NODES nodes (four children per node), on PGlite and on the live
 * PostgreSQL (`ODATA_TEST_POSTGRES_URL`; small data only). Both sides give the same totals
 * (checked). Warm-up, then SAMPLES interleaved samples; median and min–max. Run alone with
 * `tsx bench/rolluprecursive-sql.ts`, or by `npm run bench`; writes the `rolluprecursive-sql`
 * section of bench/RESULTS.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bindQuery, createTableSql, readSqlRows, toSql, type Row } from '../src/index.js';
import { fmtNum, interleavedSamples, markdownTable, median, msRange } from './measure.js';
import { onPostgresEngines, type Query } from './postgres-engines.js';
import { treeModel } from './tree-model.js';
import { writeSection } from './results-file.js';

const NODES = Number(process.env.RR_NODES ?? 10_000);
const SAMPLES = 15;
const QUERY = '$apply=groupby((rolluprecursive($root/nodes,Tree,id)),aggregate($count as n,amount with sum as total))';
const HAND_SQL =
  'WITH RECURSIVE up(d, a) AS (SELECT id, id FROM nodes UNION ALL SELECT u.d, p."parentId" FROM up u JOIN nodes p ON p.id = u.a WHERE p."parentId" IS NOT NULL) ' +
  'SELECT x.id, x.amount, x."parentId", t.n, t.total FROM nodes x JOIN (SELECT u.a, COUNT(*) AS n, SUM(r.amount) AS total FROM up u JOIN nodes r ON r.id = u.d GROUP BY u.a) t ON t.a = x.id';

/**
 * A hand-written query that, like the engine's, ends on cyclic data (PostgreSQL 14's CYCLE clause)
 * and leaves out the nodes whose chain never reaches a root.
 */
const HAND_CYCLE_SAFE_SQL =
  'WITH RECURSIVE up(d, a) AS (SELECT id, id FROM nodes UNION ALL SELECT u.d, p."parentId" FROM up u JOIN nodes p ON p.id = u.a WHERE p."parentId" IS NOT NULL) CYCLE a SET cyc USING path, ' +
  'ok(d) AS (SELECT u.d FROM up u JOIN nodes q ON q.id = u.a WHERE q."parentId" IS NULL AND NOT u.cyc) ' +
  'SELECT x.id, x.amount, x."parentId", t.n, t.total FROM nodes x JOIN (SELECT u.a, COUNT(*) AS n, SUM(CAST(r.amount AS numeric)) AS total FROM up u JOIN nodes r ON r.id = u.d WHERE NOT u.cyc AND u.d IN (SELECT d FROM ok) GROUP BY u.a) t ON t.a = x.id';

/**
 * Through a collection (Data Aggregation 6.2.1's p₁/…/pₖ/r): each node's row in the portion of every
 * node at or above one of its children, once, with σ(x) (the node, in a collection of one) in place
 * of `children`; the hand-written side builds the same JSON and keeps each (row, portion) once.
 */
const THROUGH_QUERY = '$apply=groupby((rolluprecursive($root/nodes,Tree,children/id)),aggregate($count as n))';
const HAND_THROUGH_SQL =
  'WITH RECURSIVE up(d, a) AS (SELECT id, id FROM nodes UNION ALL SELECT u.d, p."parentId" FROM up u JOIN nodes p ON p.id = u.a WHERE p."parentId" IS NOT NULL) ' +
  `SELECT json_build_array(json_build_object('id', x.id, 'amount', x.amount, 'parentId', x."parentId")) AS children, COALESCE(t.n, 0) AS n FROM nodes x LEFT JOIN ` +
  '(SELECT z.a, COUNT(*) AS n FROM (SELECT DISTINCT c."parentId" AS r, u.a FROM nodes c JOIN up u ON u.d = c.id WHERE c."parentId" IS NOT NULL) z GROUP BY z.a) t ON t.a = x.id';

/** The same, with the sum exact as the engine computes every integer sum (numeric, checked against Int64's range). */
const HAND_EXACT_SQL = HAND_SQL.replace('SUM(r.amount)', 'SUM(CAST(r.amount AS numeric))');

const model = treeModel({ amount: { $Type: 'Edm.Int32' } });

const ms = msRange;

function canonical(rows: readonly Row[]): string {
  return rows
    .map((r) => JSON.stringify([Number(r.id), Number(r.n), Number(r.total)]))
    .sort()
    .join('\n');
}

async function measure(label: string, query: Query): Promise<string[][]> {
  const bound = bindQuery(QUERY, { model, entitySet: 'nodes' });
  const statement = toSql(bound, { dialect: 'postgres' });
  const ours = async (): Promise<Row[]> => readSqlRows(bound, statement, await query(statement.sql, [...statement.params])) as Row[];
  const hand = async (): Promise<Row[]> => query(HAND_SQL);
  if (canonical(await ours()) !== canonical(await query(HAND_CYCLE_SAFE_SQL)))
    throw new Error(`${label}: toSql and the cycle-safe hand-written query disagree`);
  if (canonical(await ours()) !== canonical(await hand())) throw new Error(`${label}: toSql and the hand-written WITH RECURSIVE disagree`);
  const sqlOnly = await interleavedSamples({ ours: async () => query(statement.sql, [...statement.params]), hand: async () => query(HAND_SQL) }, SAMPLES, 2);
  const exact = await interleavedSamples(
    { ours: async () => query(statement.sql, [...statement.params]), hand: async () => query(HAND_EXACT_SQL) },
    SAMPLES,
    2,
  );
  const safe = await interleavedSamples(
    { ours: async () => query(statement.sql, [...statement.params]), hand: async () => query(HAND_CYCLE_SAFE_SQL) },
    SAMPLES,
    2,
  );
  const rows = [
    [
      `${label}: the statements alone (\`toSql\` vs hand-written)`,
      ms(sqlOnly.ours!),
      ms(sqlOnly.hand!),
      `${fmtNum(median(sqlOnly.ours!) / median(sqlOnly.hand!))}x`,
    ],
    [
      `${label}: against the hand-written one with an exact (numeric) sum, as the engine's`,
      ms(exact.ours!),
      ms(exact.hand!),
      `${fmtNum(median(exact.ours!) / median(exact.hand!))}x`,
    ],
    [
      `${label}: against a hand-written one that also ends on cycles (\`CYCLE\` clause, nodes reaching a root only)`,
      ms(safe.ours!),
      ms(safe.hand!),
      `${fmtNum(median(safe.ours!) / median(safe.hand!))}x`,
    ],
  ];
  // Through a collection: the node comes back in σ(x), `children`.
  const through = bindQuery(THROUGH_QUERY, { model, entitySet: 'nodes' });
  const throughStatement = toSql(through, { dialect: 'postgres' });
  const byNode = (records: readonly Row[]): string =>
    records
      .map((r) => {
        const children = (typeof r.children === 'string' ? JSON.parse(r.children) : r.children) as { id: unknown }[];
        return JSON.stringify([Number(children[0]?.id), Number(r.n)]);
      })
      .sort()
      .join('\n');
  const throughOurs = async (): Promise<Row[]> =>
    readSqlRows(through, throughStatement, await query(throughStatement.sql, [...throughStatement.params])) as Row[];
  if (byNode(await throughOurs()) !== byNode(await query(HAND_THROUGH_SQL))) throw new Error(`${label}: rolluprecursive through children/id disagrees`);
  const throughSamples = await interleavedSamples(
    { ours: async () => query(throughStatement.sql, [...throughStatement.params]), hand: async () => query(HAND_THROUGH_SQL) },
    SAMPLES,
    2,
  );
  rows.push([
    `${label}: through a collection (\`children/id\`, σ(x) in the rows), against the same \`DISTINCT\` pairs and JSON by hand`,
    ms(throughSamples.ours!),
    ms(throughSamples.hand!),
    `${fmtNum(median(throughSamples.ours!) / median(throughSamples.hand!))}x`,
  ]);
  if (label === 'PostgreSQL 15') {
    // A server as installed: JIT on (jit_above_cost 100 000), which plans with large estimates compile.
    await query('SET jit = on');
    const jit = await interleavedSamples(
      { ours: async () => query(statement.sql, [...statement.params]), hand: async () => query(HAND_EXACT_SQL) },
      SAMPLES,
      2,
    );
    await query('SET jit = off');
    rows.push([
      `${label} with its default JIT settings: against the hand-written one with an exact sum`,
      ms(jit.ours!),
      ms(jit.hand!),
      `${fmtNum(median(jit.ours!) / median(jit.hand!))}x`,
    ]);
  }
  return rows;
}

const LOAD = `INSERT INTO nodes SELECT i, i % 100, CASE WHEN i = 1 THEN NULL ELSE (i - 2) / 4 + 1 END FROM generate_series(1, ${NODES}) AS i;
  CREATE INDEX nodes_parent ON nodes ("parentId")`;

export async function runRolluprecursiveSqlBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const set = model.entitySets.get('nodes')!;
  const { results, liveNote } = await onPostgresEngines('rolluprecursive', `${createTableSql(set, 'postgres')}; ${LOAD}; ANALYZE nodes`, measure);
  const section = `# \`$apply\`: rolluprecursive in SQL over a tree of ${NODES.toLocaleString('en-US')} nodes (issue 30)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Query: \`${QUERY}\`; the hand-written side: \`${HAND_SQL}\`.
- Method: both sides give the same totals (checked); 2 warm-up calls, then ${SAMPLES} interleaved samples; median (min–max).

${markdownTable(['subject', 'odata-engine', 'hand-written', 'ratio'], results.flat(), ['l', 'l', 'l', 'r'])}${liveNote}`;
  writeSection('rolluprecursive-sql', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runRolluprecursiveSqlBench());
}
