/**
 * Entry points that parse the value of one query option. Each bounds the input (length and
 * nesting depth) before parsing, and turns every failure into an {@link ODataError} whose
 * position is an offset into the given text.
 */
import type { ILexingError, IRecognitionException, IToken } from 'chevrotain';
import { ODataError } from '../errors/odata-error.js';
import type { ApplyTransformation, ComputeItem, ExpandItem, Expression, OrderByItem, ResourceSegment, SearchExpression, SelectItem } from './ast.js';
import * as T from './lexer.js';
import { NeedsFullGrammar, sharedExpressionParser, type ExpressionParser } from './expression-parser.js';
import { sharedParser, type EntryRule, type SearchMode } from './parser.js';

/** The entry rules the expression parser has (the others are the full parser's only). */
const EXPRESSION_RULES: ReadonlySet<EntryRule> = new Set<EntryRule>(['filterOption', 'orderByOption', 'aliasValueOption']);

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

/** Parses a `$filter` value (any common expression). */
export function parseFilter(text: string, options?: ParseOptions): Expression {
  return run(text, 'filterOption', 'expression', '$filter', options) as Expression;
}

/** Parses an `$orderby` value into its items. */
export function parseOrderBy(text: string, options?: ParseOptions): readonly OrderByItem[] {
  return run(text, 'orderByOption', 'expression', '$orderby', options) as OrderByItem[];
}

/** Parses a `$select` value into its items. */
export function parseSelect(text: string, options?: ParseOptions): readonly SelectItem[] {
  return run(text, 'selectOption', 'expression', '$select', options) as SelectItem[];
}

/** Parses an `$expand` value into its items, with nested options. */
export function parseExpand(text: string, options?: ParseOptions): readonly ExpandItem[] {
  return run(text, 'expandOption', 'expression', '$expand', options) as ExpandItem[];
}

/** Parses a `$compute` value (`expr as Name, …`). */
export function parseCompute(text: string, options?: ParseOptions): readonly ComputeItem[] {
  return run(text, 'computeOption', 'expression', '$compute', options) as ComputeItem[];
}

/**
 * Parses an `$apply` value (OData Extension for Data Aggregation 4.0): transformations separated
 * by `/`. `search(…)` arguments follow the `search` option (`'text'` keeps them as one string).
 */
export function parseApply(text: string, options?: ParseOptions): readonly ApplyTransformation[] {
  return run(text, 'applyOption', 'expression', '$apply', options) as ApplyTransformation[];
}

/**
 * Parses a `$search` value. By default (`search: 'text'`) the value is kept as one string;
 * with `search: 'grammar'` it is parsed as an OData search expression.
 */
export function parseSearch(text: string, options?: ParseOptions): SearchExpression {
  if ((options?.search ?? 'text') === 'text') {
    checkLength(text, '$search', options);
    if (text.trim() === '') throw emptyValue('$search');
    return { kind: 'searchText', text, span: { start: 0, end: text.length } };
  }
  return run(text, 'searchOption', 'searchTop', '$search', options) as SearchExpression;
}

/** Parses the value of a parameter alias `@name=value` (an expression or JSON). */
export function parseAliasValue(text: string, name: string, options?: ParseOptions): Expression {
  return run(text, 'aliasValueOption', 'expression', name, options) as Expression;
}

/**
 * Parses one segment of a resource path (decoded); positions are offsets into it (see
 * parseResourcePath, which moves them to the segment's place in the path).
 */
export function parseResourceSegment(text: string, options?: ParseOptions): ResourceSegment {
  return run(text, 'resourceSegmentOption', 'expression', RESOURCE_PATH, options) as ResourceSegment;
}

/** The `option` of errors in a resource path. */
export const RESOURCE_PATH = 'the resource path';

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

function checkLength(text: string, option: string, options: ParseOptions | undefined): void {
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

function lexingError(text: string, error: ILexingError, option: string): ODataError {
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

function recognitionError(text: string, error: IRecognitionException, option: string): ODataError {
  const offset = error.token.startOffset;
  const atEnd = Number.isNaN(offset) || error.token.image === '';
  return new ODataError({
    code: atEnd ? 'unexpected_end' : 'syntax_error',
    reason: error.message,
    option,
    position: atEnd ? text.length : offset,
  });
}

/** Lexes, bounds and parses `text` with one entry rule of the shared parser. */
function run(text: string, rule: EntryRule, mode: T.LexerMode, option: string, options: ParseOptions | undefined): unknown {
  checkLength(text, option, options);
  if (isBlank(text)) throw emptyValue(option);
  const lexed = T.lex(text, mode);
  const [lexError] = lexed.errors;
  if (lexError) throw lexingError(text, lexError, option);
  checkDepth(lexed.tokens, option, options);
  // The expression grammar alone where it suffices (built first, and on its own: a faster cold
  // start); the full grammar where the text needs it (see expression-parser.ts).
  if (EXPRESSION_RULES.has(rule)) {
    try {
      return parseWith(sharedExpressionParser(), lexed.tokens, text, rule, option, options);
    } catch (error) {
      if (!(error instanceof NeedsFullGrammar)) throw error;
    }
  }
  const parser = sharedParser();
  const result = parseWith(parser, lexed.tokens, text, rule, option, options);
  if (parser.pendingSearches.length > 0) parsePendingSearches(text, option);
  return result;
}

/** Parses the tokens with one entry rule of `parser`; errors as {@link ODataError}s (a {@link NeedsFullGrammar} passes). */
function parseWith(parser: ExpressionParser, tokens: IToken[], text: string, rule: EntryRule, option: string, options: ParseOptions | undefined): unknown {
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

/**
 * The arguments of `$apply`'s `search(…)` transformations in grammar mode, parsed with the
 * `$search` grammar after the option itself (the shared parser is not re-entrant). Each is lexed
 * at its own offset (blanks stand for the text before it), so that positions are the option's.
 */
function parsePendingSearches(text: string, option: string): void {
  const parser = sharedParser();
  const pending = parser.pendingSearches;
  parser.pendingSearches = [];
  for (const { node, start, end } of pending) {
    const lexed = T.lex(' '.repeat(start) + text.slice(start, end), 'searchTop');
    const [lexError] = lexed.errors;
    if (lexError) throw lexingError(text, lexError, option);
    parser.input = lexed.tokens;
    let search: unknown;
    try {
      search = parser.searchOption();
    } catch (error) {
      if (error instanceof ODataError) throw error.relocate(option);
      throw error;
    }
    const [parseError] = parser.errors;
    if (parseError) throw recognitionError(text.slice(0, end), parseError, option);
    node.search = search as SearchExpression;
  }
}
