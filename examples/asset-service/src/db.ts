/**
 * The database connection: embedded PostgreSQL (PGlite, persisted in the data directory) or a
 * real PostgreSQL server through `pg`. Both speak the same SQL; this module hides only how
 * statements and transactions are run.
 *
 * Tenant data is read and written only inside {@link Database.withTenant}, which switches to the
 * unprivileged role `asset_service_app` and sets `app.tenant_id` for the row-level security
 * policies, so a query can never see another tenant's rows (joins and `$expand` included).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { DatabaseUnavailableError, isConnectionLoss } from './connection-loss.js';
import { currentKey, DatabaseBusyError, FairLock, QueryPreemptedError, StatementTimeoutError } from './limits.js';

/** The role tenant requests run as; row-level security applies to it. */
export const APP_ROLE = 'asset_service_app';

/** The `application_name` of the service's PostgreSQL connections when the URL names none. */
export const APPLICATION_NAME = 'asset-service';

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
  /** Runs several statements (DDL) outside a transaction, as the owner, without the statement time limit (start-up work). */
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

/** Options of {@link openPglite} and {@link openPostgres}. */
export interface DbOptions {
  /** Longest time one statement may run, in ms (default 5000). */
  readonly statementTimeoutMs?: number;
  /**
   * PGlite only: a statement that has run this long (ms) while a light client waits for the
   * database is cancelled (503) so the others can run, and a client whose statements run this long
   * becomes heavy: it runs while the light ones leave the database free (see {@link FairLock};
   * default 250; 0: only the statement limit, no heavy clients).
   */
  readonly preemptMs?: number;
  /**
   * PGlite only: when PGlite's WebAssembly memory (which never shrinks) has grown past this many
   * MiB, the worker is restarted after the statement, which gives the memory back (default 320; 0: never).
   */
  readonly maxHeapMiB?: number;
  /** Called after the embedded database's worker was restarted, with how long the restart took. */
  readonly onRestart?: (info: { readonly reason: string; readonly ms: number }) => void;
  /**
   * PGlite only: the worker module (default `db-worker.mjs` next to this file). Tests give one that
   * fails on demand, to check what a client sees when the worker dies.
   */
  readonly workerUrl?: URL;
  /** PostgreSQL only: called when a connection is lost or cannot be made (logging; the service goes on). */
  readonly onConnectionLost?: (error: unknown) => void;
}

/**
 * How long after the statement limit a PostgreSQL server that has not answered at all is given up
 * on (its own cancellation, SQLSTATE 57014, normally comes first).
 */
const SILENT_SERVER_MARGIN_MS = 2000;

/** How long opening PGlite in the worker may take (a first start initialises the data directory); also the limit of start-up DDL on PostgreSQL. */
const PGLITE_START_TIMEOUT_MS = 120_000;

/** A database error that crossed the thread boundary, with its SQLSTATE `code` and fields. */
function workerError(fields: Record<string, unknown>): Error {
  const error = new Error(typeof fields.message === 'string' ? fields.message : 'database error');
  Object.assign(error, fields);
  return error;
}

/** PGlite's compiled WebAssembly modules and file-system bundle, handed to each worker. */
interface PgliteAssets {
  readonly pgliteWasmModule: WebAssembly.Module;
  readonly initdbWasmModule: WebAssembly.Module;
  readonly fsBundle: Blob;
}

let assets: Promise<PgliteAssets | undefined> | undefined;

