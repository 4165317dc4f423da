/**
 * The SQL row reader bench (issue 14): `readSqlRows` turning 20 000 PGlite rows of a typed list
 * (10 columns: Int64, Int32, Decimal, Double, Boolean, String, Guid, Date, DateTimeOffset, enum)
 * and of a list with a collection expansion into OData JSON records, against a hand-written
 * mapping of the same rows (the loop a developer would write for this one query: rename the
 * columns, `Date` to ISO text, numeric text to numbers, `JSON.parse` of the expansion).
 *
 * Steady state: the rows are read once; each subject is warmed up, then timed in SAMPLES
 * interleaved samples (no forced GC); median and min–max. Run alone with `tsx bench/sql-rows.ts`,
 * or by `npm run bench`; writes the `sql-rows` section of bench/RESULTS.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { bindQuery, createTableSql, defineModel, readSqlRows, toSql, type BoundQuery, type SqlQuery } from '../src/index.js';
import { fmtNum, interleavedSamples, markdownTable, median } from './measure.js';
import { writeSection } from './results-file.js';

const ROWS = 20_000;
const SAMPLES = 15;

const model = defineModel({
  namespace: 'Bench',
  enumTypes: { Status: ['active', 'retired'] },
  entityTypes: {
    Item: {
      key: ['id'],
      properties: {
        id: 'Edm.Int64',
        qty: 'Edm.Int32',
        price: 'Edm.Decimal',
        weight: 'Edm.Double',
        active: 'Edm.Boolean',
        name: 'Edm.String',
        ref: 'Edm.Guid',
        day: 'Edm.Date',
        at: 'Edm.DateTimeOffset',
        status: 'Status',
      },
      navigation: { parts: { type: 'Collection(Part)', partner: 'item' } },
    },
    Part: {
      key: ['id'],
      properties: { id: 'Edm.Int32', itemId: 'Edm.Int64', label: 'Edm.String' },
      navigation: { item: { type: 'Item', constraints: { itemId: 'id' }, partner: 'parts' } },
    },
  },
  entitySets: { items: { type: 'Item', bindings: { parts: 'parts' } }, parts: { type: 'Part', bindings: { item: 'items' } } },
});

type Row = Record<string, unknown>;
/** The enum's members by stored value, as the hand-written mapping knows them. */
const STATUS = ['active', 'retired'];

/** Runs the bench, writes its section, returns it. */
export async function runSqlRowsBench(): Promise<string> {
  const load = os.loadavg()[0]!;
  const db = new PGlite();
  await db.exec(`${createTableSql(model.entitySets.get('items')!, 'postgres')}; ${createTableSql(model.entitySets.get('parts')!, 'postgres')}`);
  await db.exec(`INSERT INTO items SELECT i, i % 100, (i * 1.25)::numeric, i / 3.0, i % 2 = 0, 'item ' || i,
      ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, DATE '2024-01-01' + (i % 365),
      TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * INTERVAL '1 minute', i % 2 FROM generate_series(1, ${ROWS}) AS i;
    INSERT INTO parts SELECT i, (i % ${ROWS}) + 1, 'part ' || i FROM generate_series(1, ${ROWS}) AS i`);

  const cases: { label: string; bound: BoundQuery; hand: (rows: readonly Row[], statement: SqlQuery) => unknown }[] = [
    {
      label: `${ROWS.toLocaleString('en-US')} records, 10 typed columns`,
      bound: bindQuery('$orderby=id', { model, entitySet: 'items', maxTop: ROWS }),
      hand: (rows, statement) => {
        const names = statement.columns.map((c) => [c.alias, c.property.name] as const);
        return rows.map((row) => {
          const record: Row = {};
          for (const [alias, name] of names) {
            const value = row[alias];
            record[name] =
              value instanceof Date
                ? name === 'day'
                  ? value.toISOString().slice(0, 10)
                  : value.toISOString()
                : typeof value === 'bigint'
                  ? Number(value)
                  : name === 'price'
                    ? Number(value)
                    : name === 'status'
                      ? STATUS[Number(value)]
                      : value;
          }
          return record;
        });
      },
    },
    {
      label: `${ROWS.toLocaleString('en-US')} records with \`$expand=parts\` (${ROWS.toLocaleString('en-US')} parts)`,
      bound: bindQuery('$select=id,name&$expand=parts($select=id,label)&$orderby=id', { model, entitySet: 'items', maxTop: ROWS }),
      hand: (rows, statement) => {
        const names = statement.columns.map((c) => [c.alias, c.property.name] as const);
        const expansions = statement.expansions.map((e) => [e.alias, e.name] as const);
        return rows.map((row) => {
          const record: Row = {};
          for (const [alias, name] of names) record[name] = typeof row[alias] === 'bigint' ? Number(row[alias]) : row[alias];
          for (const [alias, name] of expansions) record[name] = typeof row[alias] === 'string' ? JSON.parse(row[alias] as string) : row[alias];
          return record;
        });
      },
    },
  ];

  const tableRows: string[][] = [];
  for (const c of cases) {
    const statement = toSql(c.bound, { dialect: 'postgres' });
    const { rows } = await db.query<Row>(statement.sql, [...statement.params]);
    const ours = readSqlRows(c.bound, statement, rows);
    const hand = c.hand(rows, statement) as Row[];
    if (JSON.stringify(ours) !== JSON.stringify(hand)) throw new Error(`${c.label}: readSqlRows and the hand-written mapping disagree`);
    const times = await interleavedSamples({ ours: () => readSqlRows(c.bound, statement, rows), hand: () => c.hand(rows, statement) }, SAMPLES);
    const range = (values: number[]): string => `${fmtNum(median(values))} ms (${fmtNum(Math.min(...values))}–${fmtNum(Math.max(...values))})`;
    tableRows.push([c.label, range(times.ours!), range(times.hand!), `${fmtNum(median(times.ours!) / median(times.hand!))}x`]);
  }
  await db.close();

  const section = `# SQL rows as OData JSON: \`readSqlRows\` against a hand-written mapping (PGlite)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0]!)}
- Method: the rows are read from PGlite once (as its driver gives them: \`Date\`s, numeric text, JSON values); then \`readSqlRows\` and the hand-written mapping of the same query (checked to give the same JSON) are timed in ${SAMPLES} interleaved samples each after 3 warm-up calls, no forced GC; median (min–max). The hand-written mapping knows its one query's columns and types; \`readSqlRows\` works for any query and also rebuilds complex values, reads enums, Int64 and Decimal exactly and types the expanded records.

${markdownTable(['rows', '`readSqlRows`', 'hand-written mapping', 'ratio'], tableRows, ['l', 'r', 'r', 'r'])}
`;
  writeSection('sql-rows', section);
  return section;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runSqlRowsBench());
}
