/**
 * The one lexer of the query language. Three modes:
 * - `expression`: `$filter`, `$orderby`, `$select`, `$expand`, `$compute` and nested options;
 * - `search`: the value of a `$search` nested in `$expand(...)`; `;` and an unbalanced `)` end it;
 * - `searchTop`: the value of a top-level `$search`, where `;` is an ordinary character.
 *
 * Keywords (`eq`, `and`, `asc`, …) are case-insensitive and belong to the `Identifier` category
 * so that the parser can accept them as property names where no operator can stand.
 */
import { Lexer, createToken, createTokenInstance, type CustomPatternMatcherFunc, type ILexingResult, type IToken, type TokenType } from 'chevrotain';

// ---------------------------------------------------------------------------------------------
// Shared
// ---------------------------------------------------------------------------------------------

/**
 * One space. A one-character pattern is matched by Chevrotain with a character comparison instead
 * of a regular expression, and a run of spaces is skipped space by space just as well.
 */
export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: ' ', group: Lexer.SKIPPED });
/** One tab (see {@link WhiteSpace}). */
export const Tab = createToken({ name: 'Tab', pattern: '\t', group: Lexer.SKIPPED });

// Identifier characters: ASCII letters, digits, `_`, and any non-ASCII character (OData allows
// Unicode letters; the exact class is checked by nobody downstream, so the lexer is permissive).
const ID_START = 'A-Za-z_\\u00AA-\\uFFFF';
const ID_PART = 'A-Za-z0-9_\\u00AA-\\uFFFF';
const SIMPLE_ID = `[${ID_START}][${ID_PART}]*`;
const QUALIFIED_ID = `${SIMPLE_ID}(?:\\.${SIMPLE_ID})*`;

/** A simple or dot-qualified name: `Name`, `Model.Customer`, `geo.distance`. */
export const Identifier = createToken({ name: 'Identifier', pattern: new RegExp(QUALIFIED_ID) });

/**
 * Keywords are not matched by the lexer: it reads them as identifiers, and {@link lex} then
 * re-types an identifier whose text is a keyword: one map lookup instead of a regular expression
 * per keyword per token. The map is keyed by {@link keywordKey}, a number computed from the
 * letters without regard to case (no lower-case copy of the text, no string hashing); the
 * case-sensitive keywords are checked against their one spelling after the lookup.
 */
const KEYWORDS = new Map<number, TokenType>();
/** The exact spelling of each case-sensitive keyword type (`null`, `NaN`, `INF`). */
const CASE_SENSITIVE = new Map<TokenType, string>();

/**
 * A number that identifies a word of 2 to 5 ASCII letters without regard to case (5 bits per
 * letter, and the length), or -1 for any other text.
 */
function keywordKey(text: string): number {
  const length = text.length;
  if (length < 2 || length > 5) return -1;
  let key = length;
  for (let i = 0; i < length; i++) {
    const letter = (text.charCodeAt(i) | 32) - 97; // a = 0 … z = 25, for either case
    if (letter < 0 || letter > 25) return -1;
    key = (key << 5) | letter;
  }
  return key;
}

/** The spelling of each keyword type (`Eq` is `eq`), for the language service's completions. */
const SPELLINGS = new Map<TokenType, string>();

function keyword(name: string, word: string, caseSensitive = false, extraCategories: TokenType[] = []): TokenType {
  const type = createToken({ name, pattern: Lexer.NA, categories: [Identifier, ...extraCategories] });
  KEYWORDS.set(keywordKey(word), type);
  SPELLINGS.set(type, word);
  if (caseSensitive) CASE_SENSITIVE.set(type, word);
  return type;
}

/** How the keyword type `type` is spelt (`eq` for `Eq`), or `undefined` for any other token type. */
export function keywordSpelling(type: TokenType): string | undefined {
  return SPELLINGS.get(type);
}

/** Every keyword type with its spelling. */
export function keywordSpellings(): ReadonlyMap<TokenType, string> {
  return SPELLINGS;
}

