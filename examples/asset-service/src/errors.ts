/**
 * Errors and how they are answered.
 *
 * - Application errors use the envelope `{ "error": "<type>", "data": {...}, "traceId": "..." }`:
 *   400 `ValidationException`, 403 `AuthorizationException`, 404 `EntityNotFoundException`,
 *   500 `Exception` (its `traceId` is logged with the error), and 503 `ServiceUnavailableException`
 *   with `Retry-After` while the service shuts down. Database errors caused by a request's values
 *   (SQLSTATE classes 22 and 54) are a 400 `ValidationException` in our words, never PostgreSQL's.
 * - 401 has no body (only `WWW-Authenticate: Bearer`).
 * - Every error of the token endpoint (framework ones such as 413 and 415 included) uses RFC 6749's
 *   `{ "error": "invalid_client", "error_description": "..." }`; transport errors (408, 431) are
 *   answered in the same two forms by transport.ts.
 * - OData query errors (`$filter`, `$top`, … ) are 400 with the OData JSON error body that the
 *   library's `errorResponse` gives: `{ "error": { "code", "message", "target", "details" } }`.
 */
import { errorResponse, ODataError } from 'odata-engine';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/** The envelope of application errors. */
export interface ErrorEnvelope {
  readonly error: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly traceId: string;
}

/** An error with a status and an envelope type; its `data` is sent as it is. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly data: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = type;
  }
}

/** 400: the request body or path is invalid. `data.Message` says why. */
export class ValidationError extends AppError {
  constructor(message: string, data: Readonly<Record<string, unknown>> = {}, status = 400) {
    super(status, 'ValidationException', message, { Message: message, ...data });
  }
}

/** 403: authenticated, but not allowed (tenant header, tenant access, permission). */
export class AuthorizationError extends AppError {
  constructor(message: string) {
    super(403, 'AuthorizationException', message, { Message: message, isAuthenticated: true });
  }
}

/** 503: the service is shutting down (sent with `Retry-After`). */
export class UnavailableError extends AppError {
  constructor(message = 'The service is shutting down; try again shortly.') {
    super(503, 'ServiceUnavailableException', message, { Message: message });
  }
}

/** 404: no such record in this tenant (or no such route). */
export class NotFoundError extends AppError {
  constructor(entityName: string, id: string | undefined, message = `${entityName} '${id ?? ''}' was not found.`) {
    super(404, 'EntityNotFoundException', message, { Message: message, EntityName: entityName, ...(id === undefined ? {} : { Id: id }) });
  }
}

/** 401: no valid bearer token. Answered without a body. */
export class AuthenticationError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'AuthenticationError';
  }
}

/**
 * An OAuth 2.0 token endpoint error (RFC 6749 section 5.2), status 400 unless given; `slow_down`
 * (429, throttled), `temporarily_unavailable` (503, shutting down) and `server_error` (500) as well.
 */
