/**
 * The canonical functions as MongoDB aggregation expressions: one table, complete for the registry
 * (src/semantic/functions.ts), of implementations and declared refusals. A function of null is
 * null (`nullSafe`); a refusal is the `unsupported_feature` error "the function '…'".
 */
import { ODataError } from '../../errors/odata-error.js';
import type { BoundExpression, BoundPath } from '../../semantic/bound-ast.js';
import { FOLDED, isRefusal, refuse, type FunctionTable } from '../../semantic/function-table.js';
import { checkMatchesPattern, type CheckedPattern } from '../../semantic/pattern-subset.js';
import type { ExpressionType } from '../../semantic/types.js';
import type { CanonicalFunctionName } from '../../syntax/ast.js';

/** An aggregation expression. */
type Aggregation = unknown;
type Call = Extract<BoundExpression, { kind: 'call' }>;

/** What the functions need of the expression compiler (expression.ts), in the frame of the call. */
export interface MongoFunctionContext {
  /** The query option being compiled, for error positions. */
  readonly option: string;
  /** The value of an operand. */
  value(node: BoundExpression): Aggregation;
  /** `build` of the values, or null when one of them is null (each value computed once). */
  nullSafe(args: readonly Aggregation[], build: (refs: readonly string[]) => Aggregation): Aggregation;
  /** A path's reference; `context` is set for collections of documents. */
  path(node: BoundPath): { readonly kind: string; readonly ref: Aggregation; readonly context?: unknown };
  /** A Duration as seconds. */
  durationValue(node: BoundExpression): Aggregation;
  /** The calendar day (UTC) of an instant as Date text. */
  calendarDate(instant: Aggregation): Aggregation;
  /** `cast` and `isof` (the cast classification of expression.ts). */
  castOrIsof(): Aggregation;
  /** Throws the `unsupported_feature` error for `what` at `node`. */
  fail(what: string, node: { span: { start: number } }): never;
}

/** How MongoDB computes one canonical function. */
export type MongoFunction = (call: Call, c: MongoFunctionContext) => Aggregation;

/** Characters JavaScript's `trim` removes (Unicode White_Space, line terminators and the BOM). */
const TRIM_CHARACTERS = ' \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

const values = (call: Call, c: MongoFunctionContext): Aggregation[] => call.args.map((arg) => c.value(arg));
const unary =
  (build: (x: string, call: Call, c: MongoFunctionContext) => Aggregation): MongoFunction =>
  (call, c) =>
    c.nullSafe(values(call, c), ([x]) => build(x as string, call, c));
const binary =
  (build: (x: string, y: string) => Aggregation): MongoFunction =>
  (call, c) =>
    c.nullSafe(values(call, c), ([x, y]) => build(x as string, y as string));

function isPrimitive(type: ExpressionType | undefined, name: string): boolean {
  return type !== undefined && type.kind === 'primitive' && type.name === name;
}
const argType = (call: Call): ExpressionType | undefined => call.args[0]?.type;

/** A function of a DateTimeOffset argument only (refused for another type). */
const ofInstant =
  (build: MongoFunction): MongoFunction =>
  (call, c) => {
    if (!isPrimitive(argType(call) ?? { kind: 'null' }, 'Edm.DateTimeOffset')) return c.fail(`'${call.name}' of this type`, call);
    return build(call, c);
  };

/** Parts of a DateTimeOffset, stored as a `Date`: in UTC (the offset is not stored). */
const datePart = (operator: string): MongoFunction =>
  ofInstant((call, c) => c.nullSafe([c.value(call.args[0] as BoundExpression)], ([x]) => ({ [operator]: x })));

/**
 * Year (0), month (1) or day (2) of Date text, also with a negative or five-digit year
 * (`-0053-01-01`, `10213-05-06`, computed by Date arithmetic).
 */
