/**
 * Arithmetic and calendar values on MongoDB: numbers with OData's null, zero-divisor and overflow
 * rules (null, where MongoDB would fail or give a double), instants and dates moved by durations
 * within the years 1 to 9999, and a calendar day as Date text.
 */
import type { BoundExpression } from '../../semantic/bound-ast.js';
import { isIntegerType, isNumeric, isPrimitive, type ExpressionType } from '../../semantic/types.js';
import { parseDuration } from '../../util/temporal.js';

type Aggregation = unknown;

/** What arithmetic needs of the expression compiler. */
export interface ArithmeticContext {
  /** The value of an operand. */
  value(node: BoundExpression): Aggregation;
  /** `build` of the values, or null when one of them is null (each value computed once). */
  nullSafe(args: readonly Aggregation[], build: (refs: readonly string[]) => Aggregation): Aggregation;
  /** A fresh `$let` variable name starting with `letter`. */
  letName(letter: string): string;
  /** A Duration as seconds. */
  durationValue(node: BoundExpression): Aggregation;
  /** A Date as the instant of its midnight in UTC. */
  dateInstant(node: BoundExpression): Aggregation;
  /** Throws the `unsupported_feature` error for `what` at `node`. */
  fail(what: string, node: { span: { start: number } }): never;
}

