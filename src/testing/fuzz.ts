/**
 * Fuzzing kit for OData servers: near-miss invalid query strings (one mutation away from a valid
 * query), each paired with the error code it must produce, and {@link fuzzODataServer}, which
 * sends valid and invalid queries to a running server over HTTP and checks the answers: 200 with a
 * list for every valid query, the expected 4xx for every invalid one, and never a 5xx or a hang.
 */
import fc from 'fast-check';
import type { ODataErrorCode } from '../errors/odata-error.js';
import type { Model, Property } from '../model/model.js';
import { DEFAULT_MAX_TOP } from '../semantic/settings.js';
import { modelQueryArbitrary, type ModelQueryOptions } from './model-arbitraries.js';

/** An invalid query string and the error it must produce. */
export interface InvalidQuery {
  readonly query: string;
  readonly code: ODataErrorCode;
  /** The HTTP status an OData server answers with (400 for all of these). */
  readonly status: number;
  /** What was changed, for reports. */
  readonly mutation: string;
}

export interface InvalidQueryOptions {
  /** The host-wide maximum `$top` the server enforces (default 10 000). */
  readonly maxTop?: number;
}

const SUFFIX = 'Zq';

/**
 * Near-miss invalid query strings for an entity set: an unknown property in `$filter`,
 * `$orderby` or `$select`, a type mismatch, a wrong function arity, a dangling operator, an
 * unclosed parenthesis, `$top` over the limit or negative, `$count=yes`, an unknown or
 * duplicate option, `$search` where the set does not allow it. Each carries its error code.
 */
export function invalidQueryArbitrary(model: Model, entitySet: string, options: InvalidQueryOptions = {}): fc.Arbitrary<InvalidQuery> {
  const set = model.entitySets.get(entitySet);
  if (set === undefined) throw new Error(`No entity set '${entitySet}' in the model`);
  const type = set.type;
  const properties = [...type.properties.values()].filter((p) => !p.collection && p.type.kind === 'primitive' && p.filterable);
  const strings = properties.filter((p) => p.type.kind === 'primitive' && p.type.name === 'Edm.String');
  const names = new Set([...type.properties.keys(), ...type.navigation.keys()]);
  const unknownName = (p: Property): string => {
    let name = `${p.name}${SUFFIX}`;
    while (names.has(name)) name += SUFFIX;
    return name;
  };
  const maxTop = Math.min(options.maxTop ?? DEFAULT_MAX_TOP, set.capabilities.maxTop ?? Number.POSITIVE_INFINITY);
  const valid = modelQueryArbitrary(model, entitySet, { maxDepth: 2 } satisfies ModelQueryOptions);
  // Each invalid query is a valid one (from modelQueryArbitrary) with one option replaced by a
  // mutated one, so everything else about it is valid and the error is the mutation's.
  const mutate = (option: string, mutated: fc.Arbitrary<string>, code: ODataErrorCode, mutation: string): fc.Arbitrary<InvalidQuery> =>
    fc.tuple(valid, mutated).map(([query, bad]) => ({ query: [...without(query, option), bad].join('&'), code, status: 400, mutation }));
  const generators: fc.Arbitrary<InvalidQuery>[] = [
    mutate(
      '$count',
      fc.constantFrom('yes', 'TRUE1', '1').map((v) => `$count=${v}`),
      'invalid_option_value',
      '$count not a Boolean',
    ),
    mutate(
      '$top',
      fc.integer({ min: -1000, max: -1 }).map((n) => `$top=${n}`),
      'invalid_option_value',
      'negative $top',
    ),
    mutate(
      '$top',
      fc.integer({ min: 1, max: 1_000_000 }).map((n) => `$top=${maxTop + n}`),
      'top_limit_exceeded',
      '$top over the limit',
    ),
    mutate(
      '$bogus',
      fc.constantFrom('$bogus', '$filters', '$topp', '$Expandd').map((name) => `${name}=1`),
      'unknown_option',
      'unknown $-option',
    ),
    mutate(
      '$top',
      fc.tuple(fc.nat(50), fc.nat(50)).map(([a, b]) => `$top=${Math.min(a, maxTop)}&$top=${Math.min(b, maxTop)}`),
      'duplicate_option',
      'duplicate option',
    ),
  ];
  if (properties.length > 0) {
    const property = fc.constantFrom(...properties);
    generators.push(
      mutate(
        '$filter',
        property.map((p) => `$filter=${unknownName(p)} eq null`),
        'unknown_property',
        'unknown property in $filter',
      ),
      mutate(
        '$orderby',
        property.map((p) => `$orderby=${unknownName(p)} desc`),
        'unknown_property',
        'unknown property in $orderby',
      ),
      mutate(
        '$select',
        property.map((p) => `$select=${unknownName(p)}`),
        'unknown_property',
        'unknown property in $select',
      ),
      mutate(
        '$filter',
        property.map((p) => `$filter=${encodeURIComponent(`${p.name} eq null and`)}`),
        'unexpected_end',
        'dangling operator',
      ),
      mutate(
        '$filter',
        property.map((p) => `$filter=${encodeURIComponent(`(${p.name} eq null`)}`),
        'unexpected_end',
        'unclosed parenthesis',
      ),
    );
  }
  if (strings.length > 0) {
    const string = fc.constantFrom(...strings);
    generators.push(
      mutate(
        '$filter',
        fc.tuple(string, fc.integer({ min: -5, max: 5 })).map(([p, n]) => `$filter=${encodeURIComponent(`${p.name} gt ${n} eq true`)}`),
        'type_mismatch',
        'string compared with a number',
      ),
      mutate(
        '$filter',
        string.map((p) => `$filter=${encodeURIComponent(`contains(${p.name})`)}`),
        'wrong_arity',
        'wrong arity',
      ),
    );
  }
  if (!set.capabilities.searchable) {
    generators.push(
      mutate(
        '$search',
        fc.constantFrom('pump', 'a', 'x y').map((text) => `$search=${encodeURIComponent(text)}`),
        'query_option_not_supported',
        '$search not supported',
      ),
    );
  }
  return fc.oneof(...generators);
}

/** The `&`-separated options of a query string, without `option` (compared without case). */
function without(query: string, option: string): string[] {
  const name = option.toLowerCase();
  return query.split('&').filter((part) => part !== '' && part.split('=')[0]?.toLowerCase() !== name);
}

/** What {@link fuzzODataServer} needs. */
export interface FuzzServerOptions {
  /** The collection's URL, e.g. `http://localhost:3000/assets`. */
  readonly url: string;
  readonly model: Model;
  readonly entitySet: string;
  /** Headers for every request (authorization, tenant, …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Runs of each kind (default 50 valid and 50 invalid). */
  readonly numRuns?: number;
  /** A request that takes longer fails the run (default 5 000 ms). */
  readonly timeoutMs?: number;
  /** The host-wide maximum `$top` (default 10 000); a set's lower maximum also counts. */
  readonly maxTop?: number;
  /** Reads the error code from an error body; by default the OData JSON error body's `error.code`. */
  readonly errorCode?: (body: unknown) => string | undefined;
  /** The list from a success body; by default the body's `value`. */
  readonly list?: (body: unknown) => unknown;
  /** Valid-query options (depth, functions, navigation) for the generated queries. */
  readonly queries?: ModelQueryOptions;
  readonly seed?: number;
}

async function send(options: FuzzServerOptions, query: string): Promise<{ status: number; body: unknown; text: string }> {
  const url = `${options.url}${options.url.includes('?') ? '&' : '?'}${query}`;
  const response = await fetch(url, { headers: { accept: 'application/json', ...options.headers }, signal: AbortSignal.timeout(options.timeoutMs ?? 5000) });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text };
}