function dateTextPart(text: Aggregation, index: 0 | 1 | 2): Aggregation {
  const negative = { $eq: [{ $substrCP: [text, 0, 1] }, '-'] };
  const parts = { $split: [{ $cond: [negative, { $substrCP: [text, 1, { $strLenCP: text }] }, text] }, '-'] };
  const value = { $toInt: { $arrayElemAt: [parts, index] } };
  return index === 0 ? { $cond: [negative, { $subtract: [0, value] }, value] } : value;
}

/** year, month, day: of Date text, or of a stored instant. */
const datePartOfDate = (index: 0 | 1 | 2, operator: string): MongoFunction => {
  const ofText = unary((x) => dateTextPart(x, index));
  const ofDate = datePart(operator);
  return (call, c) => (isPrimitive(argType(call), 'Edm.Date') ? ofText(call, c) : ofDate(call, c));
};

/** hour, minute, second: of TimeOfDay text (HH:MM:SS), or of a stored instant. */
const datePartOfTime = (from: number, operator: string): MongoFunction => {
  const ofText = unary((x) => ({ $toInt: { $substrCP: [x, from, 2] } }));
  const ofDate = datePart(operator);
  return (call, c) => (isPrimitive(argType(call), 'Edm.TimeOfDay') ? ofText(call, c) : ofDate(call, c));
};

/** $split is MongoDB's substring search that counts in code points; '' is contained everywhere. */
const contains = (s: string, t: string): Aggregation => ({ $cond: [{ $eq: [t, ''] }, true, { $gt: [{ $size: { $split: [s, t] } }, 1] }] });

const collectionTest: MongoFunction = (call, c) => {
  const [first, second] = call.args.map((arg) => (arg.kind === 'path' ? c.path(arg) : undefined));
  if (first?.kind !== 'collection' || second?.kind !== 'collection' || first.context !== undefined || second.context !== undefined) {
    return c.fail(`'${call.name}' of these collections`, call);
  }
  // A null (or unreachable) collection gives null, as in the reference: the stored value, not [].
  const raw = (ref: Aggregation): Aggregation => {
    const inner = (ref as { $ifNull?: unknown[] }).$ifNull;
    return Array.isArray(inner) && inner.length === 2 ? { $ifNull: [inner[0], null] } : ref;
  };
  return c.nullSafe([raw(first.ref), raw(second.ref)], ([a, b]) => {
    if (call.name === 'hassubset') return { $setIsSubset: [b, a] };
    // Each element of the second found in the first after the previous one (greedy, as the reference).
    const found = { $cond: ['$$value.ok', { $indexOfArray: [a, '$$this', '$$value.at'] }, -1] };
    const step = { $let: { vars: { i: found }, in: { at: { $add: ['$$i', 1] }, ok: { $gte: ['$$i', 0] } } } };
    return { $let: { vars: { r: { $reduce: { input: b, initialValue: { at: 0, ok: true }, in: step } } }, in: '$$r.ok' } };
  });
};

/** The time of day in UTC as TimeOfDay text: HH:MM:SS and the milliseconds without trailing zeros. */
const time = ofInstant(
  unary((x) => {
    const ms = { $millisecond: x };
    const padded = (n: Aggregation, width: number): Aggregation => ({
      $substrCP: [{ $concat: ['00', { $toString: n }] }, { $subtract: [{ $strLenCP: { $concat: ['00', { $toString: n }] } }, width] }, width],
    });
    const fraction = {
      $switch: {
        branches: [
          { case: { $eq: [ms, 0] }, then: '' },
          { case: { $eq: [{ $mod: [ms, 100] }, 0] }, then: { $concat: ['.', { $toString: { $toInt: { $trunc: [{ $divide: [ms, 100] }] } } }] } },
          { case: { $eq: [{ $mod: [ms, 10] }, 0] }, then: { $concat: ['.', padded({ $toInt: { $trunc: [{ $divide: [ms, 10] }] } }, 2)] } },
        ],
        default: { $concat: ['.', padded(ms, 3)] },
      },
    };
    return { $concat: [{ $dateToString: { format: '%H:%M:%S', date: x } }, fraction] };
  }),
);

