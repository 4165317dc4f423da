/**
 * What the SQL compiler knows of nulls without running the query: columns that cannot be NULL,
 * and properties a filter rejects when null (so that ordering by them needs no NULLS FIRST/LAST).
 */
import type { Property } from '../../model/model.js';
import type { BoundExpression } from '../../semantic/bound-ast.js';

/** Whether an expression is a column of the row that cannot be NULL (the lowering's, which classifies comparison operands with it). */
export { nonNullColumn } from '../../passes/lower-conditions.js';

/**
 * Properties of the row that the filter's top-level conjunction rejects when null (`p gt 5`,
 * `p eq 'x'`, `startswith(p, 'a')`): ordering by them needs no NULLS FIRST/LAST, which keeps an
 * ordinary index usable for the order.
 */
export function nullRejected(filter: BoundExpression | undefined, into = new Set<Property>()): Set<Property> {
  if (filter === undefined) return into;
  const property = (node: BoundExpression | undefined): Property | undefined =>
    node?.kind === 'path' && node.root.kind === 'it' && node.steps.length === 1 && node.steps[0]?.kind === 'property' ? node.steps[0].property : undefined;
  const nonNullLiteral = (node: BoundExpression | undefined): boolean => node?.kind === 'literal' && node.value !== null;
  if (filter.kind === 'binary') {
    if (filter.operator === 'and') {
      nullRejected(filter.left, into);
      nullRejected(filter.right, into);
    } else if (['eq', 'gt', 'ge', 'lt', 'le'].includes(filter.operator)) {
      // With a non-null literal on the other side, a null operand makes each of these false.
      const p = property(filter.left) ?? property(filter.right);
      if (p !== undefined && (nonNullLiteral(filter.left) || nonNullLiteral(filter.right))) into.add(p);
    }
  } else if (filter.kind === 'call' && ['startswith', 'endswith', 'contains'].includes(filter.name) && nonNullLiteral(filter.args[1])) {
    const p = property(filter.args[0]);
    if (p !== undefined) into.add(p);
  } else if (filter.kind === 'in' && filter.right.kind === 'list' && filter.right.items.every((item) => item.value !== null)) {
    const p = property(filter.left);
    if (p !== undefined) into.add(p);
  }
  return into;
}
