/**
 * How each OASIS ABNF test case is run against the parser. A case is in scope when it concerns
 * a query option, an expression or a URL literal and does not depend on the suite's model
 * (`modelDependent`). Everything else is out of scope and listed with its reason.
 */
import { parseFilter, parseQuery, parseSearch } from '../../src/index.js';
import { parseAliasValue } from '../../src/syntax/parse.js';
import type { AbnfCase } from './corpus.js';

const EXPRESSION_RULES = new Set(['commonExpr', 'boolCommonExpr', 'boolcommonExpr', 'firstMemberExpr', 'propertyPathExpr', 'notExpr', 'isofExpr']);

const OPTION_RULES = new Set(['filter', 'expand', 'select', 'orderby', 'orderBy', 'search', 'compute', 'queryOptions']);

/** The literal type a typed literal rule must produce. */
const LITERAL_RULES: Readonly<Record<string, (type: string) => boolean>> = {
  binaryLiteral: (t) => t === 'Edm.Binary',
  boolean: (t) => t === 'Edm.Boolean',
  date: (t) => t === 'Edm.Date',
  dateTimeOffsetLiteral: (t) => t === 'Edm.DateTimeOffset',
  dateTimeOffsetValueInUrl: (t) => t === 'Edm.DateTimeOffset',
  decimalLiteral: (t) => ['Edm.Decimal', 'Edm.Int32', 'Edm.Int64', 'Edm.Double'].includes(t),
  doubleLiteral: (t) => ['Edm.Decimal', 'Edm.Int32', 'Edm.Int64', 'Edm.Double'].includes(t),
  singleLiteral: (t) => ['Edm.Decimal', 'Edm.Int32', 'Edm.Int64', 'Edm.Double'].includes(t),
  sbyteLiteral: (t) => t === 'Edm.Int32',
  int16Literal: (t) => t === 'Edm.Int32',
  int32Literal: (t) => t === 'Edm.Int32',
  int64Literal: (t) => t === 'Edm.Int32' || t === 'Edm.Int64',
  durationLiteral: (t) => t === 'Edm.Duration' || t === 'Edm.String',
  enumLiteral: (t) => t === 'enum' || t === 'Edm.String',
  guid: (t) => t === 'Edm.Guid',
  null: (t) => t === 'null',
  primitiveLiteral: () => true,
  stringLiteral: (t) => t === 'Edm.String',
  timeOfDayLiteral: (t) => t === 'Edm.TimeOfDay',
};

export type Verdict = { readonly scope: 'in'; readonly accepted: boolean; readonly error?: string } | { readonly scope: 'out'; readonly reason: string };

function attempt(run: () => boolean): { accepted: boolean; error?: string } {
  try {
    return run() ? { accepted: true } : { accepted: false, error: 'parsed, but not as the rule requires' };
  } catch (error) {
    return { accepted: false, error: (error as Error).message };
  }
}

/** Runs one case, or says why it is out of scope. */
export function runAbnfCase(c: AbnfCase): Verdict {
  if (c.modelDependent) return { scope: 'out', reason: 'model-dependent' };
  const expression = c.expression ?? c.input;
  if (c.literalContext === 'payload') return { scope: 'out', reason: 'JSON payload value, not URL syntax' };
  const literal = LITERAL_RULES[c.rule];
  if (literal !== undefined || c.rule.startsWith('geography') || c.rule.startsWith('geometry')) {
    const check = literal ?? ((t: string) => t === (c.rule.startsWith('geography') ? 'Edm.Geography' : 'Edm.Geometry'));
    return {
      scope: 'in',
      ...attempt(() => {
        const node = parseFilter(expression);
        return node.kind === 'literal' && check(node.type);
      }),
    };
  }
  if (c.rule === 'stringInUrl') return { scope: 'in', ...attempt(() => parseAliasValue(expression, '@p').kind === 'literal') };
  if (EXPRESSION_RULES.has(c.rule)) return { scope: 'in', ...attempt(() => (parseFilter(expression), true)) };
  // `anyExpr` is a path-segment fragment: run it in its place, after a collection path.
  if (c.rule === 'anyExpr') return { scope: 'in', ...attempt(() => (parseFilter(`$it/${expression}`), true)) };
  if (c.rule === 'searchExpr') return { scope: 'in', ...attempt(() => (parseSearch(expression, { search: 'grammar' }), true)) };
  if (OPTION_RULES.has(c.rule)) return { scope: 'in', ...attempt(() => (parseQuery(c.input, { search: 'grammar' }), true)) };
  if (c.rule === 'odataRelativeUri' || c.rule === 'odataUri') {
    const question = c.input.indexOf('?');
    if (question < 0) return { scope: 'out', reason: 'resource path only' };
    return { scope: 'in', ...attempt(() => (parseQuery(c.input.slice(question + 1), { search: 'grammar' }), true)) };
  }
  return { scope: 'out', reason: `rule ${c.rule} is not a query-language rule` };
}
