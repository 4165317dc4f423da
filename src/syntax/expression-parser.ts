/**
 * The Chevrotain parser of the expression grammar: `$filter`, `$orderby` and parameter alias
 * values, the options a request most often has. {@link ODataParser} (parser.ts) extends it with
 * the rules of every other option; this one is built on its own, so that a process whose first
 * request has only a `$filter` records and analyses a third of the grammar (a faster cold start).
 * Both build the AST directly with embedded actions: no CST, no visitor pass. One instance of
 * each is created on first use and reused (Chevrotain parsers are stateful but cheap to reset).
 *
 * Two rare paths need rules of the full grammar: the aggregate function in a path
 * (`Sales/aggregate(Amount with sum)`) and `$count(…)` with nested options. Here they signal
 * {@link NeedsFullGrammar}, and parse.ts parses the text again with the full parser, whose
 * overrides of `pathSegment` and `dollarSegment` parse them: a text gets the same tree or the same
 * error whichever parser reads it.
 *
 * Binary operators are collected in a flat loop and arranged by precedence afterwards
 * (see `arrange` in `precedence.ts`), so a chain of 10 000 `or` clauses costs no recursion;
 * only parentheses, brackets and braces recurse, and their depth is bounded before parsing.
 *
 * The rules are recorded by Chevrotain as written (its lookahead, validations and diagrams come
 * from that recording). At run time the hot part of the expression grammar (`expression`,
 * `operand`, the frequent `primary` alternatives, `identifierExpr`, `argumentList`, `argument`)
 * runs as plain methods (`…Body`) that consume the same tokens with `CONSUME` and choose by the
 * next token as the recorded `OR`/`MANY`/`MANY_SEP` would, so that an operand costs no Chevrotain
 * rule invocation. Whenever the next token is not one of the frequent cases, they call the
 * Chevrotain rule itself, so that every error is raised by Chevrotain as before, with the same
 * message and position.
 */
import { EmbeddedActionsParser, tokenMatcher, type IOrAlt, type IToken, type OrMethodOpts, type TokenType } from 'chevrotain';
import type { Expression, OrderByItem, PathSegment, SearchExpression, Span } from './ast.js';
import * as T from './lexer.js';
import { errorMessages } from './messages.js';
import { LazyLookaheadStrategy } from './lazy-lookahead.js';
import { arrange, type OperatorToken } from './precedence.js';
import {
  buildArgument,
  buildCall,
  buildIdentifierExpression,
  buildLiteral,
  buildParenthesized,
  buildPostfix,
  makePath,
  syntaxError,
  type RawArgument,
} from './builders.js';

/**
 * Signalled by {@link ExpressionParser} where a text needs a rule of the full grammar (the aggregate
 * function in a path, `$count(…)` with options): the caller parses the text with the full parser.
 */
export class NeedsFullGrammar extends Error {
  constructor(
    /** Where the construct starts (an offset into the text), and what it is. */
    readonly position: number,
    readonly construct: string,
  ) {
    super('This text needs the full grammar');
  }
}

/** `$search` handling: `'text'` keeps the value as one string, `'grammar'` parses OData search syntax. */
export type SearchMode = 'text' | 'grammar';

export const span = (start: number, end: number): Span => ({ start, end });
export const startOf = (token: IToken): number => token.startOffset;
export const endOf = (token: IToken): number => token.startOffset + token.image.length;

export class ExpressionParser extends EmbeddedActionsParser {
  /** The text being parsed (for `$search` in text mode, which keeps source slices). */
  text = '';
  searchMode: SearchMode = 'text';
  /** Lower-case names of the calls whose arguments are being parsed, innermost last. */
  callStack: string[] = [];
  /** Set just before the type-name argument of `cast`/`isof` is parsed. */
  typeArgumentNext = false;
  /**
   * `search(…)` transformations of `$apply` met in grammar mode: their argument is parsed with the
   * `$search` grammar once the whole option has been parsed (see `run` in parse.ts).
   */
  pendingSearches: { node: { search: SearchExpression }; start: number; end: number }[] = [];

