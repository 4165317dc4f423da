/**
 * Renders an AST in the `toString()` form of Apache Olingo's expression tree, so that the
 * corpus's `expectedTree` strings can be compared for precedence and grouping.
 */
import type { Expression } from '../../src/index.js';
import { printExpression } from '../../src/index.js';

export function olingoTree(node: Expression): string {
  switch (node.kind) {
    case 'binary':
      return `{${olingoTree(node.left)} ${node.operator.toUpperCase()} ${olingoTree(node.right)}}`;
    case 'in':
      return `{${olingoTree(node.left)} IN ${olingoTree(node.right)}}`;
    case 'unary':
      return `{${node.operator === 'not' ? 'NOT' : 'MINUS'} ${olingoTree(node.operand)}}`;
    case 'call':
      return `{${node.name} [${node.args.map((arg) => (arg.kind === 'typeName' ? arg.name : olingoTree(arg))).join(', ')}]}`;
    default:
      return printExpression(node);
  }
}