/** A TimeOfDay is text (HH:MM:SS, then the fraction); a BSON date keeps milliseconds (in UTC). */
const fractionalseconds: MongoFunction = (call, c) => {
  if (isPrimitive(argType(call), 'Edm.TimeOfDay')) {
    return unary((x) => ({
      $cond: [
        { $gt: [{ $strLenCP: x }, 9] },
        { $toDecimal: { $concat: ['0', { $substrCP: [x, 8, { $subtract: [{ $strLenCP: x }, 8] }] }] } },
        { $toDecimal: '0' },
      ],
    }))(call, c);
  }
  return ofInstant(unary((x) => ({ $divide: [{ $toDecimal: { $millisecond: x } }, 1000] })))(call, c);
};

/** A literal pattern of the shared subset only (src/semantic/pattern-subset.ts), in its PCRE form. */
const matchesPattern: MongoFunction = (call, c) => {
  const pattern = call.args[1];
  if (pattern?.kind !== 'literal' || typeof pattern.value !== 'string') return c.fail("'matchesPattern' with a non-literal pattern", call);
  let checked: CheckedPattern;
  try {
    checked = checkMatchesPattern(pattern.value);
  } catch (error) {
    throw error instanceof ODataError
      ? new ODataError({ code: error.code, status: error.status, reason: error.reason, option: c.option, position: pattern.span.start, appendLocation: false })
      : error;
  }
  return c.nullSafe([c.value(call.args[0] as BoundExpression)], ([s]) => ({
    $regexMatch: { input: s, regex: checked.mongo.regex, options: checked.mongo.options },
  }));
};

/** Negative starts count from the end; both ends are clamped to the string. */
const substring: MongoFunction = (call, c) => {
  const [text, start, length] = call.args;
  if (text === undefined || start === undefined) return c.fail('substring without a start', call);
  const inputs = [c.value(text), c.value(start), ...(length === undefined ? [] : [c.value(length)])];
  return c.nullSafe(inputs, ([s, from, count]) => {
    const total = { $strLenCP: s };
    const begin = { $cond: [{ $lt: [from, 0] }, { $max: [0, { $add: [total, from] }] }, { $min: [from, total] }] };
    const end = count === undefined ? total : { $min: [total, { $add: [begin, count] }] };
    const part = { $substrCP: [s, begin, { $max: [0, { $subtract: [end, begin] }] }] };
    // A negative length (computed, or folded from literals) gives null.
    return count === undefined ? part : { $cond: [{ $lt: [count, 0] }, null, part] };
  });
};

/** round (half away from zero: MongoDB's $round rounds half to even), floor, ceiling; an integer is itself. */
const rounding: MongoFunction = (call, c) => {
  if (call.type.kind === 'primitive' && !['Edm.Double', 'Edm.Single', 'Edm.Decimal'].includes(call.type.name)) return c.value(call.args[0] as BoundExpression);
  if (call.name === 'floor') return unary((x) => ({ $floor: x }))(call, c);
  if (call.name === 'ceiling') return unary((x) => ({ $ceil: x }))(call, c);
  // On the magnitude, exactly.
  return unary((x) => {
    const magnitude = { $abs: x };
    const whole = { $floor: magnitude };
    const rounded = { $cond: [{ $gte: [{ $subtract: [magnitude, whole] }, 0.5] }, { $add: [whole, 1] }, whole] };
    return { $cond: [{ $lt: [x, 0] }, { $subtract: [0, rounded] }, rounded] };
  })(call, c);
};

/**
 * MongoDB's geometry is query operators and a pipeline stage (`$geoWithin`, `$geoIntersects`,
 * `$near`, `$geoNear`) over indexed fields, none of them an aggregation expression: a geo function
 * inside `$expr`, `$compute` or `$orderby` has nothing to compile to (mingo has none either).
 */
