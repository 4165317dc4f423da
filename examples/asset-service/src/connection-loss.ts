/**
 * A lost or refused database connection: what the `pg` driver reports when the server ends a
 * backend (`pg_terminate_backend`, a restart, a failover, an out-of-memory kill), when the network
 * resets the connection, when the server cannot be reached at all, or when it stops answering. The request that was running
 * gets a 503 in the envelope with `Retry-After` (the client did nothing wrong; retrying makes
 * sense), and the connection is discarded, never used again.
 */
import { AppError } from './errors.js';

/** 503: the database connection was lost during the request, or the database cannot be reached now. */
export class DatabaseUnavailableError extends AppError {
  constructor(message = 'The database is unavailable; retry shortly.') {
    super(503, 'ServiceUnavailableException', message, { Message: message });
  }
}

/**
 * SQLSTATEs that end the session: class 08 (connection exception), `57P01` (terminated by an
 * administrator), `57P02` (crash shutdown), `57P03` (cannot connect now: the server is starting or
 * shutting down), `25P03` and `57P05` (the server's idle timeouts end the session).
 */
const SESSION_ENDED = /^(08...|57P01|57P02|57P03|25P03|57P05)$/;

/** Socket errors of a peer that went away or cannot be reached. */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * What `pg` says, without a code, about a connection that ended or can no longer be used, and
 * `Query read timeout`: the server did not answer within the client's `query_timeout` (a
 * partition), after which the connection cannot be trusted either.
 */
const DRIVER_MESSAGES =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Query read timeout)$/;

/** Whether `error` says that the connection to the database was lost or could not be made. */
export function isConnectionLoss(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string' && (SESSION_ENDED.test(code) || SOCKET_ERRORS.has(code))) return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.test(message)) return true;
  // Node's AggregateError when every address of a host name refused the connection.
  return Array.isArray(errors) && errors.length > 0 && errors.every(isConnectionLoss);
}
