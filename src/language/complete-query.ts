/**
 * `completeQuery`: what may be typed at a cursor in a query string, from the grammar and the
 * model. The grammar says which tokens may come next (content-assist.ts over the recorded
 * productions); the binder says what a name there may be: the query is bound with a probe at the
 * cursor (semantic/probe.ts), and the binder that meets it reports the type whose members are in
 * scope, the lambda variables, the `$compute` aliases, and the type of the other operand of a
 * comparison, so that only items of a fitting type are offered there.
 */
import type { TokenType } from 'chevrotain';
import { recursiveHierarchies } from '../model/recursive-hierarchy.js';
import { bindQuery } from '../semantic/bind-query.js';
import { arithmeticType } from '../semantic/bind-expression.js';
import { PROBE_NAME, probeWith, type ProbeSite } from '../semantic/probe.js';
import { orderComparable, primitive, type ExpressionType } from '../semantic/types.js';
import { sharedParser } from '../syntax/parser.js';
import { DEFAULT_MAX_LENGTH } from '../syntax/parse-run.js';
import * as T from '../syntax/lexer.js';
import { TRANSFORMATION_NAMES } from '../syntax/apply-builders.js';
import { nextTokens, type NextToken } from './content-assist.js';
import type { CompleteSettings, Completion, CompletionKind } from './completion.js';
import { canonicalOption, locateCursor, PROBE_ALIAS, type ValueCursor } from './cursor.js';
import { GATES } from './gates.js';
import { ARITHMETIC, argumentKinds, COMPARISONS, expandedBefore, isBooleanLike, literalItems, nameItems } from './items.js';

export type { CompleteSettings, Completion, CompletionKind } from './completion.js';

/** The type a duration operand has (a date or an instant takes one in add and sub). */
const DURATION = primitive('Edm.Duration');

/** The system query options offered at an option's name, in the order a person writes them. */
const OPTION_NAMES = ['filter', 'select', 'expand', 'orderby', 'top', 'skip', 'count', 'search', 'compute', 'apply', 'format', 'skiptoken'] as const;
/** The options allowed inside `$expand(…)`. */
const NESTED_OPTION_NAMES = ['filter', 'select', 'expand', 'orderby', 'top', 'skip', 'count', 'search', 'compute', 'apply', 'levels'] as const;

/** The entry rule of the full grammar for each option whose value it parses. */
const ENTRY_RULES: Readonly<Record<string, string>> = {
  filter: 'filterOption',
  orderby: 'orderByOption',
  select: 'selectOption',
  expand: 'expandOption',
  compute: 'computeOption',
  apply: 'applyOption',
};

/** The rules whose names are names of the model (properties, navigation, functions, variables): the probe answers there. */
const NAME_RULES = new Set(['identifierExpr', 'pathSegment', 'itemSegment', 'itemPath', 'expandItem', 'groupingProperty', 'aggregationPath']);

/** Rules where a name is a path of the model only (no function, variable or literal). */
const PATH_RULES = ['groupingProperty', 'aggregationPath', 'itemPath', 'expandItem'];

/** The aggregation methods (Data Aggregation 3.1.3). */
const AGGREGATION_METHODS = ['sum', 'min', 'max', 'average', 'countdistinct'];

/** Words the grammar reads as identifiers, by the rule and the terminal's occurrence in it. */
const WORDS: Readonly<Record<string, readonly string[]>> = {
  'aggregateItem#0': ['with'],
  'aggregateItem#2': AGGREGATION_METHODS,
  'aggregateFrom#0': ['from'],
  'aggregateFrom#2': ['with'],
  'aggregateFrom#3': AGGREGATION_METHODS,
  'applyTransformation#0': TRANSFORMATION_NAMES,
  // The name of a nested option without `$` (the `$` names are offered), `$levels=max`.
  'systemNestedOption#0': [],
  'systemNestedOption#2': ['max'],
  'hierarchyArguments#0': ['keep'],
  'hierarchyArguments#2': ['start'],
  'traverseArguments#0': ['preorder', 'postorder'],
  'rollup#0': ['rollup', 'rolluprecursive'],
};

