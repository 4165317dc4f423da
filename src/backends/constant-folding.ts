/**
 * Constant folding for the backends that translate expressions (SQL, MongoDB): a subexpression
 * without paths, such as `now() sub duration'P7D'`, `2024-01-01T00:00:00Z add duration'PT1H'` or
 * `1 add 2`, is computed once by the in-memory backend (the reference semantics) and becomes a
 * literal, which every dialect can take as a parameter.
 */
import type { BoundExpression, BoundLiteral, BoundQueryOptions } from '../semantic/bound-ast.js';
import { formatDate, formatDuration, formatInstant, type Instant } from '../util/temporal.js';
import { decimalToString, type Decimal } from '../util/decimal.js';
import { ExpressionCompiler } from './memory/compile-expression.js';

const evaluator = new ExpressionCompiler(() => null);

/** Functions whose value depends on the row or on nothing at all; the latter fold. */
const CONSTANT_CALLS = new Set(['now', 'mindatetime', 'maxdatetime']);

/** Whether the node reads nothing of the row (no path, lambda, count or non-constant call argument). */
function isConstant(node: BoundExpression): boolean {
  switch (node.kind) {
    case 'literal':
      return true;
    case 'binary':
      return isConstant(node.left) && isConstant(node.right);
    case 'unary':
      return isConstant(node.operand);
    case 'call':
      return (node.args.length > 0 || CONSTANT_CALLS.has(node.name)) && node.args.every(isConstant);
    default:
      return false;
  }
}

/** The literal form of an in-memory value of a primitive type, or `undefined` when it has none. */
function literalValue(value: unknown): BoundLiteral['value'] | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string') return value;
  if (typeof value === 'object' && 'kind' in value && (value as { kind: unknown }).kind === 'instant') return formatInstant(value as Instant);
  if (typeof value === 'object' && 'coefficient' in value) return decimalToString(value as Decimal);
  return undefined;
}

/**
 * `node` with its constant subexpressions replaced by literals. Only primitive results fold;
 * a subexpression whose evaluation fails (division by zero) is left as it is for the backend.
 */
export function foldConstants(node: BoundExpression): BoundExpression {
  if (node.kind === 'literal') return node;
  if (node.type.kind === 'primitive' && isConstant(node)) {
    try {
      let value = literalValue(evaluator.compile(node)({}, Object.create(null) as Record<string, unknown>));
      if (typeof value === 'bigint' && node.type.name === 'Edm.Duration') value = formatDuration(value);
      if (typeof value === 'number' && node.type.name === 'Edm.Date') value = formatDate(value);
      if (value !== undefined) return { kind: 'literal', type: node.type, value, span: node.span };
    } catch {
      // left to the backend, which reports it its own way
    }
  }
  switch (node.kind) {
    case 'binary': {
      const left = foldConstants(node.left);
      const right = foldConstants(node.right);
      const folded = left === node.left && right === node.right ? node : { ...node, left, right };
      return moveDuration(folded) ?? folded;
    }
    case 'unary': {
      const operand = foldConstants(node.operand);
      return operand === node.operand ? node : { ...node, operand };
    }
    case 'call': {
      const args = node.args.map(foldConstants);
      return args.every((a, i) => a === node.args[i]) ? node : { ...node, args };
    }
    case 'in':
      return { ...node, left: foldConstants(node.left), right: node.right.kind === 'collection' ? { kind: 'collection', collection: foldConstants(node.right.collection) } : node.right };
    case 'lambda':
      return node.predicate === undefined ? node : { ...node, predicate: foldConstants(node.predicate) };
    case 'count':
      return node.filter === undefined ? node : { ...node, filter: foldConstants(node.filter) };
    case 'case':
      return { ...node, branches: node.branches.map((b) => ({ when: foldConstants(b.when), then: foldConstants(b.then) })) };
    default:
      return node;
  }
}

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const isDateTimeOffset = (node: BoundExpression): boolean => node.type.kind === 'primitive' && node.type.name === 'Edm.DateTimeOffset';
const isDurationLiteral = (node: BoundExpression): boolean => node.kind === 'literal' && node.type.kind === 'primitive' && node.type.name === 'Edm.Duration' && node.value !== null;

/**
 * `at add duration'P1D' gt L` as `at gt L sub duration'P1D'` (and `sub`, and either side): a
 * DateTimeOffset plus a constant duration compared with a constant is the same comparison of
 * instants with the duration moved to the constant side, which then folds. Instants are exact
 * (picoseconds), so this changes no result; backends then need no date arithmetic on columns.
 */
function moveDuration(node: Extract<BoundExpression, { kind: 'binary' }>): BoundExpression | undefined {
  if (!COMPARISONS.has(node.operator)) return undefined;
  const rewrite = (arithmetic: BoundExpression, constant: BoundExpression, build: (column: BoundExpression, other: BoundExpression) => BoundExpression): BoundExpression | undefined => {
    if (arithmetic.kind !== 'binary' || (arithmetic.operator !== 'add' && arithmetic.operator !== 'sub') || !isDateTimeOffset(arithmetic)) return undefined;
    if (constant.kind !== 'literal' || constant.value === null || !isDateTimeOffset(constant)) return undefined;
    // column ± D, or D + column.
    let column: BoundExpression;
    let duration: BoundExpression;
    if (isDurationLiteral(arithmetic.right) && isDateTimeOffset(arithmetic.left)) {
      column = arithmetic.left;
      duration = arithmetic.right;
    } else if (arithmetic.operator === 'add' && isDurationLiteral(arithmetic.left) && isDateTimeOffset(arithmetic.right)) {
      column = arithmetic.right;
      duration = arithmetic.left;
    } else return undefined;
    const inverse = arithmetic.operator === 'add' ? 'sub' : 'add';
    const moved = foldConstants({ kind: 'binary', operator: inverse, left: constant, right: duration, type: constant.type, operandType: constant.type, span: constant.span });
    // A moved constant outside the years 1 to 9999 is null, which would compare otherwise: keep the sides.
    return moved.kind === 'literal' && moved.value !== null ? build(column, moved) : undefined;
  };
  return (
    rewrite(node.left, node.right, (column, other) => ({ ...node, left: column, right: other })) ??
    rewrite(node.right, node.left, (column, other) => ({ ...node, left: other, right: column }))
  );
}

/** {@link foldConstants} over the `$filter` and `$orderby` of a query and of its expansions. */
export function foldQuery<T extends BoundQueryOptions>(query: T): T {
  return {
    ...query,
    ...(query.filter === undefined ? {} : { filter: foldConstants(query.filter) }),
    ...(query.orderBy === undefined ? {} : { orderBy: query.orderBy.map((item) => ({ ...item, expression: foldConstants(item.expression) })) }),
    expand: query.expand.map((item) => ({ ...item, options: foldQuery(item.options) })),
  };
}
