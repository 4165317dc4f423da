/**
 * `cast` and `isof` of primitive values in SQL (URL 5.1.1.10), for the conversions a database
 * computes exactly as the in-memory reference does:
 * - a value of the target type itself (`isof`: whether it is not null);
 * - an integer to another integer type: itself when it is in the target's range, else the cast
 *   fails (null, and `isof` is false);
 * - an integer to Double, Single or Decimal, a Decimal to Double or Single;
 * - a Decimal, Double or Single to an integer type: the integer when the value is one in the
 *   target's range, else the cast fails (`cast(2.5,Edm.Int32)` is null, so is NaN);
 * - `isof` of a Double as a Decimal: whether it is finite (INF and NaN are no decimals); the cast
 *   itself is refused (a double as a database decimal is rounded to the dialect's digits);
 * - an integer to an enumeration that is not a flag enumeration: the member with that value, else
 *   null (`isof`: whether there is one); `isof` of an integer as a flag enumeration: whether it is
 *   a value of the underlying type (or a member's);
 * - an integer, a Boolean (`true`/`false`), a Date (`YYYY-MM-DD`) or a Guid (lowercase) to text
 *   (`cast` only; `isof` of a number or a Boolean as Edm.String is false).
 * Anything else (text to numbers, structured values, enums, TimeOfDay and Decimal formatting) is
 * refused with `unsupported_feature`, as MongoDB refuses the same subset's complement.
 */
import type { BoundExpression } from '../../semantic/bound-ast.js';
import { INTEGER_RANGES, isIntegerType, isPrimitive, type ExpressionType } from '../../semantic/types.js';
import { flagValues, membersByValue } from '../../passes/enums.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { Dialect, ParameterKind } from './dialect.js';

/** What compiling a cast needs of the compiler. */
export interface CastContext {
  readonly dialect: Dialect;
  /** The SQL value of an operand. */
  value(node: BoundExpression): string;
  /** The SQL condition of a Boolean operand, exactly three-valued (NULL where it is null). */
  condition(node: BoundExpression): string;
  /** A parameter holding `value`. */
  parameter(value: unknown, kind: ParameterKind): string;
  /** A null of `type` (typed, so that a CASE of nulls keeps its type). */
  nullOf(type: ExpressionType): string;
}

type Call = Extract<BoundExpression, { kind: 'call' }>;

const isInteger = isIntegerType;
const isFloat = (type: ExpressionType): boolean => isPrimitive(type, 'Edm.Double') || isPrimitive(type, 'Edm.Single');
const isDecimal = (type: ExpressionType): boolean => isPrimitive(type, 'Edm.Decimal');
const sameType = (a: ExpressionType, b: ExpressionType): boolean => (a.kind === 'primitive' && b.kind === 'primitive' && a.name === b.name) || (a.kind === 'enum' && b.kind === 'enum' && a.type === b.type);
const typeName = (type: ExpressionType): string => (type.kind === 'primitive' ? type.name : type.kind === 'enum' ? type.type.qualifiedName : type.kind);

/** The range of `target` where it is an integer type that does not hold every value of `source`'s. */
function narrowing(source: ExpressionType, target: ExpressionType): readonly [bigint, bigint] | undefined {
  if (!isInteger(source) || !isInteger(target)) return undefined;
  const from = INTEGER_RANGES[source.name] as readonly [bigint, bigint];
  const to = INTEGER_RANGES[target.name] as readonly [bigint, bigint];
  return to[0] > from[0] || to[1] < from[1] ? to : undefined;
}

/**
 * The range to check a cast to an integer type against: the target's where it does not hold every
 * value of the source type, and always for a computed operand (SQL computes integers one size
 * wider, so `n32 sub 1` may lie outside Int32); none for Int64 (computed Int64 values are guarded).
 */
function checkedRange(arg: BoundExpression, target: ExpressionType): readonly [bigint, bigint] | undefined {
  if (!isInteger(target) || target.name === 'Edm.Int64') return undefined;
  if (arg.kind === 'path' || arg.kind === 'literal') return narrowing(arg.type, target);
  return INTEGER_RANGES[target.name] as readonly [bigint, bigint];
}

/**
 * Whether a Decimal or a Double `x` is an integer in `target`'s range: equal to its floor, at
 * least the lowest and below the highest plus one (exact as a double also for Int64: 2^63).
 * NaN is equal to itself on PostgreSQL and DuckDB, but is no number below 2^63.
 */
function integralInRange(x: string, source: ExpressionType, target: ExpressionType, context: CastContext): string {
  const [lowest, highest] = INTEGER_RANGES[(target as { name: string }).name] as readonly [bigint, bigint];
  const kind: ParameterKind = isFloat(source) ? 'double' : 'decimal';
  const floor = context.dialect.rounding('floor', x, isFloat(source));
  return `${x} = ${floor} AND ${x} >= ${context.parameter(lowest, kind)} AND ${x} < ${context.parameter(highest + 1n, kind)}`;
}

function refuse(node: Call, source: ExpressionType, target: ExpressionType): never {
  throw unsupportedFeature('SQL', `'${node.name}' from ${typeName(source)} to ${typeName(target)}`);
}

/** The operand and target type of a two-argument `cast`/`isof` of a primitive value. */
function operands(node: Call): { readonly arg: BoundExpression; readonly target: ExpressionType } {
  const [arg] = node.args;
  const target = node.targetType;
  if (arg === undefined || target === undefined || arg.type.kind === 'entity' || arg.type.kind === 'complex' || target.kind === 'entity' || target.kind === 'complex') {
    throw unsupportedFeature('SQL', `'${node.name}' of structured values`);
  }
  return { arg, target };
}