const defaultErrorCode = (body: unknown): string | undefined => {
  const error = (body as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
};

/**
 * Fuzzes a running OData server: valid queries for the entity set must answer 200 with a list,
 * near-miss invalid ones the expected 4xx (and, when the body says, the expected error code), and
 * nothing may answer 5xx or take longer than the timeout. Rejects with the shrunk counterexample.
 *
 * @example
 * ```ts
 * await fuzzODataServer({ url: 'http://localhost:3000/assets', model, entitySet: 'assets', headers: { authorization: `Bearer ${token}` } });
 * ```
 */
export async function fuzzODataServer(options: FuzzServerOptions): Promise<void> {
  const numRuns = options.numRuns ?? 50;
  const errorCode = options.errorCode ?? defaultErrorCode;
  const list = options.list ?? ((body: unknown) => (body as { value?: unknown } | undefined)?.value);
  const seed = options.seed === undefined ? {} : { seed: options.seed };
  await fc.assert(
    fc.asyncProperty(modelQueryArbitrary(options.model, options.entitySet, options.queries), async (query) => {
      const { status, body, text } = await send(options, query);
      if (status !== 200 || !Array.isArray(list(body))) throw new Error(`valid query ${query} answered ${status}: ${text.slice(0, 500)}`);
    }),
    { numRuns, ...seed },
  );
  await fc.assert(
    fc.asyncProperty(
      invalidQueryArbitrary(options.model, options.entitySet, { ...(options.maxTop === undefined ? {} : { maxTop: options.maxTop }) }),
      async (invalid) => {
        const { status, body, text } = await send(options, invalid.query);
        if (status !== invalid.status)
          throw new Error(`invalid query ${invalid.query} (${invalid.mutation}) answered ${status}, expected ${invalid.status}: ${text.slice(0, 500)}`);
        const code = errorCode(body);
        if (code !== undefined && code !== invalid.code)
          throw new Error(`invalid query ${invalid.query} (${invalid.mutation}) gave the code ${code}, expected ${invalid.code}`);
      },
    ),
    { numRuns, ...seed },
  );
}
