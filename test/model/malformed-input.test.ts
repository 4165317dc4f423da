/**
 * A model may come from untyped input (JSON, JavaScript, a config file): whatever its shape,
 * defineModel and modelFromCsdl throw only the invalid_model ODataError.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineModel, modelFromCsdl, ODataError } from '../../src/index.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('malformed model input', () => {
  it.each([
    ['null', null],
    ['a string', 'model'],
    ['no entity types', { namespace: 'N', entitySets: {} }],
    ['an entity set without a type', { namespace: 'N', entityTypes: { T: { key: ['id'], properties: { id: 'Edm.Int32' } } }, entitySets: { ts: 'T' } }],
    ['null properties', { namespace: 'N', entityTypes: { T: { key: ['id'], properties: null } }, entitySets: {} }],
    ['no namespace', { entityTypes: { T: { key: ['id'], properties: { id: 'Edm.Int32' } } }, entitySets: { ts: { type: 'T' } } }],
  ])('defineModel with %s is an invalid_model ODataError', (_, input) => {
    const error = thrown(() => defineModel(input as never));
    expect(error).toBeInstanceOf(ODataError);
    expect((error as ODataError).code).toBe('invalid_model');
  });

  it('any JSON value, as a whole or in place of a part, gives a model or an ODataError', () => {
    const shapes = (v: unknown, w: unknown): unknown[] => [
      v,
      { namespace: 'N', entityTypes: v, entitySets: w },
      { namespace: 'N', entityTypes: { T: { key: ['id'], properties: v } }, entitySets: { ts: w } },
      { $Version: '4.0', N: v },
      { $Version: '4.0', $EntityContainer: 'N.C', N: { C: { $Kind: 'EntityContainer', S: w }, T: v } },
    ];
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.jsonValue({ maxDepth: 4 }), (v, w) => {
        for (const input of shapes(v, w)) {
          for (const build of [() => defineModel(input as never), () => modelFromCsdl(input as never)]) {
            const error = thrown(build);
            if (error !== undefined) expect(error).toBeInstanceOf(ODataError);
          }
        }
      }),
      { numRuns: 1500, seed: 7 },
    );
  });
});
