/**
 * Constant folding for the backends that translate expressions (SQL, MongoDB): a subexpression
 * without paths, such as `now() sub duration'P7D'`, `2024-01-01T00:00:00Z add duration'PT1H'` or
 * `1 add 2`, is computed once by the reference evaluator (src/reference/evaluator.ts) and becomes a
 * literal, which every dialect can take as a parameter.
 */
import type { BoundExpression, BoundLiteral, BoundQueryOptions } from '../semantic/bound-ast.js';
import { everyExpression, mapExpressionChildren, mapQueryExpressions } from '../semantic/walk/index.js';
import { FIRST_STORED_DAY, LAST_STORED_DAY, formatInstant, formatTimeOfDay, instantFromPicos, parseDuration, parseTimeOfDay } from '../util/temporal.js';
import { ReferenceCompiler } from './evaluator.js';
import { storedForm } from './values.js';

const evaluator = new ReferenceCompiler(() => null);

/** Functions whose value depends on the row or on nothing at all; the latter fold. */
const CONSTANT_CALLS = new Set(['now', 'mindatetime', 'maxdatetime']);

/**
 * String functions whose value is null when an argument is (as the reference evaluates them):
 * with a null literal argument they fold to a null of their type, whatever the other argument
 * reads. DuckDB's optimizer, folding `NULL LIKE (…)` itself, lost a correlated subquery inside
 * the other operand ("Failed to bind column reference"; seed 2835, model 922).
 */
const NULL_STRICT_CALLS = new Set([
  'startswith',
  'endswith',
  'contains',
  'substringof',
  'indexof',
  'concat',
  'substring',
  'length',
  'tolower',
  'toupper',
  'trim',
  'matchesPattern',
]);

/** Whether the node itself reads nothing of the row: a literal, an operator, a call with arguments or of a constant function. */
const readsNothing = (n: BoundExpression): boolean =>
  n.kind === 'literal' || n.kind === 'binary' || n.kind === 'unary' || (n.kind === 'call' && (n.args.length > 0 || CONSTANT_CALLS.has(n.name)));

/** Whether the node reads nothing of the row (no path, lambda, count or non-constant call argument). */
function isConstant(node: BoundExpression): boolean {
  return everyExpression(node, readsNothing);
}

/**
 * `node` with its constant subexpressions replaced by literals. Only primitive results fold;
 * a subexpression whose evaluation fails (division by zero) is left as it is for the backend.
 */
export function foldConstants(node: BoundExpression): BoundExpression {
  if (node.kind === 'literal') return canonicalTime(node);
  if (node.type.kind === 'primitive' && isConstant(node)) {
    try {
      const raw = evaluator.compile(node)({}, Object.create(null) as Record<string, unknown>);
      const value = raw === undefined ? undefined : storedForm(node.type, raw);
      // Only primitive values have a literal form.
      if (value !== undefined && (value === null || typeof value !== 'object'))
        return { kind: 'literal', type: node.type, value: value as BoundLiteral['value'], span: node.span };
    } catch {
      // left to the backend, which reports it its own way
    }
  }
  const folded = mapExpressionChildren(node, foldConstants);
  if (folded.kind === 'binary') return moveDuration(folded) ?? folded;
  if (
    folded.kind === 'call' &&
    folded.type.kind === 'primitive' &&
    NULL_STRICT_CALLS.has(folded.name) &&
    folded.args.some((arg) => arg.kind === 'literal' && arg.value === null)
  ) {
    return { kind: 'literal', type: folded.type, value: null, span: folded.span };
  }
  // A NaN item matches nothing (NaN equals nothing; PostgreSQL and MongoDB find NaN = NaN).
  if (folded.kind === 'in' && folded.right.kind === 'list' && folded.right.items.some(isNaNLiteral)) {
    return { ...folded, right: { ...folded.right, items: folded.right.items.filter((item) => !isNaNLiteral(item)) } };
  }
  return folded;
}

/**
 * A TimeOfDay literal in the form the backends store times of day as text (SQLite, MongoDB):
 * `HH:MM:SS` and the fraction without trailing zeros (`12:00` and `12:00:00.000` are `12:00:00`),
 * so that equal times are equal text where they are grouped or counted as text (seed 2837).
 */
function canonicalTime(node: BoundLiteral): BoundLiteral {
  if (node.type.kind !== 'primitive' || node.type.name !== 'Edm.TimeOfDay' || typeof node.value !== 'string') return node;
  const picos = parseTimeOfDay(node.value);
  return picos === undefined ? node : { ...node, value: formatTimeOfDay(picos) };
}

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const isNaNLiteral = (node: BoundLiteral): boolean =>
  (node.value === 'NaN' || (typeof node.value === 'number' && Number.isNaN(node.value))) &&
  node.type.kind === 'primitive' &&
  (node.type.name === 'Edm.Double' || node.type.name === 'Edm.Single');
