/**
 * The `$apply` bench (issues 16 and 30): `groupby((region,category),aggregate(amount with sum as
 * total, qty with average as avgQty,$count as n))` in memory (`compileQuery(...).apply(rows)`)
 * against a hand-written reduce over the same rows at 10 000, 100 000 and 1 000 000 generated
 * sales (the per-row cost should not grow with the rows), and on PGlite (`toSql` then
 * `readSqlRows`) against hand-written `GROUP BY` SQL with a hand-written mapping of its rows at
 * 100 000. Both sides give the same groups (checked). Steady state: warm-up, then SAMPLES
 * interleaved samples, no forced GC; median and min–max. Run alone with `tsx bench/apply.ts`, or
 * by `npm run bench`; writes the `apply` section of bench/RESULTS.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { bindQuery, compileQuery, createTableSql, defineModel, ODataError, readSqlRows, toSql, type CompiledQuery, type Row } from '../src/index.js';
import { fmtNum, interleavedSamples, markdownTable, median, msRange } from './measure.js';
import { writeSection } from './results-file.js';

/** Row counts of the in-memory side; PGlite runs at SQL_ROWS. */
const SIZES = [10_000, 100_000, 1_000_000];
const SQL_ROWS = 100_000;
const SAMPLES = 9;
/** A sample of the in-memory side covers at least this many rows (10 calls at 10 000 rows), so that timer and scheduler noise stay small. */
const SAMPLE_ROWS = 100_000;
const REGIONS = ['north', 'south', 'east', 'west', 'centre'];
const CATEGORIES = ['dairy', 'bakery', 'produce', 'frozen', 'drinks', 'spices', 'snacks', 'household'];
const QUERY = '$apply=groupby((region,category),aggregate(amount with sum as total,qty with average as avgQty,$count as n))';

const model = defineModel({
  namespace: 'Bench',
  entityTypes: {
    Sale: { key: ['id'], properties: { id: 'Edm.Int32', region: 'Edm.String', category: 'Edm.String', amount: 'Edm.Decimal', qty: 'Edm.Int32' } },
  },
  entitySets: { sales: { type: 'Sale' } },
});

/** Sale i: region and category cycle, amount (i mod 1000) / 100 as decimal text (cents exact), qty i mod 7 (null every 11th). */
function sales(count: number): Row[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    region: REGIONS[i % REGIONS.length],
    category: CATEGORIES[i % CATEGORIES.length],
    amount: ((i % 1000) / 100).toFixed(2),
    qty: i % 11 === 0 ? null : i % 7,
  }));
}

