/**
 * Operator precedence (URL Conventions 5.1.1.17), lowest first. `has` and `in` are Primary and
 * handled in the grammar itself; `not` and negation are unary. All binary operators here are
 * left-associative.
 */
import type { IToken } from 'chevrotain';
import type { BinaryOperator, Expression } from './ast.js';
import * as T from './lexer.js';

export type OperatorToken = IToken;

/** Binding strength of each infix operator (higher binds tighter). */
export const PRECEDENCE = {
  or: 1,
  and: 2,
  eq: 3,
  ne: 3,
  gt: 4,
  ge: 4,
  lt: 4,
  le: 4,
  add: 5,
  sub: 5,
  mul: 6,
  div: 6,
  divby: 6,
  mod: 6,
  has: 8,
} as const satisfies Record<BinaryOperator, number>;

type InfixOperator = Exclude<BinaryOperator, 'has'>;

/** Operator name by token type index, for the operators of the binary loop. */
const OPERATOR_BY_TOKEN: InfixOperator[] = [];
for (const [type, operator] of [
  [T.And, 'and'], [T.Or, 'or'], [T.Eq, 'eq'], [T.Ne, 'ne'], [T.Gt, 'gt'], [T.Ge, 'ge'], [T.Lt, 'lt'], [T.Le, 'le'],
  [T.Add, 'add'], [T.Sub, 'sub'], [T.Mul, 'mul'], [T.Div, 'div'], [T.DivBy, 'divby'], [T.Mod, 'mod'],
] as const) {
  OPERATOR_BY_TOKEN[type.tokenTypeIdx as number] = operator;
}

function operatorOf(token: OperatorToken): InfixOperator {
  return OPERATOR_BY_TOKEN[token.tokenTypeIdx] as InfixOperator;
}

/**
 * Arranges `operands[0] op[0] operands[1] op[1] …` into a tree by precedence, with an explicit
 * stack (shunting-yard), so that long chains cost neither recursion nor quadratic time.
 */
export function arrange(operands: readonly Expression[], operators: readonly OperatorToken[]): Expression {
  const values: Expression[] = [operands[0] as Expression];
  const pending: InfixOperator[] = [];
  for (let i = 0; i <= operators.length; i++) {
    // At the end, a strength of 0 reduces everything that is pending.
    const operator = i < operators.length ? operatorOf(operators[i] as OperatorToken) : undefined;
    const strength = operator === undefined ? 0 : PRECEDENCE[operator];
    while (pending.length > 0 && PRECEDENCE[pending[pending.length - 1] as InfixOperator] >= strength) {
      const right = values.pop() as Expression;
      const left = values.pop() as Expression;
      values.push({ kind: 'binary', operator: pending.pop() as InfixOperator, left, right, span: { start: left.span.start, end: right.span.end } });
    }
    if (operator !== undefined) {
      pending.push(operator);
      values.push(operands[i + 1] as Expression);
    }
  }
  return values[0] as Expression;
}