/** The spelling of each keyword token type (`T.Eq` is `eq`). */
const OPERATOR_DETAIL: Readonly<Record<string, string>> = {
  eq: 'equal',
  ne: 'not equal',
  gt: 'greater than',
  ge: 'greater than or equal',
  lt: 'less than',
  le: 'less than or equal',
  and: 'logical and',
  or: 'logical or',
  not: 'logical negation',
  add: 'addition',
  sub: 'subtraction',
  mul: 'multiplication',
  div: 'division',
  divby: 'decimal division',
  mod: 'modulo',
  has: 'has flags',
  in: 'is a member of',
};

/**
 * The completions valid at `offset` of the query string `text`: option names, then, in a value,
 * what the grammar allows there, with the model's names where a name may stand (of a fitting type
 * where the type is known). Never throws for any text or offset: a place where nothing can be
 * offered (inside a string literal, after a syntax error) gives an empty list.
 *
 * @example
 * ```ts
 * completeQuery('$filter=Na', 10, { model, entitySet: 'Products' });
 * // [{ label: 'Name', kind: 'property', detail: 'Edm.String', insertText: 'Name', range: { start: 8, end: 10 } }]
 * ```
 */
export function completeQuery(text: string, offset: number, settings: CompleteSettings): Completion[] {
  try {
    return complete(text, offset, settings);
  } catch {
    // A completion never fails: whatever went wrong, nothing to offer.
    return [];
  }
}

function complete(text: string, offset: number, settings: CompleteSettings): Completion[] {
  // A text longer than a parse takes is one no completion can help (the walk's steps are bounded too).
  if (text.length > (settings.parse?.maxLength ?? DEFAULT_MAX_LENGTH)) return [];
  const cursor = locateCursor(text, offset);
  if (cursor === undefined) return [];
  if (cursor.at === 'name') {
    const prefix = cursor.prefix.toLowerCase().replace(/^\$/, '');
    const equals = text.charAt(cursor.range.end) === '=' ? '' : '=';
    return OPTION_NAMES.filter((name) => !cursor.present.has(name) && name.startsWith(prefix)).map((name) => ({
      label: `$${name}`,
      kind: 'option' as const,
      insertText: `$${name}${equals}`,
      range: cursor.range,
    }));
  }
  return completeValue(text, cursor, settings);
}

