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

/** Operator name and binding strength by token type index, for the operators of the binary loop. */
const OPERATOR_BY_TOKEN: InfixOperator[] = [];
const STRENGTH_BY_TOKEN: number[] = [];
for (const [type, operator] of [
  [T.And, 'and'],
  [T.Or, 'or'],
  [T.Eq, 'eq'],
  [T.Ne, 'ne'],
  [T.Gt, 'gt'],
  [T.Ge, 'ge'],
  [T.Lt, 'lt'],
  [T.Le, 'le'],
  [T.Add, 'add'],
  [T.Sub, 'sub'],
  [T.Mul, 'mul'],
  [T.Div, 'div'],
  [T.DivBy, 'divby'],
  [T.Mod, 'mod'],
] as const) {
  OPERATOR_BY_TOKEN[type.tokenTypeIdx as number] = operator;
  STRENGTH_BY_TOKEN[type.tokenTypeIdx as number] = PRECEDENCE[operator];
}

/**
 * Arranges `operands[0] op[0] operands[1] op[1] …` into a tree by precedence, with an explicit
 * stack (shunting-yard), so that long chains cost neither recursion nor quadratic time. The stack
 * holds token type indices and strengths (numbers), not operator names, so that the loop does no
 * lookup by name.
 */
export function arrange(operands: readonly Expression[], operators: readonly OperatorToken[]): Expression {
  if (operators.length === 1) {
    // One operator (the most frequent case): no stacks.
    const left = operands[0] as Expression;
    const right = operands[1] as Expression;
    const operator = OPERATOR_BY_TOKEN[(operators[0] as OperatorToken).tokenTypeIdx] as InfixOperator;
    return { kind: 'binary', operator, left, right, span: { start: left.span.start, end: right.span.end } };
  }
  const values: Expression[] = [operands[0] as Expression];
  const pending: number[] = [];
  const strengths: number[] = [];
  const count = operators.length;
  for (let i = 0; i <= count; i++) {
    // At the end, a strength of 0 reduces everything that is pending.
    const type = i < count ? (operators[i] as OperatorToken).tokenTypeIdx : -1;
    const strength = type === -1 ? 0 : (STRENGTH_BY_TOKEN[type] as number);
    let top = pending.length - 1;
    while (top >= 0 && (strengths[top] as number) >= strength) {
      const right = values.pop() as Expression;
      const left = values.pop() as Expression;
      const operator = OPERATOR_BY_TOKEN[pending.pop() as number] as InfixOperator;
      strengths.pop();
      values.push({ kind: 'binary', operator, left, right, span: { start: left.span.start, end: right.span.end } });
      top--;
    }
    if (type !== -1) {
      pending.push(type);
      strengths.push(strength);
      values.push(operands[i + 1] as Expression);
    }
  }
  return values[0] as Expression;
}