const NO_SPATIAL = refuse('no spatial aggregation expressions ($geoWithin, $geoNear are query operators and stages)');

/**
 * `contains`, `startswith`, `endswith` of a field and a literal as a query document's regular
 * expression (to-mongo.ts), from the escaped literal.
 */
export const REGEX_OF_STRING_MATCH = {
  contains: (text: string) => text,
  startswith: (text: string) => `^${text}`,
  // `$` also matches before a final newline in PCRE (MongoDB); "no character follows" does not.
  endswith: (text: string) => `${text}(?![\\s\\S])`,
} as const satisfies Record<'contains' | 'startswith' | 'endswith', (escaped: string) => string>;

/** Every canonical function in MongoDB (exported for the test that it covers the registry). */
export const MONGO_FUNCTIONS: FunctionTable<MongoFunction> = {
  contains: binary(contains),
  // substringof(t, s) is contains(s, t).
  substringof: binary((t, s) => contains(s, t)),
  startswith: binary((s, t) => ({ $eq: [{ $substrCP: [s, 0, { $strLenCP: t }] }, t] })),
  endswith: binary((s, t) => ({
    $and: [
      { $gte: [{ $strLenCP: s }, { $strLenCP: t }] },
      { $eq: [{ $substrCP: [s, { $subtract: [{ $strLenCP: s }, { $strLenCP: t }] }, { $strLenCP: t }] }, t] },
    ],
  })),
  matchesPattern,
  length: unary((s) => ({ $strLenCP: s })),
  indexof: binary((s, t) => ({
    $cond: [{ $eq: [t, ''] }, 0, { $cond: [{ $gt: [{ $size: { $split: [s, t] } }, 1] }, { $strLenCP: { $arrayElemAt: [{ $split: [s, t] }, 0] } }, -1] }],
  })),
  substring,
  tolower: unary((s) => ({ $toLower: s })),
  toupper: unary((s) => ({ $toUpper: s })),
  trim: unary((s) => ({ $trim: { input: s, chars: TRIM_CHARACTERS } })),
  concat: binary((s, t) => ({ $concat: [s, t] })),
  hassubset: collectionTest,
  hassubsequence: collectionTest,
  year: datePartOfDate(0, '$year'),
  month: datePartOfDate(1, '$month'),
  day: datePartOfDate(2, '$dayOfMonth'),
  hour: datePartOfTime(0, '$hour'),
  minute: datePartOfTime(3, '$minute'),
  second: datePartOfTime(6, '$second'),
  fractionalseconds,
  totalseconds: (call, c) => c.durationValue(call.args[0] as BoundExpression),
  date: ofInstant(unary((x, _, c) => c.calendarDate(x))),
  time,
  // A BSON date keeps no offset: stored in UTC (see DEVIATIONS, "Date and time parts of a DateTimeOffset").
  totaloffsetminutes: ofInstant(unary(() => 0)),
  now: FOLDED,
  mindatetime: FOLDED,
  maxdatetime: FOLDED,
  round: rounding,
  floor: rounding,
  ceiling: rounding,
  cast: (_, c) => c.castOrIsof(),
  isof: (_, c) => c.castOrIsof(),
  'geo.distance': NO_SPATIAL,
  'geo.intersects': NO_SPATIAL,
  'geo.length': NO_SPATIAL,
};

/** Why the MongoDB backend refuses a canonical function (the capability table's cell), or `undefined` (as in SQL). */
export function mongoFunctionRefusal(name: CanonicalFunctionName): string | undefined {
  const entry = MONGO_FUNCTIONS[name];
  return isRefusal(entry) && entry.folded !== true ? entry.refused : undefined;
}

/** A canonical function call as an aggregation expression. */
export function functionValue(call: Call, c: MongoFunctionContext): Aggregation {
  const entry = MONGO_FUNCTIONS[call.name];
  if (isRefusal(entry)) return c.fail(`the function '${call.name}'`, call);
  return entry(call, c);
}
