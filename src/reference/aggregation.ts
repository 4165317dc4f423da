/**
 * The reference semantics of the standard aggregation methods (Data Aggregation 3.1.3) over the
 * values of a set: null values are left out; `sum`, `average`, `min` and `max` of no values are
 * null, `countdistinct` of no values is 0. Integers sum exactly as Int64 (null past its range, as
 * a failed operation), Decimals exactly, Doubles in input order. Results are in the storage form
 * of their type (Int64 a `bigint`, Decimal its text, Double a `number`), as rows hold them.
 */
import type { AggregationMethod } from '../semantic/bound-ast.js';
import { isIntegerType, isPrimitive, type ExpressionType } from '../semantic/types.js';
import { addDecimal, decimalToString, divideDecimal, toDecimal, type Decimal } from '../util/decimal.js';
import { domainOf, toBigInt, toNumber } from './values.js';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** A value as rows store it: a Decimal as its text (the evaluator computes with decimal objects). */
export function storedValue(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && 'coefficient' in value && 'scale' in value) return decimalToString(value as Decimal);
  return value === undefined ? null : value;
}

/** A key equal for values equal in `domain` (for distinct counts and grouping). */
export function valueKey(normalized: unknown): string {
  if (normalized === null) return 'null';
  // A Decimal by its value: 1.0, 1.00 and 1 are one (seed 2837).
  if (typeof normalized === 'object' && 'coefficient' in normalized && 'scale' in normalized) {
    let { coefficient, scale } = normalized as Decimal;
    while (scale > 0 && coefficient % 10n === 0n) {
      coefficient /= 10n;
      scale -= 1;
    }
    return `d:${coefficient}e${-scale}`;
  }
  if (typeof normalized === 'object') return `o:${JSON.stringify(normalized, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
  return `${typeof normalized}:${String(normalized)}`;
}

/**
 * The aggregation `method` of values of type `input`: a function of the items and the reader of
 * each item's value (so that no array of values is made).
 */
export function aggregation<T>(method: AggregationMethod, input: ExpressionType): (items: readonly T[], read: (item: T) => unknown) => unknown {
  const domain = domainOf(input);
  switch (method) {
    case 'countdistinct':
      return (items, read) => {
        const seen = new Set<string>();
        for (let i = 0; i < items.length; i++) {
          const value = storedValue(read(items[i] as T));
          const normalized = value === null || value === undefined ? null : domain.normalize(value);
          // NaN is no value of a set of distinct values it could be equal to: each counts once.
          if (normalized !== null) seen.add(typeof normalized === 'number' && Number.isNaN(normalized) ? 'NaN' : valueKey(normalized));
        }
        return BigInt(seen.size);
      };
    case 'min':
    case 'max':
      return (items, read) => {
        let best: unknown = null;
        let bestNormalized: unknown = null;
        for (let i = 0; i < items.length; i++) {
          const value = storedValue(read(items[i] as T));
          const normalized = value === null || value === undefined ? null : domain.normalize(value);
          if (normalized === null) continue;
          const order = bestNormalized === null ? 0 : domain.compare(normalized, bestNormalized);
          if (bestNormalized === null || (method === 'min' ? order < 0 : order > 0)) {
            best = value;
            bestNormalized = normalized;
          }
        }
        return best;
      };
    case 'sum':
    case 'average': {
      const average = method === 'average';
      if (isIntegerType(input)) {
        return (items, read) => {
          let total = 0n;
          let count = 0;
          for (let i = 0; i < items.length; i++) {
            const value = read(items[i] as T);
            const n = value === null || value === undefined ? null : toBigInt(value);
            if (n === null) continue;
            total += n;
            count++;
          }
          if (count === 0) return null;
          // The exact quotient, then rounded once to a double (as the databases compute it).
          if (average) return Number(decimalToString(divideDecimal({ coefficient: total, scale: 0 }, { coefficient: BigInt(count), scale: 0 }) as Decimal));
          return total > INT64_MAX || total < INT64_MIN ? null : total;
        };
      }
      if (isPrimitive(input, 'Edm.Decimal')) {
        return (items, read) => {
          let total: Decimal = { coefficient: 0n, scale: 0 };
          let count = 0;
          for (let i = 0; i < items.length; i++) {
            const value = read(items[i] as T);
            const d =
              value === null || value === undefined ? undefined : typeof value === 'object' && 'coefficient' in value ? (value as Decimal) : toDecimal(value);
            if (d === undefined) continue;
            total = addDecimal(total, d);
            count++;
          }
          if (count === 0) return null;
          if (!average) return decimalToString(total);
          const quotient = divideDecimal(total, { coefficient: BigInt(count), scale: 0 });
          return quotient === undefined ? null : decimalToString(quotient);
        };
      }
      return (items, read) => {
        let total = 0;
        let count = 0;
        for (let i = 0; i < items.length; i++) {
          const value = read(items[i] as T);
          const n = value === null || value === undefined ? null : toNumber(value);
          if (n === null) continue;
          total += n;
          count++;
        }
        if (count === 0) return null;
        return average ? total / count : total;
      };
    }
  }
}
