/**
 * `$apply` through the whole library, for any input: pipelines over the fuzz model (every kind of
 * property, complex and navigation paths, nested groupby, concat, ranking), mutated a word at a
 * time (another transformation, method, property, alias or number), bound and then run in memory,
 * compiled for every SQL dialect and for MongoDB. Nothing but an ODataError may come out.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, DIALECTS, ODataError, toMongo, toSql } from '../../src/index.js';
import { applyQueryArbitrary } from '../../src/testing/index.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';

const PIPELINES = [
  'groupby((address/city,parent/name,status),aggregate(dec with sum as s,n64 with average as a,$count as n))/filter(n gt 1)/orderby(s desc)/top(2)',
  'aggregate(parent/dec with sum as s,children/$count as c,children/n32 with max as m)',
  'concat(topcount(2,dbl),bottomsum(10,n32),toppercent(50,dec))/compute(n32 mul 2 as twice)/skip(1)/identity',
  "filter(contains(name,'a'))/groupby((flag),compute(n16 add 1 as k)/filter(k gt 0)/aggregate(k with sum as ks,colors with countdistinct as c))",
  'groupby((born,guid,time,span),aggregate(at with min as first,span with max as longest,status with max as top))',
  'search(alpha)/groupby((tags))',
];
const WORDS = [
  'aggregate',
  'groupby',
  'filter',
  'compute',
  'orderby',
  'top',
  'skip',
  'concat',
  'identity',
  'topcount',
  'toppercent',
  'topsum',
  'search',
  'sum',
  'average',
  'min',
  'max',
  'countdistinct',
  '$count',
  'as',
  'with',
  'from',
  'name',
  'dec',
  'dbl',
  'n64',
  'tags',
  'address',
  'city',
  'parent',
  'children',
  'status',
  'colors',
  'span',
  'at',
  'null',
  '0',
  '-1',
  '100',
  '2147483648',
  'NaN',
  '(',
  ')',
  ',',
  '/',
  ' ',
];

/** Replaces, inserts or deletes one word of `text`. */
function mutate(text: string, [index, kind, word]: [number, 'replace' | 'insert' | 'delete', string]): string {
  const parts = text.split(/([(),/ ])/);
  const at = index % parts.length;
  if (kind === 'delete') parts.splice(at, 1);
  else if (kind === 'insert') parts.splice(at, 0, word);
  else parts[at] = word;
  return parts.join('');
}

function onlyODataErrors(run: () => unknown, input: string): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ODataError)) throw new Error(`non-ODataError for ${JSON.stringify(input)}: ${String((error as Error)?.stack ?? error)}`);
    expect(error.status).toBeGreaterThanOrEqual(400);
  }
}

function everything(query: string): void {
  let bound;
  try {
    bound = bindQuery(query, { model: fuzzModel, entitySet: FUZZ_SET, maxNodeCount: 400 });
  } catch (error) {
    if (error instanceof ODataError) return;
    throw new Error(`non-ODataError from bindQuery for ${JSON.stringify(query)}: ${String((error as Error)?.stack ?? error)}`);
  }
  onlyODataErrors(() => compileQuery(bound, { data: { [FUZZ_SET]: fuzzRows } }).apply(fuzzRows), query);
  for (const dialect of Object.keys(DIALECTS)) onlyODataErrors(() => toSql(bound, { dialect: dialect as keyof typeof DIALECTS }), `${dialect}: ${query}`);
  onlyODataErrors(() => toMongo(bound), query);
}

describe('$apply through binder and backends', () => {
  it('the pipelines mutated below bind as written (all but grouping by a collection)', () => {
    for (const pipeline of PIPELINES.slice(0, -1))
      expect(bindQuery(`$apply=${encodeURIComponent(pipeline)}`, { model: fuzzModel, entitySet: FUZZ_SET, maxNodeCount: 400 }).apply).toBeDefined();
    expect(() => bindQuery(`$apply=${encodeURIComponent(PIPELINES.at(-1) as string)}`, { model: fuzzModel, entitySet: FUZZ_SET })).toThrow(
      /must be single-valued/,
    );
  });

  it('mutated pipelines give results or ODataErrors, never another error', () => {
    const mutation = fc.tuple(fc.nat(), fc.constantFrom('replace' as const, 'insert' as const, 'delete' as const), fc.constantFrom(...WORDS));
    fc.assert(
      fc.property(
        fc.constantFrom(...PIPELINES),
        fc.array(mutation, { minLength: 0, maxLength: 3 }),
        fc.constantFrom('', '&$filter=n gt 0', '&$orderby=s', '&$count=true&$top=1', '&$select=twice', '&$expand=parent'),
        (pipeline, mutations, after) => {
          everything(`$apply=${encodeURIComponent(mutations.reduce(mutate, pipeline))}${after}`);
        },
      ),
      { numRuns: 1500, seed: 16 },
    );
  }, 120_000);

  it('generated pipelines bind and compile everywhere', () => {
    for (const query of fc.sample(applyQueryArbitrary(fuzzModel, FUZZ_SET), { seed: 7, numRuns: 300 })) everything(query.text);
  }, 120_000);
});
