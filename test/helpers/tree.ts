/** A fully parenthesized rendering of an expression, for asserting structure in tests. */
import { printExpression, type Expression } from '../../src/index.js';

export function tree(node: Expression): string {
  switch (node.kind) {
    case 'binary':
      return `(${tree(node.left)} ${node.operator} ${tree(node.right)})`;
    case 'in':
      return `(${tree(node.left)} in ${tree(node.right)})`;
    case 'unary':
      return `(${node.operator} ${tree(node.operand)})`;
    case 'call':
      return `${node.name}(${node.args.map((arg) => (arg.kind === 'typeName' ? arg.name : tree(arg))).join(', ')})`;
    default:
      return printExpression(node);
  }
}

/** Removes `span` fields, to compare trees regardless of source positions. */
export function withoutSpans<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutSpans) as T;
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      // defineProperty, so that a key named __proto__ stays an own property.
      if (key !== 'span')
        Object.defineProperty(copy, key, {
          value: withoutSpans((value as Record<string, unknown>)[key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return copy as T;
  }
  return value;
}
