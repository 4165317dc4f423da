/**
 * The database connection: embedded PostgreSQL (PGlite, persisted in the data directory) or a
 * real PostgreSQL server through `pg`. Both speak the same SQL; this module hides only how
 * statements and transactions are run.
 *
 * Tenant data is read and written only inside {@link Database.withTenant}, which switches to the
 * unprivileged role `asset_service_app` and sets `app.tenant_id` for the row-level security
 * policies, so a query can never see another tenant's rows (joins and `$expand` included).
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** The role tenant requests run as; row-level security applies to it. */
export const APP_ROLE = 'asset_service_app';

/** A result row, by column name. */
export type DbRow = Record<string, unknown>;

/** Runs statements (a connection, or a transaction on one). */
export interface Queryable {
  query(sql: string, params?: readonly unknown[]): Promise<DbRow[]>;
}

/** Whether a tenant transaction only reads (list and get) or also writes. */
export type AccessMode = 'read' | 'write';

/** The service's database. */
export interface Database extends Queryable {
  /** `'pglite'` or `'postgres'`. */
  readonly kind: 'pglite' | 'postgres';
  /** Runs several statements (DDL) outside a transaction, as the owner. */
  exec(sql: string): Promise<void>;
  /** Runs `work` in a transaction as the owner (no row-level security for superusers). */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in a transaction as {@link APP_ROLE} with `app.tenant_id` set, so that row-level
   * security limits every statement to the tenant's rows. Reads use REPEATABLE READ, so that a
   * list and its count see the same snapshot.
   */
  withTenant<T>(tenantId: string, mode: AccessMode, work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function enterTenant(tx: Queryable, tenantId: string, mode: AccessMode): Promise<void> {
  if (mode === 'read') await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
  await tx.query(`SET LOCAL ROLE ${APP_ROLE}`);
  await tx.query("SELECT set_config('app.tenant_id', $1, true)", [tenantId]);
}

/**
 * Opens PGlite in `dataDir` (created and initialised on first use) with `schema` first on the
 * search path.
 */
export async function openPglite(dataDir: string, schema: string): Promise<Database> {
  const db = await PGlite.create(dataDir);
  await db.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}"; SET search_path TO "${schema}"`);
  const wrap = (q: { query: PGlite['query'] }): Queryable => ({
    query: async (sql, params = []) => (await q.query<DbRow>(sql, params as unknown[])).rows,
  });
  const self: Queryable = wrap(db);
  return {
    kind: 'pglite',
    query: self.query,
    exec: async (sql) => {
      await db.exec(sql);
    },
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    withTenant: (tenantId, mode, work) =>
      db.transaction(async (tx) => {
        const q = wrap(tx);
        await enterTenant(q, tenantId, mode);
        return work(q);
      }),
    close: () => db.close(),
  };
}

/**
 * Connects a pool to a PostgreSQL server. Every connection gets `search_path` set to `schema`
 * (created if missing), so the service's tables never mix with others in the same database.
 */
export async function openPostgres(url: string, schema: string): Promise<Database> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  try {
    await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } finally {
    await setup.end();
  }
  const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path="${schema}"` });
  // An idle client that loses its connection emits 'error'; without a listener that would crash.
  pool.on('error', () => undefined);
  const run = async <T>(work: (tx: Queryable) => Promise<T>, before?: (tx: Queryable) => Promise<void>): Promise<T> => {
    const client = await pool.connect();
    const tx: Queryable = { query: async (sql, params = []) => (await client.query<DbRow>(sql, params as unknown[])).rows };
    try {
      await client.query('BEGIN');
      if (before !== undefined) await before(tx);
      const result = await work(tx);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
        client.release();
      } catch {
        client.release(true);
      }
      throw error;
    }
  };
  return {
    kind: 'postgres',
    query: async (sql, params = []) => (await pool.query<DbRow>(sql, params as unknown[])).rows,
    exec: async (sql) => {
      await pool.query(sql);
    },
    transaction: (work) => run(work),
    withTenant: (tenantId, mode, work) => run(work, (tx) => enterTenant(tx, tenantId, mode)),
    close: () => pool.end(),
  };
}
