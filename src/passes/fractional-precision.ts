/**
 * Literals finer than a backend stores, for the backends that translate expressions: the reference
 * keeps DateTimeOffset, TimeOfDay and Duration values to the picosecond, a database to its own
 * fraction of a second (PostgreSQL and MySQL/MariaDB: microseconds). A database would round such a
 * literal, so `time eq 00:00:00.0000005` would match `00:00:00`. This pass, run after constant
 * folding, keeps the reference's answer where it can be had exactly and refuses the rest:
 *
 * - a comparison of a stored or computed value (which the database holds at its precision) with a
 *   finer literal `L`: `eq` is false and `ne` true (no stored value equals `L`); `gt`/`ge` are
 *   `gt floor(L)` and `lt`/`le` are `le floor(L)`, `floor` taken at the backend's precision;
 * - a finer literal in an `in` list matches nothing: it is left out (no item left: false);
 * - anywhere else (arithmetic, function arguments, `case`): `unsupported_feature`, with its position.
 */
import { ODataError } from '../errors/odata-error.js';
import type { BoundExpression, BoundLiteral, BoundQueryOptions } from '../semantic/bound-ast.js';
import { mapExpressionChildren, mapQueryExpressions, someExpression } from '../semantic/walk/index.js';
import { formatDuration, formatInstant, formatTimeOfDay, instantFromPicos, parseDuration, parseInstant, parseTimeOfDay } from '../util/temporal.js';

/**
 * The backend's precision: digits of a second it stores for each temporal type (12, or a type left
 * out: exact), and its name for the error message.
 */
export interface FractionalPrecision {
  readonly digits: Readonly<Partial<Record<'Edm.DateTimeOffset' | 'Edm.TimeOfDay' | 'Edm.Duration', number>>>;
  readonly backend: string;
}

type Temporal = 'Edm.DateTimeOffset' | 'Edm.TimeOfDay' | 'Edm.Duration';
const TEMPORAL = new Set<string>(['Edm.DateTimeOffset', 'Edm.TimeOfDay', 'Edm.Duration']);
const FLIPPED: Record<string, string> = { eq: 'eq', ne: 'ne', gt: 'lt', ge: 'le', lt: 'gt', le: 'ge' };

/** The literal's value in picoseconds (instant: since the epoch), or `undefined` when it is not temporal. */
function picosOf(node: BoundLiteral): { type: Temporal; picos: bigint } | undefined {
  if (node.type.kind !== 'primitive' || !TEMPORAL.has(node.type.name) || typeof node.value !== 'string') return undefined;
  const type = node.type.name as Temporal;
  const picos =
    type === 'Edm.DateTimeOffset' ? parseInstant(node.value)?.picos : type === 'Edm.TimeOfDay' ? parseTimeOfDay(node.value) : parseDuration(node.value);
  return picos === undefined ? undefined : { type, picos };
}

/** The picoseconds of one unit of the backend's precision for each temporal type. */
type Units = Readonly<Record<Temporal, bigint>>;
/**
 * The units of a precision, or `undefined` when every type is exact (nothing to limit). Kept per
 * precision object (the backends keep theirs), so not derived again on every compile.
 */
const unitsByPrecision = new WeakMap<FractionalPrecision, { readonly units: Units | undefined }>();
function unitsOf(precision: FractionalPrecision): Units | undefined {
  const kept = unitsByPrecision.get(precision);
  if (kept !== undefined) return kept.units;
  const { digits } = precision;
  const unit = (digits: number | undefined): bigint => 10n ** BigInt(Math.max(0, 12 - Math.min(12, digits ?? 12)));
  const units: Units = {
    'Edm.DateTimeOffset': unit(digits['Edm.DateTimeOffset']),
    'Edm.TimeOfDay': unit(digits['Edm.TimeOfDay']),
    'Edm.Duration': unit(digits['Edm.Duration']),
  };
  const exact = Object.values(units).every((u) => u === 1n);
  unitsByPrecision.set(precision, { units: exact ? undefined : units });
  return exact ? undefined : units;
}

