/**
 * What a query compiles to grows with the query, not with the nesting of its parts (issue 26):
 * an expression nested k deep compiles to a statement or pipeline about k times as large, on
 * every backend where the target language can name a value once. Before, a comparison of Boolean
 * values wrote its operands twice per level (137 characters of `$filter` gave a 445 MB MongoDB
 * pipeline and a 112 MB SQL Server statement), a Double equality's NaN guard repeated its
 * computed side (PostgreSQL 3x per level), and the in-memory compiler compiled and/or operands
 * twice. MySQL/MariaDB and SQL Server cannot name a computed value inside an expression: where a
 * guard repeats one there, the statement is bounded by `maxStatementLength` instead.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, defineModel, ODataError, toMongo, toSql, type DialectName } from '../../src/index.js';

const model = defineModel({
  namespace: 'N',
  entityTypes: {
    T: {
      key: ['id'],
      properties: { id: 'Edm.Int32', a: 'Edm.Int32', n64: 'Edm.Int64', d: 'Edm.Decimal', x: 'Edm.Double', s: 'Edm.String', b: 'Edm.Boolean', at: 'Edm.DateTimeOffset' },
      navigation: { parent: { type: 'T', constraints: { a: 'id' } } },
    },
  },
  entitySets: { ts: { type: 'T' } },
});
const settings = { model, entitySet: 'ts', maxNodeCount: 100_000, maxFunctionCallDepth: 1_000, parse: { maxDepth: 2_000 } };

/** [seed, one level of nesting around `e`, the filter made of the nested expression] */
const TEMPLATES: Record<string, readonly [string, (e: string, i: number) => string, (e: string) => string]> = {
  'Boolean eq comparison': ['b', (e, i) => `not (${e} eq (a eq ${i}))`, (e) => e],
  'Boolean ge comparison': ['b', (e, i) => `((${e}) ge (a ge ${i}))`, (e) => e],
  'Boolean ne comparison': ['b', (e, i) => `((${e}) ne (a ge ${i}))`, (e) => e],
  'and/or alternating': ['b', (e, i) => `(${e} ${i % 2 ? 'and' : 'or'} a eq ${i})`, (e) => e],
  'Double case in an equality': ['x', (e, i) => `case(${e} eq ${i}.5:1.5,true:x)`, (e) => `${e} gt 1`],
  'String case in an order comparison': ['s', (e) => `case(${e} gt 'a':s,true:'b')`, (e) => `${e} eq 'x'`],
  'Int64 addition': ['n64', (e) => `(${e} add n64)`, (e) => `${e} gt 1`],
  'Decimal divby': ['d', (e) => `(d divby ${e})`, (e) => `${e} gt 1`],
  'Double multiplication': ['x', (e) => `(${e} mul x)`, (e) => `${e} gt 1`],
  'negation': ['x', (e) => `-(${e} sub 1.5)`, (e) => `${e} gt 1`],
  'round': ['x', (e) => `round(${e} add 0.5)`, (e) => `${e} gt 1`],
  'substring': ['s', (e) => `substring(${e},1,a)`, (e) => `${e} eq 'x'`],
  'length of substring': ['a', (e) => `length(substring(s,${e}))`, (e) => `${e} eq 1`],
  'instant plus a duration': ['at', (e) => `(${e} add duration'P1D')`, (e) => `${e} gt 2020-01-01T00:00:00Z`],
  'navigation in a case': ['a', (e) => `case(parent/a eq ${e}:1,true:parent/parent/a)`, (e) => `${e} gt 1`],
};

function filter(name: string, depth: number): string {
  const [seed, wrap, whole] = TEMPLATES[name]!;
  let e = seed;
  for (let i = 0; i < depth; i++) e = wrap(e, i);
  return `$filter=${whole(e)}`;
}

/** Where a computed value can be named once (a derived table, `$let`): linear everywhere. */
const LINEAR: readonly DialectName[] = ['postgres', 'sqlite', 'duckdb'];

describe('compiled size is linear in the nesting', () => {
  for (const name of Object.keys(TEMPLATES)) {
    it(name, () => {
      const [q8, q16] = [filter(name, 8), filter(name, 16)];
      const [b8, b16] = [bindQuery(q8, settings), bindQuery(q16, settings)];
      const growth = (size: (b: typeof b8) => number): number => size(b16) / size(b8);
      // Twice the nesting: about twice the size (the query text itself grows by 1.7–1.9).
      for (const dialect of LINEAR) expect(growth((b) => toSql(b, { dialect }).sql.length), dialect).toBeLessThan(2.6);
      expect(growth((b) => JSON.stringify(toMongo(b)).length), 'MongoDB').toBeLessThan(2.6);
    });
  }
});

describe('where a guard repeats a computed value (MySQL/MariaDB, SQL Server), the statement is bounded', () => {
  for (const name of Object.keys(TEMPLATES)) {
    it(name, () => {
      for (const depth of [4, 8, 12]) {
        let bound;
        try {
          bound = bindQuery(filter(name, depth), settings);
        } catch (error) {
          expect(error).toBeInstanceOf(ODataError);
          continue;
        }
        for (const dialect of ['mysql', 'mssql'] as const) {
          try {
            expect(toSql(bound, { dialect, maxStatementLength: 200_000 }).sql.length).toBeLessThanOrEqual(200_000);
          } catch (error) {
            // never a RangeError or a statement past the bound: the ODataError naming the setting
            expect(error, `${dialect} ${depth}`).toBeInstanceOf(ODataError);
            expect((error as ODataError).code).toBe('query_too_complex');
            expect((error as ODataError).message).toMatch(/maxStatementLength|parameters, and .* takes at most/);
          }
        }
      }
    });
  }
});
