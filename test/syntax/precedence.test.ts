import { describe, expect, it } from 'vitest';
import { parseFilter, parseOrderBy } from '../../src/index.js';
import { tree } from '../helpers/tree.js';

// URL Conventions 5.1.1.17: has/in > unary (not, -) > mul > add > relational > equality > and > or.
const cases: [string, string][] = [
  ['a eq 1 and b eq 2 or c eq 3', '(((a eq 1) and (b eq 2)) or (c eq 3))'],
  ['a eq 1 or b eq 2 and c eq 3', '((a eq 1) or ((b eq 2) and (c eq 3)))'],
  ['not a eq 1 and b', '(((not a) eq 1) and b)'],
  ['not (a eq 1) and b', '((not (a eq 1)) and b)'],
  ['1 add 2 mul 3', '(1 add (2 mul 3))'],
  ['1 sub 2 sub 3', '((1 sub 2) sub 3)'],
  ['8 div 4 div 2', '((8 div 4) div 2)'],
  ['1 add 2 gt 2 eq true', '(((1 add 2) gt 2) eq true)'],
  ['a lt 1 eq b gt 2', '((a lt 1) eq (b gt 2))'],
  ['-a add b', '((negate a) add b)'],
  ['-(a add b)', '(negate (a add b))'],
  ["not a has Ns.Color'Red'", "(not (a has Ns.Color'Red'))"],
  ['-a in (1,2)', '(negate (a in (1,2)))'],
  ['a in (1,2) eq true', '((a in (1,2)) eq true)'],
  ["a has Ns.F'A' and b has Ns.F'B'", "((a has Ns.F'A') and (b has Ns.F'B'))"],
  ['a mod 2 eq 0 or b divby 3 ne 1.5', '(((a mod 2) eq 0) or ((b divby 3) ne 1.5))'],
  ['not not a', '(not (not a))'],
  ['--1', '(negate -1)'],
  ['- 1', '(negate 1)'],
  ['a EQ 1 AND b Eq 2', '((a eq 1) and (b eq 2))'],
  ['(a or b) and c', '((a or b) and c)'],
  ["contains(Name,'x') and length(Name) gt 2 mul 3", "(contains(Name, 'x') and (length(Name) gt (2 mul 3)))"],
];

describe('operator precedence and associativity', () => {
  for (const [input, expected] of cases) {
    it(input, () => {
      expect(tree(parseFilter(input))).toBe(expected);
    });
  }

  it('$orderby items use the same expression grammar', () => {
    const [item] = parseOrderBy('Cost ge Revenue asc');
    expect(item && tree(item.expression)).toBe('(Cost ge Revenue)');
  });

  it('a 10 000-clause or chain is left-deep without recursion limits', () => {
    const input = Array.from({ length: 10_000 }, (_, i) => `Id eq ${i}`).join(' or ');
    let node = parseFilter(input, { maxLength: 1_000_000 });
    let depth = 0;
    while (node.kind === 'binary' && node.operator === 'or') {
      node = node.left;
      depth++;
    }
    expect(depth).toBe(9_999);
  });
});
