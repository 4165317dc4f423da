/**
 * `completeQuery`: what may be typed at a cursor in a query string, from the grammar and the
 * model. The grammar says which tokens may come next (content-assist.ts over the recorded
 * productions); the binder says what a name there may be: the query is bound with a probe at the
 * cursor (semantic/probe.ts), and the binder that meets it reports the type whose members are in
 * scope, the lambda variables, the `$compute` aliases, and the type of the other operand of a
 * comparison, so that only items of a fitting type are offered there.
 */
import type { TokenType } from 'chevrotain';
import type { EnumType, NavigationProperty, Property, StructuredType } from '../model/model.js';
import { recursiveHierarchies } from '../model/recursive-hierarchy.js';
import { bindQuery } from '../semantic/bind-query.js';
import { FUNCTIONS, SIGNATURES, accepts, type ParameterKind } from '../semantic/functions.js';
import { PROBE_NAME, probeWith, type ProbeSite } from '../semantic/probe.js';
import type { BindSettings } from '../semantic/settings.js';
import { equalityComparable, fromReference, isNumeric, orderComparable, typeName, type ExpressionType } from '../semantic/types.js';
import { sharedParser } from '../syntax/parser.js';
import { DEFAULT_MAX_LENGTH } from '../syntax/parse-run.js';
import * as T from '../syntax/lexer.js';
import { TRANSFORMATION_NAMES } from '../syntax/apply-builders.js';
import { nextTokens, type Gates, type NextToken } from './content-assist.js';
import { descriptionOf } from './describe-query.js';
import { canonicalOption, locateCursor, PROBE_ALIAS, type TextRange, type ValueCursor } from './cursor.js';

/** What a completion item is. */
export type CompletionKind =
  | 'option'
  | 'property'
  | 'navigation'
  | 'function'
  | 'keyword'
  | 'operator'
  | 'enumMember'
  | 'literal'
  | 'variable'
  | 'computed'
  | 'transformation'
  | 'entitySet';

/** One completion item: what to show, and the text that replaces `range` of the query. */
export interface Completion {
  readonly label: string;
  readonly kind: CompletionKind;
  /** The type, or a signature: `Edm.String`, `contains(Edm.String, Edm.String): Edm.Boolean`. */
  readonly detail?: string;
  /** The model's description of a property (`Core.Description`), when it has one. */
  readonly documentation?: string;
  readonly insertText: string;
  /** The range of the query text the item replaces (the word at the cursor; empty where none is). */
  readonly range: TextRange;
}

/** Settings of {@link completeQuery}: those of `bindQuery` (the model, the entity set, limits and capabilities). */
export type CompleteSettings = BindSettings;

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

/** The rule a gated alternative parses for each nested option (`systemNestedOption`'s gates). */
const NESTED_RULES: Readonly<Record<string, string>> = {
  filter: 'expression',
  orderby: 'orderByOption',
  select: 'selectOption',
  expand: 'expandOption',
  compute: 'computeOption',
  apply: 'applyOption',
};

/** The rule a gated alternative parses for each transformation (`applyTransformation`'s gates). */
function transformationRule(name: string): string | undefined {
  switch (name) {
    case 'aggregate':
      return 'aggregateList';
    case 'groupby':
      return 'groupbyArguments';
    case 'filter':
      return 'expression';
    case 'compute':
      return 'computeOption';
    case 'orderby':
      return 'orderByOption';
    case 'concat':
      return 'concatArguments';
    case 'topcount':
    case 'bottomcount':
    case 'toppercent':
    case 'bottompercent':
    case 'topsum':
    case 'bottomsum':
      return 'rankArguments';
    case 'join':
    case 'outerjoin':
      return 'joinArguments';
    case 'nest':
      return 'nestList';
    case 'addnested':
      return 'addnestedArguments';
    case 'ancestors':
    case 'descendants':
      return 'hierarchyArguments';
    case 'traverse':
      return 'traverseArguments';
    default:
      return name.includes('.') ? 'customFunctionArguments' : undefined;
  }
}

/** Words a gate of the parser checks a terminal's image against. */
const GATED_WORDS: Readonly<Record<string, string>> = { 'aggregateItem#0': 'with', 'aggregateFrom#0': 'from', 'aggregateFrom#2': 'with' };

