/**
 * `$filter`, `$orderby` and alias values are parsed by the expression parser alone (a third of
 * the grammar, built first: expression-parser.ts), and by the full parser where a text needs it.
 * Whichever reads a text, it gets the same tree or the same error: here both parse random valid
 * expressions, random mutations of them and random strings, and their outcomes are compared.
 */
import fc from 'fast-check';
import type { IToken } from 'chevrotain';
import { describe, expect, it } from 'vitest';
import { ODataError, parseFilter, printExpression } from '../../src/index.js';
import { expressionArbitrary } from '../../src/testing/index.js';
import { ExpressionParser, NeedsFullGrammar } from '../../src/syntax/expression-parser.js';
import { lex } from '../../src/syntax/lexer.js';
import { ODataParser } from '../../src/syntax/parser.js';

const expressionOnly = new ExpressionParser();
const full = new ODataParser();
type Rule = 'filterOption' | 'orderByOption' | 'aliasValueOption';

/** The tree, the first recognition error, or the ODataError (or `'full'`: the text needs the full grammar). */
function outcome(parser: ExpressionParser, text: string, rule: Rule): unknown {
  const lexed = lex(text, 'expression');
  if (lexed.errors.length > 0) return 'lexing error';
  parser.input = lexed.tokens as IToken[];
  parser.resetState(text, 'text');
  try {
    const tree = (parser as unknown as Record<Rule, () => unknown>)[rule]();
    const [error] = parser.errors;
    return error === undefined ? { tree } : { error: error.message, at: error.token.startOffset };
  } catch (error) {
    if (error instanceof NeedsFullGrammar) return 'full';
    if (error instanceof ODataError) return { code: error.code, message: error.message, position: error.position };
    if (error instanceof RangeError) return 'too deep';
    throw error;
  }
}

const CHARS = '()[]{},;:/=\'"$@*.-+ 0123456789abcdeqnotandoranyall'.split('');
function mutate(text: string, at: number, kind: number, char: string): string {
  const i = text.length === 0 ? 0 : at % text.length;
  return kind === 0 ? text.slice(0, i) + char + text.slice(i) : kind === 1 ? text.slice(0, i) + text.slice(i + 1) : text.slice(0, i) + char + text.slice(i + 1);
}

function same(text: string): void {
  for (const rule of ['filterOption', 'orderByOption', 'aliasValueOption'] as const) {
    const mine = outcome(expressionOnly, text, rule);
    if (mine !== 'full') expect(mine, `${rule}: ${text}`).toEqual(outcome(full, text, rule));
  }
}

describe('the expression parser', () => {
  it('gives what the full parser gives on random expressions, their mutations and random strings', () => {
    fc.assert(
      fc.property(
        expressionArbitrary(),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 }), fc.constantFrom(...CHARS)), { maxLength: 3 }),
        (expression, mutations) => {
          let text = printExpression(expression);
          same(text);
          for (const [at, kind, char] of mutations) same((text = mutate(text, at, kind, char)));
        },
      ),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 40 }), (text) => same(text)),
      { numRuns: 1000 },
    );
  });

  it('hands the aggregate function and $count(…) with options to the full grammar, with the same tree or error', () => {
    for (const text of [
      'Sales/aggregate(Amount with sum) gt 1',
      'Items/$count($filter=Price gt 1) gt 0',
      'Items/$count($filter=Price gt 1;$search=blue) gt 0',
      'Items/$count($top=1) gt 0',
      'Items/$count($filter=) gt 0',
      'Sales/aggregate(Amount with sum as Total) gt 1',
    ]) {
      expect(outcome(expressionOnly, text, 'filterOption')).toBe('full');
      const viaRun = (() => {
        try {
          return { tree: parseFilter(text) };
        } catch (error) {
          return { code: (error as ODataError).code, message: (error as ODataError).message };
        }
      })();
      const fullOutcome = outcome(full, text, 'filterOption') as { tree?: unknown; code?: string; message?: string };
      if (fullOutcome.tree !== undefined) expect(viaRun).toEqual({ tree: fullOutcome.tree });
      else expect(viaRun.code).toBe(fullOutcome.code ?? 'syntax_error');
    }
    // And the rest of `$count` and `$filter(…)` segments stay the expression parser's.
    expect(outcome(expressionOnly, 'Items/$count gt 0 and Items/$filter(Price gt 1)/$count eq 2', 'filterOption')).toHaveProperty('tree');
  });
});
