/**
 * `fuzzODataServer`: random queries from a model, sent to a running OData server over HTTP, and
 * its answers checked by rules every OData server must follow, so that it can be pointed at any
 * service (SAP CAP, OData.net, this library's handler):
 *
 * - a valid query answers 200 with a `value` array, whose rows keep the query's `$top`,
 *   `$select`, `$filter` and `$orderby` (the last two as far as the rows tell: answer-rows.ts), and
 *   whose count, where asked for, is at least the rows returned (exactly them when nothing pages
 *   them);
 * - a near-miss invalid query (one mutation away from a valid one) answers a 4xx with an error body
 *   (by default OData JSON's `{ "error": { "code", "message" } }`); this library's own error codes
 *   are compared only on request (`expectCodes`);
 * - nothing answers 5xx, and nothing takes longer than the timeout.
 *
 * A finding reports what a bug report needs: the query, the status, the response's headers that
 * matter, the start of its body, the time it took, and a `curl` command that repeats it (fast-check
 * adds the seed and the shrink path).
 */
import fc from 'fast-check';
import type { Model } from '../model/model.js';
import { invalidQueryArbitrary } from './fuzz.js';
import { modelQueryArbitrary, type ModelQueryOptions } from './model-arbitraries.js';
import { rowsProblem } from './answer-rows.js';
import { parseJsonText } from '../util/json-text.js';
import { findings, report, send, withReproduction, type Answer, type Endpoint, type KnownDeviation, type MetDeviation } from './server-requests.js';

export type { KnownDeviation, MetDeviation };

/** What {@link fuzzODataServer} needs: the collection's `url`, `headers` and `timeoutMs` ({@link Endpoint}), and the rest. */
export interface FuzzServerOptions extends Endpoint {
  readonly model: Model;
  readonly entitySet: string;
  /** Runs of each kind (default 50 valid and 50 invalid). */
  readonly numRuns?: number;
  /**
   * The service's maximum `$top`: a larger one must be refused. Without it (and without
   * `expectCodes`, which assumes this library's default of 10 000), no limit is assumed: OData sets none.
   */
  readonly maxTop?: number;
  /**
   * Compare the error code of each invalid query's answer with this library's (`unknown_property`,
   * `wrong_arity`, …): for a server built on it, such as the example service. Default `false`: any
   * 4xx with an error body passes, as it does on any OData server.
   */
  readonly expectCodes?: boolean;
  /** Whether an error answer's body is an error body; by default OData JSON's `{ error: { code, message } }`. */
  readonly errorBody?: (body: unknown) => boolean;
  /** Reads the error code from an error body (with `expectCodes`); by default `error.code`. */
  readonly errorCode?: (body: unknown) => string | undefined;
  /** The list from a success body; by default the body's `value`. */
  readonly list?: (body: unknown) => unknown;
  /** The count from a success body (`$count=true`); by default `@odata.count`. */
  readonly count?: (body: unknown) => number | undefined;
  /**
   * Deviations of this service already known (filed, documented): a finding whose report (problem,
   * query, status, body) matches one is counted in the result instead of failing the run, so that
   * fuzzing goes on past it.
   */
  readonly known?: readonly KnownDeviation[];
  /**
   * Queries not to send (tested on the percent-encoded query): those that take the service down,
   * so that a known crash does not end the run. They are left out of the runs, not counted.
   */
  readonly skip?: RegExp;
  /** Valid-query options (depth, functions, navigation) for the generated queries. */
  readonly queries?: ModelQueryOptions;
  readonly seed?: number;
}

/** What {@link fuzzODataServer} ran, and the known deviations it met (each with its first report). */
export interface FuzzServerResult {
  readonly requests: number;
  readonly known: readonly MetDeviation[];
}

