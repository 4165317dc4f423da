/**
 * Exact decimal arithmetic on `bigint`s, for Edm.Decimal and Edm.Int64 values that a JavaScript
 * number would round. A decimal is `coefficient * 10^-scale`.
 */

export interface Decimal {
  readonly coefficient: bigint;
  readonly scale: number;
}

/** Digits kept after the point by `divide` (like .NET's decimal, which has 28 significant digits). */
export const DIVISION_SCALE = 28;

const DECIMAL_TEXT = /^([-+]?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/;

/** Reads a decimal from text (`-12.50`, `1e-3`), a number or a bigint; `undefined` if it is none. */
export function toDecimal(value: unknown): Decimal | undefined {
  if (typeof value === 'bigint') return { coefficient: value, scale: 0 };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    if (Number.isSafeInteger(value)) return { coefficient: BigInt(value), scale: 0 };
    return toDecimal(String(value));
  }
  if (typeof value !== 'string') return undefined;
  const plain = plainDecimal(value);
  if (plain !== undefined) return plain;
  const match = DECIMAL_TEXT.exec(value.trim());
  if (match === null) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText] = match;
  let coefficient = BigInt(whole + fraction);
  if (sign === '-') coefficient = -coefficient;
  let scale = fraction.length - (exponentText === undefined ? 0 : Number(exponentText));
  if (scale < 0) {
    coefficient *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { coefficient, scale };
}

/** `-12.50`-like text (an optional minus, digits, an optional fraction): read without a regular expression. */
function plainDecimal(text: string): Decimal | undefined {
  const start = text.charCodeAt(0) === 45 ? 1 : 0;
  let point = -1;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && point < 0 && i > start && i < text.length - 1) point = i;
    else if (c < 48 || c > 57) return undefined;
  }
  if (text.length === start) return undefined;
  const digits = point < 0 ? text.slice(start) : text.slice(start, point) + text.slice(point + 1);
  const coefficient = BigInt(digits);
  return { coefficient: start === 1 ? -coefficient : coefficient, scale: point < 0 ? 0 : text.length - point - 1 };
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  if (a.scale === b.scale) return [a.coefficient, b.coefficient, a.scale];
  if (a.scale > b.scale) return [a.coefficient, b.coefficient * 10n ** BigInt(a.scale - b.scale), a.scale];
  return [a.coefficient * 10n ** BigInt(b.scale - a.scale), b.coefficient, b.scale];
}

export function compareDecimal(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addDecimal(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { coefficient: x + y, scale };
}

export function subtractDecimal(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { coefficient: x - y, scale };
}

export function multiplyDecimal(a: Decimal, b: Decimal): Decimal {
  return { coefficient: a.coefficient * b.coefficient, scale: a.scale + b.scale };
}

/** `a / b` rounded half away from zero to {@link DIVISION_SCALE} digits; `undefined` for `b = 0`. */
export function divideDecimal(a: Decimal, b: Decimal): Decimal | undefined {
  if (b.coefficient === 0n) return undefined;
  // a/b = (ca / cb) * 10^(sb - sa); scale the numerator so that the quotient has DIVISION_SCALE digits.
  const shift = DIVISION_SCALE + b.scale - a.scale;
  const numerator = shift >= 0 ? a.coefficient * 10n ** BigInt(shift) * 10n : a.coefficient * 10n;
  const denominator = shift >= 0 ? b.coefficient : b.coefficient * 10n ** BigInt(-shift);
  const tenfold = numerator / denominator;
  const rounded = (tenfold + (tenfold >= 0n ? 5n : -5n)) / 10n;
  return normalize({ coefficient: rounded, scale: DIVISION_SCALE });
}

/** The remainder with the sign of the dividend (URL 5.1.1.2.6); `undefined` for `b = 0`. */
export function modDecimal(a: Decimal, b: Decimal): Decimal | undefined {
  if (b.coefficient === 0n) return undefined;
  const [x, y, scale] = align(a, b);
  return { coefficient: x % y, scale };
}

/** Rounds to an integer: `mode` half away from zero (`round`), down (`floor`) or up (`ceiling`). */
export function roundDecimal(a: Decimal, mode: 'round' | 'floor' | 'ceiling'): Decimal {
  if (a.scale <= 0) return a;
  const unit = 10n ** BigInt(a.scale);
  const truncated = a.coefficient / unit;
  const remainder = a.coefficient % unit;
  if (remainder === 0n) return { coefficient: truncated, scale: 0 };
  switch (mode) {
    case 'floor':
      return { coefficient: a.coefficient < 0n ? truncated - 1n : truncated, scale: 0 };
    case 'ceiling':
      return { coefficient: a.coefficient > 0n ? truncated + 1n : truncated, scale: 0 };
    case 'round': {
      const twice = (remainder < 0n ? -remainder : remainder) * 2n;
      if (twice < unit) return { coefficient: truncated, scale: 0 };
      return { coefficient: a.coefficient < 0n ? truncated - 1n : truncated + 1n, scale: 0 };
    }
  }
}

/** Drops trailing zeros of the fraction. */
export function normalize(a: Decimal): Decimal {
  const { coefficient, scale } = a;
  if (scale <= 0 || coefficient % 10n !== 0n) return { coefficient, scale };
  if (coefficient === 0n) return { coefficient, scale: 0 };
  // Count the zeros in the digits (one conversion) rather than dividing by 10 once per zero.
  const digits = coefficient.toString();
  let zeros = 1;
  while (zeros < scale && digits.charCodeAt(digits.length - 1 - zeros) === 48) zeros++;
  return { coefficient: coefficient / 10n ** BigInt(zeros), scale: scale - zeros };
}

/** Canonical text: no exponent, no trailing fraction zeros (`-12.5`, `0.001`, `42`). */
export function decimalToString(a: Decimal): string {
  const { coefficient, scale } = normalize(a);
  const negative = coefficient < 0n;
  const digits = (negative ? -coefficient : coefficient).toString();
  if (scale === 0) return (negative ? '-' : '') + digits;
  const padded = digits.padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
}

export function decimalToNumber(a: Decimal): number {
  return Number(decimalToString(a));
}
