/**
 * The service's PostgreSQL layer (`openPostgres`) on the live server of ODATA_TEST_POSTGRES_URL
 * (required under CI=true), in a schema of its own: a connection whose backend is terminated while
 * a transaction holds it (between two statements, or during one) rejects with a
 * DatabaseUnavailableError (503) instead of ending the process with an unhandled 'error' event,
 * and the next transaction gets a working connection; a transaction is reported committed only when
 * COMMIT committed; the connections carry the application name `asset-service` unless the URL names one.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../../examples/asset-service/src/connection-loss.js';
import { APPLICATION_NAME, openPostgres, type Database } from '../../../examples/asset-service/src/db.js';
import { uniqueName } from '../../fixtures/unique-name.js';

const CI = process.env.CI === 'true';
const POSTGRES_URL = process.env.ODATA_TEST_POSTGRES_URL;

function postgresDbSuite(baseUrl: string): void {
  describe('openPostgres on live PostgreSQL', () => {
    const schema = uniqueName('asset_service_db');
    const applicationName = `asset-service-db-test-${randomUUID().slice(0, 8)}`;
    const lost: unknown[] = [];
    let admin: pg.Client;
    let db: Database;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: baseUrl, application_name: 'asset-service-test-admin' });
      admin.on('error', () => undefined);
      await admin.connect();
      const url = new URL(baseUrl);
      url.searchParams.set('application_name', applicationName);
      db = await openPostgres(url.toString(), schema, { statementTimeoutMs: 5000, onConnectionLost: (error) => lost.push(error) });
      await db.exec('CREATE TABLE notes (id int PRIMARY KEY)');
    }, 60_000);

    afterAll(async () => {
      await db?.close();
      if (admin !== undefined) {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
        await admin.end().catch(() => undefined);
      }
    }, 60_000);

    const terminate = async (pid: unknown): Promise<void> => {
      // Only the backend this test's transaction holds, with this test's application name.
      const { rows } = await admin.query<{ ok: boolean }>(
        'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE pid = $1 AND application_name = $2 AND datname = current_database()',
        [pid, applicationName],
      );
      expect(rows[0]?.ok).toBe(true);
    };

    it('rejects with a DatabaseUnavailableError when the backend is terminated between two statements of a transaction', async () => {
      const lostBefore = lost.length;
      const error = await db
        .transaction(async (tx) => {
          await tx.query('INSERT INTO notes VALUES (1)');
          const [row] = await tx.query('SELECT pg_backend_pid() AS pid');
          await terminate(row?.pid);
          // The client learns of it while no statement runs (the crash of issue 26), or with the next one.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await tx.query('INSERT INTO notes VALUES (2)');
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect((error as DatabaseUnavailableError).status).toBe(503);
      expect(lost.length).toBeGreaterThan(lostBefore);
      // Nothing of the transaction was written, and the next one gets a working connection.
      expect(await db.query('SELECT id FROM notes')).toEqual([]);
      await db.transaction((tx) => tx.query('INSERT INTO notes VALUES (3)'));
      expect(await db.query('SELECT id FROM notes')).toEqual([{ id: 3 }]);
    });

    it('rejects with a DatabaseUnavailableError when the backend is terminated during a statement', async () => {
      const error = await db
        .transaction(async (tx) => {
          const [row] = await tx.query('SELECT pg_backend_pid() AS pid');
          await Promise.all([
            tx.query('INSERT INTO notes SELECT 4 FROM pg_sleep(2)'),
            new Promise((resolve) => setTimeout(resolve, 300)).then(() => terminate(row?.pid)),
          ]);
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(await db.query('SELECT id FROM notes ORDER BY id')).toEqual([{ id: 3 }]);
    });

    it('does not report a transaction committed when PostgreSQL rolled it back at COMMIT', async () => {
      // A failed statement whose error the work swallowed: COMMIT then answers ROLLBACK.
      const outcome = await db
        .transaction(async (tx) => {
          await tx.query('INSERT INTO notes VALUES (5)');
          await tx.query('INSERT INTO notes VALUES (3)').catch(() => undefined);
          return 'reported committed';
        })
        .catch((e: unknown) => e);
      expect(outcome).toBeInstanceOf(Error);
      expect(await db.query('SELECT id FROM notes ORDER BY id')).toEqual([{ id: 3 }]);
    });

    it('names its connections asset-service unless the URL names them', async () => {
      const other = await openPostgres(baseUrl.replace(/[?&]application_name=[^&]*/, ''), schema);
      try {
        const [row] = await other.query('SELECT current_setting($1) AS name', ['application_name']);
        // PGAPPNAME of the environment would be the URL's choice; otherwise the service's name.
        expect(row?.name).toBe(process.env.PGAPPNAME ?? APPLICATION_NAME);
      } finally {
        await other.close();
      }
      const [row] = await db.query('SELECT current_setting($1) AS name', ['application_name']);
      expect(row?.name).toBe(applicationName);
    });
  });
}

if (POSTGRES_URL === undefined || POSTGRES_URL === '') {
  describe('openPostgres on live PostgreSQL', () => {
    it.skipIf(!CI)('skipped: set ODATA_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it', () => {
      throw new Error('CI=true needs ODATA_TEST_POSTGRES_URL');
    });
  });
} else {
  postgresDbSuite(POSTGRES_URL);
}
