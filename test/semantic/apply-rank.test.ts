/**
 * The six ranking transformations bind to one `rank` node (issue 27, item 4): the syntax keeps the
 * spec's names (printed back as written), the bound tree says measure and direction.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, parseQuery, printQuery } from '../../src/index.js';
import { FUZZ_SET, fuzzModel } from '../fixtures/fuzz-data.js';

const CASES = [
  ['topcount', 'count', 'top', 2],
  ['bottomcount', 'count', 'bottom', 2],
  ['toppercent', 'percent', 'top', 50],
  ['bottompercent', 'percent', 'bottom', 50],
  ['topsum', 'sum', 'top', 7.5],
  ['bottomsum', 'sum', 'bottom', 7.5],
] as const;

describe('ranking transformations bind to one rank node', () => {
  it.each(CASES)('%s(…) is rank with measure %s and direction %s', (name, measure, direction, limit) => {
    const text = `$apply=${name}(${limit},n32)`;
    const [t] = bindQuery(text, { model: fuzzModel, entitySet: FUZZ_SET }).apply?.transformations ?? [];
    expect(t).toMatchObject({ kind: 'rank', measure, direction, limit, value: { kind: 'path' } });
    expect(printQuery(parseQuery(text))).toBe(text);
  });

  it.each([
    ['topcount(-1,n32)', 'a non-negative integer'],
    ['bottomcount(1.5,n32)', 'a non-negative integer'],
    ['toppercent(101,n32)', 'a number from 0 to 100'],
    ['bottompercent(-1,n32)', 'a number from 0 to 100'],
  ])('%s is refused: the limit must be %s, named as written', (transformation, wanted) => {
    const name = transformation.slice(0, transformation.indexOf('('));
    expect(() => bindQuery(`$apply=${transformation}`, { model: fuzzModel, entitySet: FUZZ_SET })).toThrow(`${name}() must be ${wanted}`);
  });
});
