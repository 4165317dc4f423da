/**
 * Errors and how they are answered.
 *
 * - Application errors use the envelope `{ "error": "<type>", "data": {...}, "traceId": "..." }`:
 *   400 `ValidationException`, 403 `AuthorizationException`, 404 `EntityNotFoundException`,
 *   500 `Exception` (its `traceId` is logged with the error).
 * - 401 has no body (only `WWW-Authenticate: Bearer`).
 * - OAuth token errors use RFC 6749's `{ "error": "invalid_client", "error_description": "..." }`.
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

/** An OAuth 2.0 token endpoint error (RFC 6749 section 5.2), status 400 unless given. */
export class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope',
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
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
  if (error instanceof AuthenticationError) {
    request.log.info({ reason: error.reason }, 'unauthenticated request');
    await reply.code(401).header('www-authenticate', 'Bearer').send();
    return;
  }
  if (error instanceof OAuthError) {
    await reply
      .code(error.status)
      .header('cache-control', 'no-store')
      .send({ error: error.error, error_description: error.description });
    return;
  }
  if (error instanceof AppError) {
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
  request.log.error({ err: error, traceId }, `unexpected error, traceId ${traceId}`);
  await reply.code(500).send(envelope('Exception', { Message: 'An unexpected error occurred.' }, traceId));
}
