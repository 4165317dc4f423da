/**
 * Near-miss invalid query strings for fuzzing OData servers: one mutation away from a valid query,
 * each paired with the error code it must produce (this library's; another server's codes differ,
 * its status class does not). fuzz-server.ts sends them, and valid ones, to a running server.
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
 * `$orderby` or `$select` (not on an open type, where it is a dynamic property), a type mismatch, a wrong function arity, a dangling operator, an
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
    // (On an open type an unknown name is a dynamic property: valid.)
    if (!type.open)
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
      );
    generators.push(
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
