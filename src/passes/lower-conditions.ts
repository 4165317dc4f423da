/**
 * The one lowering of conditions before the SQL and MongoDB backends: a bound Boolean expression
 * as a tree that says, node by node, exactly where it holds (is true), with OData's rules applied
 * once, here:
 * - a comparison with a null literal is a null test (`x eq null`, `x ge null`: `x` is null;
 *   `x ne null`: it is not; `x gt null`: never), `null eq null` a constant, navigation included
 *   (`locality eq null`: no related entity);
 * - `not` is pushed to the leaves with three-valued logic, where De Morgan holds exactly: every
 *   node of the lowered tree has the three-valued value of the expression it comes from (so a
 *   backend may compile it as a filter, where only true matters, or as a Boolean value);
 * - a comparison carries which of its operands may be null and what the null rules make of two
 *   nulls, as data the backends read;
 * - where `not` cannot go further (a lambda, a function predicate, a Boolean path or `case`, `in`,
 *   `has`), a leaf says whether it holds where the node's value is true or where it is false.
 *   `not (a gt b)` stays such a leaf: with nulls and NaN it is not `a le b`.
 *
 * The reference evaluator does not use this code path: it is the oracle the lowering is tested against.
 */
import type { BoundBinary, BoundExpression } from '../semantic/bound-ast.js';
import type { ExpressionType } from '../semantic/types.js';
import { neverNull } from './never-null.js';

/** The six comparison operators. */
export type ComparisonOperator = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';

/**
 * Whether an operand of a comparison may be null at run time: `never` (a non-null literal, a
 * value that is never null such as a comparison), `column` (a non-nullable property of the row
 * itself: a table's column cannot be NULL, a document may still lack the field) or `maybe`.
 */
export type OperandNulls = 'never' | 'column' | 'maybe';

/** A comparison of two operands, neither a null literal: true or false, never null. */
export interface LoweredComparison {
  readonly kind: 'comparison';
  /** The bound comparison (its span locates errors). */
  readonly node: BoundBinary;
  readonly operator: ComparisonOperator;
  readonly left: BoundExpression;
  readonly right: BoundExpression;
  /** The type both operands are compared in. */
  readonly operandType: ExpressionType;
  /** Whether the left and the right operand may be null. */
  readonly nulls: readonly [OperandNulls, OperandNulls];
  /** The spec's rule for two null operands: true for eq, ge and le; false for ne, gt and lt. */
  readonly bothNull: boolean;
  /** The spec's rule for one null operand: true for ne only (gt/lt/ge/le are false with a null). */
  readonly oneNull: boolean;
  /** true: holds where the comparison is true; false: where it is false (the comparison under `not`). */
  readonly holdsWhen: boolean;
}

/** A lowered condition: every node has the three-valued value of the bound condition it comes from. */
export type LoweredCondition =
  /** `true`, `false`, or `null` (a null literal as a condition: it never holds, nor does its negation). */
  | { readonly kind: 'constant'; readonly value: boolean | null; readonly node: BoundExpression }
  /**
   * Three-valued `and`/`or` (after `not` was pushed through, De Morgan's dual of the bound
   * operator). `negated`: it is the lowering of a `not` over a bound and/or, so it is the
   * negation of its {@link complement}, which a backend may write as one `NOT` (shorter).
   */
  | {
      readonly kind: 'and' | 'or';
      readonly left: LoweredCondition;
      readonly right: LoweredCondition;
      readonly node: BoundExpression;
      readonly negated: boolean;
    }
  /**
   * `operand` is null (`isNull` true) or is not (false): never null itself. The operand may be a
   * single-valued navigation path (no related entity) or a complex property (all of it null).
   */
  | { readonly kind: 'null'; readonly operand: BoundExpression; readonly isNull: boolean; readonly node: BoundExpression }
  | LoweredComparison
  /**
   * A condition `not` does not go into: holds where `node`'s value is `holdsWhen` (so `false`
   * under an odd number of `not`s). Its value is the node's (`holdsWhen` true) or its negation.
   */
  | { readonly kind: 'leaf'; readonly node: BoundExpression; readonly holdsWhen: boolean };

const COMPARISONS: ReadonlySet<string> = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);

/** Where a comparison with one null operand holds: only `ne`. */
const ONE_NULL: Readonly<Record<ComparisonOperator, boolean>> = { eq: false, ne: true, gt: false, ge: false, lt: false, le: false };
/** Where a comparison of two nulls holds: `eq`, `ge` and `le`. */
const BOTH_NULL: Readonly<Record<ComparisonOperator, boolean>> = { eq: true, ne: false, gt: false, ge: true, lt: false, le: true };

function isNullLiteral(node: BoundExpression): boolean {
  return node.kind === 'literal' && node.value === null;
}

/**
 * Whether an expression is a property of the row itself that cannot be null: a non-nullable
 * (or key) single-valued property reached without navigation, outside lambda variables.
 */
export function nonNullColumn(node: BoundExpression): boolean {
  if (node.kind !== 'path' || node.root.kind !== 'it' || node.steps.length !== 1) return false;
  const step = node.steps[0];
  return step?.kind === 'property' && !step.property.collection && !step.property.nullable;
}