/**
 * `body` over the value of `arg`, which it reads several times: a column or a literal repeated, a
 * computed value through the dialect's `withValues` (computed once where the dialect can), so
 * that nested casts grow with the query, not geometrically.
 */
function once(arg: BoundExpression, context: CastContext, body: (x: string) => string): string {
  const x = context.value(arg);
  if (arg.kind === 'path' || arg.kind === 'literal') return body(x);
  return context.dialect.withValues([x], ([v]) => body(v as string));
}

/** `cast(value, Type)` as an SQL value (null where the cast fails). */
export function castValue(node: Call, context: CastContext): string {
  const { arg, target } = operands(node);
  const source = arg.type;
  if (arg.kind === 'literal' && arg.value === null) return context.nullOf(target);
  const { dialect } = context;
  if (isInteger(source) && isInteger(target)) {
    const range = checkedRange(arg, target);
    if (range === undefined) return context.value(arg);
    return once(arg, context, (x) => `(CASE WHEN ${x} >= ${context.parameter(range[0], 'bigint')} AND ${x} <= ${context.parameter(range[1], 'bigint')} THEN ${x} ELSE NULL END)`);
  }
  if (sameType(source, target)) return context.value(arg);
  if ((isDecimal(source) || isFloat(source)) && isInteger(target)) {
    return once(arg, context, (x) => `(CASE WHEN ${integralInRange(x, source, target, context)} THEN ${dialect.integer(x)} ELSE NULL END)`);
  }
  if (isInteger(source) && target.kind === 'enum' && !target.type.isFlags) {
    const members = membersByValue(target.type).map(([value, name]) => `WHEN ${context.parameter(value, 'bigint')} THEN ${context.parameter(name, 'enum')}`);
    return `(CASE ${context.value(arg)} ${members.join(' ')} ELSE NULL END)`;
  }
  if ((isInteger(source) || isDecimal(source)) && isFloat(target)) return dialect.double(context.value(arg));
  if (isInteger(source) && isDecimal(target)) return dialect.integerAsDecimal(context.value(arg));
  if (isPrimitive(target, 'Edm.String')) {
    if (isPrimitive(source, 'Edm.Boolean')) {
      const holds = context.condition(arg);
      return `(CASE WHEN ${holds} THEN ${context.parameter('true', 'string')} WHEN NOT (${holds}) THEN ${context.parameter('false', 'string')} ELSE NULL END)`;
    }
    const text = dialect.toText;
    if (text !== undefined && isInteger(source)) return text(context.value(arg), 'integer');
    if (text !== undefined && isPrimitive(source, 'Edm.Date')) return text(context.value(arg), 'date');
    if (text !== undefined && isPrimitive(source, 'Edm.Guid')) return text(context.value(arg), 'guid');
  }
  return refuse(node, source, target);
}

/** `isof(value, Type)` as an SQL condition: true or false, never null. */
export function isofCondition(node: Call, context: CastContext): string {
  const { arg, target } = operands(node);
  const source = arg.type;
  if (arg.kind === 'literal' && arg.value === null) return '1 = 0';
  // A number or a Boolean is never text (a Decimal is left out: the reference holds stored decimals as text).
  if (isPrimitive(target, 'Edm.String') && (isInteger(source) || isFloat(source) || isPrimitive(source, 'Edm.Boolean'))) return '1 = 0';
  const notNull = (): string => `${context.value(arg)} IS NOT NULL`;
  if (isInteger(source) && (isInteger(target) || isFloat(target) || isDecimal(target))) {
    const range = isInteger(target) ? checkedRange(arg, target) : undefined;
    if (range === undefined) return notNull();
    const x = context.value(arg);
    return `(${x} IS NOT NULL AND ${x} >= ${context.parameter(range[0], 'bigint')} AND ${x} <= ${context.parameter(range[1], 'bigint')})`;
  }
  if (sameType(source, target)) return notNull();
  if (isDecimal(source) && isFloat(target)) return notNull();
  if (isInteger(source) && target.kind === 'enum' && !target.type.isFlags) {
    const values = membersByValue(target.type).map(([value]) => context.parameter(value, 'bigint'));
    const x = context.value(arg);
    return values.length === 0 ? '1 = 0' : `(${x} IS NOT NULL AND ${x} IN (${values.join(', ')}))`;
  }
  if (isInteger(source) && target.kind === 'enum' && target.type.isFlags) {
    const { lowest, highest, outside } = flagValues(target.type);
    const x = context.value(arg);
    const named = outside.length === 0 ? '' : ` OR ${x} IN (${outside.map((value) => context.parameter(value, 'bigint')).join(', ')})`;
    return `(${x} IS NOT NULL AND ((${x} >= ${context.parameter(lowest, 'bigint')} AND ${x} <= ${context.parameter(highest, 'bigint')})${named}))`;
  }
  if ((isDecimal(source) || isFloat(source)) && isInteger(target)) {
    const x = context.value(arg);
    return `(${x} IS NOT NULL AND ${integralInRange(x, source, target, context)})`;
  }
  if (isFloat(source) && isDecimal(target)) {
    const x = context.value(arg);
    return `(${x} IS NOT NULL AND ABS(${x}) <= ${context.parameter(Number.MAX_VALUE, 'double')})`;
  }
  return refuse(node, source, target);
}