  /** {@link primaryChoices}, once the token categories are set up (by the base constructor). */
  protected readonly primaryChoice = primaryChoices();
  /** 1 for the token types that can start an expression (its first set), by token type index. */
  protected readonly startsExpression = tokenSet([T.PrefixOperatorToken, T.LiteralToken, T.LParen, T.LBracket, T.LBrace, T.Identifier, T.DollarName, T.AtName]);
  /** 1 for the token types that can start an argument (a JSON string or an expression). */
  protected readonly startsArgument = tokenSet([
    T.JsonString,
    T.PrefixOperatorToken,
    T.LiteralToken,
    T.LParen,
    T.LBracket,
    T.LBrace,
    T.Identifier,
    T.DollarName,
    T.AtName,
  ]);

  /** Clears per-parse state; called before every parse. */
  resetState(text: string, searchMode: SearchMode): void {
    this.text = text;
    this.searchMode = searchMode;
    this.callStack = [];
    this.typeArgumentNext = false;
    if (this.pendingSearches.length > 0) this.pendingSearches = [];
  }

  /**
   * @param validate Run Chevrotain's grammar validations (ambiguities, left recursion, …) while
   * building. The shared instance skips them, which halves the cold start; a test builds a parser
   * with them on, so a grammar that fails them never ships.
   */
  constructor(validate = false) {
    super(T.allTokens, {
      maxLookahead: 1,
      errorMessageProvider: errorMessages,
      skipValidations: !validate,
      // Lookahead functions are built on first use: a parse needs few of them (a faster cold start).
      lookaheadStrategy: new LazyLookaheadStrategy({ maxLookahead: 1 }),
    });
    // (A subclass adds its rules, then analyses the whole grammar itself.)
    if (new.target === ExpressionParser) this.performSelfAnalysis();
  }

  // -------------------------------------------------------------------------------------------
  // Entry rules: `$filter`, `$orderby`, parameter alias values
  // -------------------------------------------------------------------------------------------

  /** At run time the body of `expression` directly: one rule invocation less per parse. */
  public filterOption = this.RULE('filterOption', (): Expression => (this.RECORDING_PHASE ? this.SUBRULE(this.expression) : this.expressionBody()));

