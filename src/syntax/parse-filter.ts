/**
 * `$filter` with the expression grammar alone (expression-parser.ts), for `odata-engine/filter`:
 * a bundle that validates filters does not carry the full grammar (`$select`, `$expand`, `$apply`,
 * `$compute`, the `$search` syntax). The two constructs of a `$filter` that need a rule of the full
 * grammar, the aggregate function in a path (`Sales/aggregate(Amount with sum)`) and `$count(…)`
 * with nested options, are refused here with their position (`unsupported_feature`); everything
 * else gives the tree, or the error, that `parseFilter` of `odata-engine/core` gives.
 */
import { ODataError } from '../errors/odata-error.js';
import type { Expression } from './ast.js';
import { NeedsFullGrammar, sharedExpressionParser } from './expression-parser.js';
import { boundedTokens, parseWith, type ParseOptions } from './parse-run.js';

/**
 * Parses a `$filter` value with the expression grammar alone (see the module's comment for the two
 * constructs it refuses).
 *
 * @example
 * ```ts
 * import { parseFilter } from 'odata-engine/filter';
 * parseFilter("name eq 'Pump' and price gt 10").kind; // 'binary'
 * ```
 */
export function parseFilterExpression(text: string, options?: ParseOptions): Expression {
  const tokens = boundedTokens(text, 'expression', '$filter', options);
  try {
    return parseWith(sharedExpressionParser(), tokens, text, 'filterOption', '$filter', options) as Expression;
  } catch (error) {
    if (!(error instanceof NeedsFullGrammar)) throw error;
    throw new ODataError({
      code: 'unsupported_feature',
      reason: `${error.construct} needs the full OData grammar, which odata-engine/filter leaves out: parse it with odata-engine/core`,
      option: '$filter',
      position: error.position,
    });
  }
}
