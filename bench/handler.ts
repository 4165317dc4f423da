/**
 * The read handler bench (issue 29): requests per second of `createODataHandler` over
 * `sqlSource` on PGlite against a hand-written route on the same database, both web handlers
 * (`Request` → `Response`) called in this process, so that the figure is the library's cost: the
 * URL parsed, the path and options bound, the SQL compiled, the rows read by `readSqlRows`, the
 * OData JSON body with its context URL and count. The hand-written route reads the same options
 * from `URLSearchParams`, runs hand-written SQL (a page and a count) and writes the same body.
 *
 * Load: CONCURRENCY requests in flight per subject; ROUNDS rounds of SECONDS per subject,
 * subjects interleaved; median over the rounds, with min–max. Run alone with
 * `tsx bench/handler.ts`, or by `npm run bench`; writes the `handler` section of bench/RESULTS.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { createPlanCache } from '../src/index.js';
import { shopModel } from './cap-shared.js';
import { createODataHandler, sqlSource } from '../src/server/index.js';
import { fmtNum, markdownTable, median, throughput as measureThroughput } from './measure.js';

const throughput = (request: () => Promise<Response>): Promise<number> => measureThroughput(request, SECONDS, CONCURRENCY);
import { writeSection } from './results-file.js';

const ROUNDS = 5;
const SECONDS = 3;
const CONCURRENCY = 4;
const ROWS = 2000;
const PATH = 'Products?$filter=price gt 10&$orderby=name&$top=20&$select=id,name,price&$count=true';
const PAGE_SQL = 'SELECT id, name, price FROM "Products" WHERE price > $1 ORDER BY name COLLATE "C", id LIMIT $2';
const COUNT_SQL = 'SELECT count(*) AS n FROM "Products" WHERE price > $1';

const model = shopModel;

/** Runs the bench, writes its section, returns it. */
export async function runHandlerBench(): Promise<string> {
  const load = os.loadavg()[0] as number;
  const db = new PGlite();
  await db.exec('CREATE TABLE "Products" (id integer PRIMARY KEY, name text COLLATE "C", price numeric, stock integer)');
  await db.query(`INSERT INTO "Products" SELECT i, 'product ' || lpad(i::text, 5, '0'), (i % 100) + 0.5, i % 7 FROM generate_series(1, ${ROWS}) AS i`);
  const query = async (sql: string, params: readonly unknown[]) => (await db.query<Record<string, unknown>>(sql, [...params])).rows;
  const handler = createODataHandler({ model, source: sqlSource({ dialect: 'postgres', query, cache: createPlanCache() }), basePath: '/odata' });
  const uncachedHandler = createODataHandler({ model, source: sqlSource({ dialect: 'postgres', query }), basePath: '/odata' });
  const hand = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const params = url.searchParams;
    const filter = /^price gt (\d+(?:\.\d+)?)$/.exec(params.get('$filter') ?? '');
    const top = Number(params.get('$top') ?? '100');
    if (filter === null || !Number.isSafeInteger(top)) return new Response('{"error":{"code":"bad","message":"bad"}}', { status: 400 });
    const [rows, counted] = await Promise.all([query(PAGE_SQL, [filter[1], top]), query(COUNT_SQL, [filter[1]])]);
    const value = rows.map((row) => ({ id: row.id, name: row.name, price: Number(row.price) }));
    const body = { '@odata.context': `${url.origin}/odata/$metadata#Products(id,name,price)`, '@odata.count': Number(counted[0]?.n), value };
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json;odata.metadata=minimal', 'odata-version': '4.0' } });
  };
  const url = `http://localhost/odata/${PATH.replaceAll(' ', '%20')}`;
  const subjects: Record<string, () => Promise<Response>> = {
    'createODataHandler over sqlSource, with a plan cache': () => handler(new Request(url)),
    'createODataHandler over sqlSource, no plan cache': () => uncachedHandler(new Request(url)),
    'hand-written route (URLSearchParams, hand-written SQL and body)': () => hand(new Request(url)),
  };
  try {
    // The same body from all three.
    const bodies = await Promise.all(Object.values(subjects).map(async (send) => JSON.stringify(((await (await send()).json()) as { value: unknown }).value)));
    if (new Set(bodies).size !== 1) throw new Error(`the subjects answer differently:\n${bodies.join('\n')}`);
    for (const send of Object.values(subjects)) await throughput(send); // warm-up
    const rates: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((key) => [key, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const keys = Object.keys(subjects);
      for (const key of round % 2 === 0 ? keys : [...keys].reverse()) (rates[key] as number[]).push(await throughput(subjects[key] as () => Promise<Response>));
    }
    const handKey = Object.keys(subjects)[2] as string;
    const rows = Object.keys(subjects).map((key) => {
      const r = rates[key] as number[];
      return [
        key,
        `${fmtNum(median(r))} req/s (${fmtNum(Math.min(...r))}–${fmtNum(Math.max(...r))})`,
        `${fmtNum(median(r) / median(rates[handKey] as number[]))}x`,
      ];
    });
    const section = `# Read handler: requests per second against a hand-written route (PGlite)

- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores; 1-minute load average at start ${fmtNum(load)}, at end ${fmtNum(os.loadavg()[0] as number)}
- Request: \`GET /odata/${PATH}\` on ${ROWS} rows; the hand-written route reads \`$filter\` and \`$top\` with \`URLSearchParams\` and a regular expression, runs \`${PAGE_SQL}\` and \`${COUNT_SQL}\`, and writes the same OData JSON body (checked: the same \`value\` from all three).
- Method: one PGlite database; the handlers called as web handlers in this process (no sockets: the figure is the library's cost); ${CONCURRENCY} requests in flight per subject; a warm-up of ${SECONDS} s each, then ${ROUNDS} rounds of ${SECONDS} s per subject, interleaved; median over the rounds (min–max). Target of issue 29: at least 0.9x the hand-written route.

${markdownTable(['subject', 'throughput', 'vs hand-written'], rows, ['l', 'r', 'r'])}
`;
    writeSection('handler', section);
    return section;
  } finally {
    await db.close();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await runHandlerBench());
}