/** The keyword type that `text` spells, if any. */
function keywordType(text: string): TokenType | undefined {
  const type = KEYWORDS.get(keywordKey(text));
  if (type === undefined) return undefined;
  const exact = CASE_SENSITIVE.get(type);
  return exact === undefined || exact === text ? type : undefined;
}

// Operator categories, so that the parser can match a whole precedence tier at once.
export const BinaryOperatorToken = createToken({ name: 'BinaryOperator', pattern: Lexer.NA });
/** `not` and `-` before an operand. */
export const PrefixOperatorToken = createToken({ name: 'PrefixOperator', pattern: Lexer.NA });
/** `has` and `in` after an operand (Primary precedence). */
export const PostfixOperatorToken = createToken({ name: 'PostfixOperator', pattern: Lexer.NA });
/** Every literal token. */
export const LiteralToken = createToken({ name: 'Literal', pattern: Lexer.NA });

const operator = (name: string, word: string): TokenType => keyword(name, word, false, [BinaryOperatorToken]);

export const And = operator('And', 'and');
export const Or = operator('Or', 'or');
export const Eq = operator('Eq', 'eq');
export const Ne = operator('Ne', 'ne');
export const Gt = operator('Gt', 'gt');
export const Ge = operator('Ge', 'ge');
export const Lt = operator('Lt', 'lt');
export const Le = operator('Le', 'le');
export const Add = operator('Add', 'add');
export const Sub = operator('Sub', 'sub');
export const Mul = operator('Mul', 'mul');
export const Div = operator('Div', 'div');
export const DivBy = operator('DivBy', 'divby');
export const Mod = operator('Mod', 'mod');
export const Has = keyword('Has', 'has', false, [PostfixOperatorToken]);
export const In = keyword('In', 'in', false, [PostfixOperatorToken]);
export const Not = keyword('Not', 'not', false, [PrefixOperatorToken]);
export const Asc = keyword('Asc', 'asc');
export const Desc = keyword('Desc', 'desc');
export const As = keyword('As', 'as');
export const True = keyword('True', 'true', false, [LiteralToken]);
export const False = keyword('False', 'false', false, [LiteralToken]);
/** `null` is case-sensitive (ABNF `%s"null"`), as are `NaN` and `INF`. */
export const Null = keyword('Null', 'null', true, [LiteralToken]);
export const NaN = keyword('NaN', 'NaN', true, [LiteralToken]);
export const Inf = keyword('Inf', 'INF', true, [LiteralToken]);
export const MinusInf = createToken({ name: 'MinusInf', pattern: /-INF/, longer_alt: Identifier, categories: [LiteralToken] });

/** `duration'…'`, `binary'…'`, `geography'…'`, `geometry'…'` and enum literals `Ns.Type'…'`. */
export const PrefixedString = createToken({ name: 'PrefixedString', pattern: Lexer.NA, categories: [LiteralToken] });

/** A single-quoted string literal with `''` escapes. */
export const StringLiteral = createToken({ name: 'StringLiteral', pattern: /'(?:[^']|'')*'/, categories: [LiteralToken] });
/** A JSON string, used inside JSON arrays and objects. */
export const JsonString = createToken({ name: 'JsonString', pattern: /"(?:[^"\\]|\\.)*"/ });

const DIGITS = [...'0123456789'];
const HEX_DIGITS = [...DIGITS, ...'ABCDEFabcdef'];

/**
 * A regular-expression token pattern that is tried only where `possible(text, offset)`, a check of
 * a character or two, says it can match. Each of the date, time and GUID literals below starts with
 * a digit (or a hex letter) like numbers and names do; without the check, every number and every
 * name starting with `a`–`f` would first fail up to four regular expressions.
 */
function guarded(pattern: RegExp, possible: (text: string, offset: number) => boolean): CustomPatternMatcherFunc {
  const sticky = new RegExp(pattern.source, 'y');
  return (text, offset) => {
    if (!possible(text, offset)) return null;
    sticky.lastIndex = offset;
    return sticky.exec(text);
  };
}

