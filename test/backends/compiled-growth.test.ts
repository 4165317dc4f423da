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
import { bindQuery, ODataError, toMongo, toSql, type DialectName } from '../../src/index.js';
import { NESTING_FORMS as TEMPLATES, nestedFilter as filter, nestingSettings } from '../fixtures/nesting-forms.js';

const settings = { ...nestingSettings, maxNodeCount: 100_000, parse: { maxDepth: 2_000 } };

/** Where a computed value can be named once (a derived table, `$let`): linear everywhere. */
const LINEAR: readonly DialectName[] = ['postgres', 'sqlite', 'duckdb'];

describe('compiled size is linear in the nesting', () => {
  for (const name of Object.keys(TEMPLATES)) {
    it(name, () => {
      const [q8, q16] = [filter(name, 8), filter(name, 16)];
      const [b8, b16] = [bindQuery(q8, settings), bindQuery(q16, settings)];
      const growth = (size: (b: typeof b8) => number): number => size(b16) / size(b8);
      // Twice the nesting: about twice the size (the query text itself grows by 1.7–1.9).
      for (const dialect of LINEAR)
        expect(
          growth((b) => toSql(b, { dialect }).sql.length),
          dialect,
        ).toBeLessThan(2.6);
      expect(
        growth((b) => JSON.stringify(toMongo(b)).length),
        'MongoDB',
      ).toBeLessThan(2.6);
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