function completeValue(text: string, cursor: ValueCursor, settings: CompleteSettings): Completion[] {
  const range = cursor.range;
  const item = (label: string, kind: CompletionKind, detail?: string, insertText = label): Completion =>
    detail === undefined ? { label, kind, insertText, range } : { label, kind, detail, insertText, range };
  switch (cursor.option) {
    case 'count':
      return filterByPrefix(
        ['true', 'false'].map((word) => item(word, 'keyword')),
        cursor.prefix,
      );
    case 'format':
      return filterByPrefix(
        ['json'].map((word) => item(word, 'keyword')),
        cursor.prefix,
      );
    default:
      break;
  }
  const rule = ENTRY_RULES[cursor.option];
  if (rule === undefined) return [];
  const next = nextTokens(sharedParser().getGAstProductions(), rule, cursor.tokens, GATES);
  if (next.length === 0) return [];
  const items: Completion[] = [];
  const seen = new Set<string>();
  const add = (completion: Completion): void => {
    const key = `${completion.kind}|${completion.label}`;
    if (seen.has(key)) return;
    seen.add(key);
    items.push(completion);
  };
  let site: ProbeSite | undefined | null = null;
  const probe = (): ProbeSite | undefined => (site === null ? (site = probeAt(text, cursor, settings)) : site);
  let left: ProbeSite | undefined | null = null;
  const leftOperand = (): ProbeSite | undefined => (left === null ? (left = probeAt(text, cursor, settings, ' eq ')) : left);
  for (const token of next) {
    const type = token.type;
    const innermost = token.ruleStack[token.ruleStack.length - 1] ?? '';
    // A hierarchy (ancestors, descendants, traverse, rolluprecursive): `$root/` an entity set, one of its type's qualifiers.
    const hierarchy = token.ruleStack.lastIndexOf('hierarchyReference');
    if (hierarchy >= 0 && token.ruleStack[hierarchy + 1] === 'expression' && token.ruleStack.length > hierarchy + 2) {
      if (type === T.DollarName && innermost === 'dollarPath') add(item('$root', 'keyword', 'the service root', '$root/'));
      if (type === T.Identifier && innermost === 'pathSegment')
        for (const [name, set] of settings.model.entitySets) add(item(name, 'entitySet', set.type.qualifiedName));
      continue;
    }
    if (hierarchy >= 0 && innermost === 'hierarchyReference' && type === T.Identifier) {
      const set = settings.model.entitySets.get(cursor.tokens[(token.ruleStarts[hierarchy] as number) + 2]?.image ?? '');
      if (set !== undefined)
        for (const annotation of recursiveHierarchies(settings.model, set.type)) add(item(annotation.qualifier, 'keyword', 'a recursive hierarchy'));
      continue;
    }
    if (type === T.Identifier) {
      const words = WORDS[`${innermost}#${token.occurrence}`];
      if (words !== undefined) {
        for (const word of words) {
          if (innermost === 'applyTransformation') add(item(word, 'transformation', undefined, word === 'identity' ? word : `${word}(`));
          else if (innermost === 'rollup') add(item(word, 'keyword', undefined, `${word}(`));
          else add(item(word, 'keyword'));
        }
      } else if (innermost === 'pathSegment' && cursor.tokens[cursor.tokens.length - 2]?.image === '$these') {
        // `$these/aggregate(…)`: the aggregate function over the rows of the set (Data Aggregation 3.6.1).
        add(item('aggregate', 'function', 'aggregate(expression with method)', 'aggregate('));
      } else if (NAME_RULES.has(innermost)) {
        // A path of the model only where the innermost of those rules is inside no expression.
        const pathOnly = Math.max(...PATH_RULES.map((rule) => token.ruleStack.lastIndexOf(rule))) > token.ruleStack.lastIndexOf('expression');
        for (const completion of nameItems(probe(), range, cursor, pathOnly, cursor.prefix.toLowerCase())) add(completion);
      }
      continue;
    }
    if (type === T.DollarName) {
      // `$count` and `$filter(…)` continue a path to a collection only.
      if (innermost === 'dollarSegment' && probe()?.collection !== true) continue;
      const option = innermost === 'systemNestedOption';
      // (A nested option's `=` unless one follows the word already.)
      const equals = text.charAt(range.end) === '=' ? '' : '=';
      for (const name of dollarNames(token))
        add(item(name, option ? 'option' : 'keyword', undefined, option ? `${name}${equals}` : (DOLLAR_INSERTS[name] ?? name)));
      continue;
    }
    if (type === T.SearchOptionStart) {
      add(item('$search', 'option', undefined, '$search='));
      continue;
    }
    if (type !== T.LiteralToken && T.keywordSpelling(type) === undefined && T.LiteralToken.categoryMatchesMap?.[type.tokenTypeIdx as number] === true) {
      // One kind of literal (a number for `$top`): typed, not picked from a list.
      continue;
    }
    if (type === T.LiteralToken) {
      const expected = probe()?.expected;
      // An order key or a grouping is a value of the row: a literal alone orders nothing.
      if (expected === undefined && (cursor.option === 'orderby' || token.ruleStack.includes('orderByItem'))) continue;
      for (const completion of literalItems(expected, argumentKinds(cursor), range)) add(completion);
      continue;
    }
    const keywords = keywordsOf(type);
    if (keywords.length > 0) {
      const operand = type === T.BinaryOperatorToken || type === T.PostfixOperatorToken ? leftOperand()?.expected : undefined;
      // `not` where a value of another type than Boolean is expected is no operand.
      const expected = type === T.PrefixOperatorToken ? probe()?.expected : undefined;
      for (const word of keywords) {
        if (!operatorFits(word, operand)) continue;
        if (word === 'not' && expected !== undefined && !isBooleanLike(expected)) continue;
        add(item(word, OPERATOR_DETAIL[word] === undefined ? 'keyword' : 'operator', OPERATOR_DETAIL[word]));
      }
      continue;
    }
    // `*` (every property, every navigation property): not after some are already expanded (each once).
    if (type === T.Star && !token.ruleStack.includes('expression') && !(cursor.option === 'expand' && expandedBefore(cursor).size > 0))
      add(item('*', 'keyword', 'every property'));
  }
  return rank(filterByPrefix(items, cursor.prefix));
}

/** The order items are shown in: the model's names first, then functions, words, members and literals (each group in the grammar's order). */
const RANKS: Readonly<Record<CompletionKind, number>> = {
  option: 0,
  property: 1,
  navigation: 1,
  variable: 1,
  computed: 1,
  entitySet: 1,
  transformation: 2,
  function: 3,
  operator: 4,
  keyword: 4,
  enumMember: 5,
  literal: 6,
};
function rank(items: Completion[]): Completion[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => RANKS[a.item.kind] - RANKS[b.item.kind] || a.index - b.index)
    .map(({ item }) => item);
}

