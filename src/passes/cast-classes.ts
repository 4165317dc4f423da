/**
 * `cast` and `isof` of primitive values (URL 5.1.1.10), classified once for every backend that
 * compiles them (SQL: backends/sql/casts.ts; MongoDB: backends/mongo/expression.ts): which
 * conversion a pair of types is, so that a backend only says how it computes each class, or
 * declares that it refuses one (SQL refuses `cast` of a Double to a Decimal, which a database
 * would round to its digits). The in-memory reference computes every class itself: it is the oracle.
 */
import type { EnumType } from '../model/model.js';
import type { BoundExpression } from '../semantic/bound-ast.js';
import { INTEGER_RANGES, isIntegerType, isPrimitive, type ExpressionType } from '../semantic/types.js';

/** One class of conversion; `isof` is whether the `cast` of the same class succeeds. */
export type CastClass =
  /** The operand is the null literal: `cast` is null, `isof` false. */
  | { readonly kind: 'null' }
  /** `isof` of a number (but a Decimal, which the reference may hold as text) or a Boolean as Edm.String: false. */
  | { readonly kind: 'never' }
  /** A value of the target type itself: unchanged (`isof`: whether it is not null). */
  | { readonly kind: 'identity' }
  /**
   * An integer to an integer type: itself when in `range` (the target's; none for Int64, whose
   * computed values are guarded already), else the cast fails (null).
   */
  | { readonly kind: 'integer'; readonly range: readonly [bigint, bigint] | undefined }
  /** A Decimal, Double or Single to an integer type: the integer when the value is one in `range`, else null (NaN too). */
  | { readonly kind: 'integral'; readonly range: readonly [bigint, bigint] }
  /** An integer or a Decimal to Double or Single: the number. */
  | { readonly kind: 'float' }
  /** An integer to Decimal: the number. */
  | { readonly kind: 'decimal' }
  /** A Double or Single to Decimal: itself when finite (INF and NaN are no decimals), else null. */
  | { readonly kind: 'finite' }
  /** An integer to an enumeration that is not a flag enumeration: the member with that value, else null. */
  | { readonly kind: 'member'; readonly type: EnumType }
  /** `isof` of an integer as a flag enumeration: whether it is a value of the underlying type (or a member's). */
  | { readonly kind: 'flags'; readonly type: EnumType }
  /** `cast` to Edm.String of an integer, a Boolean (`true`/`false`), a Date, a TimeOfDay or a Guid (lowercase). */
  | { readonly kind: 'text'; readonly from: 'integer' | 'boolean' | 'date' | 'time' | 'guid' }
  /** Anything else (text to numbers, structured values, enums to anything, …): refused with `unsupported_feature`. */
  | { readonly kind: 'refused' };

const isFloat = (type: ExpressionType): boolean => isPrimitive(type, 'Edm.Double') || isPrimitive(type, 'Edm.Single');
const isDecimal = (type: ExpressionType): boolean => isPrimitive(type, 'Edm.Decimal');

/** Whether two types are the same primitive type or the same enumeration. */
export function sameType(a: ExpressionType, b: ExpressionType): boolean {
  return (a.kind === 'primitive' && b.kind === 'primitive' && a.name === b.name) || (a.kind === 'enum' && b.kind === 'enum' && a.type === b.type);
}

/** The class of `name` (`cast` or `isof`) of a value of `source` to `target`. */
export function castClass(name: 'cast' | 'isof', source: ExpressionType, target: ExpressionType): CastClass {
  const integer = isIntegerType(source);
  if (name === 'isof' && isPrimitive(target, 'Edm.String') && (integer || isFloat(source) || isPrimitive(source, 'Edm.Boolean'))) return { kind: 'never' };
  const range = isIntegerType(target) ? (INTEGER_RANGES[target.name] as readonly [bigint, bigint]) : undefined;
  if (integer && range !== undefined) return { kind: 'integer', range: isPrimitive(target, 'Edm.Int64') ? undefined : range };
  if (sameType(source, target)) return { kind: 'identity' };
  if ((isDecimal(source) || isFloat(source)) && range !== undefined) return { kind: 'integral', range };
  if (integer && target.kind === 'enum') {
    if (!target.type.isFlags) return { kind: 'member', type: target.type };
    return name === 'isof' ? { kind: 'flags', type: target.type } : { kind: 'refused' };
  }
  if ((integer || isDecimal(source)) && isFloat(target)) return { kind: 'float' };
  if (integer && isDecimal(target)) return { kind: 'decimal' };
  if (isFloat(source) && isDecimal(target)) return { kind: 'finite' };
  if (name === 'cast' && isPrimitive(target, 'Edm.String')) {
    if (integer) return { kind: 'text', from: 'integer' };
    if (isPrimitive(source, 'Edm.Boolean')) return { kind: 'text', from: 'boolean' };
    if (isPrimitive(source, 'Edm.Date')) return { kind: 'text', from: 'date' };
    if (isPrimitive(source, 'Edm.TimeOfDay')) return { kind: 'text', from: 'time' };
    if (isPrimitive(source, 'Edm.Guid')) return { kind: 'text', from: 'guid' };
  }
  return { kind: 'refused' };
}

/** The class of a two-argument `cast`/`isof` call of `arg` to `target` (the null literal first). */
export function classifyCast(name: 'cast' | 'isof', arg: BoundExpression, target: ExpressionType): CastClass {
  if (arg.kind === 'literal' && arg.value === null) return { kind: 'null' };
  return castClass(name, arg.type, target);
}