/** The reduce a developer would write for this query: cents as integer numbers (exact: a group's sum stays far below 2^53), a Map of groups keyed by text. */
function handWritten(rows: readonly Row[]): Row[] {
  const groups = new Map<string, { region: unknown; category: unknown; cents: number; qty: number; qtyCount: number; n: number }>();
  for (const row of rows) {
    const key = `${row.region as string}\u0000${row.category as string}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { region: row.region, category: row.category, cents: 0, qty: 0, qtyCount: 0, n: 0 }));
    group.cents += Math.round(Number(row.amount) * 100);
    if (row.qty !== null) {
      group.qty += row.qty as number;
      group.qtyCount++;
    }
    group.n++;
  }
  return [...groups.values()].map((g) => ({
    region: g.region,
    category: g.category,
    total: centsText(g.cents),
    avgQty: g.qtyCount === 0 ? null : g.qty / g.qtyCount,
    n: BigInt(g.n),
  }));
}

/** Cents as decimal text without trailing zeros (the reference's canonical Decimal text). */
function centsText(cents: number): string {
  const whole = Math.floor(cents / 100);
  const fraction = String(cents % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction === '' ? `${whole}` : `${whole}.${fraction}`;
}

/** The same groups, whatever their order and their numbers' forms. */
function canonical(rows: readonly Row[]): string {
  return JSON.stringify(
    rows.map((r) => [r.region, r.category, String(Number(r.total)), Number(r.avgQty).toFixed(9), String(r.n)]).sort((a, b) => (a.join() < b.join() ? -1 : 1)),
  );
}

const ms = msRange;
const load1 = (): string => fmtNum(os.loadavg()[0]!);

/** One size of the in-memory side: ms per call of each side, per sample, and the load average around it. */
interface MemorySize {
  readonly rows: number;
  readonly calls: number;
  readonly ours: number[];
  readonly hand: number[];
  readonly loadAtStart: string;
  readonly loadAtEnd: string;
}

/** The in-memory side at `count` rows: a sample is `calls` calls of one side (at least SAMPLE_ROWS rows), both sides interleaved. */
async function memoryAt(count: number, compiled: CompiledQuery): Promise<MemorySize> {
  const loadAtStart = load1();
  const rows = sales(count);
  if (canonical(compiled.apply(rows).value) !== canonical(handWritten(rows)))
    throw new Error(`the in-memory $apply and the hand-written reduce disagree at ${count} rows`);
  const calls = Math.max(1, Math.round(SAMPLE_ROWS / count));
  const repeat = (fn: () => unknown) => (): unknown => {
    let last: unknown;
    for (let i = 0; i < calls; i++) last = fn();
    return last;
  };
  const times = await interleavedSamples({ ours: repeat(() => compiled.apply(rows)), hand: repeat(() => handWritten(rows)) }, SAMPLES);
  const perCall = (values: number[]): number[] => values.map((v) => v / calls);
  return { rows: count, calls, ours: perCall(times.ours!), hand: perCall(times.hand!), loadAtStart, loadAtEnd: load1() };
}

/** Runs the bench, writes its section, returns it. */
export async function runApplyBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const bound = bindQuery(QUERY, { model, entitySet: 'sales' });
  const compiled = compileQuery(bound);
  const sizes: MemorySize[] = [];
  for (const count of SIZES) sizes.push(await memoryAt(count, compiled));
  const ratios = (size: MemorySize): number[] => size.ours.map((t, i) => t / size.hand[i]!);
  const nsPerRow = (size: MemorySize, values: number[]): string => fmtNum((median(values) * 1e6) / size.rows);
  const memoryTable = markdownTable(
    ['rows', 'odata-engine', 'hand-written', 'ratio (min–max per sample)', 'ns per row (engine / hand)', 'load average (start → end)'],
    sizes.map((size) => {
      const r = ratios(size);
      return [
        size.rows.toLocaleString('en-US'),
        ms(size.ours),
        ms(size.hand),
        `${fmtNum(median(size.ours) / median(size.hand))}x (${fmtNum(Math.min(...r))}–${fmtNum(Math.max(...r))})`,
        `${nsPerRow(size, size.ours)} / ${nsPerRow(size, size.hand)}`,
        `${size.loadAtStart} → ${size.loadAtEnd}`,
      ];
    }),
    ['r', 'r', 'r', 'r', 'r', 'r'],
  );
  const table: string[][] = [];

  let sqlNote = '';
  const db = new PGlite();
  try {
    await db.exec(createTableSql(model.entitySets.get('sales')!, 'postgres'));
    await db.exec(`INSERT INTO sales SELECT i + 1, (ARRAY[${REGIONS.map((r) => `'${r}'`).join(',')}])[(i % ${REGIONS.length}) + 1],
      (ARRAY[${CATEGORIES.map((c) => `'${c}'`).join(',')}])[(i % ${CATEGORIES.length}) + 1], ((i % 1000) / 100.0)::numeric(10,2),
      CASE WHEN i % 11 = 0 THEN NULL ELSE i % 7 END FROM generate_series(0, ${SQL_ROWS - 1}) AS i; ANALYZE sales`);
    const handSql = 'SELECT region, category, SUM(amount) AS total, AVG(qty)::double precision AS "avgQty", COUNT(*) AS n FROM sales GROUP BY region, category';
    const handRows = async (): Promise<Row[]> =>
      (await db.query<Row>(handSql)).rows.map((r) => ({
        region: r.region,
        category: r.category,
        total: String(Number(r.total)),
        avgQty: r.avgQty,
        n: BigInt(r.n as number),
      }));
    try {
      const statement = toSql(bound, { dialect: 'postgres' });
      const ours = async (): Promise<Row[]> => readSqlRows(bound, statement, (await db.query<Row>(statement.sql, [...statement.params])).rows) as Row[];
      if (canonical(await ours()) !== canonical(await handRows())) throw new Error('toSql and the hand-written GROUP BY disagree');
      const times = await interleavedSamples({ ours, hand: handRows }, SAMPLES, 2);
      table.push([
        'PGlite: `toSql` + `readSqlRows` vs hand-written `GROUP BY` SQL and mapping',
        ms(times.ours!),
        ms(times.hand!),
        `${fmtNum(median(times.ours!) / median(times.hand!))}x`,
      ]);
    } catch (error) {
      if (!(error instanceof ODataError)) throw error;
      sqlNote = `\nPGlite: not measured: \`toSql\` refuses this query (${error.message}).\n`;
    }
  } finally {
    await db.close();
  }

  const section = `# \`$apply\`: groupby and aggregate over 10,000 to 1,000,000 rows

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${load1()}
- Query: \`${QUERY}\` (${REGIONS.length * CATEGORIES.length} groups); rows: amount (i mod 1000) / 100 as Decimal, qty i mod 7 with every 11th null.
- Method: both sides give the same groups (checked); 3 warm-up samples (2 on PGlite), then ${SAMPLES} interleaved samples, no forced GC; median (min–max). In memory a sample is as many calls as make ${SAMPLE_ROWS.toLocaleString('en-US')} rows (10 at 10,000), reported per call; the ratio is of the medians, with the min–max of the ratios of the samples taken side by side. The hand-written reduce knows its one query (cents as integer numbers, one Map keyed by the two values joined in a string); the engine's pipeline is general (exact Decimal sums, null rules, any grouping path). On PGlite both sides run in the same database and read their rows into JavaScript objects.

In memory, \`compileQuery(bound).apply(rows)\` against a hand-written reduce:

${memoryTable}

At ${SQL_ROWS.toLocaleString('en-US')} rows on PGlite:

${markdownTable(['subject', 'odata-engine', 'hand-written', 'ratio'], table, ['l', 'r', 'r', 'r'])}
${sqlNote}`;
  writeSection('apply', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runApplyBench());
}
