/**
 * Human messages for Chevrotain's recognition errors: "Expected an expression after 'eq'",
 * "Expected ')' after '5' but found ','". The position and option are added by the caller.
 */
import { EOF, type IParserErrorMessageProvider, type IToken, type TokenType } from 'chevrotain';

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  LParen: "'('",
  RParen: "')'",
  SearchLParen: "'('",
  SearchRParen: "')'",
  SearchTopLParen: "'('",
  SearchTopRParen: "')'",
  LBracket: "'['",
  RBracket: "']'",
  LBrace: "'{'",
  RBrace: "'}'",
  Comma: "','",
  Semicolon: "';'",
  SearchEnd: "';'",
  Colon: "':'",
  Slash: "'/'",
  Equals: "'='",
  Star: "'*'",
  DotStar: "'.*'",
  Minus: "'-'",
  Identifier: 'a name',
  SearchOptionStart: "'$search='",
  JsonString: 'a JSON string',
  StringLiteral: 'a string',
  NumberLiteral: 'a number',
  DollarName: 'a $-name',
  AtName: 'an @-name',
  BinaryOperator: 'an operator',
  SearchWord: 'a search term',
  SearchPhrase: 'a search phrase',
  As: "'as'",
  Asc: "'asc'",
  Desc: "'desc'",
  True: "'true'",
  False: "'false'",
};

/** A short description of a token type for messages. */
export function describeTokenType(type: TokenType): string {
  if (type === EOF) return 'the end of the input';
  return DESCRIPTIONS[type.name] ?? `'${type.name.toLowerCase()}'`;
}

function describeFound(token: IToken): string {
  return token.tokenType === EOF ? '' : ` but found '${token.image}'`;
}

function after(previous: IToken | undefined): string {
  return previous && previous.tokenType !== EOF && previous.image !== '' ? ` after '${previous.image}'` : '';
}

/** Entry rules that parse comma-separated lists. */
const LIST_RULES = new Set(['orderByOption', 'selectOption', 'expandOption', 'computeOption']);

/** Rules whose failure means "an expression was expected here". */
const EXPRESSION_RULES = new Set(['primary', 'unaryExpr', 'postfixExpr', 'expression', 'filterOption', 'jsonValue', 'inOperand', 'aliasValueOption']);

export const errorMessages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual, previous }) {
    return `Expected ${describeTokenType(expected)}${after(previous)}${describeFound(actual)}`;
  },
  buildNotAllInputParsedMessage({ firstRedundant, ruleName }) {
    const expected = LIST_RULES.has(ruleName) ? "',' or the end of the input" : 'an operator or the end of the input';
    return `Unexpected '${firstRedundant.image}'; expected ${expected}`;
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, previous, customUserDescription, ruleName }) {
    const found = actual[0] as IToken;
    const what = customUserDescription ?? (EXPRESSION_RULES.has(ruleName) ? 'an expression' : expectedFirstTokens(expectedPathsPerAlt.flat()));
    return `Expected ${what}${after(previous)}${describeFound(found)}`;
  },
  buildEarlyExitMessage({ expectedIterationPaths, actual, previous, customUserDescription, ruleName }) {
    const found = actual[0] as IToken;
    const what = customUserDescription ?? (EXPRESSION_RULES.has(ruleName) ? 'an expression' : expectedFirstTokens(expectedIterationPaths));
    return `Expected ${what}${after(previous)}${describeFound(found)}`;
  },
};

function expectedFirstTokens(paths: readonly (readonly TokenType[])[]): string {
  const names = [...new Set(paths.map((path) => (path[0] ? describeTokenType(path[0]) : 'the end of the input')))];
  if (names.length <= 1) return names[0] ?? 'something else';
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}
