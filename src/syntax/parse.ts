/**
 * Entry points that parse the value of one query option. Each bounds the input (length and
 * nesting depth) before parsing, and turns every failure into an {@link ODataError} whose
 * position is an offset into the given text.
 */
import { ODataError } from '../errors/odata-error.js';
import type { ApplyTransformation, ComputeItem, ExpandItem, Expression, OrderByItem, ResourceSegment, SearchExpression, SelectItem } from './ast.js';
import * as T from './lexer.js';
import { NeedsFullGrammar, sharedExpressionParser } from './expression-parser.js';
import { sharedParser } from './parser.js';
import { boundedTokens, checkLength, emptyValue, lexingError, parseWith, recognitionError, type EntryRule, type ParseOptions } from './parse-run.js';

export { DEFAULT_MAX_DEPTH, DEFAULT_MAX_LENGTH, emptyValue, type ParseOptions } from './parse-run.js';

/** The entry rules the expression parser has (the others are the full parser's only). */
const EXPRESSION_RULES: ReadonlySet<EntryRule> = new Set<EntryRule>(['filterOption', 'orderByOption', 'aliasValueOption']);

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

/** Lexes, bounds and parses `text` with one entry rule of the shared parser. */
function run(text: string, rule: EntryRule, mode: T.LexerMode, option: string, options: ParseOptions | undefined): unknown {
  const tokens = boundedTokens(text, mode, option, options);
  // The expression grammar alone where it suffices (built first, and on its own: a faster cold
  // start); the full grammar where the text needs it (see expression-parser.ts).
  if (EXPRESSION_RULES.has(rule)) {
    try {
      return parseWith(sharedExpressionParser(), tokens, text, rule, option, options);
    } catch (error) {
      if (!(error instanceof NeedsFullGrammar)) throw error;
    }
  }
  const parser = sharedParser();
  const result = parseWith(parser, tokens, text, rule, option, options);
  if (parser.pendingSearches.length > 0) parsePendingSearches(text, option);
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
