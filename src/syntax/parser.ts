/**
 * The Chevrotain parser for every query option: the expression grammar of expression-parser.ts
 * (`$filter`, `$orderby`, alias values) and the rules of `$select`, `$expand`, `$compute`,
 * `$apply`, `$search` and resource path segments. One instance is created on first use and
 * reused (Chevrotain parsers are stateful but cheap to reset). It builds the AST directly with
 * embedded actions: no CST, no visitor pass.
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
import { EOF, tokenMatcher, type IToken, type OrMethodOpts, type TokenType } from 'chevrotain';
import type {
  AggregateItem,
  ApplyTransformation,
  NestItem,
  ComputeItem,
  ExpandItem,
  Expression,
  HierarchyReference,
  NestedOptions,
  MemberPath,
  OrderByItem,
  PathSegment,
  ResourceSegment,
  RollupElement,
  SearchExpression,
  SelectItem,
} from './ast.js';
import * as T from './lexer.js';
import { buildNameSegment, buildSystemSegment } from './resource-builders.js';
import {
  assembleItemPath,
  checkNestedNumber,
  decodeCount,
  buildNestedOptions,
  lastEnd,
  syntaxError,
  type ItemPath,
  type ItemStep,
  type NestedOptionValue,
  type RawArgument,
} from './builders.js';
import {
  OTHER_BODY,
  OTHER_TRANSFORMATIONS,
  buildAggregateItem,
  aggregationPath,
  checkAggregateItems,
  checkAlias,
  checkComputeAs,
  checkGroupingPath,
  checkNestPath,
  checkHierarchyTail,
  checkRootPath,
  endOfFrom,
  startsTransformation,
  transformationKind,
  type RawFrom,
  type TransformationBody,
  type TransformationKind,
} from './apply-builders.js';
import { ExpressionParser, endOf, filterSegment, namedSegment, span, startOf } from './expression-parser.js';

export type { SearchMode } from './expression-parser.js';

export class ODataParser extends ExpressionParser {
  /**
   * @param validate Run Chevrotain's grammar validations (ambiguities, left recursion, …) while
   * building (see {@link ExpressionParser}).
   */
  constructor(validate = false) {
    super(validate);
    this.performSelfAnalysis();
  }

  // -------------------------------------------------------------------------------------------
  // Entry rules of the other options
  // -------------------------------------------------------------------------------------------

  public selectOption = this.RULE('selectOption', (): SelectItem[] => {
    const items: SelectItem[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => items.push(this.SUBRULE(this.selectItem)) });
    return items;
  });

  public expandOption = this.RULE('expandOption', (): ExpandItem[] => {
    const items: ExpandItem[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => items.push(this.SUBRULE(this.expandItem)) });
    return items;
  });

  public computeOption = this.RULE('computeOption', (): ComputeItem[] => {
    const items: ComputeItem[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => items.push(this.SUBRULE(this.computeItem)) });
    return items;
  });

  /** `$apply`: transformations separated by `/`. */
  public applyOption = this.RULE('applyOption', (): ApplyTransformation[] => this.SUBRULE(this.applyExpr));

  /** `$search` in grammar mode, lexed in `searchTop` mode. */
  public searchOption = this.RULE('searchOption', (): SearchExpression =>
    this.OR([{ ALT: () => this.SUBRULE(this.searchIncomplete) }, { ALT: () => this.SUBRULE(this.searchExpr) }]),
  );

  /**
   * One segment of a resource path (parseResourcePath splits the path at its slashes first, as a
   * URL is split before its segments are decoded): a name with up to two parenthesised lists (keys
   * or function parameters, told apart by the binder), a `$` segment with its arguments
   * (`$filter(…)`, `$crossjoin(…)`), or one literal (a key-as-segment value, an ordinal index).
   */
  public resourceSegmentOption = this.RULE('resourceSegmentOption', (): ResourceSegment =>
    this.OR([
      {
        ALT: () => {
          const name = this.CONSUME(T.Identifier);
          const lists: { args: RawArgument[]; close: IToken }[] = [];
          this.OPTION(() => {
            lists.push(this.SUBRULE(this.argumentList));
            this.OPTION2(() => lists.push(this.SUBRULE2(this.argumentList)));
          });
          return this.ACTION(() => buildNameSegment(name, lists, this.text));
        },
      },
      {
        ALT: () => {
          const token = this.CONSUME(T.DollarName);
          let list: { args: RawArgument[]; close: IToken } | undefined;
          this.OPTION3(() => {
            list = this.SUBRULE3(this.argumentList);
          });
          return this.ACTION(() => buildSystemSegment(token, list));
        },
      },
      {
        ALT: () => {
          const token = this.CONSUME(T.LiteralToken);
          return this.ACTION((): ResourceSegment => ({ kind: 'text', text: token.image, span: span(startOf(token), endOf(token)) }));
        },
      },
    ]),
  );

  // -------------------------------------------------------------------------------------------
  // Path segments with the aggregate function and `$count(…)`'s options
  // -------------------------------------------------------------------------------------------

  /** One segment after `/`. */
  protected override pathSegment = this.OVERRIDE_RULE('pathSegment', (): PathSegment =>
    this.OR([
      {
        ALT: () => {
          const name = this.CONSUME(T.Identifier);
          let call: { args: RawArgument[]; close: IToken } | undefined;
          let aggregate: { item: AggregateItem; close: IToken } | undefined;
          if (this.RECORDING_PHASE) {
            this.OPTION(() => {
              this.OR2({
                IGNORE_AMBIGUITIES: true,
                DEF: [{ ALT: () => this.SUBRULE(this.aggregateFunction) }, { ALT: () => this.SUBRULE(this.argumentList) }],
              });
            });
          } else if (this.LA(1).tokenType === T.LParen) {
            // As the recorded OPTION and OR choose: `aggregate(` (case-sensitive) is the aggregate function.
            if (name.image === 'aggregate') aggregate = this.SUBRULE(this.aggregateFunction);
            else call = this.SUBRULE(this.argumentList);
          }
          return this.ACTION((): PathSegment => {
            if (aggregate !== undefined) return { kind: 'aggregate', item: aggregate.item, span: span(startOf(name), endOf(aggregate.close)) };
            return namedSegment(name, call);
          });
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

  /** `$count`, `$count(…)` or `$filter(…)` inside a path. */
  protected override dollarSegment = this.OVERRIDE_RULE('dollarSegment', (): PathSegment => {
    const token = this.CONSUME(T.DollarName);
    let options: NestedOptions | undefined;
    let predicate: Expression | undefined;
    let close: IToken | undefined;
    this.OPTION(() => {
      this.OR([
        {
          GATE: () => token.image === '$count',
          ALT: () => {
            options = this.SUBRULE(this.nestedOptions);
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
      if (token.image === '$count') {
        if (options === undefined) return { kind: 'count', span: span(start, endOf(token)) };
        for (const key of Object.keys(options)) {
          if (key !== 'filter' && key !== 'search' && key !== 'kind' && key !== 'span') {
            throw syntaxError(`Only $filter and $search are allowed in $count(...)`, options.span.start, 'invalid_nested_option');
          }
        }
        return {
          kind: 'count',
          ...(options.filter === undefined ? {} : { filter: options.filter }),
          ...(options.search === undefined ? {} : { search: options.search }),
          span: span(start, options.span.end),
        };
      }
      return filterSegment(token, predicate, close);
    });
  });

  private computeItem = this.RULE('computeItem', (): ComputeItem => {
    const expression = this.SUBRULE(this.expression);
    this.CONSUME(T.As);
    const alias = this.CONSUME(T.Identifier);
    return this.ACTION(() => {
      if (alias.image.includes('.')) throw syntaxError(`A $compute alias must be a simple name`, startOf(alias));
      return { kind: 'computeItem', expression, alias: alias.image, span: span(expression.span.start, endOf(alias)) };
    });
  });

  // -------------------------------------------------------------------------------------------
  // $apply (OData Extension for Data Aggregation 4.0). Its words (`with`, `from`, `as`, the
  // transformation and method names) are case-sensitive; the lexer reads them as identifiers and
  // the actions check them (apply-builders.ts). None of these rules is on the `$filter` path but
  // `aggregateFunction`, reached only by a path segment spelled `aggregate(`.
  // -------------------------------------------------------------------------------------------

  /** `trafo (/ trafo)*` */
  private applyExpr = this.RULE('applyExpr', (): ApplyTransformation[] => {
    const steps: ApplyTransformation[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Slash, DEF: () => steps.push(this.SUBRULE(this.applyTransformation)) });
    return steps;
  });

  /** `name`, then `( … )` whose content depends on the name (`identity` has none). */
  private applyTransformation = this.RULE('applyTransformation', (): ApplyTransformation => {
    const name = this.CONSUME(T.Identifier);
    const kind = this.ACTION(() => transformationKind(name));
    let result: ApplyTransformation | undefined;
    this.OPTION({
      GATE: () => kind !== 'identity',
      DEF: () => {
        const open = this.CONSUME(T.LParen);
        // The argument of search(…) is skipped as balanced tokens here, and read as $search text
        // (or, in grammar mode, parsed with the $search grammar after this parse).
        const body: TransformationBody = kind === 'search' && !this.RECORDING_PHASE ? this.searchArgument() : this.OR(this.transformationAlternatives(kind));
        const close = this.CONSUME(T.RParen);
        result = this.ACTION(() => this.buildTransformation(name, kind, body, open, close));
      },
    });
    return this.ACTION((): ApplyTransformation => {
      if (result !== undefined) return result;
      if (kind === 'identity') return { kind: 'identity', span: span(startOf(name), endOf(name)) };
      throw syntaxError(`Expected '(' after '${name.image}'`, endOf(name));
    });
  });

  private transformationCache: OrMethodOpts<TransformationBody> | undefined;
  /** The kind of the transformation whose content is being chosen (read by the gates below). */
  private currentTransformation: TransformationKind | undefined;
  /** The alternatives of a transformation's content, gated by its name (cached: they capture no per-call state). */
  private transformationAlternatives(kind: TransformationKind | undefined): OrMethodOpts<TransformationBody> {
    this.currentTransformation = kind;
    if (this.transformationCache !== undefined) return this.transformationCache;
    const is =
      (...names: TransformationKind[]) =>
      (): boolean =>
        this.currentTransformation !== undefined && names.includes(this.currentTransformation);
    this.transformationCache = {
      IGNORE_AMBIGUITIES: true,
      ERR_MSG: 'the arguments of the transformation',
      DEF: [
        { GATE: is('aggregate'), ALT: (): TransformationBody => ({ kind: 'aggregate', items: this.SUBRULE(this.aggregateList) }) },
        { GATE: is('groupby'), ALT: (): TransformationBody => this.SUBRULE(this.groupbyArguments) },
        { GATE: is('filter'), ALT: (): TransformationBody => ({ kind: 'filter', expression: this.SUBRULE(this.expression) }) },
        {
          GATE: is('compute'),
          ALT: (): TransformationBody => {
            const items = this.SUBRULE(this.computeOption);
            return this.ACTION(() => ({ kind: 'compute', items: checkComputeAs(items, this.text) }));
          },
        },
        { GATE: is('orderby'), ALT: (): TransformationBody => ({ kind: 'orderby', items: this.SUBRULE(this.orderByOption) }) },
        {
          GATE: is('top', 'skip'),
          ALT: (): TransformationBody => {
            const which = this.currentTransformation as 'top' | 'skip';
            const value = this.CONSUME(T.NumberLiteral);
            return this.ACTION(() => {
              if (!/^\d+$/.test(value.image))
                throw syntaxError(`${which}(…) takes a non-negative integer, but was given '${value.image}'`, startOf(value), 'invalid_option_value');
              return { kind: which, count: decodeCount(value.image, `${which}(…)`, startOf(value)) };
            });
          },
        },
        { GATE: is('concat'), ALT: (): TransformationBody => this.SUBRULE(this.concatArguments) },
        {
          GATE: is('topcount', 'bottomcount', 'toppercent', 'bottompercent', 'topsum', 'bottomsum'),
          ALT: (): TransformationBody => this.SUBRULE(this.rankArguments),
        },
        { GATE: is('join', 'outerjoin'), ALT: (): TransformationBody => this.SUBRULE(this.joinArguments) },
        { GATE: is('nest'), ALT: (): TransformationBody => this.SUBRULE(this.nestList) },
        { GATE: is('addnested'), ALT: (): TransformationBody => this.SUBRULE(this.addnestedArguments) },
        { GATE: is('ancestors', 'descendants'), ALT: (): TransformationBody => this.SUBRULE(this.hierarchyArguments) },
        { GATE: is('traverse'), ALT: (): TransformationBody => this.SUBRULE(this.traverseArguments) },
        // Last: it may be empty (`Ns.fn()`).
        { GATE: is('custom'), ALT: (): TransformationBody => this.SUBRULE(this.customFunctionArguments) },
      ],
    };
    return this.transformationCache;
  }

  /** The transformation node, once its closing parenthesis is read. */
  private buildTransformation(name: IToken, kind: TransformationKind, body: TransformationBody, open: IToken, close: IToken): ApplyTransformation {
    const at = span(startOf(name), endOf(close));
    if (OTHER_TRANSFORMATIONS.has(kind)) return { kind: 'other', name: name.image, text: this.text.slice(endOf(open), startOf(close)), span: at };
    if (body.kind === 'join') return { ...body, kind: kind as 'join' | 'outerjoin', span: at };
    if (body.kind === 'topcount') {
      // The rank family shares one rule: the kind is the name.
      return { ...body, kind: kind as 'topcount', span: at };
    }
    // So do ancestors and descendants.
    if (body.kind === 'descendants') return { ...body, kind: kind as 'ancestors' | 'descendants', span: at };
    const node = { ...body, span: at } as ApplyTransformation;
    if (node.kind === 'search' && this.searchMode === 'grammar') {
      this.pendingSearches.push({ node: node as { search: SearchExpression }, start: node.search.span.start, end: node.search.span.end });
    }
    return node;
  }

  /** The argument of `search(…)`, at run time: the tokens up to the matching `)`, kept as text. */
  private searchArgument(): TransformationBody {
    const first = this.LA(1);
    let last: IToken | undefined;
    let depth = 0;
    for (let next = first; next.tokenType !== EOF; next = this.LA(1)) {
      if (tokenMatcher(next, T.LParen)) depth++;
      else if (tokenMatcher(next, T.RParen)) {
        if (depth === 0) break;
        depth--;
      }
      last = next;
      this.SKIP_TOKEN();
    }
    if (last === undefined) throw syntaxError(`Expected a search expression in search(…)`, first.tokenType === EOF ? this.text.length : startOf(first));
    const at = span(startOf(first), endOf(last));
    return { kind: 'search', search: { kind: 'searchText', text: this.text.slice(at.start, at.end), span: at } };
  }

  /** `item (, item)*` of `aggregate(…)`. */
  private aggregateList = this.RULE('aggregateList', (): AggregateItem[] => {
    const items: AggregateItem[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => items.push(this.SUBRULE(this.aggregateItem)) });
    return this.ACTION(() => checkAggregateItems(items));
  });

  /** `( item )` after `aggregate` in a path (`Sales/aggregate(Amount with sum)`): no alias. */
  private aggregateFunction = this.RULE('aggregateFunction', (): { item: AggregateItem; close: IToken } => {
    this.CONSUME(T.LParen);
    const item = this.SUBRULE(this.aggregateItem);
    const close = this.CONSUME(T.RParen);
    return this.ACTION(() => {
      if (item.alias !== undefined) throw syntaxError(`The aggregate function takes no alias`, item.span.end - item.alias.length);
      return { item, close };
    });
  });

  /** `$count …`, `expr with method …`, `path/$count …` or a custom aggregate, then `from` steps and `as Alias`. */
  private aggregateItem = this.RULE('aggregateItem', (): AggregateItem => {
    const start = this.LA(1);
    let count: IToken | undefined;
    let expression: Expression | undefined;
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          GATE: () => this.LA(1).image === '$count',
          ALT: () => {
            count = this.CONSUME(T.DollarName);
          },
        },
        {
          ALT: () => {
            // A bare type cast is aggregated as a whole: `Self.DigitalProduct with Custom.discount as …`.
            this.ACTION(() => {
              const first = this.LA(1);
              this.typeArgumentNext = tokenMatcher(first, T.Identifier) && first.image.includes('.') && this.LA(2).image === 'with';
            });
            expression = this.SUBRULE(this.expression);
          },
        },
      ],
      ERR_MSG: 'an aggregate expression',
    });
    let withToken: IToken | undefined;
    let method: IToken | undefined;
    this.OPTION({
      GATE: () => this.LA(1).image === 'with',
      DEF: () => {
        withToken = this.CONSUME(T.Identifier);
        method = this.CONSUME2(T.Identifier);
      },
    });
    const froms: RawFrom[] = [];
    this.MANY({ GATE: () => this.LA(1).image === 'from', DEF: () => froms.push(this.SUBRULE(this.aggregateFrom)) });
    let alias: { name: string; end: number } | undefined;
    this.OPTION2(() => {
      alias = this.SUBRULE(this.asAlias);
    });
    return this.ACTION(() => {
      const end =
        alias?.end ??
        (froms.length > 0
          ? endOfFrom(froms[froms.length - 1] as RawFrom)
          : method !== undefined
            ? endOf(method)
            : (expression?.span.end ?? endOf(count as IToken)));
      return buildAggregateItem(start, count, expression, withToken, method, froms, alias?.name, end);
    });
  });

  /** `from prop (, prop)* [with method]`. */
  private aggregateFrom = this.RULE('aggregateFrom', (): RawFrom => {
    const from = this.CONSUME(T.Identifier);
    const properties: MemberPath[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => properties.push(this.SUBRULE(this.aggregationPath)) });
    let method: IToken | undefined;
    this.OPTION({
      GATE: () => this.LA(1).image === 'with',
      DEF: () => {
        this.CONSUME2(T.Identifier);
        method = this.CONSUME3(T.Identifier);
      },
    });
    return { from, properties, ...(method === undefined ? {} : { method }) };
  });

  /** `as Alias` (`as` in lower case). */
  private asAlias = this.RULE('asAlias', (): { name: string; end: number } => {
    const as = this.CONSUME(T.As);
    const alias = this.CONSUME(T.Identifier);
    return this.ACTION(() => ({ name: checkAlias(as, alias), end: endOf(alias) }));
  });

  /** A path of names and type casts (grouping, nesting and hierarchy paths); annotations are checked by the caller. */
  private aggregationPath = this.RULE('aggregationPath', (): MemberPath => {
    const steps: IToken[] = [this.OR([{ ALT: () => this.CONSUME(T.Identifier) }, { ALT: () => this.CONSUME(T.AtName) }])];
    this.MANY(() => {
      this.CONSUME(T.Slash);
      steps.push(this.OR2([{ ALT: () => this.CONSUME2(T.Identifier) }, { ALT: () => this.CONSUME2(T.AtName) }]));
    });
    return this.ACTION(() => aggregationPath(steps));
  });

  /** A grouping property: an aggregation path without annotations, ending in a property. */
  private groupingProperty = this.RULE('groupingProperty', (): MemberPath => {
    const path = this.SUBRULE(this.aggregationPath);
    return this.ACTION(() => checkGroupingPath(path));
  });

  /** `(element (, element)*) [, applyExpr]` of `groupby`. */
  private groupbyArguments = this.RULE('groupbyArguments', (): TransformationBody => {
    this.CONSUME(T.LParen);
    const properties: (MemberPath | RollupElement)[] = [];
    this.AT_LEAST_ONE_SEP({
      SEP: T.Comma,
      DEF: () => {
        properties.push(
          this.OR({
            IGNORE_AMBIGUITIES: true,
            DEF: [
              {
                GATE: () => (this.LA(1).image === 'rollup' || this.LA(1).image === 'rolluprecursive') && tokenMatcher(this.LA(2), T.LParen),
                ALT: () => this.SUBRULE(this.rollup),
              },
              { ALT: () => this.SUBRULE(this.groupingProperty) },
            ],
            ERR_MSG: 'a grouping property',
          }),
        );
      },
    });
    this.CONSUME(T.RParen);
    let apply: ApplyTransformation[] = [];
    this.OPTION(() => {
      this.CONSUME(T.Comma);
      apply = this.SUBRULE(this.applyExpr);
    });
    return { kind: 'groupby', properties, apply };
  });

  /** `rollup(prop, prop, …)`, `rollup(Hierarchy)` or `rolluprecursive(hierarchy reference [, trafos])`. */
  private rollup = this.RULE('rollup', (): RollupElement => {
    const name = this.CONSUME(T.Identifier);
    const open = this.CONSUME(T.LParen);
    const properties: MemberPath[] = [];
    let hierarchy: HierarchyReference | undefined;
    let apply: ApplyTransformation[] | undefined;
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          GATE: () => name.image === 'rolluprecursive',
          ALT: () => {
            hierarchy = this.SUBRULE(this.hierarchyReference);
            this.OPTION(() => {
              this.CONSUME(T.Comma);
              apply = this.SUBRULE(this.applyExpr);
            });
          },
        },
        { ALT: () => this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => properties.push(this.SUBRULE(this.groupingProperty)) }) },
      ],
    });
    const close = this.CONSUME(T.RParen);
    return this.ACTION((): RollupElement => {
      const only = properties[0];
      if (
        properties.length === 1 &&
        only !== undefined &&
        (only.segments.length > 1 || (only.segments[0]?.kind === 'member' && only.segments[0].name.includes('.')))
      ) {
        throw syntaxError(`rollup(…) needs two or more grouping properties, or the name of a leveled hierarchy`, only.span.start);
      }
      return {
        kind: 'rollup',
        recursive: name.image === 'rolluprecursive',
        properties,
        ...(hierarchy === undefined ? {} : { hierarchy }),
        ...(apply === undefined ? {} : { apply }),
        text: this.text.slice(endOf(open), startOf(close)),
        span: span(startOf(name), endOf(close)),
      };
    });
  });

  /** `$root/Set, Qualifier, node property path` of the hierarchy transformations. */
  private hierarchyReference = this.RULE('hierarchyReference', (): HierarchyReference => {
    const root = this.SUBRULE(this.expression);
    this.ACTION(() => checkRootPath(root));
    this.CONSUME(T.Comma);
    const qualifier = this.CONSUME(T.Identifier);
    this.ACTION(() => {
      if (qualifier.image.includes('.')) throw syntaxError(`A hierarchy qualifier must be a simple name`, startOf(qualifier));
    });
    this.CONSUME2(T.Comma);
    const path = this.SUBRULE(this.groupingProperty);
    return this.ACTION(() => ({
      kind: 'hierarchyReference' as const,
      nodes: root,
      qualifier: { name: qualifier.image, span: span(startOf(qualifier), endOf(qualifier)) },
      path,
      span: span(root.span.start, path.span.end),
    }));
  });

  /** `applyExpr, applyExpr (, applyExpr)*` of `concat`. */
  private concatArguments = this.RULE('concatArguments', (): TransformationBody => {
    const branches: ApplyTransformation[][] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => branches.push(this.SUBRULE(this.applyExpr)) });
    return this.ACTION(() => {
      if (branches.length < 2) throw syntaxError(`concat(…) needs two or more transformation sequences`, lastEnd(branches[0] ?? []));
      return { kind: 'concat', branches };
    });
  });

  /** `limit, value` of `topcount` and its siblings (the kind is set from the name afterwards). */
  private rankArguments = this.RULE('rankArguments', (): TransformationBody => {
    const limit = this.SUBRULE(this.expression);
    this.CONSUME(T.Comma);
    const value = this.SUBRULE2(this.expression);
    return { kind: 'topcount', limit, value };
  });

  /** `path as Alias [, applyExpr]` of `join` and `outerjoin`. */
  private joinArguments = this.RULE('joinArguments', (): TransformationBody => {
    const path = this.SUBRULE(this.aggregationPath);
    const alias = this.SUBRULE(this.asAlias);
    let apply: ApplyTransformation[] = [];
    this.OPTION(() => {
      this.CONSUME(T.Comma);
      apply = this.SUBRULE(this.applyExpr);
    });
    // The kind (join or outerjoin) is set from the name afterwards.
    return this.ACTION((): TransformationBody => ({ kind: 'join', path: checkNestPath(path), alias: alias.name, apply }));
  });

  /** `applyExpr as Alias (, applyExpr as Alias)*` of `nest` and `addnested`. */
  private nestList = this.RULE('nestList', (): TransformationBody => {
    const items: NestItem[] = [];
    this.AT_LEAST_ONE_SEP({
      SEP: T.Comma,
      DEF: () => {
        const apply = this.SUBRULE(this.applyExpr);
        const alias = this.SUBRULE(this.asAlias);
        this.ACTION(() => items.push({ kind: 'nestItem', apply, alias: alias.name, span: span((apply[0] as ApplyTransformation).span.start, alias.end) }));
      },
    });
    return { kind: 'nest', items };
  });

  /** `path, applyExpr as Alias, …` of `addnested`. */
  private addnestedArguments = this.RULE('addnestedArguments', (): TransformationBody => {
    const path = this.SUBRULE(this.aggregationPath);
    this.CONSUME(T.Comma);
    const list = this.SUBRULE(this.nestList);
    return this.ACTION((): TransformationBody => ({
      kind: 'addnested',
      path: checkNestPath(path),
      items: (list as Extract<TransformationBody, { kind: 'nest' }>).items,
    }));
  });

  /** `reference, applyExpr [, distance] [, keep start]` of `ancestors` and `descendants`. */
  private hierarchyArguments = this.RULE('hierarchyArguments', (): TransformationBody => {
    const hierarchy = this.SUBRULE(this.hierarchyReference);
    this.CONSUME(T.Comma);
    const apply = this.SUBRULE(this.applyExpr);
    const tail: (IToken | [IToken, IToken])[] = [];
    this.MANY(() => {
      this.CONSUME2(T.Comma);
      this.OR([{ ALT: () => tail.push(this.CONSUME(T.NumberLiteral)) }, { ALT: () => tail.push([this.CONSUME(T.Identifier), this.CONSUME2(T.Identifier)]) }]);
    });
    return this.ACTION((): TransformationBody => {
      checkHierarchyTail(tail);
      const distance = tail.find((part): part is IToken => !Array.isArray(part));
      return {
        // The kind is set from the name afterwards.
        kind: 'descendants',
        hierarchy,
        apply,
        ...(distance === undefined ? {} : { distance: decodeCount(distance.image, 'the distance of a hierarchical transformation', startOf(distance)) }),
        keepStart: tail.some((part) => Array.isArray(part)),
      };
    });
  });

  /** `reference, preorder|postorder [, applyExpr] [, orderby items]` of `traverse`. */
  private traverseArguments = this.RULE('traverseArguments', (): TransformationBody => {
    const hierarchy = this.SUBRULE(this.hierarchyReference);
    this.CONSUME(T.Comma);
    const order = this.CONSUME(T.Identifier);
    this.ACTION(() => {
      if (order.image !== 'preorder' && order.image !== 'postorder')
        throw syntaxError(`Expected 'preorder' or 'postorder' but found '${order.image}'`, startOf(order));
    });
    let apply: ApplyTransformation[] = [];
    this.OPTION({
      GATE: () => tokenMatcher(this.LA(2), T.Identifier) && startsTransformation(this.LA(2), this.LA(3)),
      DEF: () => {
        this.CONSUME2(T.Comma);
        apply = this.SUBRULE(this.applyExpr);
      },
    });
    const orderBy: OrderByItem[] = [];
    this.MANY(() => {
      this.CONSUME3(T.Comma);
      orderBy.push(this.SUBRULE(this.orderByItem));
    });
    return this.ACTION((): TransformationBody => ({ kind: 'traverse', hierarchy, order: order.image as 'preorder' | 'postorder', apply, orderBy }));
  });

  /** `( [argument (, argument)*] )` content of a custom function `Ns.fn(…)`. */
  private customFunctionArguments = this.RULE('customFunctionArguments', (): TransformationBody => {
    this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.argument) });
    return OTHER_BODY;
  });

  // -------------------------------------------------------------------------------------------
  // $select, $expand and their nested options
  // -------------------------------------------------------------------------------------------

  /** One step of a `$select`/`$expand` path: a name, `Ns.*`, an annotation or `*`. */
  private itemSegment = this.RULE('itemSegment', (): ItemStep =>
    this.OR([
      {
        ALT: () => {
          const name = this.CONSUME(T.Identifier);
          let dotStar: IToken | undefined;
          this.OPTION(() => {
            dotStar = this.CONSUME(T.DotStar);
          });
          return this.ACTION((): ItemStep => {
            if (dotStar) return { kind: 'namespaceStar', namespace: name.image, span: span(startOf(name), endOf(dotStar)) };
            return { kind: 'member', name: name.image, span: span(startOf(name), endOf(name)) };
          });
        },
      },
      {
        ALT: () => {
          const at = this.CONSUME(T.AtName);
          return this.ACTION((): ItemStep => ({ kind: 'annotation', term: at.image.slice(1), span: span(startOf(at), endOf(at)) }));
        },
      },
      {
        ALT: () => {
          const token = this.CONSUME(T.Star);
          return this.ACTION((): ItemStep => ({ kind: 'star', span: span(startOf(token), endOf(token)) }));
        },
      },
    ]),
  );

  /** `Seg/Seg/…` of `$select` and `$expand` items, optionally ending in `*` or `Ns.*`. */
  private itemPath = this.RULE('itemPath', (): ItemPath => {
    const steps: ItemStep[] = [this.SUBRULE(this.itemSegment)];
    this.MANY({
      GATE: () => !tokenMatcher(this.LA(2), T.DollarName),
      DEF: () => {
        this.CONSUME(T.Slash);
        steps.push(this.SUBRULE2(this.itemSegment));
      },
    });
    return this.ACTION(() => assembleItemPath(steps));
  });

  private selectItem = this.RULE('selectItem', (): SelectItem => {
    const item = this.SUBRULE(this.itemPath);
    let options: NestedOptions | undefined;
    let parameters: string[] | undefined;
    let end = 0;
    this.OPTION(() => {
      this.OR([
        {
          GATE: () => this.startsNestedOptions(),
          ALT: () => {
            options = this.SUBRULE(this.nestedOptions);
            this.ACTION(() => {
              end = options?.span.end ?? 0;
            });
          },
        },
        {
          ALT: () => {
            this.CONSUME(T.LParen);
            const names: string[] = [];
            this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => names.push(this.CONSUME(T.Identifier).image) });
            end = endOf(this.CONSUME(T.RParen));
            parameters = names;
          },
        },
      ]);
    });
    return this.ACTION((): SelectItem => {
      if (options && item.star !== undefined) throw syntaxError(`Options cannot follow '*' in $select`, options.span.start, 'invalid_nested_option');
      if (options?.expand !== undefined) throw syntaxError(`$expand is not allowed inside a $select item`, options.span.start, 'invalid_nested_option');
      if (options?.levels !== undefined) throw syntaxError(`$levels is not allowed inside a $select item`, options.span.start, 'invalid_nested_option');
      if (options?.apply !== undefined) throw syntaxError(`$apply is not allowed inside a $select item`, options.span.start, 'invalid_nested_option');
      return {
        kind: 'selectItem',
        path: item.path,
        ...(item.star === undefined ? {} : { star: item.star }),
        ...(parameters === undefined ? {} : { parameters }),
        ...(options === undefined ? {} : { options }),
        span: span(item.start, Math.max(end, item.end)),
      };
    });
  });

  private expandItem = this.RULE('expandItem', (): ExpandItem => {
    let path: ItemPath['path'] = [];
    let target: '*' | '$value' | undefined;
    let suffix: '$ref' | '$count' | undefined;
    let start = 0;
    let end = 0;
    this.OR([
      {
        GATE: () => this.LA(1).image === '$value',
        ALT: () => {
          const token = this.CONSUME(T.DollarName);
          this.ACTION(() => {
            target = '$value';
            start = startOf(token);
            end = endOf(token);
          });
        },
      },
      {
        ALT: () => {
          const item = this.SUBRULE(this.itemPath);
          this.ACTION(() => {
            if (item.star !== undefined && item.star !== '*') throw syntaxError(`'Ns.*' is not allowed in $expand`, item.start);
            path = item.path;
            if (item.star === '*') target = '*';
            start = item.start;
            end = item.end;
          });
        },
      },
    ]);
    this.OPTION(() => {
      this.CONSUME(T.Slash);
      const token = this.CONSUME2(T.DollarName);
      this.ACTION(() => {
        if (token.image !== '$ref' && token.image !== '$count') {
          throw syntaxError(`Expected $ref or $count after '/' but found '${token.image}'`, startOf(token));
        }
        suffix = token.image;
        end = endOf(token);
      });
    });
    let options: NestedOptions | undefined;
    this.OPTION2(() => {
      options = this.SUBRULE(this.nestedOptions);
    });
    return this.ACTION((): ExpandItem => {
      if (options !== undefined) {
        checkExpandOptions(options, suffix);
        end = options.span.end;
      }
      return {
        kind: 'expandItem',
        path,
        ...(target === undefined ? {} : { target }),
        ...(suffix === undefined ? {} : { suffix }),
        ...(options === undefined ? {} : { options }),
        span: span(start, end),
      };
    });
  });

  private startsNestedOptions(): boolean {
    const first = this.LA(2);
    if (tokenMatcher(first, T.SearchOptionStart)) return true;
    if (tokenMatcher(first, T.DollarName) || tokenMatcher(first, T.AtName) || tokenMatcher(first, T.Identifier)) {
      return tokenMatcher(this.LA(3), T.Equals);
    }
    return false;
  }

  /** `( option (; option)* )` of `$expand` and `$select` items and of `$count(…)`. */
  private nestedOptions = this.RULE('nestedOptions', (): NestedOptions => {
    const open = this.CONSUME(T.LParen);
    const values: NestedOptionValue[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Semicolon, DEF: () => values.push(this.SUBRULE(this.nestedOption)) });
    const close = this.CONSUME(T.RParen);
    return this.ACTION(() => buildNestedOptions(values, span(startOf(open), endOf(close))));
  });

  private nestedOption = this.RULE('nestedOption', (): NestedOptionValue =>
    this.OR([
      {
        ALT: () => {
          const token = this.CONSUME(T.SearchOptionStart);
          const search = this.SUBRULE(this.searchOption);
          return this.ACTION((): NestedOptionValue => {
            const value: SearchExpression =
              this.searchMode === 'text' ? { kind: 'searchText', text: this.text.slice(search.span.start, search.span.end), span: search.span } : search;
            return { name: 'search', token, value, end: search.span.end };
          });
        },
      },
      {
        ALT: () => {
          const token = this.CONSUME(T.AtName);
          this.CONSUME(T.Equals);
          const value = this.SUBRULE(this.jsonValue);
          return this.ACTION((): NestedOptionValue => ({ name: 'alias', token, value, end: value.span.end }));
        },
      },
      { ALT: () => this.SUBRULE(this.systemNestedOption) },
    ]),
  );

  private systemNestedOption = this.RULE('systemNestedOption', (): NestedOptionValue => {
    const token = this.OR([{ ALT: () => this.CONSUME(T.DollarName) }, { ALT: () => this.CONSUME(T.Identifier) }]);
    this.CONSUME(T.Equals);
    const name = this.ACTION(() => token.image.replace(/^\$/, '').toLowerCase());
    const is = (expected: string) => (): boolean => name === expected;
    return this.OR2({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          GATE: is('filter'),
          ALT: () => {
            const value = this.SUBRULE(this.expression);
            return this.ACTION((): NestedOptionValue => ({ name: 'filter', token, value, end: value.span.end }));
          },
        },
        {
          GATE: is('orderby'),
          ALT: () => {
            const value = this.SUBRULE(this.orderByOption);
            return this.ACTION((): NestedOptionValue => ({ name: 'orderby', token, value, end: lastEnd(value) }));
          },
        },
        {
          GATE: is('select'),
          ALT: () => {
            const value = this.SUBRULE(this.selectOption);
            return this.ACTION((): NestedOptionValue => ({ name: 'select', token, value, end: lastEnd(value) }));
          },
        },
        {
          GATE: is('expand'),
          ALT: () => {
            const value = this.SUBRULE(this.expandOption);
            return this.ACTION((): NestedOptionValue => ({ name: 'expand', token, value, end: lastEnd(value) }));
          },
        },
        {
          GATE: is('compute'),
          ALT: () => {
            const value = this.SUBRULE(this.computeOption);
            return this.ACTION((): NestedOptionValue => ({ name: 'compute', token, value, end: lastEnd(value) }));
          },
        },
        {
          GATE: is('apply'),
          ALT: () => {
            const value = this.SUBRULE(this.applyOption);
            return this.ACTION((): NestedOptionValue => ({ name: 'apply', token, value, end: lastEnd(value) }));
          },
        },
        {
          GATE: () => name === 'top' || name === 'skip' || name === 'levels',
          ALT: () => {
            const value = this.CONSUME(T.NumberLiteral);
            return this.ACTION((): NestedOptionValue => {
              // Check the value here, so that its error comes before any later syntax error.
              checkNestedNumber(name, value);
              return { name: name as 'top' | 'skip' | 'levels', token, value, end: endOf(value) };
            });
          },
        },
        {
          GATE: is('levels'),
          ALT: () => {
            const value = this.CONSUME2(T.Identifier);
            return this.ACTION((): NestedOptionValue => {
              checkNestedNumber('levels', value);
              return { name: 'levels', token, value, end: endOf(value) };
            });
          },
        },
        {
          GATE: is('count'),
          ALT: () => {
            const value = this.OR3([{ ALT: () => this.CONSUME(T.True) }, { ALT: () => this.CONSUME(T.False) }]);
            return this.ACTION((): NestedOptionValue => ({ name: 'count', token, value, end: endOf(value) }));
          },
        },
        {
          ALT: () => {
            // A known option with a value of the wrong shape, or an unknown name: say which.
            return this.ACTION((): NestedOptionValue => {
              if (['top', 'skip', 'levels', 'count'].includes(name)) {
                const value = this.LA(1);
                const shown = value.tokenType === EOF ? '' : value.image;
                throw syntaxError(
                  `Invalid value '${shown}' for the $${name} option`,
                  value.tokenType === EOF ? this.text.length : startOf(value),
                  'invalid_option_value',
                );
              }
              throw syntaxError(`'${token.image}' is not an option allowed here`, startOf(token), 'invalid_nested_option');
            });
          },
        },
      ],
    });
  });

  // -------------------------------------------------------------------------------------------
  // $search grammar (URL 5.1.8.1): NOT binds tighter than AND, AND tighter than OR;
  // AND, OR and NOT are ordinary words where they cannot be operators.
  // -------------------------------------------------------------------------------------------

  private startsSearchPrimary(token: IToken): boolean {
    return tokenMatcher(token, T.SearchWord) || tokenMatcher(token, T.SearchPhrase) || tokenMatcher(token, T.SearchLParen);
  }

  private searchIncomplete = this.RULE('searchIncomplete', (): SearchExpression => {
    const token = this.CONSUME(T.SearchIncomplete);
    return this.ACTION(() => ({
      kind: 'searchTerm',
      value: token.image.slice(1, -1).replaceAll("''", "'"),
      phrase: true,
      span: span(startOf(token), endOf(token)),
    }));
  });

  private searchExpr = this.RULE('searchExpr', (): SearchExpression => {
    let left = this.SUBRULE(this.searchAnd);
    this.MANY({
      GATE: () => tokenMatcher(this.LA(1), T.SearchOr) && this.startsSearchPrimary(this.LA(2)),
      DEF: () => {
        this.CONSUME(T.SearchOr);
        const right = this.SUBRULE2(this.searchAnd);
        this.ACTION(() => {
          left = { kind: 'searchBinary', operator: 'OR', left, right, span: span(left.span.start, right.span.end) };
        });
      },
    });
    return left;
  });

  private searchAnd = this.RULE('searchAnd', (): SearchExpression => {
    let left = this.SUBRULE(this.searchUnary);
    this.MANY({
      GATE: () => {
        const next = this.LA(1);
        if (!this.startsSearchPrimary(next)) return false;
        return !(tokenMatcher(next, T.SearchOr) && this.startsSearchPrimary(this.LA(2)));
      },
      DEF: () => {
        this.OPTION({
          GATE: () => this.startsSearchPrimary(this.LA(2)),
          DEF: () => this.CONSUME(T.SearchAnd),
        });
        const right = this.SUBRULE2(this.searchUnary);
        this.ACTION(() => {
          if (right.span.start === left.span.end) throw syntaxError('Expected a space between search terms', right.span.start);
          left = { kind: 'searchBinary', operator: 'AND', left, right, span: span(left.span.start, right.span.end) };
        });
      },
    });
    return left;
  });

  private searchUnary = this.RULE('searchUnary', (): SearchExpression => {
    const prefixes: IToken[] = [];
    this.MANY({
      GATE: () => this.startsSearchPrimary(this.LA(2)),
      DEF: () => prefixes.push(this.CONSUME(T.SearchNot)),
    });
    let operand = this.SUBRULE(this.searchPrimary);
    this.ACTION(() => {
      for (let i = prefixes.length - 1; i >= 0; i--) {
        const prefix = prefixes[i] as IToken;
        operand = { kind: 'searchNot', operand, span: span(startOf(prefix), operand.span.end) };
      }
    });
    return operand;
  });

  private searchPrimary = this.RULE('searchPrimary', (): SearchExpression =>
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          ALT: () => {
            const open = this.CONSUME(T.SearchLParen);
            const inner = this.SUBRULE(this.searchExpr);
            const close = this.CONSUME(T.SearchRParen);
            // The group's span includes its parentheses, so a text-mode slice keeps them.
            return this.ACTION((): SearchExpression => ({ ...inner, span: span(startOf(open), endOf(close)) }));
          },
        },
        {
          ALT: () => {
            const token = this.CONSUME(T.SearchPhrase);
            return this.ACTION(() => ({
              kind: 'searchTerm' as const,
              value: token.image.slice(1, -1),
              phrase: true,
              span: span(startOf(token), endOf(token)),
            }));
          },
        },
        {
          ALT: () => {
            const token = this.CONSUME(T.SearchWord);
            return this.ACTION(() => ({
              kind: 'searchTerm' as const,
              value: token.image,
              phrase: false,
              span: span(startOf(token), endOf(token)),
            }));
          },
        },
      ],
      ERR_MSG: 'a search term',
    }),
  );
}

/** `$ref` allows $filter, $search, $orderby, $skip, $top, $count; `/$count` allows $filter and $search. */
function checkExpandOptions(options: NestedOptions, suffix: '$ref' | '$count' | undefined): void {
  if (suffix === undefined) return;
  const allowed = suffix === '$ref' ? ['filter', 'search', 'orderBy', 'skip', 'top', 'count'] : ['filter', 'search'];
  for (const key of Object.keys(options)) {
    if (key === 'kind' || key === 'span' || key === 'aliases') continue;
    if (!allowed.includes(key)) {
      throw syntaxError(`$${key.toLowerCase()} is not allowed after /${suffix}`, options.span.start, 'invalid_nested_option');
    }
  }
}

let shared: ODataParser | undefined;

/**
 * The shared parser instance, built on first use (building it, Chevrotain's grammar analysis, is
 * most of what importing the package would otherwise cost). Not re-entrant: parse functions
 * never call each other while it runs.
 */
export function sharedParser(): ODataParser {
  return (shared ??= new ODataParser());
}

/** Names of the parser's entry rules. */
export type { EntryRule } from './parse-run.js';

/** The token types (for the railroad diagram generator and tests). */
export const tokenVocabulary: readonly TokenType[] = T.allTokens;