export class OAuthError extends Error {
  constructor(
    readonly error:
      'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope' | 'slow_down' | 'temporarily_unavailable' | 'server_error',
    readonly description: string,
    readonly status = 400,
    /** Extra response headers, such as `retry-after`. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/** The path of the OAuth token endpoint, whose errors are always in OAuth form. */
export const TOKEN_PATH = '/directory/connect/token';

/** Whether a request URL (path and query) is the token endpoint's. */
export function isTokenPath(url: string | undefined): boolean {
  if (url === undefined) return false;
  const query = url.indexOf('?');
  return (query < 0 ? url : url.slice(0, query)) === TOKEN_PATH;
}

/** PostgreSQL's SQLSTATE of a driver error, if any. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * A data exception (SQLSTATE class 22: a value out of range, a division by zero, a NUL in a
 * string, …) or a program limit (class 54: a statement too complex) comes from the values a client
 * sent: a 400 in our own words (PostgreSQL's text stays in the log), or `undefined` for other errors.
 */
export function clientDataError(error: unknown): ValidationError | undefined {
  const state = sqlState(error);
  if (state === undefined) return undefined;
  if (state.startsWith('54')) return new ValidationError('The request is too complex to be evaluated.');
  if (!state.startsWith('22')) return undefined;
  switch (state) {
    case '22012':
      return new ValidationError('The request divides by zero.');
    case '22003':
    case '22008':
    case '22015':
      return new ValidationError('A value in the request, or computed from it, is out of range.');
    case '22021':
    case '22P05':
      return new ValidationError('A string in the request contains a character that cannot be stored (such as NUL).');
    default:
      return new ValidationError('A value in the request cannot be evaluated.');
  }
}

/** `Retry-After` of a 503 while shutting down. */
const RETRY_AFTER_SECONDS = '5';

/** An application error (or a client's data error from the database) other than a 500. */
function appError(error: unknown): AppError | undefined {
  const found = error instanceof AppError ? error : clientDataError(error);
  return found === undefined || found.status === 500 ? undefined : found;
}

/** Builds the envelope of an application error. */
export function envelope(type: string, data: Readonly<Record<string, unknown>>, traceId: string): ErrorEnvelope {
  return { error: type, data, traceId };
}

/** What a Fastify error (body parsing, size limits, content types) says, in words for clients. */
function frameworkMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return "The request body must be sent with 'Content-Type: application/json'.";
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty; a JSON object is expected.';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'The request body is not valid JSON.';
    default:
      return error.name === 'SyntaxError' ? 'The request body is not valid JSON.' : error.message;
  }
}

function isFrameworkClientError(error: unknown): error is FastifyError {
  if (!(error instanceof Error)) return false;
  const status = (error as FastifyError).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * The Fastify error handler: answers each kind of error as the module documentation says, and
 * logs unexpected errors (500) with their `traceId`.
 */
export async function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const traceId = String(request.id);
  if (!(error instanceof OAuthError) && isTokenPath(request.url)) {
    // The token endpoint answers every error in OAuth form, framework errors included.
    if (isFrameworkClientError(error)) {
      const message =
        error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? "The token request must be sent as 'application/x-www-form-urlencoded'." : frameworkMessage(error);
      error = new OAuthError('invalid_request', message, error.statusCode ?? 400);
    } else if (appError(error) !== undefined) {
      const { status, message } = appError(error) as AppError;
      error =
        status === 503
          ? new OAuthError('temporarily_unavailable', message, 503, { 'retry-after': RETRY_AFTER_SECONDS })
          : new OAuthError('invalid_request', message, status);
    } else {
      request.log.error({ err: error, traceId }, `unexpected error, traceId ${traceId}`);
      error = new OAuthError('server_error', `An unexpected error occurred (trace id ${traceId}).`, 500);
    }
  }
  if (error instanceof AuthenticationError) {
    request.log.info({ reason: error.reason }, 'unauthenticated request');
    await reply.code(401).header('www-authenticate', 'Bearer').send();
    return;
  }
  if (error instanceof OAuthError) {
    await reply
      .code(error.status)
      .headers(error.headers)
      .header('cache-control', 'no-store')
      .send({ error: error.error, error_description: error.description });
    return;
  }
  if (error instanceof AppError) {
    if (error.status === 503) reply.header('retry-after', RETRY_AFTER_SECONDS).header('connection', 'close');
    await reply.code(error.status).send(envelope(error.type, error.data, traceId));
    return;
  }
  if (error instanceof ODataError) {
    const { status, headers, body } = errorResponse(error);
    await reply.code(status).headers(headers).send(body);
    return;
  }
  if (isFrameworkClientError(error)) {
    const message = frameworkMessage(error);
    await reply.code(error.statusCode ?? 400).send(envelope('ValidationException', { Message: message }, traceId));
    return;
  }
  const dataError = clientDataError(error);
  if (dataError !== undefined) {
    request.log.info({ err: error, traceId }, 'database refused a value from the request');
    await reply.code(dataError.status).send(envelope(dataError.type, dataError.data, traceId));
    return;
  }
  request.log.error({ err: error, traceId }, `unexpected error, traceId ${traceId}`);
  await reply.code(500).send(envelope('Exception', { Message: 'An unexpected error occurred.' }, traceId));
}