/** The parser's gates the recorded grammar lacks: the transformation's and the nested option's name choose their arguments' rule. */
const GATES: Gates = {
  enter(rule, parent, parentStart, tokens) {
    const name = tokens[parentStart]?.image ?? '';
    if (parent === 'applyTransformation') return transformationRule(name) === rule;
    if (parent === 'systemNestedOption') return NESTED_RULES[canonicalOption(name)] === rule;
    // rolluprecursive(…) takes a hierarchy, rollup(…) properties.
    if (parent === 'rollup' && rule === 'hierarchyReference') return name === 'rolluprecursive';
    if (parent === 'rollup' && rule === 'groupingProperty') return name !== 'rolluprecursive';
    return true;
  },
  word: (rule, occurrence) => GATED_WORDS[`${rule}#${occurrence}`],
  allows(rule, occurrence, type, ruleStart, tokens) {
    const name = canonicalOption(tokens[ruleStart]?.image ?? '');
    if (rule === 'applyTransformation' && type === T.NumberLiteral) return name === 'top' || name === 'skip';
    if (rule !== 'systemNestedOption') return true;
    if (type === T.NumberLiteral) return name === 'top' || name === 'skip' || name === 'levels';
    if (type === T.Identifier && occurrence === 2) return name === 'levels';
    if (type === T.True || type === T.False) return name === 'count';
    return true;
  },
};

/** The rules whose names are names of the model (properties, navigation, functions, variables): the probe answers there. */
const NAME_RULES = new Set(['identifierExpr', 'pathSegment', 'itemSegment', 'itemPath', 'expandItem', 'groupingProperty', 'aggregationPath']);

/** Rules where a name is a path of the model only (no function, variable or literal). */
const PATH_RULES = ['groupingProperty', 'aggregationPath', 'itemPath', 'expandItem'];

/** Whether values of the type are Boolean (or null). */
function isBooleanLike(type: ExpressionType): boolean {
  return type.kind === 'null' || (type.kind === 'primitive' && (type.name === 'Edm.Boolean' || type.name === 'Edm.Untyped'));
}

/** The parameter kinds the overloads of the canonical function at the cursor take at its argument, if the cursor is in one's arguments. */
function argumentKinds(cursor: ValueCursor): ReadonlySet<ParameterKind> | undefined {
  const call = cursor.call;
  if (call === undefined) return undefined;
  const overloads = SIGNATURES[call.name as keyof typeof SIGNATURES];
  if (overloads === undefined) return undefined;
  const kinds = new Set<ParameterKind>();
  for (const overload of overloads) {
    const kind = overload.parameters[call.argument];
    if (kind !== undefined) kinds.add(kind);
  }
  return kinds.size === 0 ? undefined : kinds;
}

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

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const ARITHMETIC = new Set(['add', 'sub', 'mul', 'div', 'divby', 'mod']);

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
  if (ARITHMETIC.has(operator)) {
    if (isNumeric(left)) return true;
    const temporal = left.kind === 'primitive' && ['Edm.DateTimeOffset', 'Edm.Date', 'Edm.Duration'].includes(left.name);
    return temporal && (operator === 'add' || operator === 'sub');
  }
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

/** Whether a member's value fits where a value of type `expected` is compared (after `operator`). */
function fits(member: Property | NavigationProperty, site: ProbeSite): boolean {
  const expected = site.expected;
  if (expected === undefined || expected.kind === 'null') return true;
  if (member.kind === 'navigation') return !member.collection;
  const type = fromReference(member.type, member.collection);
  if (type.kind === 'complex' || type.kind === 'entity') return true; // a path may continue to a fitting property
  const operator = site.operator ?? 'eq';
  if (operator === 'has') return type.kind === 'enum' && expected.kind === 'enum' && type.type === expected.type;
  if (ARITHMETIC.has(operator)) return isNumeric(type) || isNumeric(expected) === false;
  if (operator === 'eq' || operator === 'ne') return equalityComparable(expected, type);
  if (COMPARISONS.has(operator)) return orderComparable(expected, type);
  return true;
}

/** Whether the entity set's capabilities and the member's own let it stand in the probe's option. */
function allowed(member: Property | NavigationProperty, site: ProbeSite): boolean {
  const capabilities = site.first ? site.capabilities : undefined;
  switch (site.context) {
    case 'filter':
      return member.filterable && (capabilities === undefined || (capabilities.filterable && !capabilities.nonFilterableProperties.has(member.name)));
    case 'orderby':
      return (
        member.kind === 'navigation' ||
        (member.sortable && (capabilities === undefined || (capabilities.sortable && !capabilities.nonSortableProperties.has(member.name))))
      );
    case 'select':
      return member.kind === 'navigation' || member.selectable;
    case 'expand':
      return member.kind === 'navigation' ? member.expandable : member.type.kind === 'complex';
    default:
      return true;
  }
}