const isDateTimeOffset = (node: BoundExpression): boolean => node.type.kind === 'primitive' && node.type.name === 'Edm.DateTimeOffset';
const isDurationLiteral = (node: BoundExpression): boolean =>
  node.kind === 'literal' && node.type.kind === 'primitive' && node.type.name === 'Edm.Duration' && node.value !== null;

/**
 * `at add duration'P1D' gt L` as `at gt L sub duration'P1D'` (and `sub`, and either side): a
 * DateTimeOffset plus a constant duration compared with a constant is the same comparison of
 * instants with the duration moved to the constant side, which then folds. Instants are exact
 * (picoseconds), so this changes no result; backends then need no date arithmetic on columns.
 */
function moveDuration(node: Extract<BoundExpression, { kind: 'binary' }>): BoundExpression | undefined {
  if (!COMPARISONS.has(node.operator)) return undefined;
  const rewrite = (
    arithmetic: BoundExpression,
    constant: BoundExpression,
    build: (column: BoundExpression, other: BoundExpression) => BoundExpression,
  ): BoundExpression | undefined => {
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
    const moved = foldConstants({
      kind: 'binary',
      operator: inverse,
      left: constant,
      right: duration,
      type: constant.type,
      operandType: constant.type,
      span: constant.span,
    });
    // A moved constant outside the years 1 to 9999 is null, which would compare otherwise: keep the sides.
    if (moved.kind !== 'literal' || moved.value === null) return undefined;
    // `column ± D` itself is null where it leaves the years 1 to 9999 (eq, gt, ge, lt, le are then
    // false, ne true): only the columns whose shift stays inside compare.
    const shift = (parseDuration((duration as BoundLiteral).value) ?? 0n) * (arithmetic.operator === 'sub' ? -1n : 1n);
    const inside = shiftStaysInside(column, shift, constant);
    if (inside === undefined) return undefined;
    const compared = build(column, moved);
    if (inside === true) return compared;
    const logical = (operator: 'and' | 'or', left: BoundExpression, right: BoundExpression): BoundExpression => ({
      kind: 'binary',
      operator,
      left,
      right,
      type: node.type,
      operandType: node.type,
      span: node.span,
    });
    return node.operator === 'ne' ? logical('or', compared, negate(inside)) : logical('and', compared, inside);
  };
  return (
    rewrite(node.left, node.right, (column, other) => ({ ...node, left: column, right: other })) ??
    rewrite(node.right, node.left, (column, other) => ({ ...node, left: other, right: column }))
  );
}

const PICOS_PER_DAY = 86_400_000_000_000_000n;
/** The first instant of the year 1 and the first after the year 9999, in picoseconds since the epoch. */
const FIRST_PICOS = BigInt(FIRST_STORED_DAY) * PICOS_PER_DAY;
const BEYOND_PICOS = BigInt(LAST_STORED_DAY + 1) * PICOS_PER_DAY;

/**
 * The condition on `column` (an instant of the years 1 to 9999) under which `column` moved by
 * `shift` picoseconds stays in those years: `true` for no shift, `undefined` when no instant stays.
 */
function shiftStaysInside(column: BoundExpression, shift: bigint, at: BoundExpression): BoundExpression | true | undefined {
  if (shift === 0n) return true;
  const bound = shift > 0n ? BEYOND_PICOS - shift : FIRST_PICOS - shift;
  if (bound <= FIRST_PICOS || bound >= BEYOND_PICOS) return undefined;
  const literal: BoundLiteral = { kind: 'literal', type: column.type, value: formatInstant(instantFromPicos(bound, 0)), span: at.span };
  const type = { kind: 'primitive', name: 'Edm.Boolean' } as const;
  return { kind: 'binary', operator: shift > 0n ? 'lt' : 'ge', left: column, right: literal, type, operandType: column.type, span: at.span };
}

/** The comparison that holds where `condition` (a comparison of a column with a literal) is false or the column null. */
function negate(condition: BoundExpression): BoundExpression {
  if (condition.kind !== 'binary') throw new Error('a comparison');
  const operator = condition.operator === 'lt' ? 'ge' : 'lt';
  const isNull: BoundExpression = {
    kind: 'binary',
    operator: 'eq',
    left: condition.left,
    right: { kind: 'literal', type: { kind: 'null' }, value: null, span: condition.span },
    type: condition.type,
    operandType: condition.left.type,
    span: condition.span,
  };
  return {
    kind: 'binary',
    operator: 'or',
    left: { ...condition, operator },
    right: isNull,
    type: condition.type,
    operandType: condition.type,
    span: condition.span,
  };
}

/** {@link foldConstants} over the `$compute`, `$filter` and `$orderby` of a query and of its expansions. */
export function foldQuery<T extends BoundQueryOptions>(query: T): T {
  // The query itself when nothing folds (the usual case): no copies.
  return mapQueryExpressions(query, foldConstants);
}
