/**
 * Deep pages on PostgreSQL (PGlite, in process): `$skip` against keyset continuation
 * (`continueAfter`, what the example service's `$skiptoken` runs) on 100 000 rows, ordered by a
 * timestamp with duplicates and the key as tie-breaker, with an index on the order. Both queries
 * go through `toSql` exactly as a service runs them; their pages are checked to be the same rows.
 *
 * Run on its own with `tsx bench/paging.ts` (updates its section of bench/RESULTS.md), or as part
 * of `npm run bench` (bench/run.ts).
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { bindQuery, continueAfter, createTableSql, defineModel, keysetKeys, keysetValues, toSql, type BoundQuery } from '../src/index.js';
import { fmtNum, markdownTable, median } from './measure.js';
import { writeSection } from './results-file.js';

const ROWS = 100_000;
const PAGE = 50;
const OFFSETS = [0, 10_000, 90_000];
const SAMPLES = 31;

const model = defineModel({
  namespace: 'Bench',
  entityTypes: { Item: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', createdAt: { type: 'Edm.DateTimeOffset', nullable: false } } } },
  entitySets: { items: { type: 'Item' } },
});

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round((sorted.length - 1) * p)))] as number;
}

/** Runs the bench; returns its markdown section. */
export async function runPagingBench(): Promise<{ results: string }> {
  const started = performance.now();
  const loadAtStart = os.loadavg()[0]!;
  const db = new PGlite();
  const set = model.entitySets.get('items');
  if (set === undefined) throw new Error('items');
  await db.exec(createTableSql(set, 'postgres'));
  // Two rows per second: duplicate order values, told apart by the key.
  await db.exec(
    `INSERT INTO items (id, name, "createdAt") SELECT i, 'item ' || i, timestamptz '2024-01-01 00:00:00+00' + ((i * 7919) % ${ROWS / 2}) * interval '1 second' FROM generate_series(1, ${ROWS}) AS i`,
  );
  await db.exec('CREATE INDEX items_order ON items ("createdAt", id)');
  await db.exec('ANALYZE items');
  const bind = (options: string): BoundQuery => bindQuery(options, { model, entitySet: 'items', maxTop: 1_000_000, maxSkip: 1_000_000 } as never);
  const run = async (query: BoundQuery): Promise<Record<string, unknown>[]> => {
    const compiled = toSql(query, { dialect: 'postgres' });
    const rows = (await db.query<Record<string, unknown>>(compiled.sql, compiled.params as unknown[])).rows;
    return rows.map((row) => Object.fromEntries(compiled.columns.map((c) => [c.property.name, row[c.alias]])));
  };
  const base = bind(`$orderby=createdAt&$top=${PAGE}`);
  const keys = keysetKeys(base);
  if (keys === undefined) throw new Error('keys');
  const table: string[][] = [];
  for (const offset of OFFSETS) {
    const bySkip = bind(`$orderby=createdAt&$top=${PAGE}&$skip=${offset}`);
    // The continuation after the row before the page, as a token would hold it.
    const before = offset === 0 ? undefined : (await run(bind(`$orderby=createdAt&$top=1&$skip=${offset - 1}`)))[0];
    const byKeyset = before === undefined ? base : { ...continueAfter(base, JSON.parse(JSON.stringify(keysetValues(keys, before))), model), top: PAGE };
    const a = (await run(bySkip)).map((r) => r.id);
    const b = (await run(byKeyset)).map((r) => r.id);
    if (JSON.stringify(a) !== JSON.stringify(b) || a.length !== PAGE) throw new Error(`pages differ at offset ${offset}`);
    const times = { skip: [] as number[], keyset: [] as number[] };
    // Warm-up, then samples alternating (steady state: no forced GC between samples).
    for (let i = 0; i < 5; i++) {
      await run(bySkip);
      await run(byKeyset);
    }
    for (let i = 0; i < SAMPLES; i++) {
      for (const [name, query] of (i % 2 === 0
        ? [
            ['skip', bySkip],
            ['keyset', byKeyset],
          ]
        : [
            ['keyset', byKeyset],
            ['skip', bySkip],
          ]) as ['skip' | 'keyset', BoundQuery][]) {
        const t0 = performance.now();
        await run(query);
        times[name].push(performance.now() - t0);
      }
    }
    const cell = (values: number[]): string => {
      const sorted = [...values].sort((x, y) => x - y);
      return `${fmtNum(median(sorted))} (${fmtNum(percentile(sorted, 0.1))}–${fmtNum(percentile(sorted, 0.9))})`;
    };
    table.push([offset.toLocaleString('en-US'), cell(times.skip), cell(times.keyset), `${fmtNum(median(times.skip) / median(times.keyset))}×`]);
  }
  const plan = async (query: BoundQuery): Promise<string> => {
    const compiled = toSql(query, { dialect: 'postgres' });
    const rows = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${compiled.sql}`, compiled.params as unknown[])).rows;
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  };
  const deepBefore = (await run(bind(`$orderby=createdAt&$top=1&$skip=${OFFSETS[OFFSETS.length - 1]! - 1}`)))[0] as Record<string, unknown>;
  const deepKeyset = { ...continueAfter(base, keysetValues(keys, deepBefore), model), top: PAGE };
  const keysetPlan = await plan(deepKeyset);
  const keysetSql = toSql(deepKeyset, { dialect: 'postgres' }).sql;
  await db.close();
  const seconds = (performance.now() - started) / 1000;
  const results = `# Deep pages: \`$skip\` against keyset continuation (PGlite)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(loadAtStart)}, at end ${fmtNum(os.loadavg()[0]!)}; run time ${fmtNum(seconds)} s (\`tsx bench/paging.ts\`)

Method: PGlite (PostgreSQL in WASM, in process), one table of ${ROWS.toLocaleString('en-US')} rows
(\`id\` Int32 key, \`createdAt\` not null, two rows per second, so order values repeat), an index on
\`("createdAt", id)\` (the order toSql writes for a column that cannot be null), \`ANALYZE\`d. A page is ${PAGE} rows of
\`$orderby=createdAt\`: by \`$skip=<offset>\`, or by keyset, \`continueAfter\` with the values of the
row before the page (what a \`$skiptoken\` holds); both compiled by \`toSql\` and checked to return
the same rows. Per offset: 5 warm-up runs of each, then ${SAMPLES} samples of each, alternating
which runs first, each timed with \`performance.now()\` around the query and reading its rows; no
forced GC between samples (steady state). Cells: median ms (10th–90th percentile).

${markdownTable(['offset', '`$skip` ms', 'keyset ms', '`$skip` / keyset'], table, ['r', 'r', 'r', 'r'])}

The keyset page's SQL and plan at the deepest offset:

\`\`\`sql
${keysetSql}
\`\`\`

\`\`\`
${keysetPlan}
\`\`\`
`;
  writeSection('paging', results);
  return { results };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write((await runPagingBench()).results);
}