/** The names of the model a name at the cursor may be: members of the probe's type, variables, aliases, functions. */
function nameItems(site: ProbeSite | undefined, range: TextRange, cursor: ValueCursor, pathOnly: boolean, prefix: string): Completion[] {
  if (site === undefined) return [];
  const items: Completion[] = [];
  const type: StructuredType | undefined = site.type;
  const kinds = site.first ? argumentKinds(cursor) : undefined;
  if (type !== undefined) {
    const members: (Property | NavigationProperty)[] = [...type.properties.values(), ...type.navigation.values()];
    // In $expand, a navigation property the list already expands (before the cursor) is not offered again.
    const expanded = site.context === 'expand' && site.first ? expandedBefore(cursor) : undefined;
    for (const member of members) {
      // (Only the names the word typed so far begins: a type of Microsoft Graph has a hundred members and more.)
      if (prefix !== '' && !member.name.toLowerCase().startsWith(prefix)) continue;
      if (!allowed(member, site) || !fits(member, site)) continue;
      if (expanded?.has(member.name) === true) continue;
      if (kinds !== undefined && !fitsKinds(member.kind === 'property' ? fromReference(member.type, member.collection) : navigationType(member), kinds))
        continue;
      const detail =
        member.kind === 'navigation'
          ? `${member.collection ? 'Collection(' : ''}${member.target.qualifiedName}${member.collection ? ')' : ''}`
          : typeName(fromReference(member.type, member.collection));
      const documentation = descriptionOf(member);
      items.push({
        label: member.name,
        kind: member.kind === 'navigation' ? 'navigation' : 'property',
        detail,
        ...(documentation === undefined ? {} : { documentation }),
        insertText: member.name,
        range,
      });
    }
  } else if (site.collection) {
    for (const lambda of ['any', 'all']) items.push({ label: lambda, kind: 'function', detail: `${lambda}(x: predicate)`, insertText: `${lambda}(`, range });
  }
  if (!site.first || pathOnly || site.context === 'select' || site.context === 'expand' || site.context === 'groupby') {
    if (site.first && site.computed !== undefined && site.context === 'select')
      for (const alias of site.computed.keys()) items.push({ label: alias, kind: 'computed', insertText: alias, range });
    return items;
  }
  for (const [name, variable] of site.variables ?? []) items.push({ label: name, kind: 'variable', detail: typeName(variable.type), insertText: name, range });
  for (const [alias, item] of site.computed ?? []) if (alias === item.alias) items.push({ label: alias, kind: 'computed', insertText: alias, range });
  if (site.context === 'filter' || site.context === 'orderby' || site.context === 'compute') items.push(...functionItems(site.expected, kinds, range, prefix));
  return items;
}

/** The names the `$expand` list at the cursor's level expands before the cursor. */
function expandedBefore(cursor: ValueCursor): Set<string> {
  const names = new Set<string>();
  const depths: number[] = [];
  let depth = 0;
  cursor.tokens.forEach((token, i) => {
    if (token.image === '(') depth++;
    else if (token.image === ')') depth--;
    const previous = cursor.tokens[i - 1]?.image;
    depths.push(depth);
    if (previous === undefined || previous === ',' || previous === '=') names.add(token.image);
  });
  // Only the cursor's level: the list's items at the depth the cursor is at.
  return depth === 0 ? names : new Set();
}

/** The type of a navigation property's value. */
function navigationType(member: NavigationProperty): ExpressionType {
  const entity: ExpressionType = { kind: 'entity', type: member.target };
  return member.collection ? { kind: 'collection', element: entity } : entity;
}

/** Whether a value of `type` fits one of the parameter kinds (a structured value may lead to one). */
function fitsKinds(type: ExpressionType, kinds: ReadonlySet<ParameterKind>): boolean {
  if (type.kind === 'complex' || type.kind === 'entity') return true;
  for (const kind of kinds) if (accepts(kind, type)) return true;
  return false;
}

/** What a function's overload gives, where its result depends on the arguments: the numeric rounding functions give a number. */
function resultsOf(name: string): ExpressionType[] | undefined {
  const fn = FUNCTIONS[name as keyof typeof FUNCTIONS];
  if (fn.signatures === 'type argument') return name === 'isof' ? [{ kind: 'primitive', name: 'Edm.Boolean' }] : undefined;
  return fn.signatures.map((signature) =>
    typeof signature.result === 'function' ? ({ kind: 'primitive', name: 'Edm.Decimal' } as ExpressionType) : signature.result,
  );
}

/** A canonical function as completion offers it (computed once). */
interface FunctionEntry {
  readonly name: string;
  readonly detail: string;
  readonly insertText: string;
  readonly results: readonly ExpressionType[] | undefined;
}

