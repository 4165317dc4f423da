/**
 * The shared lexer and parser skip Chevrotain's self-validations for a faster cold start; here
 * both are built with the validations on, so a token or grammar that fails them never ships.
 */
import { Lexer } from 'chevrotain';
import { describe, expect, it } from 'vitest';
import { LEXER_DEFINITION } from '../../src/syntax/lexer.js';
import { ODataParser } from '../../src/syntax/parser.js';

describe('Chevrotain self-validations', () => {
  it('the lexer definition passes the token validations', () => {
    const lexer = new Lexer(LEXER_DEFINITION, { positionTracking: 'onlyOffset', ensureOptimizations: false, skipValidations: false });
    expect(lexer.lexerDefinitionErrors).toEqual([]);
    expect(lexer.tokenize('Name eq 1').errors).toEqual([]);
  });

  it('the grammar passes the parser validations (no ambiguity, left recursion or missing rule)', () => {
    const parser = new ODataParser(true);
    // performSelfAnalysis throws on definition errors; the list is also empty.
    expect((parser as unknown as { definitionErrors: unknown[] }).definitionErrors).toEqual([]);
  });
});
