/**
 * What every parse entry shares, whichever grammar it uses: the bounds on the input (length and
 * nesting depth, checked before any parser sees it), lexing, running one entry rule of a parser, and
 * the translation of Chevrotain's errors into {@link ODataError}s whose position is an offset into
 * the given text. parse.ts (every option, both grammars) and parse-filter.ts (the expression
 * grammar alone) are built on it.
 */
import type { ILexingError, IRecognitionException, IToken } from 'chevrotain';
import { ODataError } from '../errors/odata-error.js';
import * as T from './lexer.js';
import type { ExpressionParser, SearchMode } from './expression-parser.js';

/** An entry rule of a parser (the expression parser has a few, the full parser all). */
export type EntryRule =
  | 'filterOption'
  | 'orderByOption'
  | 'selectOption'
  | 'expandOption'
  | 'computeOption'
  | 'applyOption'
  | 'searchOption'
  | 'aliasValueOption'
  | 'resourceSegmentOption';

/** Limits and switches shared by all parse functions. */
export interface ParseOptions {
  /** Longest accepted input, in characters (default 100 000). */
  readonly maxLength?: number;
  /** Deepest accepted nesting of `(`, `[` and `{` (default 256). */
  readonly maxDepth?: number;
  /**
   * `$search` handling: `'text'` (default) keeps the value as one uninterpreted string, as the
   * reference service does; `'grammar'` parses the OData search syntax (terms, phrases, AND, OR, NOT).
   */
  readonly search?: SearchMode;
}

export const DEFAULT_MAX_LENGTH = 100_000;
export const DEFAULT_MAX_DEPTH = 256;

export function emptyValue(option: string): ODataError {
  return new ODataError({ code: 'invalid_option_value', reason: `The value of ${option} is empty`, option, position: 0 });
}

/** True for an empty or all-white-space text (without copying it). */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

export function checkLength(text: string, option: string, options: ParseOptions | undefined): void {
  const max = options?.maxLength ?? DEFAULT_MAX_LENGTH;
  if (text.length > max) {
    throw new ODataError({
      code: 'input_too_long',
      reason: `The value is ${text.length} characters long; the limit is ${max}`,
      option,
      position: max,
    });
  }
}

/** +1 for a token that opens a nesting level, -1 for one that closes it, by token type index. */
const NESTING = (() => {
  const table = new Int8Array(T.allTokens.reduce((max, type) => Math.max(max, type.tokenTypeIdx ?? 0), 0) + 1);
  for (const type of [T.LParen, T.LBracket, T.LBrace, T.SearchLParen, T.SearchTopLParen]) table[type.tokenTypeIdx as number] = 1;
  for (const type of [T.RParen, T.RBracket, T.RBrace, T.SearchRParen, T.SearchTopRParen]) table[type.tokenTypeIdx as number] = -1;
  return table;
})();

/** Rejects nesting deeper than `maxDepth` before the recursive-descent parser sees it. */
function checkDepth(tokens: readonly IToken[], option: string, options: ParseOptions | undefined): void {
  const max = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as IToken;
    depth += NESTING[token.tokenTypeIdx] as number;
    if (depth > max) {
      throw new ODataError({ code: 'too_deep', reason: `Nesting is deeper than the limit of ${max}`, option, position: token.startOffset });
    }
  }
}

export function lexingError(text: string, error: ILexingError, option: string): ODataError {
  const char = text.charAt(error.offset);
  const reason =
    char === ')'
      ? `Unexpected ')'`
      : char === ';'
        ? `Unexpected ';'`
        : char === '+'
          ? // A form-encoded space (URLSearchParams, Python's urlencode) reaches the parser as '+'.
            `Unexpected character '+' (a plus sign: send a space as '%20', or parse with plusAsSpace and send a plus sign as '%2B')`
          : `Unexpected character '${char}'`;
  return new ODataError({ code: 'invalid_token', reason, option, position: error.offset });
}

export function recognitionError(text: string, error: IRecognitionException, option: string): ODataError {
  const offset = error.token.startOffset;
  const atEnd = Number.isNaN(offset) || error.token.image === '';
  return new ODataError({
    code: atEnd ? 'unexpected_end' : 'syntax_error',
    reason: error.message,
    option,
    position: atEnd ? text.length : offset,
  });
}

/** Checks the length, lexes in `mode` and checks the nesting depth: the tokens, or the first problem as an {@link ODataError}. */
export function boundedTokens(text: string, mode: T.LexerMode, option: string, options: ParseOptions | undefined): IToken[] {
  checkLength(text, option, options);
  if (isBlank(text)) throw emptyValue(option);
  const lexed = T.lex(text, mode);
  const [lexError] = lexed.errors;
  if (lexError) throw lexingError(text, lexError, option);
  checkDepth(lexed.tokens, option, options);
  return lexed.tokens;
}

/** Parses the tokens with one entry rule of `parser`; errors as {@link ODataError}s (a {@link NeedsFullGrammar} passes). */
export function parseWith(
  parser: ExpressionParser,
  tokens: IToken[],
  text: string,
  rule: EntryRule,
  option: string,
  options: ParseOptions | undefined,
): unknown {
  parser.input = tokens;
  parser.resetState(text, options?.search ?? 'text');
  let result: unknown;
  try {
    result = (parser as unknown as Record<EntryRule, () => unknown>)[rule]();
  } catch (error) {
    if (error instanceof ODataError) throw error.relocate(option);
    if (error instanceof RangeError) {
      throw new ODataError({ code: 'too_deep', reason: 'The expression is nested too deeply', option, position: 0 });
    }
    throw error;
  }
  const [parseError] = parser.errors;
  if (parseError) throw recognitionError(text, parseError, option);
  return result;
}
