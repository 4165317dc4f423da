/**
 * A comparison of an integer field (Byte … Int64) with a numeric literal of any type, as a range
 * of integers: `n64 lt 2.5` is `n64 lt 3`, `n64 gt INF` matches nothing, `n64 eq 1e300` matches
 * nothing and `id le -1e300` nothing either. The literal never has to be stored in the field's
 * type (a Decimal 2.5 or a Double `INF` cannot be an Int64), and the bounds that the query holds
 * are always inside the field's range, so that the `mongodb` driver can write them as BSON.
 *
 * The comparison is the reference's (the in-memory backend): in Double (or Single), the
 * integer is first rounded to a double (`Number(x)`), so `n64 ge 9.223372036854776e18` holds
 * for the largest Int64; in Decimal and the integer types it is exact. NaN equals nothing and is
 * neither less nor greater than anything.
 */
import { INTEGER_RANGES, type ExpressionType } from '../../semantic/types.js';
import type { BoundLiteral } from '../../semantic/bound-ast.js';

/** The range of an integer type, or `undefined` for other types. */
export function integerRange(type: ExpressionType): readonly [bigint, bigint] | undefined {
  return type.kind === 'primitive' ? INTEGER_RANGES[type.name] : undefined;
}

/** An integer bound: a bigint, or beyond every integer. */
type Bound = bigint | typeof BELOW | typeof ABOVE;
const BELOW = Symbol('below every integer');
const ABOVE = Symbol('above every integer');

/**
 * Integers `x` of a half-open range `from <= x < to` (either side may be open), or `undefined`
 * for no integer at all.
 */
export interface IntegerRange {
  readonly from?: bigint;
  readonly to?: bigint;
}

/** The number of a numeric literal: exact (a bigint over a power of ten) or a double. */
type Numeric = { readonly kind: 'exact'; readonly coefficient: bigint; readonly scale: number } | { readonly kind: 'double'; readonly value: number };

function numericOf(value: BoundLiteral['value']): Numeric | undefined {
  if (typeof value === 'bigint') return { kind: 'exact', coefficient: value, scale: 0 };
  if (typeof value === 'number') return Number.isInteger(value) ? { kind: 'exact', coefficient: BigInt(value), scale: 0 } : { kind: 'double', value };
  if (typeof value !== 'string') return undefined;
  const match = /^([-+]?)(\d*)(?:\.(\d*))?$/.exec(value.trim());
  if (match === null) return undefined;
  const [, sign = '', whole = '', fraction = ''] = match;
  if (whole === '' && fraction === '') return undefined;
  const digits = BigInt(`${whole}${fraction}`);
  return { kind: 'exact', coefficient: sign === '-' ? -digits : digits, scale: fraction.length };
}

/** Floor of coefficient / 10^scale. */
function floorExact(n: { coefficient: bigint; scale: number }): bigint {
  const divisor = 10n ** BigInt(n.scale);
  const q = n.coefficient / divisor;
  return n.coefficient % divisor !== 0n && n.coefficient < 0n ? q - 1n : q;
}

/** The least integer `t` with `Number(t) >= v` (`strict`: `> v`), for a double `v`. */
function leastDouble(v: number, strict: boolean): Bound {
  if (Number.isNaN(v)) return ABOVE;
  const holds = (t: bigint): boolean => (strict ? Number(t) > v : Number(t) >= v);
  if (v === Infinity) return ABOVE;
  if (v === -Infinity) return BELOW;
  // Past ±2^64 every Int64 is on one side: search between those (Number is monotone in t).
  let low = -(2n ** 64n);
  let high = 2n ** 64n;
  if (holds(low)) return BELOW;
  if (!holds(high)) return ABOVE;
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (holds(middle)) high = middle;
    else low = middle;
  }
  return high;
}

/** The least integer `t` with `t >= v` (`strict`: `t > v`), exactly. */
function leastExact(n: { coefficient: bigint; scale: number }, strict: boolean): bigint {
  const floor = floorExact(n);
  const isInteger = n.coefficient % 10n ** BigInt(n.scale) === 0n;
  if (strict) return floor + 1n;
  return isInteger ? floor : floor + 1n;
}

/**
 * The integers `x` for which `conv(x) op literal` holds, where `conv` is exact or rounds to a
 * double (when the comparison is in Double or Single), restricted to the field type's range.
 * `'none'` when no integer of the range qualifies, `'all'` when every one does; `ne` is
 * not covered here (it is the complement of `eq`, and also holds for null).
 */
export function integerComparison(
  op: 'eq' | 'gt' | 'ge' | 'lt' | 'le',
  literal: BoundLiteral['value'],
  operandType: ExpressionType,
  fieldType: ExpressionType,
): IntegerRange | 'none' | 'all' | undefined {
  const range = integerRange(fieldType);
  const numeric = numericOf(literal);
  if (range === undefined || numeric === undefined) return undefined;
  const inDouble = operandType.kind === 'primitive' && (operandType.name === 'Edm.Double' || operandType.name === 'Edm.Single');
  if (numeric.kind === 'double' && Number.isNaN(numeric.value)) return 'none';
  const least = (strict: boolean): Bound => {
    // A non-integer double: below 2^53, where every integer is a double, rounding changes nothing.
    if (numeric.kind === 'double') return leastDouble(numeric.value, strict);
    if (inDouble) return leastDouble(Number(`${numeric.coefficient}e-${numeric.scale}`), strict);
    return leastExact(numeric, strict);
  };
  // from <= x < to, with symbolic ends.
  let from: Bound = BELOW;
  let to: Bound = ABOVE;
  switch (op) {
    case 'gt':
      from = least(true);
      break;
    case 'ge':
      from = least(false);
      break;
    case 'lt':
      to = least(false);
      break;
    case 'le':
      to = least(true);
      break;
    case 'eq':
      from = least(false);
      to = least(true);
      break;
  }
  const [min, max] = range;
  // Clamp to the field's range: from in [min, max + 1], to in [min, max + 1].
  const low = from === BELOW ? min : from === ABOVE ? max + 1n : from < min ? min : from > max + 1n ? max + 1n : from;
  const high = to === BELOW ? min : to === ABOVE ? max + 1n : to < min ? min : to > max + 1n ? max + 1n : to;
  if (low >= high) return 'none';
  if (low === min && high === max + 1n) return 'all';
  return { ...(low === min ? {} : { from: low }), ...(high === max + 1n ? {} : { to: high }) };
}