  public orderByOption = this.RULE('orderByOption', (): OrderByItem[] => {
    const items: OrderByItem[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => items.push(this.SUBRULE(this.orderByItem)) });
    return items;
  });

  /** A parameter alias value (`@p=…`): any expression, including JSON. */
  public aliasValueOption = this.RULE('aliasValueOption', (): Expression => this.SUBRULE(this.jsonValue));

  // -------------------------------------------------------------------------------------------
  // Expressions
  // -------------------------------------------------------------------------------------------

  /**
   * `operand (op operand)*`, arranged by precedence after the loop.
   *
   * The hot loops of the expression grammar are written twice: as `MANY` for Chevrotain's
   * grammar recording (which derives lookahead and diagrams from it), and as a plain `while`
   * over `LA(1)` when parsing, which saves a closure and the repetition machinery per operand.
   * Both consume the same tokens with the same DSL occurrence indices.
   */
  public expression = this.RULE('expression', (): Expression => {
    if (this.RECORDING_PHASE) {
      this.SUBRULE(this.operand);
      this.MANY(() => {
        this.CONSUME(T.BinaryOperatorToken);
        this.SUBRULE2(this.operand);
      });
      return undefined as never;
    }
    return this.expressionBody();
  });

  /**
   * The run-time body of `expression`: `operand (op operand)*`, arranged by precedence after the
   * loop. Operands are parsed by plain method calls ({@link operandBody}), not `SUBRULE`: no
   * Chevrotain rule invocation per operand, nor per parenthesized level.
   */
  protected expressionBody(): Expression {
    const first = this.operandBody();
    if (!tokenMatcher(this.LA(1), T.BinaryOperatorToken)) return first;
    const operands: Expression[] = [first];
    const operators: OperatorToken[] = [];
    do {
      operators.push(this.CONSUME(T.BinaryOperatorToken));
      operands.push(this.operandBody());
    } while (tokenMatcher(this.LA(1), T.BinaryOperatorToken));
    return arrange(operands, operators);
  }

  /**
   * `not` and `-` prefixes (a loop, not recursion), a primary, then `has`/`in` suffixes, which
   * bind tighter than the prefixes (URL 5.1.1.17: both are Primary).
   */
  protected operand = this.RULE('operand', (): Expression => {
    if (this.RECORDING_PHASE) {
      this.MANY(() => this.CONSUME(T.PrefixOperatorToken));
      this.SUBRULE(this.primary);
      this.MANY2(() => {
        this.CONSUME(T.PostfixOperatorToken);
        this.SUBRULE(this.inOperand);
      });
      return undefined as never;
    }
    return this.operandBody();
  });

  /** The run-time body of `operand` (see {@link expressionBody}). */
  protected operandBody(): Expression {
    let prefixes: IToken[] | undefined;
    while (tokenMatcher(this.LA(1), T.PrefixOperatorToken)) (prefixes ??= []).push(this.CONSUME(T.PrefixOperatorToken));
    let left = this.primaryBody();
    while (tokenMatcher(this.LA(1), T.PostfixOperatorToken)) {
      const op = this.CONSUME(T.PostfixOperatorToken);
      left = buildPostfix(op, left, this.SUBRULE(this.inOperand));
    }
    if (prefixes === undefined) return left;
    for (let i = prefixes.length - 1; i >= 0; i--) {
      const prefix = prefixes[i] as IToken;
      left = {
        kind: 'unary',
        operator: prefix.tokenType === T.Not ? 'not' : 'negate',
        operand: left,
        span: span(startOf(prefix), left.span.end),
      };
    }
    return left;
  }

  /**
   * The run-time body of `primary` for its three frequent alternatives (a literal, a
   * parenthesized expression, a name), chosen by the next token exactly as `primary`'s `OR`
   * chooses ({@link primaryChoices}); every other token goes through the `primary` rule itself,
   * so that its alternatives and its errors are Chevrotain's.
   */
  protected primaryBody(): Expression {
    switch (this.primaryChoice[this.LA(1).tokenTypeIdx]) {
      case PrimaryChoice.Literal:
        return buildLiteral(this.CONSUME(T.LiteralToken));
      case PrimaryChoice.Parenthesized: {
        this.CONSUME(T.LParen);
        const inner = this.expressionBody();
        this.CONSUME(T.RParen);
        return inner;
      }
      case PrimaryChoice.Identifier:
        return this.identifierExprBody(this.CONSUME(T.Identifier));
      default:
        return this.SUBRULE(this.primary);
    }
  }

  /** The right side of `in` and `has`: a parenthesized list of literals, a JSON array, or a primary. */
  protected inOperand = this.RULE('inOperand', (): Expression =>
    this.OR(
      (this.inOperandAlternatives ??= {
        IGNORE_AMBIGUITIES: true,
        DEF: [
          {
            ALT: () => {
              const open = this.CONSUME(T.LParen);
              const items: Expression[] = [];
              this.MANY_SEP({ SEP: T.Comma, DEF: () => items.push(this.SUBRULE(this.expression)) });
              const close = this.CONSUME(T.RParen);
              return this.RECORDING_PHASE ? (open as never) : buildParenthesized(items, span(startOf(open), endOf(close)));
            },
          },
          { ALT: () => this.SUBRULE(this.primary) },
        ],
      }),
    ),
  );
  protected inOperandAlternatives: OrMethodOpts<Expression> | undefined;

  protected primary = this.RULE('primary', (): Expression =>
    this.OR(
      (this.primaryAlternatives ??= {
        IGNORE_AMBIGUITIES: true,
        DEF: [
          {
            ALT: () => {
              const token = this.CONSUME(T.LiteralToken);
              return this.RECORDING_PHASE ? (token as never) : buildLiteral(token);
            },
          },
          {
            ALT: () => {
              this.CONSUME(T.LParen);
              const inner = this.SUBRULE(this.expression);
              this.CONSUME(T.RParen);
              return inner;
            },
          },
          { ALT: () => this.SUBRULE(this.jsonArray) },
          { ALT: () => this.SUBRULE(this.jsonObject) },
          { ALT: () => this.SUBRULE(this.identifierExpr) },
          { ALT: () => this.SUBRULE(this.dollarPath) },
          { ALT: () => this.SUBRULE(this.atExpr) },
        ],
        ERR_MSG: 'an expression',
      }),
    ),
  );
  protected primaryAlternatives: OrMethodOpts<Expression> | undefined;

  protected jsonValue = this.RULE('jsonValue', (): Expression => this.OR(this.jsonValueAlternatives()));
  protected jsonValueCache: IOrAlt<Expression>[] | undefined;
  /** A JSON string or any expression (cached: the alternatives capture no per-call state). */
  protected jsonValueAlternatives(): IOrAlt<Expression>[] {
    return (this.jsonValueCache ??= [
      {
        ALT: () => {
          const token = this.CONSUME(T.JsonString);
          return this.RECORDING_PHASE ? (token as never) : buildLiteral(token);
        },
      },
      { ALT: () => this.SUBRULE(this.expression) },
    ]);
  }

  protected jsonArray = this.RULE('jsonArray', (): Expression => {
    const open = this.CONSUME(T.LBracket);
    const items: Expression[] = [];
    this.MANY_SEP({ SEP: T.Comma, DEF: () => items.push(this.SUBRULE(this.jsonValue)) });
    const close = this.CONSUME(T.RBracket);
    return { kind: 'array', items, span: span(startOf(open), endOf(close)) };
  });

  protected jsonObject = this.RULE('jsonObject', (): Expression => {
    const open = this.CONSUME(T.LBrace);
    const members: { name: string; value: Expression; span: Span }[] = [];
    this.MANY_SEP({
      SEP: T.Comma,
      DEF: () => {
        const name = this.CONSUME(T.JsonString);
        this.CONSUME(T.Colon);
        const value = this.SUBRULE(this.jsonValue);
        this.ACTION(() => {
          const decoded = buildLiteral(name).value as string;
          members.push({ name: decoded, value, span: span(startOf(name), value.span.end) });
        });
      },
    });
    const close = this.CONSUME(T.RBrace);
    return { kind: 'object', members, span: span(startOf(open), endOf(close)) };
  });

  /** `Name…`, `fn(…)`, `Ns.Fn(…)/…`, `case(…)`. Plain loops at run time, as in `expression`. */
  protected identifierExpr = this.RULE('identifierExpr', (): Expression => {
    const first = this.CONSUME(T.Identifier);
    if (this.RECORDING_PHASE) {
      this.OPTION(() => this.SUBRULE(this.argumentList));
      this.MANY(() => {
        this.CONSUME(T.Slash);
        this.SUBRULE(this.pathSegment);
      });
      return undefined as never;
    }
    return this.identifierExprBody(first);
  });

  /** The run-time body of `identifierExpr` after its first token. */
  protected identifierExprBody(first: IToken): Expression {
    // A bare qualified name is a type cast that needs a following path, except as the type argument of cast/isof.
    const typeNameAllowed = this.typeArgumentNext;
    this.typeArgumentNext = false;
    let call: { args: RawArgument[]; close: IToken } | undefined;
    if (this.LA(1).tokenType === T.LParen) {
      this.callStack.push(first.image.toLowerCase());
      call = this.argumentListBody();
      this.callStack.pop();
    }
    const segments = this.LA(1).tokenType === T.Slash ? this.pathTail() : [];
    return buildIdentifierExpression(first, call, segments, typeNameAllowed);
  }

  /** `(/ segment)*` at run time: the recorded grammar is the `MANY` of each path rule. */
  protected pathTail(): PathSegment[] {
    const segments: PathSegment[] = [];
    while (this.LA(1).tokenType === T.Slash) {
      this.CONSUME(T.Slash);
      segments.push(this.SUBRULE(this.pathSegment));
    }
    return segments;
  }

  /** `$it`, `$this`, `$root` starting a path. */
  protected dollarPath = this.RULE('dollarPath', (): Expression => {
    const token = this.CONSUME(T.DollarName);
    const segments: PathSegment[] = [];
    this.MANY(() => {
      this.CONSUME(T.Slash);
      segments.push(this.SUBRULE(this.pathSegment));
    });
    return this.ACTION((): Expression => {
      const name = token.image;
      if (name !== '$it' && name !== '$this' && name !== '$root' && name !== '$these') {
        throw syntaxError(`'${name}' cannot start an expression; expected $it, $this, $root or $these`, startOf(token));
      }
      if ((name === '$root' || name === '$these') && segments.length === 0) throw syntaxError(`Expected a path after '${name}'`, endOf(token));
      return makePath({ kind: name }, segments, startOf(token));
    });
  });

  /** `@alias`, `@alias/Path`, `@Ns.Term/…` (an instance annotation of the current resource). */
  protected atExpr = this.RULE('atExpr', (): Expression => {
    const token = this.CONSUME(T.AtName);
    const segments: PathSegment[] = [];
    this.MANY(() => {
      this.CONSUME(T.Slash);
      segments.push(this.SUBRULE(this.pathSegment));
    });
    return this.ACTION((): Expression => {
      const name = token.image.slice(1);
      const tokenSpan = span(startOf(token), endOf(token));
      if (name.includes('.') || name.includes('#')) {
        return makePath({ kind: 'implicit' }, [{ kind: 'annotation', term: name, span: tokenSpan }, ...segments], tokenSpan.start);
      }
      if (segments.length === 0) return { kind: 'alias', name, span: tokenSpan };
      return makePath({ kind: 'alias', name }, segments, tokenSpan.start);
    });
  });

  /**
   * One segment after `/`. Here without the aggregate function (`aggregate(…)`), which the full
   * parser's override parses: it signals {@link NeedsFullGrammar} instead.
   */
  protected pathSegment = this.RULE('pathSegment', (): PathSegment =>
    this.OR([
      {
        ALT: () => {
          const name = this.CONSUME(T.Identifier);
          let call: { args: RawArgument[]; close: IToken } | undefined;
          if (this.RECORDING_PHASE) {
            this.OPTION(() => this.SUBRULE(this.argumentList));
          } else if (this.LA(1).tokenType === T.LParen) {
            if (name.image === 'aggregate') throw new NeedsFullGrammar(name.startOffset, 'the aggregate function in a path (aggregate(…))');
            call = this.SUBRULE(this.argumentList);
          }
          return this.ACTION(() => namedSegment(name, call));
        },
      },
      { ALT: () => this.SUBRULE(this.dollarSegment) },
      {
        ALT: () => {
          const token = this.CONSUME(T.AtName);
          return { kind: 'annotation', term: token.image.slice(1), span: span(startOf(token), endOf(token)) };
        },
      },
    ]),
  );

  /**
   * `$count` or `$filter(…)` inside a path. Here without `$count(…)`'s nested options, which the
   * full parser's override parses: it signals {@link NeedsFullGrammar} instead.
   */
  protected dollarSegment = this.RULE('dollarSegment', (): PathSegment => {
    const token = this.CONSUME(T.DollarName);
    let predicate: Expression | undefined;
    let close: IToken | undefined;
    // (The full parser's choice, with its lookahead: `$count(` starts the nested options there.)
    this.OPTION(() => {
      this.OR([
        {
          GATE: () => token.image === '$count',
          ALT: () => {
            this.CONSUME2(T.LParen);
            if (!this.RECORDING_PHASE) throw new NeedsFullGrammar(token.startOffset, '$count with nested options ($count(…))');
          },
        },
        {
          GATE: () => token.image === '$filter',
          ALT: () => {
            this.CONSUME(T.LParen);
            predicate = this.SUBRULE(this.expression);
            close = this.CONSUME(T.RParen);
          },
        },
      ]);
    });
    return this.ACTION((): PathSegment => {
      const start = startOf(token);
      if (token.image === '$count') return { kind: 'count', span: span(start, endOf(token)) };
      return filterSegment(token, predicate, close);
    });
  });

  /** `( [arg (, arg)*] )` where `arg` is `expr`, `name=expr` or `expr:expr` (lambdas and `case`). */
  protected argumentList = this.RULE('argumentList', (): { args: RawArgument[]; close: IToken } => {
    if (!this.RECORDING_PHASE) return this.argumentListBody();
    this.CONSUME(T.LParen);
    const args: RawArgument[] = [];
    this.MANY_SEP({ SEP: T.Comma, DEF: () => args.push(this.SUBRULE(this.argument)) });
    const close = this.CONSUME(T.RParen);
    return { args, close };
  });

  /**
   * The run-time body of `argumentList`, as `MANY_SEP` runs it: a first argument if the next token
   * can start one, then one after each comma; then `)`.
   */
  protected argumentListBody(): { args: RawArgument[]; close: IToken } {
    this.CONSUME(T.LParen);
    const args: RawArgument[] = [];
    if (this.startsArgument[this.LA(1).tokenTypeIdx] === 1) {
      args.push(this.argumentBody());
      while (this.LA(1).tokenType === T.Comma) {
        this.CONSUME(T.Comma);
        args.push(this.argumentBody());
      }
    }
    const close = this.CONSUME(T.RParen);
    return { args, close };
  }

  /**
   * The run-time body of `argument` when the next token starts an expression; any other token
   * (a JSON string, or one that starts no argument: an error) goes through the `argument` rule.
   */
  protected argumentBody(): RawArgument {
    const first = this.LA(1);
    if (this.startsExpression[first.tokenTypeIdx] !== 1) return this.SUBRULE(this.argument);
    const call = this.callStack[this.callStack.length - 1];
    const next = this.LA(2);
    this.typeArgumentNext =
      (call === 'cast' || call === 'isof' || call === 'collection') &&
      tokenMatcher(first, T.Identifier) &&
      (tokenMatcher(next, T.Comma) || tokenMatcher(next, T.RParen));
    const value = this.expressionBody();
    const separator = this.LA(1);
    if (separator.tokenType !== T.Equals && separator.tokenType !== T.Colon) return buildArgument(value, undefined, undefined);
    this.CONSUME(separator.tokenType);
    return buildArgument(value, separator, this.SUBRULE2(this.jsonValue));
  }

  /** `value`, `name=value` or `value:value` (lambdas and `case`); which one is decided after parsing. */
  protected argument = this.RULE('argument', (): RawArgument => {
    if (!this.RECORDING_PHASE) {
      const call = this.callStack[this.callStack.length - 1];
      const next = this.LA(2);
      this.typeArgumentNext =
        (call === 'cast' || call === 'isof' || call === 'collection') &&
        tokenMatcher(this.LA(1), T.Identifier) &&
        (tokenMatcher(next, T.Comma) || tokenMatcher(next, T.RParen));
    }
    // The alternatives of jsonValue, inlined: one rule invocation less per argument.
    const value = this.OR(this.jsonValueAlternatives());
    let separator: IToken | undefined;
    let second: Expression | undefined;
    this.OPTION(() => {
      separator = this.OR2((this.separatorAlternatives ??= [{ ALT: () => this.CONSUME(T.Equals) }, { ALT: () => this.CONSUME(T.Colon) }]));
      second = this.SUBRULE2(this.jsonValue);
    });
    if (this.RECORDING_PHASE) return value as never;
    return buildArgument(value, separator, second);
  });
  protected separatorAlternatives: IOrAlt<IToken>[] | undefined;

  // -------------------------------------------------------------------------------------------
  // $orderby, $compute
  // -------------------------------------------------------------------------------------------

  protected orderByItem = this.RULE('orderByItem', (): OrderByItem => {
    const expression = this.SUBRULE(this.expression);
    let direction: 'asc' | 'desc' = 'asc';
    let end = 0;
    this.OPTION(() => {
      this.OR([
        {
          ALT: () => {
            end = endOf(this.CONSUME(T.Asc));
          },
        },
        {
          ALT: () => {
            end = endOf(this.CONSUME(T.Desc));
            direction = 'desc';
          },
        },
      ]);
    });
    return this.ACTION(() => ({
      kind: 'orderByItem',
      expression,
      direction,
      span: span(expression.span.start, Math.max(end, expression.span.end)),
    }));
  });
}