/** Compiles PGlite's modules once per process (undefined if its files are not where expected: the worker then loads them itself). */
function pgliteAssets(): Promise<PgliteAssets | undefined> {
  assets ??= (async () => {
    try {
      // import.meta.resolve needs Node 20.6; createRequire finds the same dist folder (index.cjs) before that.
      const entry =
        typeof import.meta.resolve === 'function'
          ? import.meta.resolve('@electric-sql/pglite')
          : pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
      const dist = new URL('.', entry);
      const [pglite, initdb, bundle] = await Promise.all(
        ['pglite.wasm', 'initdb.wasm', 'pglite.data'].map((name) => readFile(fileURLToPath(new URL(name, dist)))),
      );
      const bytes = (buffer: Buffer): ArrayBuffer => buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
      const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
        WebAssembly.compile(bytes(pglite as Buffer)),
        WebAssembly.compile(bytes(initdb as Buffer)),
      ]);
      return { pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([bytes(bundle as Buffer)]) };
    } catch {
      return undefined;
    }
  })();
  return assets;
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * PGlite in a worker thread (`db-worker.mjs`): a long statement blocks the worker, never the HTTP
 * event loop. PGlite has one connection, so statements run one at a time, behind a
 * {@link FairLock} that serves clients round-robin; a transaction holds the lock from `BEGIN` to
 * `COMMIT`. PGlite cannot cancel a running statement (`statement_timeout` is not checked inside
 * single-threaded WASM), so a statement that runs longer than the limit is ended by terminating the
 * worker: the caller gets a {@link StatementTimeoutError} (503), and a new worker opens the same
 * data directory (PostgreSQL's crash recovery keeps every committed transaction) before the next
 * statement runs.
 */
class PgliteWorker {
  private worker: Worker | undefined;
  private ready: Promise<void>;
  private generation = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;
  /** Whether a restart runs now (a failed one is tried again by the next statement). */
  private restarting = false;
  readonly lock: FairLock;
  /** Set when the worker's memory grew past the limit: it is restarted before the lock is next handed on. */
  private oversized = false;

  constructor(
    private readonly dataDir: string,
    private readonly schema: string,
    private readonly timeoutMs: number,
    private readonly preemptMs: number,
    private readonly maxHeapBytes: number,
    private readonly onRestart?: DbOptions['onRestart'],
    private readonly workerUrl: URL = new URL('./db-worker.mjs', import.meta.url),
  ) {
    this.lock = new FairLock(preemptMs > 0 ? { heavyMs: preemptMs, cancelledMs: timeoutMs } : {});
    this.ready = this.spawn();
  }

  /** Resolves once the first worker is open (rejects when PGlite cannot open the directory). */
  started(): Promise<void> {
    return this.ready;
  }

  /** Which worker runs now: a transaction begun on an earlier one is gone. */
  get currentGeneration(): number {
    return this.generation;
  }

  private async spawn(): Promise<void> {
    this.generation += 1;
    const prepared = await pgliteAssets();
    const worker = new Worker(this.workerUrl, { workerData: { dataDir: this.dataDir, schema: this.schema, ...prepared } });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let opened = false;
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(new Error(`PGlite did not open ${this.dataDir} within ${PGLITE_START_TIMEOUT_MS} ms`));
      }, PGLITE_START_TIMEOUT_MS);
      worker.on(
        'message',
        (message: {
          ready?: true;
          fatal?: Record<string, unknown>;
          id?: number;
          rows?: DbRow[];
          ok?: true;
          error?: Record<string, unknown>;
          heap?: number;
        }) => {
          if (message.ready === true) {
            opened = true;
            clearTimeout(timer);
            resolve();
            return;
          }
          if (message.fatal !== undefined) {
            clearTimeout(timer);
            reject(workerError(message.fatal));
            return;
          }
          if (this.maxHeapBytes > 0 && message.heap !== undefined && message.heap > this.maxHeapBytes && this.worker === worker) this.oversized = true;
          const pending = message.id === undefined ? undefined : this.pending.get(message.id);
          if (pending === undefined) return;
          this.pending.delete(message.id as number);
          if (message.error !== undefined) pending.reject(workerError(message.error));
          else pending.resolve(message.rows ?? undefined);
        },
      );
      // An uncaught exception in the worker, which ends it: the statement running is lost (a 503),
      // and a new worker opens the same directory at once (the next statement waits for it).
      worker.on('error', (error) => {
        if (!opened) {
          clearTimeout(timer);
          reject(error);
        }
        if (this.worker !== worker) return;
        this.failAll(new DatabaseBusyError('The embedded database stopped unexpectedly; retry shortly.'));
        if (!this.closed && opened) this.restartNow(`the worker failed: ${error.message}`, worker);
      });
      worker.on('exit', (code) => {
        if (this.worker !== worker) return;
        this.worker = undefined;
        if (!opened) {
          clearTimeout(timer);
          reject(new Error(`the PGlite worker exited with code ${code} while opening ${this.dataDir}`));
        }
        this.failAll(new DatabaseBusyError('The embedded database stopped unexpectedly; retry shortly.'));
        // An unexpected exit (not a timeout, not close): a new worker opens the same directory, and
        // the next statement waits for it.
        if (!this.closed && opened) this.restartNow(`the worker exited with code ${code}`, worker);
      });
    });
  }

  private failAll(error: unknown): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(error);
  }

  /** Starts a new worker in place of `old`; statements wait for it (a failure is seen by {@link whenReady}, never unhandled). */
  private restartNow(reason: string, old?: Worker): void {
    this.ready = this.restart(reason, old);
    this.ready.catch(() => undefined);
  }

  /**
   * Called by the lock's holder before it releases the lock: if the worker's memory grew past the
   * limit, closes it cleanly (a checkpoint, no recovery needed) and opens a new one, which gives
   * the memory back to the system.
   */
  async recycleIfOversized(): Promise<void> {
    if (!this.oversized || this.closed) return;
    this.oversized = false;
    const old = this.worker;
    if (old === undefined) return;
    const started = performance.now();
    // Not the current worker any more: its exit is not an unexpected one.
    this.worker = undefined;
    const id = this.nextId++;
    const closed = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    old.postMessage({ id, op: 'close' });
    await Promise.race([closed.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, this.timeoutMs))]);
    this.pending.delete(id);
    this.ready = this.restart('its memory grew past the limit', old, started);
    await this.ready.catch(() => undefined);
  }

  private async restart(reason: string, old?: Worker, started = performance.now()): Promise<void> {
    this.generation += 1; // at once: a transaction begun on the old worker must not send ROLLBACK to the new one
    if (old !== undefined && this.worker === old) this.worker = undefined;
    this.restarting = true;
    try {
      await old?.terminate();
      await this.spawn();
    } finally {
      this.restarting = false;
    }
    this.onRestart?.({ reason, ms: performance.now() - started });
  }

  /**
   * Waits for the worker. When its last restart failed (the directory could not be opened), the
   * statement gets a 503 and the next one tries again: the service recovers once PGlite opens.
   */
  private async whenReady(): Promise<void> {
    try {
      await this.ready;
    } catch {
      if (!this.closed && !this.restarting) this.restartNow('the previous restart failed');
      throw new DatabaseBusyError('The embedded database is restarting; retry shortly.');
    }
  }

  /** Sends one operation to the worker; ends the worker after the statement time limit (or preemption). */
  async send(op: 'query' | 'exec', sql: string, params: readonly unknown[] = [], timeoutMs = this.timeoutMs): Promise<unknown> {
    if (this.closed) throw new DatabaseBusyError('The database is closed.');
    await this.whenReady();
    const worker = this.worker;
    if (worker === undefined) throw new DatabaseBusyError('The embedded database is restarting; retry shortly.');
    const id = this.nextId++;
    const key = currentKey();
    const started = performance.now();
    return new Promise((resolve, reject) => {
      // The worker is busy in WASM and cannot be interrupted: end it and start another.
      const cancel = (error: Error, reason: string): void => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        clearInterval(preempt);
        this.lock.charge(key, performance.now() - started, true);
        reject(error);
        this.restartNow(reason, worker);
      };
      const timer = setTimeout(() => cancel(new StatementTimeoutError(timeoutMs), `a statement ran longer than ${timeoutMs} ms`), timeoutMs);
      const preempt =
        this.preemptMs > 0 && this.preemptMs < timeoutMs
          ? setInterval(
              () => {
                const ran = performance.now() - started;
                if (ran >= this.preemptMs && this.lock.lightWaiting(key)) {
                  cancel(new QueryPreemptedError(Math.round(ran)), `a statement ran ${Math.round(ran)} ms while other clients waited`);
                }
              },
              Math.max(10, Math.min(50, this.preemptMs / 5)),
            )
          : undefined;
      const settle = (): void => {
        clearTimeout(timer);
        clearInterval(preempt);
        this.lock.charge(key, performance.now() - started);
      };
      this.pending.set(id, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      worker.postMessage({ id, op, sql, params });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.ready.catch(() => undefined);
      const release = await this.lock.acquire('');
      try {
        const worker = this.worker;
        if (worker !== undefined) {
          const id = this.nextId++;
          await new Promise((resolve, reject) => {
            this.pending.set(id, { resolve, reject });
            worker.postMessage({ id, op: 'close' });
          }).catch(() => undefined);
        }
      } finally {
        this.closed = true;
        release();
      }
    } finally {
      this.closed = true;
      const worker = this.worker;
      this.worker = undefined;
      await worker?.terminate();
    }
  }
}