const defaultErrorCode = (body: unknown): string | undefined => {
  const error = (body as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
};

/** OData JSON's error body: `{ error: { code, message } }` (the code a string, as the spec has it; some servers send a number). */
const defaultErrorBody = (body: unknown): boolean => {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return typeof error === 'object' && error !== null && (typeof error.code === 'string' || typeof error.code === 'number') && typeof error.message === 'string';
};

/** The value of a system query option of a generated (percent-encoded) query, if present. */
function option(query: string, name: string): string | undefined {
  for (const part of query.split('&')) {
    const equals = part.indexOf('=');
    if (equals > 0 && decodeURIComponent(part.slice(0, equals)).toLowerCase() === name) return decodeURIComponent(part.slice(equals + 1));
  }
  return undefined;
}

/** What a valid query's answer breaks of the rules every server follows, or `undefined`. */
function validProblem(options: FuzzServerOptions, query: string, answer: Answer): string | undefined {
  const list = (options.list ?? ((body: unknown) => (body as { value?: unknown } | undefined)?.value))(answer.body);
  if (answer.status !== 200) return `a valid query answered ${answer.status}`;
  if (!Array.isArray(list)) return 'a valid query answered 200 without a list of rows';
  const top = option(query, '$top');
  if (top !== undefined && list.length > Number(top)) return `$top=${top} answered ${list.length} rows`;
  const select = option(query, '$select');
  if (select !== undefined && !select.split(',').some((item) => item.trim() === '*' || item.includes('/') || item.includes('('))) {
    // Selected properties, key properties (some servers add them), annotations and expanded navigation properties.
    const type = options.model.entitySets.get(options.entitySet)?.type;
    const allowed = new Set([...select.split(',').map((item) => item.trim()), ...(type?.key ?? []), ...(type?.navigation.keys() ?? [])]);
    for (const row of list) {
      if (typeof row !== 'object' || row === null) return 'a row is not an object';
      const extra = Object.keys(row).find((name) => !allowed.has(name) && !name.includes('@') && type?.properties.has(name) === true);
      if (extra !== undefined) return `$select=${select} answered a row with '${extra}'`;
    }
  }
  const exact = (options.list ?? ((body: unknown) => (body as { value?: unknown } | undefined)?.value))(parseJsonText(answer.text));
  const rows = Array.isArray(exact) ? rowsProblem(options.model, options.entitySet, query, exact) : undefined;
  if (rows !== undefined) return rows;
  if (option(query, '$count') === 'true') {
    const given = (options.count ?? ((body: unknown) => (body as Record<string, unknown> | undefined)?.['@odata.count'] as number | undefined))(answer.body);
    if (given !== undefined) {
      // An Int64: a JSON number, or its digits as a string with IEEE754Compatible=true (JSON Format §3.2).
      const count = typeof given === 'string' && /^\d{1,15}$/.test(given) ? Number(given) : given;
      if (typeof count !== 'number' || !Number.isInteger(count) || count < list.length)
        return `$count=true answered a count of ${JSON.stringify(given)} with ${list.length} rows`;
      const paged = top !== undefined || option(query, '$skip') !== undefined || (answer.body as Record<string, unknown>)['@odata.nextLink'] !== undefined;
      if (!paged && count !== list.length) return `$count=true answered a count of ${count} with ${list.length} rows and no paging`;
    }
  }
  return undefined;
}

/**
 * Fuzzes a running OData server (see the module's comment for the rules); rejects with the first
 * finding, shrunk, and its report.
 *
 * @example
 * ```ts
 * await fuzzODataServer({ url: 'http://localhost:3000/assets', model, entitySet: 'assets', headers: { authorization: `Bearer ${token}` } });
 * ```
 */
export async function fuzzODataServer(options: FuzzServerOptions): Promise<FuzzServerResult> {
  try {
    return await fuzz(options);
  } catch (error) {
    throw withReproduction(error);
  }
}

async function fuzz(options: FuzzServerOptions): Promise<FuzzServerResult> {
  const numRuns = options.numRuns ?? 50;
  let requests = 0;
  const limitKnown = options.expectCodes === true || options.maxTop !== undefined;
  const run = findings(options.known);
  /** A finding: thrown, unless a known deviation matches it. */
  const finding = (problem: string, query: string, answer: Answer): void => run.found(report(options, problem, query, answer));
  const ask = (query: string): Promise<Answer> => {
    requests++;
    return send(options, query);
  };
  const errorCode = options.errorCode ?? defaultErrorCode;
  const errorBody = options.errorBody ?? defaultErrorBody;
  const seed = options.seed === undefined ? {} : { seed: options.seed };
  await fc.assert(
    fc.asyncProperty(modelQueryArbitrary(options.model, options.entitySet, options.queries), async (query) => {
      fc.pre(options.skip?.test(query) !== true);
      const answer = await ask(query);
      const problem = validProblem(options, query, answer);
      if (problem !== undefined) finding(problem, query, answer);
    }),
    { numRuns, ...seed },
  );
  await fc.assert(
    fc.asyncProperty(
      invalidQueryArbitrary(options.model, options.entitySet, { ...(options.maxTop === undefined ? {} : { maxTop: options.maxTop }) }),
      async (invalid) => {
        fc.pre(options.skip?.test(invalid.query) !== true);
        fc.pre(limitKnown || invalid.mutation !== '$top over the limit');
        const answer = await ask(invalid.query);
        const what = `an invalid query (${invalid.mutation})`;
        if (answer.status < 400 || answer.status > 499) return finding(`${what} answered ${answer.status}, not a 4xx`, invalid.query, answer);
        if (!errorBody(answer.body)) return finding(`${what} answered ${answer.status} without an error body`, invalid.query, answer);
        if (options.expectCodes === true) {
          if (answer.status !== invalid.status) return finding(`${what} answered ${answer.status}, expected ${invalid.status}`, invalid.query, answer);
          const code = errorCode(answer.body);
          if (code !== invalid.code) finding(`${what} gave the code ${String(code)}, expected ${invalid.code}`, invalid.query, answer);
        }
      },
    ),
    { numRuns, ...seed },
  );
  return { requests, known: run.met() };
}