/** `$filter(…)` in a path; any other `$` name there (after `$count`, told apart by the caller) is an error. */
export function filterSegment(token: IToken, predicate: Expression | undefined, close: IToken | undefined): PathSegment {
  if (token.image === '$filter' && predicate !== undefined && close !== undefined) {
    return { kind: 'filter', predicate, span: span(startOf(token), endOf(close)) };
  }
  throw syntaxError(`'${token.image}' is not a path segment; expected $count or $filter(…)`, startOf(token));
}

/** A path segment that starts with a name: a member, or a function applied to the path (`name(…)`). */
export function namedSegment(name: IToken, call: { readonly args: RawArgument[]; readonly close: IToken } | undefined): PathSegment {
  if (call === undefined) return { kind: 'member', name: name.image, span: span(startOf(name), endOf(name)) };
  const built = buildCall(name, call.args, endOf(call.close), true);
  if (built.kind !== 'segment') throw syntaxError(`Function '${name.image}' cannot be applied to a path`, startOf(name));
  return built.segment;
}

/** What {@link ExpressionParser.primaryBody} does with a token. */
const PrimaryChoice = {
  /** Through the `primary` rule (its other alternatives, and its errors). */
  Rule: 0,
  Literal: 1,
  Parenthesized: 2,
  Identifier: 3,
} as const;
type PrimaryChoice = (typeof PrimaryChoice)[keyof typeof PrimaryChoice];

