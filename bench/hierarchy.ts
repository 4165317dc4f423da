/**
 * The hierarchy bench (issue 30): `descendants($root/nodes,Tree,id,filter(id eq 2),keep start)`
 * over a tree of 100 000 nodes (each node's parent `(id - 2) div 4 + 1`: four children per node,
 * nine levels; node 2's sub-hierarchy has about a quarter of them), `toSql` + `readSqlRows`
 * against a hand-written `WITH RECURSIVE` over the parent column (with an index on it) and a
 * hand-written mapping, on PGlite and on the live PostgreSQL (`ODATA_TEST_POSTGRES_URL`, in a
 * schema of its own, dropped after). Both sides give the same rows (checked); the plans are
 * compared by their node types (`EXPLAIN (FORMAT JSON)`). Steady state: warm-up, then SAMPLES
 * interleaved samples; median and min–max. Run alone with `tsx bench/hierarchy.ts`, or by
 * `npm run bench`; writes the `hierarchy` section of bench/RESULTS.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bindQuery, createTableSql, readSqlRows, toSql, type Row } from '../src/index.js';
import { fmtNum, interleavedSamples, markdownTable, median, msRange } from './measure.js';
import { onPostgresEngines, planShape, type Query } from './postgres-engines.js';
import { writeSection } from './results-file.js';
import { treeModel } from './tree-model.js';

const NODES = 100_000;
const SAMPLES = 15;
const QUERY = '$apply=descendants($root/nodes,Tree,id,filter(id eq 2),keep start)';
const HAND_SQL =
  'WITH RECURSIVE sub(id) AS (SELECT id FROM nodes WHERE id = $1 UNION SELECT c.id FROM nodes c JOIN sub s ON c."parentId" = s.id) SELECT n.id, n.name, n."parentId" FROM nodes n WHERE n.id IN (SELECT id FROM sub)';

const model = treeModel({ name: { $Nullable: true } });

const ms = msRange;

/** Rows in a canonical order and form, to check that both sides agree. */
function canonical(rows: readonly Row[]): string {
  return rows
    .map((r) => JSON.stringify([Number(r.id), r.name, r.parentId === null ? null : Number(r.parentId)]))
    .sort()
    .join('\n');
}

async function measure(label: string, query: Query): Promise<{ rows: string[][]; sql: string; count: number }> {
  const bound = bindQuery(QUERY, { model, entitySet: 'nodes' });
  const statement = toSql(bound, { dialect: 'postgres' });
  const ours = async (): Promise<Row[]> => readSqlRows(bound, statement, await query(statement.sql, [...statement.params])) as Row[];
  // What a developer would write: the sub-hierarchy by the parent column, then its rows.
  const hand = async (): Promise<Row[]> => (await query(HAND_SQL, [2])).map((r) => ({ id: r.id, name: r.name, parentId: r.parentId }));
  const mine = await ours();
  if (canonical(mine) !== canonical(await hand())) throw new Error(`${label}: toSql and the hand-written WITH RECURSIVE disagree`);
  const explain = async (sql: string, params: readonly unknown[] = []): Promise<string> =>
    planShape(((await query(`EXPLAIN (FORMAT JSON) ${sql}`, params))[0] as { 'QUERY PLAN': { Plan: unknown }[] })['QUERY PLAN'][0]?.Plan);
  const plans = [await explain(statement.sql, [...statement.params]), await explain(HAND_SQL, [2])];
  // The statements alone (the driver's rows, no mapping), then with the rows mapped.
  const sqlOnly = await interleavedSamples(
    { ours: async () => query(statement.sql, [...statement.params]), hand: async () => query(HAND_SQL, [2]) },
    SAMPLES,
    2,
  );
  const times = await interleavedSamples({ ours, hand }, SAMPLES, 2);
  return {
    rows: [
      [
        `${label}: the statements alone (\`toSql\` vs hand-written)`,
        ms(sqlOnly.ours!),
        ms(sqlOnly.hand!),
        `${fmtNum(median(sqlOnly.ours!) / median(sqlOnly.hand!))}x`,
      ],
      [
        `${label}: \`toSql\` + \`readSqlRows\` vs hand-written \`WITH RECURSIVE\` and mapping`,
        ms(times.ours!),
        ms(times.hand!),
        `${fmtNum(median(times.ours!) / median(times.hand!))}x`,
      ],
      [`${label} plans`, plans[0] as string, plans[1] as string, plans[0] === plans[1] ? 'same' : 'differ'],
    ],
    sql: statement.sql,
    count: mine.length,
  };
}

const LOAD = `INSERT INTO nodes SELECT i, 'node ' || i, CASE WHEN i = 1 THEN NULL ELSE (i - 2) / 4 + 1 END FROM generate_series(1, ${NODES}) AS i;
  CREATE INDEX nodes_parent ON nodes ("parentId")`;

export async function runHierarchyBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const set = model.entitySets.get('nodes')!;
  const { results, liveNote } = await onPostgresEngines('hierarchy', `${createTableSql(set, 'postgres')}; ${LOAD}; ANALYZE nodes`, measure);
  const table = results.flatMap((result) => result.rows);
  const sql = results[0]?.sql ?? '';
  const count = results[0]?.count ?? 0;
  const section = `# \`$apply\`: descendants in a tree of ${NODES.toLocaleString('en-US')} nodes (issue 30)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Query: \`${QUERY}\` (${count.toLocaleString('en-US')} rows); the hand-written SQL: \`${HAND_SQL}\`; an index on the parent column.
- The engine's statement: \`${sql}\`
- Method: both sides give the same rows (checked); 2 warm-up calls, then ${SAMPLES} interleaved samples; median (min–max). Plans: the node types of \`EXPLAIN (FORMAT JSON)\`, depth first.

${markdownTable(['subject', 'odata-engine', 'hand-written', 'ratio'], table, ['l', 'l', 'l', 'r'])}
${liveNote}`;
  writeSection('hierarchy', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runHierarchyBench());
}
