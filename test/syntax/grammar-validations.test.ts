/**
 * The shared lexer and parser skip Chevrotain's self-validations for a faster cold start; here
 * both are built with the validations on, so a token or grammar that fails them never ships.
 */
import { Lexer } from 'chevrotain';
import { describe, expect, it } from 'vitest';
import { LEXER_DEFINITION } from '../../src/syntax/lexer.js';
import { ExpressionParser } from '../../src/syntax/expression-parser.js';
import { ODataParser } from '../../src/syntax/parser.js';

/**
 * Chevrotain 12's grammar validations (run here only: the shipped parsers skip them) group
 * productions with `Object.groupBy`, which Node 20 lacks (Node 21 has it); this test supplies it
 * there. Nothing else of Chevrotain 12 that this package runs needs more than Node 20 (the whole
 * suite runs on Node 20).
 */
function withGroupBy<T>(run: () => T): T {
  const object = Object as unknown as { groupBy?: unknown };
  if (typeof object.groupBy === 'function') return run();
  object.groupBy = <V>(items: Iterable<V>, key: (item: V, index: number) => PropertyKey): Record<PropertyKey, V[]> => {
    const groups: Record<PropertyKey, V[]> = Object.create(null) as Record<PropertyKey, V[]>;
    let index = 0;
    for (const item of items) (groups[key(item, index++)] ??= []).push(item);
    return groups;
  };
  try {
    return run();
  } finally {
    delete object.groupBy;
  }
}

describe('Chevrotain self-validations', () => {
  it('the lexer definition passes the token validations', () => {
    const lexer = new Lexer(LEXER_DEFINITION, { positionTracking: 'onlyOffset', ensureOptimizations: false, skipValidations: false });
    expect(lexer.lexerDefinitionErrors).toEqual([]);
    expect(lexer.tokenize('Name eq 1').errors).toEqual([]);
  });

  it("the expression mode (every $filter, $orderby, … value) gets Chevrotain's first-character optimization", () => {
    // ensureOptimizations throws when a token of the mode prevents it (a pattern Chevrotain cannot
    // analyze, a custom pattern without start_chars_hint). The search modes cannot have it: their
    // words are complement sets. The mode's push to `search` is left out with validations off.
    const expressionOnly = { defaultMode: 'expression', modes: { expression: LEXER_DEFINITION.modes.expression } };
    const lexer = new Lexer(expressionOnly, { positionTracking: 'onlyOffset', ensureOptimizations: true, skipValidations: true });
    expect(lexer.tokenize("Name eq 'a' and 2024-01-01 lt 12:00 or 01234567-89ab-cdef-0123-456789abcdef eq -5").errors).toEqual([]);
  });

  it('the grammar passes the parser validations (no ambiguity, left recursion or missing rule)', () => {
    // The full grammar, and the expression grammar on its own (built first, see expression-parser.ts).
    for (const parser of withGroupBy(() => [new ODataParser(true), new ExpressionParser(true)])) {
      // performSelfAnalysis throws on definition errors; the list is also empty.
      expect((parser as unknown as { definitionErrors: unknown[] }).definitionErrors).toEqual([]);
    }
  });
});
