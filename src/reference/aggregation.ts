/**
 * The reference semantics of the standard aggregation methods (Data Aggregation 3.1.3) over the
 * values of a set: null values are left out; `sum`, `average`, `min` and `max` of no values are
 * null, `countdistinct` of no values is 0. Integers sum exactly as Int64 (null past its range, as
 * a failed operation), Decimals exactly, Doubles in input order. Results are in the storage form
 * of their type (Int64 a `bigint`, Decimal its text, Double a `number`), as rows hold them.
 *
 * `aggregation` takes the values of a whole set; `accumulator` takes them one at a time (a
 * `groupby` folds each row into its group's accumulators as it reads it, issue 30) and gives the
 * same result, with fast exact paths: integers summed in doubles while the sum stays a safe integer,
 * Decimals written as short plain text (`-12.50`: at most 15 digits) summed per scale in doubles
 * while below 2^53, both spilling into `bigint`s past that; everything else as `aggregation` does.
 */
import type { AggregationMethod } from '../semantic/bound-ast.js';
import { isIntegerType, isPrimitive, type ExpressionType } from '../semantic/types.js';
import { customAccumulator, customAggregation } from './custom-methods.js';
import { addDecimal, decimalToString, divideDecimal, toDecimal, type Decimal } from '../util/decimal.js';
import { domainOf, toBigInt, toNumber, type Domain } from './values.js';

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
  if (typeof method === 'object') return customAggregation(method);
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

/** One aggregation of values given one at a time (see {@link accumulator}). */
export interface Accumulator {
  /** Folds in the next value (as the expression gives it: null, a stored value or a decimal object). */
  add(value: unknown): void;
  /** What {@link aggregation} gives for the values added so far, in their order. */
  result(): unknown;
}

/** `$count`: the number of values added (rows, whatever their values). */
export class CountAccumulator implements Accumulator {
  private count = 0;
  add(): void {
    this.count++;
  }
  result(): bigint {
    return BigInt(this.count);
  }
}

/**
 * The aggregation `method` of values of type `input` as a maker of accumulators: an accumulator
 * given the values of `aggregation`'s items in order gives its result, for any values.
 */
export function accumulator(method: AggregationMethod, input: ExpressionType): () => Accumulator {
  if (typeof method === 'object') return customAccumulator(method);
  const domain = domainOf(input);
  switch (method) {
    case 'countdistinct':
      return () => new CountDistinct(domain);
    case 'min':
    case 'max': {
      const min = method === 'min';
      return () => new Extreme(domain, min);
    }
    case 'sum':
    case 'average': {
      const average = method === 'average';
      if (isIntegerType(input)) return () => new IntegerSum(average);
      if (isPrimitive(input, 'Edm.Decimal')) return () => new DecimalSum(average);
      return () => new DoubleSum(average);
    }
  }
}

class CountDistinct implements Accumulator {
  private readonly seen = new Set<string>();
  constructor(private readonly domain: Domain) {}
  add(read: unknown): void {
    const value = storedValue(read);
    const normalized = value === null || value === undefined ? null : this.domain.normalize(value);
    if (normalized !== null) this.seen.add(typeof normalized === 'number' && Number.isNaN(normalized) ? 'NaN' : valueKey(normalized));
  }
  result(): bigint {
    return BigInt(this.seen.size);
  }
}

class Extreme implements Accumulator {
  private best: unknown = null;
  private bestNormalized: unknown = null;
  constructor(
    private readonly domain: Domain,
    private readonly min: boolean,
  ) {}
  add(read: unknown): void {
    const value = storedValue(read);
    const normalized = value === null || value === undefined ? null : this.domain.normalize(value);
    if (normalized === null) return;
    const order = this.bestNormalized === null ? 0 : this.domain.compare(normalized, this.bestNormalized);
    if (this.bestNormalized === null || (this.min ? order < 0 : order > 0)) {
      this.best = value;
      this.bestNormalized = normalized;
    }
  }
  result(): unknown {
    return this.best;
  }
}

/** Doubles in input order, as {@link aggregation} sums them. */
class DoubleSum implements Accumulator {
  private total = 0;
  private count = 0;
  constructor(private readonly average: boolean) {}
  add(value: unknown): void {
    const n = typeof value === 'number' ? value : value === null || value === undefined ? null : toNumber(value);
    if (n === null) return;
    this.total += n;
    this.count++;
  }
  result(): number | null {
    if (this.count === 0) return null;
    return this.average ? this.total / this.count : this.total;
  }
}