/**
 * The alternative of `primary` that each token type starts, by token type index, as Chevrotain's
 * LL(1) choice table for that `OR` resolves it: the first alternative whose first token type (or
 * category) matches wins. `true`, `null`, … are both literals and names: the literal comes first.
 * Built once the parser has set up the token categories.
 */
function primaryChoices(): Uint8Array {
  const table = new Uint8Array(T.allTokens.reduce((max, type) => Math.max(max, type.tokenTypeIdx ?? 0), 0) + 1);
  const order: [TokenType, PrimaryChoice][] = [
    [T.LiteralToken, PrimaryChoice.Literal],
    [T.LParen, PrimaryChoice.Parenthesized],
    [T.LBracket, PrimaryChoice.Rule],
    [T.LBrace, PrimaryChoice.Rule],
    [T.Identifier, PrimaryChoice.Identifier],
  ];
  const decided = new Set<number>();
  for (const [type, choice] of order) {
    for (const idx of [type.tokenTypeIdx as number, ...((type.categoryMatches as number[] | undefined) ?? [])]) {
      if (decided.has(idx)) continue;
      decided.add(idx);
      table[idx] = choice;
    }
  }
  return table;
}

/** 1 for `types` and the token types in their categories, by token type index. */
export function tokenSet(types: readonly TokenType[]): Uint8Array {
  const table = new Uint8Array(T.allTokens.reduce((max, type) => Math.max(max, type.tokenTypeIdx ?? 0), 0) + 1);
  for (const type of types) {
    for (const idx of [type.tokenTypeIdx as number, ...((type.categoryMatches as number[] | undefined) ?? [])]) table[idx] = 1;
  }
  return table;
}

let shared: ExpressionParser | undefined;

/** The shared expression parser, built on first use. Not re-entrant (as {@link sharedParser}). */
export function sharedExpressionParser(): ExpressionParser {
  return (shared ??= new ExpressionParser());
}
