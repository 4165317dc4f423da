/**
 * Helpers for servers: the HTTP response for an error, list responses with a count, and the
 * paging arithmetic of the reference service (`skip = pageIndex * top`).
 */
import { ODataError, type ODataErrorBody } from '../errors/odata-error.js';

/** What a server sends for an error: status, headers and the OData JSON error body. */
export interface ErrorResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ODataErrorBody;
}

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8', 'odata-version': '4.01' });

/**
 * The response for any error thrown while handling a request: an {@link ODataError} gives its
 * status and body; anything else is a 500 whose body reveals nothing of the error.
 *
 * @example
 * ```ts
 * catch (error) {
 *   const { status, headers, body } = errorResponse(error);
 *   res.writeHead(status, headers).end(JSON.stringify(body));
 * }
 * ```
 */
export function errorResponse(error: unknown): ErrorResponse {
  if (error instanceof ODataError) return { status: error.status, headers: JSON_HEADERS, body: error.toJSON() };
  return {
    status: 500,
    headers: JSON_HEADERS,
    body: { error: { code: 'internal_error', message: 'An internal error occurred.', details: [] } },
  };
}

/** Options of {@link listResponse}. */
export interface ListResponseOptions {
  /** The total count (`$count=true`); omitted from the body when `undefined`. */
  readonly count?: number;
  /** The name of the count property (default `count`: the reference service never sends `@odata.count`). */
  readonly countProperty?: string;
}

/** `{ value, count }`: a list response body. */
export function listResponse<T>(value: readonly T[], options: ListResponseOptions = {}): { readonly value: readonly T[] } & Readonly<Record<string, unknown>> {
  const body: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  body.value = value;
  if (options.count !== undefined) body[options.countProperty ?? 'count'] = options.count;
  return body as { readonly value: readonly T[] } & Readonly<Record<string, unknown>>;
}

/** The `$skip` of a zero-based page: `pageIndex * top`. */
export function skipForPage(pageIndex: number, top: number): number {
  if (!Number.isSafeInteger(pageIndex) || pageIndex < 0) throw new RangeError(`pageIndex must be a non-negative integer, got ${pageIndex}`);
  if (!Number.isSafeInteger(top) || top <= 0) throw new RangeError(`top must be a positive integer, got ${top}`);
  return pageIndex * top;
}

/**
 * Whether a page is the last one: fewer items than `top` came back, or, with a count, the
 * page reaches the end (`skip + received >= count`).
 */
export function isLastPage(page: { readonly received: number; readonly top: number; readonly skip?: number; readonly count?: number }): boolean {
  if (page.received < page.top) return true;
  return page.count !== undefined && (page.skip ?? 0) + page.received >= page.count;
}