/** Integers: `small + big`, exact; `small` a safe integer (a double add of two safe integers is exact while its result is safe). */
class IntegerSum implements Accumulator {
  private small = 0;
  private big = 0n;
  private count = 0;
  constructor(private readonly average: boolean) {}
  add(value: unknown): void {
    if (typeof value === 'number' && Number.isSafeInteger(value)) {
      const sum = this.small + value;
      if (sum <= Number.MAX_SAFE_INTEGER && sum >= -Number.MAX_SAFE_INTEGER) this.small = sum;
      else {
        this.big += BigInt(this.small);
        this.small = value;
      }
      this.count++;
      return;
    }
    const n = value === null || value === undefined ? null : toBigInt(value);
    if (n === null) return;
    this.big += n;
    this.count++;
  }
  result(): bigint | number | null {
    if (this.count === 0) return null;
    const total = this.big + BigInt(this.small);
    if (this.average) return Number(decimalToString(divideDecimal({ coefficient: total, scale: 0 }, { coefficient: BigInt(this.count), scale: 0 }) as Decimal));
    return total > INT64_MAX || total < INT64_MIN ? null : total;
  }
}

/** Digits of a plain decimal text summed in doubles: 10^15 + 10^15 … stays exact until a lane passes 2^53 and spills. */
const SHORT_DIGITS = 15;

/**
 * Decimals, exact: the short plain texts (and safe integers) in one lane per scale, each lane a
 * double (`small`, a safe integer: the coefficients' sum) and a `bigint` it spills into past
 * 2^53; every other value in `rest`, by {@link addDecimal}. The total is the lanes and `rest` at
 * the largest scale seen, as adding them one by one gives.
 */
class DecimalSum implements Accumulator {
  private readonly small = new Float64Array(SHORT_DIGITS + 1);
  private big: bigint[] | undefined;
  private rest: Decimal | undefined;
  /** The largest scale of a value added (the total's scale). */
  private scale = 0;
  private count = 0;
  constructor(private readonly average: boolean) {}

  add(value: unknown): void {
    if (value === null || value === undefined) return;
    if (typeof value === 'string') {
      if (this.addText(value)) return;
    } else if (typeof value === 'number' && Number.isSafeInteger(value)) {
      this.addToLane(0, value);
      return;
    }
    const d = typeof value === 'object' && 'coefficient' in value ? (value as Decimal) : toDecimal(value);
    if (d === undefined) return;
    this.rest = this.rest === undefined ? d : addDecimal(this.rest, d);
    if (d.scale > this.scale) this.scale = d.scale;
    this.count++;
  }

  /** Adds `text` if it is plain (`-12.50`, as `toDecimal` reads it without a regular expression) with at most SHORT_DIGITS digits; false if not. */
  private addText(text: string): boolean {
    const length = text.length;
    const start = length > 0 && text.charCodeAt(0) === 45 ? 1 : 0;
    if (length === start || length - start > SHORT_DIGITS + 1) return false;
    let coefficient = 0;
    let point = -1;
    for (let i = start; i < length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 48 && c <= 57) coefficient = coefficient * 10 + (c - 48);
      else if (c === 46 && point < 0 && i > start && i < length - 1) point = i;
      else return false;
    }
    // Without a point the text has SHORT_DIGITS + 1 digits at most: too many.
    if (point < 0 && length - start > SHORT_DIGITS) return false;
    this.addToLane(point < 0 ? 0 : length - point - 1, start === 1 ? -coefficient : coefficient);
    return true;
  }

  /** Adds the coefficient `coefficient` (a safe integer) of scale `scale`. */
  private addToLane(scale: number, coefficient: number): void {
    const small = this.small;
    const sum = (small[scale] as number) + coefficient;
    if (sum <= Number.MAX_SAFE_INTEGER && sum >= -Number.MAX_SAFE_INTEGER) small[scale] = sum;
    else {
      const big = (this.big ??= Array.from({ length: SHORT_DIGITS + 1 }, () => 0n));
      big[scale] = (big[scale] as bigint) + BigInt(small[scale] as number);
      small[scale] = coefficient;
    }
    if (scale > this.scale) this.scale = scale;
    this.count++;
  }

  result(): string | null {
    if (this.count === 0) return null;
    const scale = this.scale;
    let coefficient = 0n;
    for (let lane = 0; lane <= SHORT_DIGITS; lane++) {
      const small = this.small[lane] as number;
      const big = this.big === undefined ? 0n : (this.big[lane] as bigint);
      if (small === 0 && big === 0n) continue;
      coefficient += (BigInt(small) + big) * 10n ** BigInt(scale - lane);
    }
    if (this.rest !== undefined) coefficient += this.rest.coefficient * 10n ** BigInt(scale - this.rest.scale);
    const total: Decimal = { coefficient, scale };
    if (!this.average) return decimalToString(total);
    const quotient = divideDecimal(total, { coefficient: BigInt(this.count), scale: 0 });
    return quotient === undefined ? null : decimalToString(quotient);
  }
}