/** Whether the node is a temporal literal with a fraction the backend cannot hold. */
function isFiner(node: BoundExpression, units: Units): node is BoundLiteral {
  if (node.kind !== 'literal') return false;
  const value = picosOf(node);
  return value !== undefined && value.picos % units[value.type] !== 0n;
}

/** `node` rounded down to the backend's precision (toward minus infinity), in its own text form. */
function floorOf(node: BoundLiteral, units: Units): BoundLiteral {
  const { type, picos } = picosOf(node) as { type: Temporal; picos: bigint };
  const unit = units[type];
  const floor = picos - (((picos % unit) + unit) % unit);
  const value =
    type === 'Edm.DateTimeOffset'
      ? formatInstant(instantFromPicos(floor, parseInstant(node.value)?.offsetMinutes ?? 0))
      : type === 'Edm.TimeOfDay'
        ? formatTimeOfDay(floor)
        : formatDuration(floor);
  return { ...node, value };
}

/** Whether a finer literal occurs anywhere in `node`. */
function containsFiner(node: BoundExpression, units: Units): boolean {
  return someExpression(node, (n) => isFiner(n, units));
}

const booleanLiteral = (value: boolean, like: BoundExpression): BoundLiteral => ({
  kind: 'literal',
  type: { kind: 'primitive', name: 'Edm.Boolean' },
  value,
  span: like.span,
});

/** {@link limitFraction} of one expression of `option`. */
function limit(node: BoundExpression, units: Units, precision: FractionalPrecision, option: string): BoundExpression {
  const recurse = (n: BoundExpression): BoundExpression => limit(n, units, precision, option);
  switch (node.kind) {
    case 'literal':
      if (!isFiner(node, units)) return node;
      throw new ODataError({
        code: 'unsupported_feature',
        reason: `The ${precision.backend} backend does not support the literal '${String(node.value)}' here: it is finer than the fraction of a second that it stores (only comparisons and in lists take it)`,
        option,
        position: node.span.start,
        appendLocation: false,
      });
    case 'binary': {
      if (FLIPPED[node.operator] !== undefined && isFiner(node.left, units) !== isFiner(node.right, units)) {
        const [other, fine, operator] = isFiner(node.right, units)
          ? [node.left, node.right, node.operator]
          : [node.right, node.left, FLIPPED[node.operator] as string];
        // Only when the other side holds the database's precision: a value computed from a finer
        // literal itself (`(span add maxdatetime()) eq maxdatetime()`) is refused below instead.
        if (other.kind !== 'literal' && !containsFiner(other, units)) {
          if (operator === 'eq' || operator === 'ne') return booleanLiteral(operator === 'ne', node);
          const floor = floorOf(fine as BoundLiteral, units);
          return { ...node, operator: operator === 'gt' || operator === 'ge' ? 'gt' : 'le', left: recurse(other), right: floor };
        }
      }
      return mapExpressionChildren(node, recurse);
    }
    case 'in': {
      if (node.right.kind !== 'list') {
        const left = recurse(node.left);
        return left === node.left ? node : { ...node, left };
      }
      const items = node.right.items.filter((item) => !isFiner(item, units));
      if (items.length === 0) return booleanLiteral(false, node);
      const left = recurse(node.left);
      return items.length === node.right.items.length && left === node.left ? node : { ...node, left, right: { ...node.right, items } };
    }
    default:
      return mapExpressionChildren(node, recurse);
  }
}

/**
 * The query with temporal literals finer than `precision` made exact or refused (see the module's
 * comment), in `$apply`, `$compute`, `$filter`, `$orderby` and the same options of every expansion.
 */
export function limitFraction<T extends BoundQueryOptions>(query: T, precision: FractionalPrecision): T {
  const units = unitsOf(precision);
  if (units === undefined) return query;
  // The query itself when no literal is finer (the usual case): no copies.
  return mapQueryExpressions(query, (node, option) => limit(node, units, precision, option));
}