/** The first and the last instant of the years 1 to 9999 (BSON dates hold whole milliseconds). */
const FIRST_INSTANT = new Date('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = new Date('9999-12-31T23:59:59.999Z');
/** 2^63: Int64 values are below it and at least its negation (a double, exact). */
const INT64_LIMIT = 2 ** 63;

/** Whether a type is Edm.Duration. */
export function isDuration(type: ExpressionType): boolean {
  return type.kind === 'primitive' && type.name === 'Edm.Duration';
}

/**
 * Whether a Duration-valued expression may take the value of a literal with a fraction finer than
 * a millisecond: the literal itself, a `case` branch, an operand of duration arithmetic.
 */
function mayBeFinerThanMillisecond(node: BoundExpression): boolean {
  switch (node.kind) {
    case 'literal': {
      const picos = isDuration(node.type) && typeof node.value === 'string' ? parseDuration(node.value) : undefined;
      return picos !== undefined && picos % 1_000_000_000n !== 0n;
    }
    case 'case':
      return node.branches.some((branch) => mayBeFinerThanMillisecond(branch.then));
    case 'unary':
      return mayBeFinerThanMillisecond(node.operand);
    case 'binary':
      return isDuration(node.type) && (mayBeFinerThanMillisecond(node.left) || mayBeFinerThanMillisecond(node.right));
    default:
      return false;
  }
}

/**
 * `left operator right` of numbers, or an instant or a date moved by a duration: null where OData's
 * arithmetic is null (a null operand, a zero divisor, an overflow, an instant outside the years 1 to 9999).
 */
export function arithmetic(
  operator: 'add' | 'sub' | 'mul' | 'div' | 'divby' | 'mod',
  node: Extract<BoundExpression, { kind: 'binary' }>,
  c: ArithmeticContext,
): Aggregation {
  // Arithmetic with null is null (whatever the other operand's type).
  const isNullLiteral = (n: BoundExpression): boolean => n.kind === 'literal' && n.value === null;
  if (node.type.kind === 'null' || isNullLiteral(node.left) || isNullLiteral(node.right)) return null;
  if (node.type.kind === 'primitive' && node.type.name === 'Edm.DateTimeOffset' && (operator === 'add' || operator === 'sub')) {
    // A Date plus or minus a constant duration, in milliseconds (what a BSON date holds).
    const durationLiteral = (n: BoundExpression): boolean => n.kind === 'literal' && isDuration(n.type) && n.value !== null;
    const [instant, duration] = durationLiteral(node.right)
      ? [node.left, node.right]
      : operator === 'add' && durationLiteral(node.left)
        ? [node.right, node.left]
        : [undefined, undefined];
    if (instant === undefined || duration === undefined) {
      // A computed duration (a property, a case): its seconds, in whole milliseconds.
      const [date, span] = isDuration(node.right.type) ? [node.left, node.right] : [node.right, node.left];
      if (!isDuration(span.type) || !isPrimitive(date.type, 'Edm.DateTimeOffset')) return c.fail('date arithmetic with these operands', node);
      // A literal the computed duration may be (`case(c:duration'PT0.0001S',…)`) that a BSON date cannot add exactly.
      if (mayBeFinerThanMillisecond(span)) return c.fail('durations finer than a millisecond', node);
      return c.nullSafe([c.value(date), c.durationValue(span)], ([x, seconds]) => {
        // Whole milliseconds rounded down, as instant literals are stored (a stored duration: see DEVIATIONS).
        const ms = { $toLong: { $floor: { $multiply: [seconds, operator === 'sub' ? -1000 : 1000] } } };
        return inCalendar({ $add: [x, ms] }, c);
      });
    }
    if (duration.kind !== 'literal') return c.fail('date arithmetic with a duration that is not a literal', node);
    const picos = parseDuration(duration.value);
    if (picos === undefined || picos % 1_000_000_000n !== 0n) return c.fail('durations finer than a millisecond', node);
    const ms = Number((operator === 'sub' ? -picos : picos) / 1_000_000_000n);
    return c.nullSafe([c.value(instant)], ([x]) => inCalendar({ $add: [x, ms] }, c));
  }
  if (isPrimitive(node.type, 'Edm.Date') && (operator === 'add' || operator === 'sub')) {
    // A Date plus or minus a duration: the calendar day (in UTC) of its midnight moved by the duration.
    const [date, span] = isDuration(node.right.type) ? [node.left, node.right] : [node.right, node.left];
    if (!isPrimitive(date.type, 'Edm.Date') || !isDuration(span.type)) return c.fail('date arithmetic with these operands', node);
    return c.nullSafe([c.dateInstant(date), c.durationValue(span)], ([x, seconds]) => {
      const ms = { $toLong: { $floor: { $multiply: [seconds, operator === 'sub' ? -1000 : 1000] } } };
      return c.nullSafe([inCalendar({ $add: [x, ms] }, c)], ([moved]) => calendarDate(moved as string, c));
    });
  }
  if (!isNumeric(node.type)) return c.fail(`arithmetic on ${node.type.kind === 'primitive' ? node.type.name : node.type.kind} values`, node);
  const integer = isIntegerType(node.type);
  return c.nullSafe([c.value(node.left), c.value(node.right)], ([x, y]) => {
    // A zero divisor gives null (MongoDB would fail the whole query).
    const divided = (quotient: Aggregation): Aggregation => ({ $cond: [{ $eq: [y, 0] }, null, quotient] });
    // A non-finite result of finite operands (an overflow) is null too.
    const finite = (result: Aggregation): Aggregation => (integer ? result : finiteOrNull(result, [x, y], c));
    switch (operator) {
      case 'add':
        return finite(inRange({ $add: [x, y] }, node.type, c));
      case 'sub':
        return finite(inRange({ $subtract: [x, y] }, node.type, c));
      case 'mul':
        return finite(inRange({ $multiply: [x, y] }, node.type, c));
      case 'mod':
        // Double: a - b·trunc(a/b), as the reference and the SQL dialects compute it ($mod is fmod).
        if (isPrimitive(node.type, 'Edm.Double') || isPrimitive(node.type, 'Edm.Single'))
          return divided(finite({ $subtract: [x, { $multiply: [y, { $trunc: [{ $divide: [x, y] }] }] }] }));
        return divided({ $mod: [x, y] });
      case 'divby':
        return divided(finite({ $divide: [x, y] }));
      default:
        // Integer division truncates toward zero; an Int64 quotient in Decimal128, exact (a double
        // quotient would round beyond 2^53; MongoDB has no integer division).
        if (!integer) return divided(finite({ $divide: [x, y] }));
        return divided(inRange({ $trunc: [{ $divide: [isPrimitive(node.type, 'Edm.Int64') ? { $toDecimal: x } : x, y] }] }, node.type, c));
    }
  });
}

/**
 * A computed instant, or null outside the years 1 to 9999 (a failed operation, as in the
 * reference and the SQL dialects; MongoDB's dates go further).
 */
function inCalendar(instant: Aggregation, c: ArithmeticContext): Aggregation {
  const name = c.letName('c');
  const ref = `$$${name}`;
  return { $let: { vars: { [name]: instant }, in: { $cond: [{ $and: [{ $gte: [ref, FIRST_INSTANT] }, { $lte: [ref, LAST_INSTANT] }] }, ref, null] } } };
}

/** `result`, or null when it is infinite or NaN while every operand is finite. */
function finiteOrNull(result: Aggregation, operands: readonly Aggregation[], c: ArithmeticContext): Aggregation {
  const name = c.letName('f');
  const ref = `$$${name}`;
  const finite = (v: Aggregation): Aggregation => ({ $and: [{ $ne: [v, NaN] }, { $ne: [v, Infinity] }, { $ne: [v, -Infinity] }] });
  return { $let: { vars: { [name]: result }, in: { $cond: [{ $and: [{ $not: [finite(ref)] }, ...operands.map(finite)] }, null, ref] } } };
}

/**
 * An Int64 result outside the Int64 range is null (MongoDB would give a double), as every
 * backend does. Int32 and smaller are computed one size wider, so they cannot overflow.
 */
export function inRange(result: Aggregation, type: ExpressionType, c: ArithmeticContext): Aggregation {
  if (type.kind !== 'primitive' || type.name !== 'Edm.Int64') return result;
  const name = c.letName('r');
  const ref = `$$${name}`;
  return { $let: { vars: { [name]: result }, in: { $cond: [{ $or: [{ $gte: [ref, INT64_LIMIT] }, { $lt: [ref, -INT64_LIMIT] }] }, null, ref] } } };
}

/**
 * The calendar day (UTC) of an instant as Date text, from its year, month and day (MongoDB's
 * `$dateToString` fails outside the years 0000–9999; the reference writes `10000-01-01`).
 */
export function calendarDate(instant: Aggregation, c: ArithmeticContext): Aggregation {
  // One number for the three names (`y5`, `m5`, `d5`).
  const id = c.letName('');
  const [y, m, d] = [`y${id}`, `m${id}`, `d${id}`];
  // Zero-padded to `width` digits (n >= 0).
  const padded = (n: Aggregation, width: number): Aggregation => {
    const text = { $concat: ['000', { $toString: n }] };
    return { $cond: [{ $gte: [n, 10 ** (width - 1)] }, { $toString: n }, { $substrCP: [text, { $subtract: [{ $strLenCP: text }, width] }, width] }] };
  };
  const year = { $cond: [{ $lt: [`$$${y}`, 0] }, { $concat: ['-', padded({ $subtract: [0, `$$${y}`] }, 4)] }, padded(`$$${y}`, 4)] };
  return {
    $let: {
      vars: { [y]: { $year: instant }, [m]: { $month: instant }, [d]: { $dayOfMonth: instant } },
      in: { $concat: [year, '-', padded(`$$${m}`, 2), '-', padded(`$$${d}`, 2)] },
    },
  };
}