/** Items whose label starts with the word typed so far (case-insensitively; literals, whose spelling is fixed, as written). */
function filterByPrefix(items: Completion[], prefix: string): Completion[] {
  if (prefix === '') return items;
  const lower = prefix.toLowerCase();
  return items.filter((item) => (item.kind === 'literal' ? item.label.startsWith(prefix) : item.label.toLowerCase().startsWith(lower)));
}

/** The keywords a suggested token type stands for: itself, or the members of its category. */
function keywordsOf(type: TokenType): string[] {
  const own = T.keywordSpelling(type);
  if (own !== undefined) return [own];
  if (type === T.Minus) return [];
  const words: string[] = [];
  for (const [member, spelling] of T.keywordSpellings()) if (type.categoryMatchesMap?.[member.tokenTypeIdx as number] === true) words.push(spelling);
  return words;
}

/** Whether `operator` applies to a left operand of type `left` (any operator when it is unknown). */
function operatorFits(operator: string, left: ExpressionType | undefined): boolean {
  if (left === undefined || left.kind === 'null' || (left.kind === 'primitive' && left.name === 'Edm.Untyped')) return true;
  if (operator === 'and' || operator === 'or') return left.kind === 'primitive' && left.name === 'Edm.Boolean';
  if (operator === 'eq' || operator === 'ne' || operator === 'in') return left.kind !== 'collection' || operator === 'in';
  if (COMPARISONS.has(operator)) return orderComparable(left, left);
  if (operator === 'has') return left.kind === 'enum';
  // The binder's own rule: an operand of the left's type, or a duration, makes the operation valid.
  if (ARITHMETIC.has(operator)) return arithmeticType(operator, left, left) !== undefined || arithmeticType(operator, left, DURATION) !== undefined;
  return true;
}

/** What a `$` name of an expression inserts where more must follow it. */
const DOLLAR_INSERTS: Readonly<Record<string, string>> = { $root: '$root/', $these: '$these/', $filter: '$filter(' };

/** `$` names a suggested `DollarName` stands for, by where it is. */
function dollarNames(token: NextToken): string[] {
  const stack = token.ruleStack;
  const innermost = stack[stack.length - 1];
  if (innermost === 'systemNestedOption') return NESTED_OPTION_NAMES.filter((name) => name !== 'search').map((name) => `$${name}`);
  if (innermost === 'dollarSegment') return ['$count', '$filter'];
  if (innermost === 'aggregateItem') return ['$count'];
  if (innermost === 'dollarPath' || innermost === 'primary') return ['$it', '$this', '$root', '$these'];
  return [];
}

/**
 * Binds the query with the probe at the cursor (after `operator`, to learn the type of the operand
 * before the cursor): the options that give the cursor's option its scope (`$apply`, `$compute`),
 * and the cursor's option up to the cursor, its brackets closed.
 */
function probeAt(text: string, cursor: ValueCursor, settings: CompleteSettings, operator = ''): ProbeSite | undefined {
  // (A $compute item needs its alias: one no query has.)
  const probe = `${cursor.before}${operator}${PROBE_NAME}${cursor.closers}${cursor.option === 'compute' ? ` as ${PROBE_ALIAS}` : ''}`;
  const scopeOptions = (keep: (name: string) => boolean): string[] =>
    ['apply', 'compute']
      .filter((name) => name !== cursor.option && cursor.present.has(name) && keep(name))
      .map((name) => optionText(text, name))
      .filter((part): part is string => part !== undefined);
  const attempt = (others: string[]): ProbeSite | undefined => {
    const query = [...others, `${cursor.part.rawName}=${probe}`].join('&');
    return probeWith(() => bindQuery(query, { ...settings, maxNodeCount: Math.max(settings.maxNodeCount ?? 0, 10_000) }));
  };
  // With the options that give the scope, then (one of them failing before the probe) without them.
  return attempt(scopeOptions(() => true)) ?? attempt(scopeOptions((name) => name === 'apply')) ?? attempt([]);
}

/** The `name=value` part of the option `name` in the query text. */
function optionText(text: string, name: string): string | undefined {
  const start = text.startsWith('?') ? 1 : 0;
  return text
    .slice(start)
    .split('&')
    .find((part) => canonicalOption(part.slice(0, part.includes('=') ? part.indexOf('=') : part.length)) === name);
}