/** Whether a comparison operand may be null (see {@link OperandNulls}). */
export function operandNulls(node: BoundExpression): OperandNulls {
  if (node.kind === 'literal') return node.value === null ? 'maybe' : 'never';
  if (neverNull(node)) return 'never';
  return nonNullColumn(node) ? 'column' : 'maybe';
}

/**
 * A comparison with a null literal on one side (or both) as a null test or a constant: where
 * `other op null` holds when `holdsWhen` is true (or where it does not when false).
 */
function nullComparison(node: BoundBinary, operator: ComparisonOperator, holdsWhen: boolean): LoweredCondition {
  const other = isNullLiteral(node.right) ? node.left : node.right;
  if (isNullLiteral(other)) return { kind: 'constant', value: BOTH_NULL[operator] === holdsWhen, node };
  // With one null literal: the other side null makes it `bothNull`, a value makes it `oneNull`.
  const [whenNull, whenValue] = [BOTH_NULL[operator] === holdsWhen, ONE_NULL[operator] === holdsWhen];
  if (whenNull === whenValue) return { kind: 'constant', value: whenNull, node };
  return { kind: 'null', operand: other, isNull: whenNull, node };
}

function connective(kind: 'and' | 'or', left: LoweredCondition, right: LoweredCondition, node: BoundExpression, negated: boolean): LoweredCondition {
  return { kind, left, right, node, negated };
}

/** The lowered negation of a lowered condition (exact in three-valued logic; linear in the tree). */
export function complement(condition: LoweredCondition): LoweredCondition {
  switch (condition.kind) {
    case 'constant':
      return { ...condition, value: condition.value === null ? null : !condition.value };
    case 'and':
    case 'or':
      return connective(condition.kind === 'and' ? 'or' : 'and', complement(condition.left), complement(condition.right), condition.node, !condition.negated);
    case 'null':
      return { ...condition, isNull: !condition.isNull };
    default:
      return { ...condition, holdsWhen: !condition.holdsWhen };
  }
}

/**
 * `node` (a Boolean expression) lowered: holds where `node`'s value is `holdsWhen` (true: the
 * condition itself; false: its negation, `not` pushed to the leaves). Linear in the tree.
 */
export function lowerCondition(node: BoundExpression, holdsWhen = true): LoweredCondition {
  switch (node.kind) {
    case 'literal':
      if (node.value === null) return { kind: 'constant', value: null, node };
      if (typeof node.value === 'boolean') return { kind: 'constant', value: node.value === holdsWhen, node };
      break;
    case 'unary':
      if (node.operator === 'not') return lowerCondition(node.operand, !holdsWhen);
      break;
    case 'binary': {
      const { operator } = node;
      if (operator === 'and' || operator === 'or') {
        // not (a and b) is (not a) or (not b), exactly in three-valued logic.
        const kind = (operator === 'and') === holdsWhen ? 'and' : 'or';
        return connective(kind, lowerCondition(node.left, holdsWhen), lowerCondition(node.right, holdsWhen), node, !holdsWhen);
      }
      if (COMPARISONS.has(operator)) {
        const op = operator as ComparisonOperator;
        if (isNullLiteral(node.left) || isNullLiteral(node.right)) return nullComparison(node, op, holdsWhen);
        const nulls = [operandNulls(node.left), operandNulls(node.right)] as const;
        const { left, right, operandType } = node;
        return { kind: 'comparison', node, operator: op, left, right, operandType, nulls, bothNull: BOTH_NULL[op], oneNull: ONE_NULL[op], holdsWhen };
      }
      break;
    }
    default:
      break;
  }
  return { kind: 'leaf', node, holdsWhen };
}

/** How a backend compiles each kind of lowered node; `and`/`or` get their compiled operands. */
export interface LoweredCases<T> {
  readonly constant: (value: boolean | null, node: BoundExpression) => T;
  readonly and: (left: T, right: T, node: BoundExpression) => T;
  readonly or: (left: T, right: T, node: BoundExpression) => T;
  readonly null: (operand: BoundExpression, isNull: boolean, node: BoundExpression) => T;
  readonly comparison: (comparison: LoweredComparison) => T;
  readonly leaf: (node: BoundExpression, holdsWhen: boolean) => T;
  /**
   * Optional: an and/or that is `negated` (the lowering of a `not`), given as the negation of
   * `complemented` (its complement), for a target that writes one `NOT` instead of one per leaf.
   */
  readonly negation?: (complemented: LoweredCondition, node: BoundExpression) => T;
}

/** Compiles a lowered condition bottom-up with `cases` (the one walk over and/or every backend uses). */
export function foldLowered<T>(condition: LoweredCondition, cases: LoweredCases<T>): T {
  switch (condition.kind) {
    case 'constant':
      return cases.constant(condition.value, condition.node);
    case 'and':
    case 'or':
      if (condition.negated && cases.negation !== undefined) return cases.negation(complement(condition), condition.node);
      return cases[condition.kind](foldLowered(condition.left, cases), foldLowered(condition.right, cases), condition.node);
    case 'null':
      return cases.null(condition.operand, condition.isNull, condition.node);
    case 'comparison':
      return cases.comparison(condition);
    case 'leaf':
      return cases.leaf(condition.node, condition.holdsWhen);
  }
}