/**
 * Opens PGlite in `dataDir` (created and initialised on first use) with `schema` first on the
 * search path, in a worker thread (see {@link PgliteWorker}).
 */
export async function openPglite(dataDir: string, schema: string, options: DbOptions = {}): Promise<Database> {
  const timeoutMs = options.statementTimeoutMs ?? 5000;
  const pglite = new PgliteWorker(
    dataDir,
    schema,
    timeoutMs,
    options.preemptMs ?? 250,
    (options.maxHeapMiB ?? 320) * 1024 * 1024,
    options.onRestart,
    options.workerUrl,
  );
  // Waiting for the one connection is bounded too (503): two statement limits and a restart.
  const lockWaitMs = 2 * timeoutMs + 5000;
  await pglite.started();
  const statement: Queryable['query'] = async (sql, params = []) => (await pglite.send('query', sql, params)) as DbRow[];
  /** Runs `work` in a transaction holding the lock; a transaction cut short by a restart is already rolled back. */
  const transaction = async <T>(work: (tx: Queryable) => Promise<T>, before?: (tx: Queryable) => Promise<void>): Promise<T> => {
    const release = await pglite.lock.acquire(currentKey(), lockWaitMs);
    try {
      await statement('BEGIN');
      const generation = pglite.currentGeneration;
      const tx: Queryable = { query: statement };
      try {
        if (before !== undefined) await before(tx);
        const result = await work(tx);
        await statement('COMMIT');
        return result;
      } catch (error) {
        if (pglite.currentGeneration === generation) await statement('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      await pglite.recycleIfOversized();
      release();
    }
  };
  return {
    kind: 'pglite',
    query: async (sql, params = []) => {
      const release = await pglite.lock.acquire(currentKey(), lockWaitMs);
      try {
        return await statement(sql, params);
      } finally {
        await pglite.recycleIfOversized();
        release();
      }
    },
    exec: async (sql) => {
      const release = await pglite.lock.acquire(currentKey(), lockWaitMs);
      try {
        // DDL at start-up, not a client's query: the generous start-up limit, not the statement limit.
        await pglite.send('exec', sql, [], Math.max(timeoutMs, PGLITE_START_TIMEOUT_MS));
      } finally {
        release();
      }
    },
    transaction: (work) => transaction(work),
    withTenant: (tenantId, mode, work) => transaction(work, (tx) => enterTenant(tx, tenantId, mode)),
    close: () => pglite.close(),
  };
}

/**
 * Connects a pool to a PostgreSQL server. Every connection gets `search_path` set to `schema`
 * (created if missing), so the service's tables never mix with others in the same database, and
 * the application name `asset-service` unless the URL names one (`?application_name=`).
 *
 * A lost connection (the backend terminated, the server restarted or unreachable, the network
 * reset) never ends the process: every client has an `'error'` listener, a client whose connection
 * failed is discarded (never returned to the pool), and the request gets a
 * {@link DatabaseUnavailableError} (503 with `Retry-After`). A write is acknowledged only after its
 * `COMMIT` succeeded. New connections are made on demand, so the service answers again as soon as
 * the server accepts connections.
 */
export async function openPostgres(url: string, schema: string, options: DbOptions = {}): Promise<Database> {
  const timeoutMs = options.statementTimeoutMs ?? 5000;
  const lost = (error: unknown): void => options.onConnectionLost?.(error);
  const translate = (error: unknown): unknown => {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === '57014') return new StatementTimeoutError(timeoutMs);
    if (error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message)) return new DatabaseBusyError();
    if (isConnectionLoss(error)) return new DatabaseUnavailableError();
    return error;
  };
  // TCP keep-alive probes after 10 s idle: a pooled connection to a server that vanished without a
  // word (a partition, a host gone) is noticed and discarded.
  const connection = { connectionString: url, fallback_application_name: APPLICATION_NAME, keepAlive: true, keepAliveInitialDelayMillis: 10_000 };
  const setup = new pg.Client(connection);
  setup.on('error', lost);
  try {
    // At start a refused connection stops the start with the driver's own message (which names the address).
    await setup.connect();
    await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } finally {
    await setup.end().catch(() => undefined);
  }
  // statement_timeout: the server cancels a statement after the limit (SQLSTATE 57014, a 503).
  // connectionTimeoutMillis: waiting for a free connection is bounded too (a 503).
  // query_timeout: a server that does not answer at all (a network partition: it cannot even send
  // the cancellation) is given up on a little after the statement limit; the connection is discarded (a 503).
  const pool = new pg.Pool({
    ...connection,
    max: 10,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs + SILENT_SERVER_MARGIN_MS,
    options: `-c search_path="${schema}" -c statement_timeout=${timeoutMs} -c idle_in_transaction_session_timeout=${Math.max(timeoutMs * 2, 10_000)}`,
  });
  /** Clients whose connection failed: discarded when released. */
  const broken = new WeakSet<pg.Client>();
  // The pool listens to idle clients only; a client that is checked out (a request's transaction)
  // and loses its connection emits 'error' too, which would end the process without a listener.
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      if (!broken.has(client)) lost(error);
      broken.add(client);
    });
  });
  // An idle client that loses its connection: the pool removes it (the listener above reported it).
  pool.on('error', () => undefined);
  const connect = (): Promise<pg.PoolClient> =>
    pool.connect().catch((error: unknown) => {
      if (isConnectionLoss(error)) lost(error);
      return Promise.reject(translate(error));
    });
  /** Returns a client to the pool, or discards it when its connection failed or `failed` says it may have. */
  const release = (client: pg.PoolClient, failed?: unknown): void => {
    client.release(broken.has(client) || (failed !== undefined && isConnectionLoss(failed)) ? true : undefined);
  };
  const run = async <T>(work: (tx: Queryable) => Promise<T>, before?: (tx: Queryable) => Promise<void>): Promise<T> => {
    const client = await connect();
    const tx: Queryable = {
      query: async (sql, params = []) => {
        try {
          return (await client.query<DbRow>(sql, params as unknown[])).rows;
        } catch (error) {
          throw translate(error);
        }
      },
    };
    let result: T;
    try {
      await client.query('BEGIN');
      if (before !== undefined) await before(tx);
      result = await work(tx);
    } catch (error) {
      // A client whose connection failed is not asked to roll back: the server already did.
      if (broken.has(client) || isConnectionLoss(error) || error instanceof DatabaseUnavailableError) {
        client.release(true);
      } else {
        try {
          await client.query('ROLLBACK');
          release(client);
        } catch (rollbackError) {
          client.release(true);
          if (isConnectionLoss(rollbackError)) throw new DatabaseUnavailableError();
        }
      }
      throw translate(error);
    }
    // Acknowledged only once COMMIT succeeded. A connection lost during COMMIT leaves its outcome
    // unknown to us: a 503, never a 200 (a retried create then finds its id taken).
    try {
      const committed = await client.query('COMMIT');
      // PostgreSQL answers COMMIT of a failed transaction with ROLLBACK: nothing was written.
      if (committed.command !== 'COMMIT') throw new Error(`the transaction ended with ${committed.command}, not COMMIT`);
      release(client);
    } catch (error) {
      client.release(true);
      throw translate(error);
    }
    return result;
  };
  return {
    kind: 'postgres',
    query: async (sql, params = []) => {
      const client = await connect();
      try {
        const rows = (await client.query<DbRow>(sql, params as unknown[])).rows;
        release(client);
        return rows;
      } catch (error) {
        release(client, error);
        throw translate(error);
      }
    },
    // DDL at start-up, not a client's query: without the statement limit (restored afterwards, or the
    // connection is discarded).
    exec: async (sql) => {
      const client = await connect();
      try {
        await client.query('SET statement_timeout = 0');
        // pg reads a query's own query_timeout (its types do not list it).
        const ddl: pg.QueryConfig & { readonly query_timeout: number } = { text: sql, query_timeout: PGLITE_START_TIMEOUT_MS };
        await client.query(ddl);
        await client.query('RESET statement_timeout');
        client.release();
      } catch (error) {
        client.release(true);
        throw translate(error);
      }
    },
    transaction: (work) => run(work),
    withTenant: (tenantId, mode, work) => run(work, (tx) => enterTenant(tx, tenantId, mode)),
    close: () => pool.end(),
  };
}
