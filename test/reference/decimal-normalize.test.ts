/**
 * `normalize` (src/util/decimal.ts) counts the trailing zeros in the coefficient's digits (issue
 * 30: an average's 28-digit quotient took up to 28 bigint divisions per group); it gives what
 * dropping one zero at a time gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalToString, normalize, type Decimal } from '../../src/util/decimal.js';

function oneAtATime(a: Decimal): Decimal {
  let { coefficient, scale } = a;
  while (scale > 0 && coefficient % 10n === 0n) {
    coefficient /= 10n;
    scale--;
  }
  return { coefficient, scale };
}

describe('normalize', () => {
  it('drops the trailing zeros of the fraction, and no more', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: -3, max: 40 }),
        (digits, zeros, scale) => {
          const a = { coefficient: digits * 10n ** BigInt(zeros), scale };
          expect(normalize(a)).toEqual(oneAtATime(a));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('zero, negatives, integers and negative scales', () => {
    expect(normalize({ coefficient: 0n, scale: 5 })).toEqual({ coefficient: 0n, scale: 0 });
    expect(normalize({ coefficient: -100n, scale: 1 })).toEqual({ coefficient: -10n, scale: 0 });
    expect(normalize({ coefficient: -100n, scale: 3 })).toEqual({ coefficient: -1n, scale: 1 });
    expect(normalize({ coefficient: 10n, scale: -2 })).toEqual({ coefficient: 10n, scale: -2 });
    expect(decimalToString({ coefficient: 30000000000000000000000000000n, scale: 28 })).toBe('3');
    expect(decimalToString({ coefficient: 12500000000000000000000000000n, scale: 28 })).toBe('1.25');
  });
});
