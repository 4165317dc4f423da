/**
 * The service's PGlite worker (`db-worker.mjs`), which dies on demand: a statement with the
 * parameter `'worker:exit'` ends the worker thread (`process.exit(3)`, as a fatal error in the
 * engine does), one with `'worker:throw'` throws an uncaught exception in it. Every other message
 * is the real worker's.
 */
import { parentPort } from 'node:worker_threads';

// Registered before the real worker's listener, so it sees each message first.
parentPort.on('message', (message) => {
  const params = Array.isArray(message.params) ? message.params : [];
  if (params.includes('worker:exit')) process.exit(3);
  if (params.includes('worker:throw')) throw new Error('the worker failed on purpose');
});

await import('../../../examples/asset-service/src/db-worker.mjs');
