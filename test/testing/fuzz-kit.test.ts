/** The fuzzing kit's arbitraries: every invalid query gives exactly its error code; every valid one binds. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindQuery, ODataError } from '../../src/index.js';
import { invalidQueryArbitrary, modelQueryArbitrary } from '../../src/testing/index.js';
import { assetModel } from '../fixtures/asset-model.js';

const codeOf = (query: string, entitySet: string): string => {
  try {
    bindQuery(query, { model: assetModel, entitySet });
    return 'valid';
  } catch (error) {
    return error instanceof ODataError ? error.code : `not an ODataError: ${String(error)}`;
  }
};

describe('fuzzing kit', () => {
  for (const set of ['assets', 'localities', 'maintenance-tickets', 'inspections']) {
    it(`invalidQueryArbitrary(${set}): each query gives the paired error code`, () => {
      const seen = new Set<string>();
      fc.assert(
        fc.property(invalidQueryArbitrary(assetModel, set), (invalid) => {
          seen.add(invalid.mutation);
          expect(codeOf(invalid.query, set), invalid.query).toBe(invalid.code);
        }),
        { numRuns: 300 },
      );
      expect(seen.size).toBeGreaterThanOrEqual(set === 'inspections' ? 11 : 12);
    });

    it(`modelQueryArbitrary(${set}): each query binds`, () => {
      fc.assert(
        fc.property(modelQueryArbitrary(assetModel, set), (query) => {
          expect(codeOf(query, set), query).toBe('valid');
        }),
        { numRuns: 200 },
      );
    });
  }
});