/** `-?\d{4,}-` at `offset`: how a date (and a date-time offset) starts. */
function startsDate(text: string, offset: number): boolean {
  const first = text.charCodeAt(offset) === 45 /* - */ ? offset + 1 : offset;
  let end = first;
  for (let c = text.charCodeAt(end); c >= 48 && c <= 57; c = text.charCodeAt(++end));
  return end - first >= 4 && text.charCodeAt(end) === 45;
}

export const DateTimeOffsetLiteral = createToken({
  name: 'DateTimeOffsetLiteral',
  pattern: { exec: guarded(/-?\d{4,}-\d\d-\d\d[Tt]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[Zz]|[+-]\d\d:\d\d)/, startsDate) },
  line_breaks: false,
  start_chars_hint: ['-', ...DIGITS],
  categories: [LiteralToken],
});
export const GuidLiteral = createToken({
  name: 'GuidLiteral',
  pattern: {
    exec: guarded(/[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/, (text, offset) => text.charCodeAt(offset + 8) === 45 /* - */),
  },
  line_breaks: false,
  start_chars_hint: HEX_DIGITS,
  categories: [LiteralToken],
});
export const DateLiteral = createToken({
  name: 'DateLiteral',
  pattern: { exec: guarded(/-?\d{4,}-\d\d-\d\d/, startsDate) },
  line_breaks: false,
  start_chars_hint: ['-', ...DIGITS],
  categories: [LiteralToken],
});
export const TimeOfDayLiteral = createToken({
  name: 'TimeOfDayLiteral',
  pattern: { exec: guarded(/\d\d:\d\d(?::\d\d(?:\.\d+)?)?/, (text, offset) => text.charCodeAt(offset + 2) === 58 /* : */) },
  line_breaks: false,
  start_chars_hint: DIGITS,
  categories: [LiteralToken],
});
/** Integers, decimals and doubles, with an optional sign directly attached. */
export const NumberLiteral = createToken({ name: 'NumberLiteral', pattern: /[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/, categories: [LiteralToken] });

export const DollarName = createToken({ name: 'DollarName', pattern: /\$[A-Za-z]+/ });
export const AtName = createToken({ name: 'AtName', pattern: new RegExp(`@${QUALIFIED_ID}(?:#${SIMPLE_ID})?`) });

export const LParen = createToken({ name: 'LParen', pattern: /\(/ });
export const RParen = createToken({ name: 'RParen', pattern: /\)/ });
export const LBracket = createToken({ name: 'LBracket', pattern: /\[/ });
export const RBracket = createToken({ name: 'RBracket', pattern: /]/ });
export const LBrace = createToken({ name: 'LBrace', pattern: /\{/ });
export const RBrace = createToken({ name: 'RBrace', pattern: /}/ });
export const Comma = createToken({ name: 'Comma', pattern: /,/ });
export const Semicolon = createToken({ name: 'Semicolon', pattern: /;/ });
export const Colon = createToken({ name: 'Colon', pattern: /:/ });
export const Slash = createToken({ name: 'Slash', pattern: /\// });
export const Equals = createToken({ name: 'Equals', pattern: /=/ });
export const DotStar = createToken({ name: 'DotStar', pattern: /\.\*/ });
export const Star = createToken({ name: 'Star', pattern: /\*/ });
export const Minus = createToken({ name: 'Minus', pattern: /-/, categories: [PrefixOperatorToken] });

// ---------------------------------------------------------------------------------------------
// $search nested in $expand/$select options: `$search=` switches the lexer into search mode.
// ---------------------------------------------------------------------------------------------

const matchSearchOptionStart: CustomPatternMatcherFunc = (text, offset) => {
  // Only directly after `(` or `;` (white space allowed): the start of a nested option.
  let before = offset - 1;
  while (before >= 0 && (text.charCodeAt(before) === 32 || text.charCodeAt(before) === 9)) before--;
  if (before < 0) return null;
  const c = text.charCodeAt(before);
  if (c !== 40 /* ( */ && c !== 59 /* ; */) return null;
  const match = /\$?search=/iy;
  match.lastIndex = offset;
  return match.exec(text);
};

/** `$search=` (or `search=`) at the start of a nested option; pushes search mode. */
export const SearchOptionStart = createToken({
  name: 'SearchOptionStart',
  pattern: { exec: matchSearchOptionStart },
  line_breaks: false,
  start_chars_hint: ['$', 's', 'S'],
  push_mode: 'search',
});

export const SearchLParen = createToken({ name: 'SearchLParen', pattern: /\(/, push_mode: 'search' });
export const SearchRParen = createToken({ name: 'SearchRParen', pattern: /\)/, pop_mode: true, categories: [RParen] });
export const SearchEnd = createToken({ name: 'SearchEnd', pattern: /;/, pop_mode: true, categories: [Semicolon] });
export const SearchTopLParen = createToken({
  name: 'SearchTopLParen',
  pattern: /\(/,
  push_mode: 'searchTop',
  categories: [SearchLParen],
});
export const SearchTopRParen = createToken({ name: 'SearchTopRParen', pattern: /\)/, pop_mode: true, categories: [SearchRParen] });

/** A search word: anything but white space, parentheses, `"` and `;`, not starting with `'`. */
export const SearchWord = createToken({ name: 'SearchWord', pattern: /[^\s()";'][^\s()";]*/ });
/** In a top-level `$search`, `;` is an ordinary character (it was percent-encoded in the URL). */
export const SearchTopWord = createToken({ name: 'SearchTopWord', pattern: /[^\s()"'][^\s()"]*/, categories: [SearchWord] });
export const SearchAnd = createToken({ name: 'SearchAnd', pattern: /AND/, longer_alt: SearchWord, categories: [SearchWord] });
export const SearchOr = createToken({ name: 'SearchOr', pattern: /OR/, longer_alt: SearchWord, categories: [SearchWord] });
export const SearchNot = createToken({ name: 'SearchNot', pattern: /NOT/, longer_alt: SearchWord, categories: [SearchWord] });
export const SearchTopAnd = createToken({ name: 'SearchTopAnd', pattern: /AND/, longer_alt: SearchTopWord, categories: [SearchAnd] });
export const SearchTopOr = createToken({ name: 'SearchTopOr', pattern: /OR/, longer_alt: SearchTopWord, categories: [SearchOr] });
export const SearchTopNot = createToken({ name: 'SearchTopNot', pattern: /NOT/, longer_alt: SearchTopWord, categories: [SearchNot] });
/** `"a phrase"`; the 4.01 ABNF has no escape for `"` inside a phrase. */
export const SearchPhrase = createToken({ name: 'SearchPhrase', pattern: /"[^"]*"/ });
/** `'…'`: an incomplete search expression sent as a string literal (type-ahead). */
export const SearchIncomplete = createToken({ name: 'SearchIncomplete', pattern: /'(?:[^']|'')*'/ });

const keywordsAndOperators = [Inf, NaN, Null, DivBy, Div, And, Or, Eq, Ne, Gt, Ge, Lt, Le, Has, Add, Sub, Mul, Mod, In, Not, Asc, Desc, As, True, False];

const expressionTokens: TokenType[] = [
  WhiteSpace,
  Tab,
  SearchOptionStart,
  DateTimeOffsetLiteral,
  GuidLiteral,
  DateLiteral,
  TimeOfDayLiteral,
  MinusInf,
  NumberLiteral,
  Identifier,
  StringLiteral,
  JsonString,
  DollarName,
  AtName,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Semicolon,
  Colon,
  Slash,
  Equals,
  DotStar,
  Star,
  Minus,
];

/** Token types that only exist for the parser's categories (never produced by the lexer). */
const categoryOnly: TokenType[] = [PrefixedString, BinaryOperatorToken, PrefixOperatorToken, PostfixOperatorToken, LiteralToken, ...keywordsAndOperators];

export const allTokens: TokenType[] = [
  ...categoryOnly,
  ...expressionTokens,
  SearchLParen,
  SearchRParen,
  SearchEnd,
  SearchTopLParen,
  SearchTopRParen,
  SearchAnd,
  SearchOr,
  SearchNot,
  SearchTopAnd,
  SearchTopOr,
  SearchTopNot,
  SearchPhrase,
  SearchIncomplete,
  SearchWord,
  SearchTopWord,
];

export type LexerMode = 'expression' | 'search' | 'searchTop';

/** The lexer definition (the modes and their tokens). */
export const LEXER_DEFINITION = {
  defaultMode: 'expression',
  modes: {
    expression: expressionTokens,
    search: [WhiteSpace, Tab, SearchLParen, SearchRParen, SearchEnd, SearchAnd, SearchOr, SearchNot, SearchPhrase, SearchIncomplete, SearchWord],
    searchTop: [WhiteSpace, Tab, SearchTopLParen, SearchTopRParen, SearchTopAnd, SearchTopOr, SearchTopNot, SearchPhrase, SearchIncomplete, SearchTopWord],
  },
} satisfies ConstructorParameters<typeof Lexer>[0];

let lexer: Lexer | undefined;

/**
 * The shared lexer, built on first use (its analysis of the token patterns is work an import need
 * not do). Chevrotain's token validations are skipped here (a faster cold start); a test builds
 * the same lexer with them on.
 */
function odataLexer(): Lexer {
  return (lexer ??= new Lexer(LEXER_DEFINITION, { positionTracking: 'onlyOffset', ensureOptimizations: false, skipValidations: true }));
}

/** Chevrotain's `Lexer` with the method that its public `tokenize` calls. */
interface LexerInternals {
  tokenizeInternal?(text: string, mode: string): ILexingResult;
}

/**
 * Tokenizes with the shared lexer. Chevrotain's public `tokenize` first checks that the lexer
 * definition had no errors (a lodash `isEmpty` per call, a measurable part of lexing a short
 * value) and then calls `tokenizeInternal`; this calls the latter directly when Chevrotain has it.
 * The definition is checked once and for all by the Chevrotain self-validations test.
 */
function tokenize(text: string, mode: LexerMode): ILexingResult {
  const shared = odataLexer();
  const internals = shared as unknown as LexerInternals;
  return typeof internals.tokenizeInternal === 'function' && shared.lexerDefinitionErrors.length === 0
    ? internals.tokenizeInternal(text, mode)
    : shared.tokenize(text, mode);
}

/**
 * Lexes `text` in `mode`, then in one pass over the tokens: re-types keywords, and joins a name
 * directly followed by a string (`duration'P1D'`, `Ns.Color'Red'`) into one `PrefixedString`.
 * This is the whole lexing stage of a parse. Lexing errors are returned, not thrown.
 */
export function lex(text: string, mode: LexerMode): ILexingResult {
  const result = tokenize(text, mode);
  if (mode !== 'expression') return result;
  const tokens = result.tokens;
  let joined: IToken[] | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as IToken;
    if (token.tokenType === Identifier) {
      const next = tokens[i + 1];
      if (next !== undefined && next.tokenType === StringLiteral && next.startOffset === token.startOffset + token.image.length) {
        joined ??= tokens.slice(0, i);
        const image = token.image + next.image;
        joined.push(
          createTokenInstance(PrefixedString, image, token.startOffset, next.endOffset ?? Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN),
        );
        i++;
        continue;
      }
      // Keywords are 2 to 5 characters long: skip the lookup for every other identifier.
      if (token.image.length <= 5) {
        const type = keywordType(token.image);
        if (type !== undefined) {
          token.tokenType = type;
          token.tokenTypeIdx = type.tokenTypeIdx as number;
        }
      }
    }
    if (joined !== undefined) joined.push(token);
  }
  if (joined !== undefined) result.tokens = joined;
  return result;
}
