/**
 * `odataQuery`: the glue between any HTTP framework and the library, with web standards only
 * (`URL`, `Request`): the query string of a request, parsed and bound to an entity set, or the
 * OData error response to send. No framework and no Node API, so it runs in browsers, edge
 * runtimes, Deno and Bun; it never reads a request's body.
 */
import type { ODataQuery } from '../syntax/ast.js';
import { parseQuery } from '../syntax/query-string.js';
import { bindQuery } from '../semantic/bind-query.js';
import type { BoundQuery } from '../semantic/bound-ast.js';
import type { BindSettings } from '../semantic/settings.js';
import { errorResponse, type ErrorResponse } from './responses.js';
import type { PlanCache } from '../cache/plan-cache.js';

/** A bound query, ready for a backend. */
export interface ODataQueryResult {
  readonly ok: true;
  readonly query: BoundQuery;
  /** The parsed options, with what binding does not keep: `passthrough` (`$format`, …) and `custom` options. */
  readonly parsed: ODataQuery;
  /**
   * Whether the client asked for `IEEE754Compatible=true` (OData JSON Format 4.01 §3.2) in the
   * `Accept` header of a `Request` or in `$format`: pass it to the reader (`readSqlRows`).
   */
  readonly ieee754Compatible: boolean;
}

/** The OData error response to send: status, headers and body (see `errorResponse`). */
export interface ODataQueryFailure extends ErrorResponse {
  readonly ok: false;
  /** What was thrown (an `ODataError` for every problem with the query), for logging. */
  readonly error: unknown;
}

const IEEE754 = /(?:^|;)\s*ieee754compatible\s*=\s*"?true"?\s*(?:;|,|$)/i;

/** The part of a URL after `?`, as sent (without a fragment). */
function rawQuery(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return '';
  const end = url.indexOf('#', start);
  return url.slice(start + 1, end < 0 ? undefined : end);
}

/**
 * Reads the query options of a request for an entity set: `parseQuery` on the raw query string
 * (`settings.parse`, e.g. `{ plusAsSpace: true }`, says how), then `bindQuery` with the
 * settings. Never throws: any error becomes the OData error response (400 for a mistake in the
 * query, 500 for a settings or model error).
 *
 * @param input a `Request` (its URL and `Accept` header only), a `URL`, or a URL or path as text
 *   (`/items?$top=5`; the query is what follows the first `?`)
 * @param options `accept`: the `Accept` header where `input` is no `Request` (for
 *   `IEEE754Compatible`); `cache`: a plan cache (`createPlanCache`), so that a query text bound
 *   before with these settings is a lookup
 * @example
 * ```ts
 * const result = odataQuery(request, { model, entitySet: 'products' });
 * if (!result.ok) return new Response(JSON.stringify(result.body), { status: result.status, headers: result.headers });
 * const { sql, params } = toSql(result.query, { dialect: 'postgres' });
 * ```
 */
export function odataQuery(
  input: Request | URL | string,
  settings: BindSettings,
  options: { readonly accept?: string | null | undefined; readonly cache?: PlanCache } = {},
): ODataQueryResult | ODataQueryFailure {
  try {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const text = rawQuery(url);
    const parsed = parseQuery(text, settings.parse);
    const query = options.cache === undefined ? bindQuery(parsed, settings) : options.cache.bind(text, settings);
    const accept = (typeof input === 'object' && !(input instanceof URL) ? input.headers.get('accept') : options.accept) ?? '';
    const format =
      parsed.passthrough === undefined
        ? undefined
        : Object.entries(parsed.passthrough).find(([name]) => name.replace(/^\$/, '').toLowerCase() === 'format')?.[1];
    const ieee754Compatible = IEEE754.test(format ?? '') || accept.split(',').some((type) => type.includes(';') && IEEE754.test(type.slice(type.indexOf(';'))));
    return { ok: true, query, parsed, ieee754Compatible };
  } catch (error) {
    return { ok: false, error, ...errorResponse(error) };
  }
}
