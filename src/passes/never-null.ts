/**
 * Which Boolean expressions can never be null, by the reference semantics every backend follows:
 * comparisons are true or false (a null operand makes `gt`/`lt` false, `null eq null` true), `in`,
 * `any` and `all` too, and `and`, `or` and `not` of such operands. Backends use it to write a
 * Boolean value or a null guard once instead of repeating its operands (a nested comparison of
 * Boolean values doubled its compiled size per level).
 */
import type { BoundExpression } from '../semantic/bound-ast.js';

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);

/** Whether `node`'s value is never null (false where it cannot tell). Linear in the tree. */
export function neverNull(node: BoundExpression): boolean {
  switch (node.kind) {
    case 'literal':
      return node.value !== null;
    case 'in':
    case 'lambda':
    case 'defined':
    case 'hierarchyTest':
      return true;
    case 'unary':
      return node.operator === 'not' && neverNull(node.operand);
    case 'binary':
      if (COMPARISONS.has(node.operator)) return true;
      return (node.operator === 'and' || node.operator === 'or') && neverNull(node.left) && neverNull(node.right);
    default:
      return false;
  }
}
