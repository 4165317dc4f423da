/**
 * The parser's gates, which the grammar Chevrotain records does not hold, for the content assist
 * (content-assist.ts): a transformation's name chooses the rule of its arguments, a nested option's
 * name the rule of its value, `rollup` and `rolluprecursive` theirs, and `with` and `from` are
 * words a gate checks. Kept beside the parser's own gates (src/syntax/parser.ts).
 */
import * as T from '../syntax/lexer.js';
import type { Gates } from './content-assist.js';
import { canonicalOption } from './cursor.js';

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
export const GATES: Gates = {
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
