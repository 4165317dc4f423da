/**
 * The two PostgreSQL engines the SQL benches compare on: a fresh PGlite, and the live server when
 * `ODATA_TEST_POSTGRES_URL` is set (in a schema of its own, JIT off, dropped after), each loaded by
 * the same statements.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Row } from '../src/index.js';

/** Runs a statement with its parameters and gives its rows. */
export type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;

/**
 * `measure` on PGlite, then on the live PostgreSQL when there is one, each after `setup`; its
 * results in that order, and a note for the section when the live server was not measured.
 */
export async function onPostgresEngines<T>(
  name: string,
  setup: string,
  measure: (label: 'PGlite' | 'PostgreSQL 15', query: Query) => Promise<T>,
): Promise<{ readonly results: T[]; readonly liveNote: string }> {
  const results: T[] = [];
  const db = new PGlite();
  try {
    await db.exec(setup);
    results.push(await measure('PGlite', async (sql, params = []) => (await db.query<Row>(sql, [...params])).rows));
  } finally {
    await db.close();
  }
  const url = process.env.ODATA_TEST_POSTGRES_URL;
  if (url === undefined) return { results, liveNote: '\nThe live PostgreSQL: not measured (set `ODATA_TEST_POSTGRES_URL`).\n' };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const schema = `bench_${name}_${process.pid}`;
  try {
    await client.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}; SET jit = off`);
    await client.query(setup);
    results.push(await measure('PostgreSQL 15', async (sql, params = []) => (await client.query(sql, [...params])).rows as Row[]));
  } finally {
    await client.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
    await client.end();
  }
  return { results, liveNote: '' };
}

/** The node types of a PostgreSQL plan (`EXPLAIN (FORMAT JSON)`'s), depth first, with each node's strategy and join type. */
export function planShape(plan: unknown): string {
  const node = plan as { 'Node Type': string; Strategy?: string; 'Join Type'?: string; Plans?: unknown[] };
  const own = `${node['Node Type']}${node.Strategy === undefined ? '' : ` (${node.Strategy})`}${node['Join Type'] === undefined ? '' : ` (${node['Join Type']})`}`;
  return [own, ...(node.Plans ?? []).map(planShape)].join(' > ');
}
