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
 * refused with `unsupported_feature`, as MongoDB refuses the same subset's complement. Which class
 * a conversion is, is decided once for both backends (passes/cast-classes.ts); here is how SQL computes each.
 */
import type { BoundExpression } from '../../semantic/bound-ast.js';
import { INTEGER_RANGES, isIntegerType, isPrimitive, type ExpressionType } from '../../semantic/types.js';
import { flagValues, membersByValue } from '../../passes/enums.js';
import { classifyCast } from '../../passes/cast-classes.js';
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
  if (
    arg === undefined ||
    target === undefined ||
    arg.type.kind === 'entity' ||
    arg.type.kind === 'complex' ||
    target.kind === 'entity' ||
    target.kind === 'complex'
  ) {
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

/** `cast(value, Type)` as an SQL value (null where the cast fails), by its class (passes/cast-classes.ts). */
export function castValue(node: Call, context: CastContext): string {
  const { arg, target } = operands(node);
  const source = arg.type;
  const { dialect } = context;
  const kind = classifyCast('cast', arg, target);
  switch (kind.kind) {
    case 'null':
      return context.nullOf(target);
    case 'integer': {
      const range = checkedRange(arg, target);
      if (range === undefined) return context.value(arg);
      return once(
        arg,
        context,
        (x) => `(CASE WHEN ${x} >= ${context.parameter(range[0], 'bigint')} AND ${x} <= ${context.parameter(range[1], 'bigint')} THEN ${x} ELSE NULL END)`,
      );
    }
    case 'identity':
      return context.value(arg);
    case 'integral':
      return once(arg, context, (x) => `(CASE WHEN ${integralInRange(x, source, target, context)} THEN ${dialect.integer(x)} ELSE NULL END)`);
    case 'member': {
      const members = membersByValue(kind.type).map(([value, name]) => `WHEN ${context.parameter(value, 'bigint')} THEN ${context.parameter(name, 'enum')}`);
      return `(CASE ${context.value(arg)} ${members.join(' ')} ELSE NULL END)`;
    }
    case 'float':
      return dialect.double(context.value(arg));
    case 'decimal':
      return dialect.integerAsDecimal(context.value(arg));
    case 'text': {
      if (kind.from === 'boolean') {
        const holds = context.condition(arg);
        return `(CASE WHEN ${holds} THEN ${context.parameter('true', 'string')} WHEN NOT (${holds}) THEN ${context.parameter('false', 'string')} ELSE NULL END)`;
      }
      // Declared refusals: a TimeOfDay as text (the dialects' formats differ), and dialects without `toText`.
      const text = dialect.toText;
      if (text === undefined || kind.from === 'time') return refuse(node, source, target);
      return text(context.value(arg), kind.from);
    }
    // A Double as a database decimal is rounded to the dialect's digits: refused (isof is exact).
    case 'finite':
    default:
      return refuse(node, source, target);
  }
}

/** `isof(value, Type)` as an SQL condition: true or false, never null (whether the cast of its class succeeds). */
export function isofCondition(node: Call, context: CastContext): string {
  const { arg, target } = operands(node);
  const source = arg.type;
  const kind = classifyCast('isof', arg, target);
  const notNull = (): string => `${context.value(arg)} IS NOT NULL`;
  switch (kind.kind) {
    case 'null':
    case 'never':
      return '1 = 0';
    case 'integer': {
      const range = checkedRange(arg, target);
      if (range === undefined) return notNull();
      const x = context.value(arg);
      return `(${x} IS NOT NULL AND ${x} >= ${context.parameter(range[0], 'bigint')} AND ${x} <= ${context.parameter(range[1], 'bigint')})`;
    }
    case 'identity':
    case 'float':
    case 'decimal':
      return notNull();
    case 'member': {
      const values = membersByValue(kind.type).map(([value]) => context.parameter(value, 'bigint'));
      const x = context.value(arg);
      return values.length === 0 ? '1 = 0' : `(${x} IS NOT NULL AND ${x} IN (${values.join(', ')}))`;
    }
    case 'flags': {
      const { lowest, highest, outside } = flagValues(kind.type);
      const x = context.value(arg);
      const named = outside.length === 0 ? '' : ` OR ${x} IN (${outside.map((value) => context.parameter(value, 'bigint')).join(', ')})`;
      return `(${x} IS NOT NULL AND ((${x} >= ${context.parameter(lowest, 'bigint')} AND ${x} <= ${context.parameter(highest, 'bigint')})${named}))`;
    }
    case 'integral': {
      const x = context.value(arg);
      return `(${x} IS NOT NULL AND ${integralInRange(x, source, target, context)})`;
    }
    case 'finite': {
      const x = context.value(arg);
      return `(${x} IS NOT NULL AND ABS(${x}) <= ${context.parameter(Number.MAX_VALUE, 'double')})`;
    }
    default:
      return refuse(node, source, target);
  }
}
