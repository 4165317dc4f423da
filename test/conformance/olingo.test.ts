/**
 * Apache Olingo's model-free expression-parser cases: every valid case's tree must match
 * Olingo's `expectedTree` (precedence and grouping). Olingo's invalid model-free cases are
 * mostly operand type errors, which belong to the binder; those the parser alone can reject
 * (arity, type-name arguments) must fail here.
 */
import { describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/index.js';
import { corpusAvailable, loadCorpus, type OlingoCase } from './corpus.js';
import { olingoTree } from './olingo-tree.js';

/** Invalid only because of operand types: checked by the binder, not the parser. */
const TYPE_ERRORS = new Set([
  'olingo-031',
  'olingo-032',
  'olingo-033',
  'olingo-034',
  'olingo-035',
  'olingo-036',
  'olingo-037',
  'olingo-038',
  'olingo-039',
  'olingo-040',
  'olingo-041',
  'olingo-042',
  'olingo-043',
  'olingo-046',
  'olingo-047',
  'olingo-049',
  'olingo-050',
  'olingo-053',
]);

describe.skipIf(!corpusAvailable)('Olingo model-free expression cases', () => {
  const cases = corpusAvailable ? loadCorpus<OlingoCase[]>('olingo-cases.json').filter((c) => c.context?.model === null) : [];
  const withTree = cases.filter((c) => c.valid && c.expectedTree !== undefined);

  it('there are precedence cases to check', () => expect(withTree.length).toBeGreaterThanOrEqual(25));

  for (const c of withTree) {
    it(`${c.id} ${c.expression} → ${c.expectedTree}`, () => {
      expect(olingoTree(parseFilter(c.expression as string))).toBe(c.expectedTree);
    });
  }

  for (const c of cases.filter((x) => !x.valid && !TYPE_ERRORS.has(x.id))) {
    it(`${c.id} ${c.expression} is rejected`, () => {
      expect(() => parseFilter(c.expression as string)).toThrow();
    });
  }
});