let functionEntries: readonly FunctionEntry[] | undefined;
function functionTable(): readonly FunctionEntry[] {
  return (functionEntries ??= Object.entries(FUNCTIONS).map(([name, fn]) => {
    const overloads = SIGNATURES[name as keyof typeof SIGNATURES] ?? [];
    const detail = overloads.map((overload) => `${name}(${overload.parameters.join(', ')})`).join(' | ') || `${name}(…)`;
    const takesArguments = fn.signatures === 'type argument' || fn.signatures.some((signature) => signature.parameters.length > 0);
    return { name, detail, insertText: takesArguments ? `${name}(` : `${name}()`, results: resultsOf(name) };
  }));
}

/** The canonical functions, those returning a fitting type where one is expected (a comparison's other operand, a call's parameter). */
function functionItems(expected: ExpressionType | undefined, kinds: ReadonlySet<ParameterKind> | undefined, range: TextRange, prefix: string): Completion[] {
  const items: Completion[] = [];
  for (const { name, detail, insertText, results } of functionTable()) {
    if (prefix !== '' && !name.toLowerCase().startsWith(prefix)) continue;
    if (results !== undefined) {
      if (expected !== undefined && expected.kind !== 'null' && !results.some((result) => equalityComparable(expected, result))) continue;
      if (kinds !== undefined && !results.some((result) => fitsKinds(result, kinds))) continue;
    }
    items.push({ label: name, kind: 'function', detail, insertText, range });
  }
  // The two calls of the grammar itself (no overloads): whether a property is defined, and case(…).
  if (expected === undefined || expected.kind === 'null' || isBooleanLike(expected))
    items.push({ label: 'isdefined', kind: 'function', detail: 'isdefined(property): Edm.Boolean', insertText: 'isdefined(', range });
  items.push({ label: 'case', kind: 'function', detail: 'case(condition:value, …)', insertText: 'case(', range });
  return items;
}

/** Literal templates: of the expected type where it is known, of every type otherwise. */
function literalItems(expected: ExpressionType | undefined, kinds: ReadonlySet<ParameterKind> | undefined, range: TextRange): Completion[] {
  const templates: [string, string, string][] = [
    ["''", 'Edm.String', 'string'],
    ['0', 'Edm.Int32', 'number'],
    ['0.0', 'Edm.Decimal', 'number'],
    ['true', 'Edm.Boolean', 'boolean'],
    ['false', 'Edm.Boolean', 'boolean'],
    ['2024-01-01', 'Edm.Date', 'date'],
    ['2024-01-01T00:00:00Z', 'Edm.DateTimeOffset', 'date and time'],
    ['12:00:00', 'Edm.TimeOfDay', 'time of day'],

    ["duration'P1D'", 'Edm.Duration', 'duration'],
    ['00000000-0000-0000-0000-000000000000', 'Edm.Guid', 'GUID'],
  ];
  const items: Completion[] = [];
  if (expected?.kind === 'enum') items.push(...enumItems(expected.type, range));
  for (const [text, type, what] of templates) {
    if (expected !== undefined && expected.kind !== 'null' && !equalityComparable(expected, { kind: 'primitive', name: type as 'Edm.String' })) continue;
    if (expected?.kind === 'enum') continue;
    if (kinds !== undefined && !fitsKinds({ kind: 'primitive', name: type as 'Edm.String' }, kinds)) continue;
    items.push({ label: text, kind: 'literal', detail: `${type} (${what})`, insertText: text, range });
  }
  // The special values of the floating types, where one is expected (their names are case-sensitive).
  if (expected === undefined || (expected.kind === 'primitive' && (expected.name === 'Edm.Double' || expected.name === 'Edm.Single'))) {
    for (const [text, what] of [
      ['NaN', 'not a number'],
      ['INF', 'infinity'],
      ['-INF', 'minus infinity'],
    ] as const)
      items.push({ label: text, kind: 'literal', detail: `Edm.Double (${what})`, insertText: text, range });
  }
  items.push({ label: 'null', kind: 'literal', detail: 'null', insertText: 'null', range });
  return items;
}

/** An enumeration's members as literals (`Ns.Color'Red'`). */
function enumItems(type: EnumType, range: TextRange): Completion[] {
  return [...type.members.keys()].map((member) => ({
    label: `${type.qualifiedName}'${member}'`,
    kind: 'enumMember' as const,
    detail: type.qualifiedName,
    insertText: `${type.qualifiedName}'${member}'`,
    range,
  }));
}
