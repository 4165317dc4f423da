/**
 * The PGlite worker thread: owns the embedded database (in the data directory given as
 * `workerData`) so that a long statement blocks this thread, never the HTTP event loop.
 *
 * Plain JavaScript on purpose: it loads as it is under tsx (`npm run demo`), in vitest, and with a
 * plain `node`, without a TypeScript loader in the worker.
 *
 * Protocol (one message at a time; the main thread runs statements one after another and keeps a
 * transaction's statements together, see `db.ts`):
 *   main → worker  { id, op: 'query', sql, params } | { id, op: 'exec', sql } | { id, op: 'close' }
 *   worker → main  { ready: true } once open, or { fatal: { message } } when opening fails;
 *                  { id, rows, heap } | { id, ok: true, heap } | { id, error: { message, code, ... }, heap }
 *                  (heap: the size of PGlite's WebAssembly memory in bytes, which never shrinks)
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';

// The compiled WebAssembly modules and the file-system bundle come from the main thread, which
// prepares them once: a restarted worker then skips compiling (about half of a restart).
const { dataDir, schema, pgliteWasmModule, initdbWasmModule, fsBundle } = workerData;
const port = parentPort;

/** The fields of a database error that cross the thread boundary (SQLSTATE `code` included). */
function serializeError(error) {
  const out = { message: error instanceof Error ? error.message : String(error) };
  if (error !== null && typeof error === 'object') {
    for (const [key, value] of Object.entries(error)) {
      if (typeof value === 'string' || typeof value === 'number') out[key] = value;
    }
  }
  return out;
}

let db;
try {
  db = await PGlite.create(dataDir, {
    // Timestamps as text: PGlite's Date parsing reads the years 1 to 99 as 19xx/20xx (readSqlRows reads the text exactly).
    parsers: { [types.TIMESTAMP]: (text) => text, [types.TIMESTAMPTZ]: (text) => text },
    ...(pgliteWasmModule === undefined ? {} : { pgliteWasmModule }),
    ...(initdbWasmModule === undefined ? {} : { initdbWasmModule }),
    ...(fsBundle === undefined ? {} : { fsBundle }),
  });
  await db.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}"; SET search_path TO "${schema}"`);
} catch (error) {
  port.postMessage({ fatal: serializeError(error) });
  process.exit(1);
}

/** The size of PGlite's WebAssembly memory (undefined if this PGlite version hides it). */
function heap() {
  const size = db.mod?.HEAPU8?.byteLength;
  return typeof size === 'number' ? size : undefined;
}

port.on('message', async (message) => {
  const { id, op } = message;
  try {
    if (op === 'query') {
      const result = await db.query(message.sql, message.params ?? []);
      port.postMessage({ id, rows: result.rows, heap: heap() });
    } else if (op === 'exec') {
      await db.exec(message.sql);
      port.postMessage({ id, ok: true, heap: heap() });
    } else if (op === 'close') {
      await db.close();
      port.postMessage({ id, ok: true });
      port.close();
    } else {
      port.postMessage({ id, error: { message: `unknown operation '${String(op)}'` } });
    }
  } catch (error) {
    port.postMessage({ id, error: serializeError(error), heap: heap() });
  }
});

port.postMessage({ ready: true });
