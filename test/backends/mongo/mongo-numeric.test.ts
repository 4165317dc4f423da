/**
 * Numbers in the MongoDB backend: every operator and function over every numeric argument type
 * the binder accepts (Int16/32/64, Decimal, Double, INF/-INF/NaN, huge and computed values,
 * zero divisors, negative and huge substring arguments). The generated documents run in mingo
 * (MongoDB's query language in JavaScript; no MongoDB server can be installed here) and give the
 * in-memory reference's rows, or the null that the decided semantics give a failed operation.
 * Int64 values are stored as doubles here (`int64: 'double'`), since mingo cannot compare
 * bigints; the BSON long mapping's bounds are checked exactly against the reference below.
 */
import fc from 'fast-check';
import { Aggregator, Query } from 'mingo';
import 'mingo/init/system';
import { describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, defineModel, ODataError, type Row } from '../../../src/index.js';
import { fromMongoDocument, toMongo, toMongoDocument, type MongoFind, type MongoPipeline } from '../../../src/backends/mongo/to-mongo.js';
import { integerComparison } from '../../../src/backends/mongo/integer-range.js';
import { modelQueryArbitrary } from '../../../src/testing/index.js';

const model = defineModel({
  namespace: 'N',
  entityTypes: {
    E: { key: ['id'], properties: { id: 'Edm.Int32', n64: 'Edm.Int64', d: 'Edm.Decimal', x: 'Edm.Double', i16: 'Edm.Int16', s: 'Edm.String' } },
  },
  entitySets: { es: { type: 'E' } },
});
const type = model.entitySets.get('es')!.type;
const mapping = { int64: 'double' } as const;

const rows: Row[] = [
  { id: 1, n64: 2, d: '2.5', x: 2.5, i16: 3, s: 'Pump' },
  { id: 2, n64: 3, d: '-1.25', x: -2.5, i16: -3, s: 'ab' },
  { id: 3, n64: -3, d: '0', x: 0, i16: 0, s: '' },
  { id: 4, n64: 0, d: null, x: null, i16: null, s: null },
  { id: 5, n64: null, d: '7', x: 1e300, i16: 32767, s: 'longer text' },
  { id: 6, n64: 9007199254740991, d: '100.5', x: -1e300, i16: -32768, s: 'x' },
  { id: 7, n64: -9007199254740991, d: '-7', x: 7, i16: 1, s: 'ümlaut' },
  { id: 8, n64: 300000, d: '3', x: 3, i16: 2, s: 'abc' },
];

function runMongo(find: MongoFind | MongoPipeline, documents: Record<string, unknown>[]): number[] {
  const found =
    find.kind === 'pipeline'
      ? (new Aggregator([...find.pipeline]).run(documents) as Record<string, unknown>[])
      : (new Query(find.filter).find(documents, find.projection).all() as Record<string, unknown>[]);
  return found.map((d) => fromMongoDocument(d, type, mapping).id as number).sort((a, b) => a - b);
}

function mongoIds(filter: string, data: Row[] = rows): number[] {
  const bound = bindQuery(`$filter=${encodeURIComponent(filter)}`, { model, entitySet: 'es' });
  return runMongo(
    toMongo(bound, mapping),
    data.map((r) => toMongoDocument(r, type, mapping)),
  );
}

function referenceIds(filter: string, data: Row[] = rows): number[] {
  const bound = bindQuery(`$filter=${encodeURIComponent(filter)}`, { model, entitySet: 'es' });
  return compileQuery(bound)
    .apply(data)
    .value.map((r) => r.id as number)
    .sort((a, b) => a - b);
}

describe("MongoDB numbers: the reference's rows (run by mingo)", () => {
  const cases = [
    // Issue 12 item 3: divby overflowed the stack; Int64 against Decimal, Double, INF, NaN threw.
    'id divby 2 gt 1',
    'n64 divby 2 lt 1.5',
    'x divby 4 ge 0.5',
    'd divby 2 eq 1.25',
    'i16 divby 2.5e0 gt 0.5',
    'n64 lt 2.5',
    'n64 lt 2.5e0',
    'n64 le -2.5',
    'n64 gt 2.5',
    'n64 ge 2.5',
    'n64 eq 2.5',
    'n64 ne 2.5',
    'n64 eq 3.0',
    'n64 ne 3.00',
    '2.5 gt n64',
    '-2.5 le n64',
    'n64 lt INF',
    'n64 gt INF',
    'n64 gt -INF',
    'n64 lt -INF',
    'n64 le INF',
    'n64 eq INF',
    'n64 ne -INF',
    'n64 eq NaN',
    'n64 ne NaN',
    'n64 lt NaN',
    'NaN ge n64',
    'x eq NaN',
    'x ne NaN',
    'x lt INF',
    'x gt -INF',
    'x ge INF',
    'd lt INF',
    'd ne NaN',
    'i16 lt INF',
    'id eq NaN',
    // Huge literals: beyond Int64, beyond a double's integers.
    'n64 lt 99999999999999999999',
    'n64 gt -99999999999999999999',
    'n64 eq 99999999999999999999',
    'n64 lt 1e300',
    'n64 gt -1e300',
    'n64 le 9007199254740991',
    'n64 ge -9007199254740991.5',
    'id lt 1e300',
    'id gt 2147483648',
    'i16 eq 40000',
    'i16 lt 40000.5',
    'i16 gt -32768.5',
    'd gt 99999999999999999999',
    'x lt 99999999999999999999.5',
    // in lists, compared in the field's type.
    'n64 in (3, 3e0, null)',
    'n64 in (-3, 9007199254740991)',
    'not (n64 in (3, 0))',
    'x in (2.5, NaN, INF)',
    'i16 in (3, 40000)',
    // Computed values against the same literals ($expr).
    'n64 add 1 lt 2.5',
    'n64 add 0 gt 2.5e0',
    'n64 mul 2 eq INF',
    'n64 mul 2 lt INF',
    'n64 sub 1 gt -INF',
    'n64 add 0 eq NaN',
    'n64 add 0 ne NaN',
    'x mul 2 lt NaN',
    '-n64 lt 2.5',
    'n64 div 2 eq 1',
    'n64 div 2 eq -1',
    'n64 mod 2 eq 1',
    'n64 mod 2 eq -1',
    'x mod 2.5e0 eq 0',
    'length(s) mod 2.5e0 eq 0.5',
    'length(s) mod 1e10 eq 4',
    'id mod 99999999999999999999 eq id',
    'd mod 2 eq 0.5',
    'd div 2 gt 1',
    'round(d) eq 3',
    'floor(x) eq -3',
    'ceiling(d divby 2) eq 2',
    'round(n64 divby 2) eq 2',
    'i16 add i16 gt 40000',
    'i16 mul 1000 gt 2147483647',
    'id add 2147483647 gt 2147483647',
    // substring: negative start from the end, beyond the end, huge arguments.
    "substring(s,1) eq 'b'",
    "substring(s,-2) eq 'ab'",
    "substring(s,-20) eq 'ab'",
    "substring(s,-2,1) eq 'a'",
    "substring(s,20) eq ''",
    "substring(s,2147483648) eq ''",
    'substring(s,-2147483649) eq s',
    'substring(s,0,2147483648) eq s',
    "substring(s,1,2147483648) eq 'b'",
    "substring(s,length(s) mul 2) eq ''",
    'substring(s,-length(s)) eq s',
    "substring(s,1,length(s)) eq 'bc'",
    "substring(s,i16) eq ''",
    "substring(s,-i16,2) eq 'ab'",
  ];
  it.each(cases)('%s', (filter) => {
    expect(mongoIds(filter)).toEqual(referenceIds(filter));
  });

  // Semantics decided for issue 12: a zero divisor or an Int64 result out of range gives null for
  // the row (the reference is being changed to the same; MongoDB itself would fail the query).
  const nullCases: [string, number[]][] = [
    ['id div (id sub id) eq null', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['id mod (id sub id) eq null', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['id divby (id sub id) eq null', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['n64 div (id sub id) ne null', []],
    ['n64 mod n64 eq null', [4, 5]],
    ['x div (id sub id) eq null', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['x mod (id sub id) ne null', []],
    ['d div (id sub id) eq null', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['d divby i16 eq null', [3, 4]],
    ['d mod x gt -INF', [1, 2, 5, 6, 7, 8]],
    ['not (id div (i16 sub i16) gt 0)', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['length(s) div (id sub id) eq null', [1, 2, 3, 4, 5, 6, 7, 8]],
    // |n64|^4 beyond 2^63: null (300000^4 = 8.1e21; 9007199254740991^4 too).
    ['n64 mul n64 mul n64 mul n64 eq null', [5, 6, 7, 8]],
    ['n64 mul n64 mul n64 mul n64 gt 0', [1, 2, 3]],
    ['n64 mul n64 lt 0', []],
    ['n64 mul 1024 mul 1024 eq null', [5, 6, 7]],
    ['-(n64 mul 1024 mul 1024) eq null', [5, 6, 7]],
    // A negative length is null: not even '' (the binder refuses a negative literal length).
    ["substring(s,0,length(s) sub 3) eq ''", [8]],
    ["substring(s,0,length(s) sub 1) eq 'a'", [2]],
    ['substring(s,0,-length(s)) eq null', [1, 2, 4, 5, 6, 7, 8]],
    ["substring(s,0,i16) eq ''", [3]],
    ['substring(s,1,-i16) ne null', [2, 3, 6]],
  ];
  it.each(nullCases)('%s: null for the failed operation', (filter, expected) => {
    expect(mongoIds(filter)).toEqual(expected);
  });

  it("Int64 stored as BSON longs: the bounds are the reference's answer for every Int64, exactly", () => {
    const int64 = fc.oneof(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 2n ** 63n - 512n, 2n ** 63n - 513n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n, 1n, -1n, 2n, 3n),
      fc.bigInt({ min: -20n, max: 20n }),
    );
    const literal = fc.oneof(
      fc.constantFrom(
        '2.5',
        '-2.5',
        '2.5e0',
        '3.0',
        'INF',
        '-INF',
        'NaN',
        '1e300',
        '-1e300',
        '99999999999999999999',
        '-99999999999999999999',
        '9.223372036854776e18',
        '-9.223372036854776e18',
        '9223372036854775807',
        '-9223372036854775808',
        '9223372036854775807.5',
        '9007199254740993.0',
        '9.007199254740993e15',
        '0.0',
        '-0.5',
        '0.5',
      ),
      fc
        .double({ noNaN: true, noDefaultInfinity: true })
        .filter((v) => Number.isFinite(v))
        .map((v) => (Number.isInteger(v) ? `${v}e0`.replace(/e\+?(\d+)e0$/, 'e$1') : `${v}`).replace(/^(-?\d+)e0$/, '$1.0e0')),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.tuple(fc.bigInt({ min: -(2n ** 66n), max: 2n ** 66n }), fc.integer({ min: 1, max: 5 })).map(
        ([n, scale]) =>
          `${n < 0n ? '-' : ''}${(n < 0n ? -n : n)
            .toString()
            .padStart(scale + 1, '0')
            .replace(new RegExp(`(\\d{${scale}})$`), '.$1')}`,
      ),
    );
    const op = fc.constantFrom('eq', 'gt', 'ge', 'lt', 'le');
    fc.assert(
      fc.property(int64, literal, op, (value, text, operator) => {
        let bound;
        try {
          bound = bindQuery(`$filter=n64 ${operator} ${text}`, { model, entitySet: 'es' });
        } catch (error) {
          // A literal the grammar refuses (e.g. a double out of range) is not a case.
          expect(error).toBeInstanceOf(ODataError);
          return;
        }
        const filter = bound.filter as Extract<typeof bound.filter, { kind: 'binary' }>;
        const right = filter.right as Extract<typeof filter.right, { kind: 'literal' }>;
        const range = integerComparison(operator, right.value, filter.operandType, { kind: 'primitive', name: 'Edm.Int64' });
        const holds =
          range === 'all'
            ? true
            : range === 'none' || range === undefined
              ? false
              : (range.from === undefined || value >= range.from) && (range.to === undefined || value < range.to);
        const expected = compileQuery(bound).apply([{ id: 1, n64: value }]).value.length === 1;
        expect(holds, `${value} ${operator} ${text}`).toBe(expected);
        // The generated document holds only bounds inside the Int64 range (BSON longs).
        const find = toMongo(bound);
        JSON.stringify(find, (_k, v: unknown) => {
          if (typeof v === 'bigint') expect(v >= -(2n ** 63n) && v < 2n ** 63n).toBe(true);
          return typeof v === 'bigint' ? String(v) : v;
        });
      }),
      { numRuns: 2000 },
    );
  });
});

/** Random filters over every operator and function × numeric argument type the binder accepts. */
const numericAtom = fc.constantFrom(
  'id',
  'n64',
  'd',
  'x',
  'i16',
  'length(s)',
  "indexof(s,'a')",
  '0',
  '1',
  '-1',
  '2.5',
  '-2.5',
  '2.5e0',
  '0.0',
  '1e300',
  '-1e300',
  'INF',
  '-INF',
  'NaN',
  '2147483648',
  '-2147483649',
  '9223372036854775807',
  '-9223372036854775808',
  '99999999999999999999',
  '0.000000000000000000001',
);
const numericExpression: fc.Arbitrary<string> = fc.letrec<{ n: string }>((tie) => ({
  n: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numericAtom,
    fc.tuple(tie('n'), fc.constantFrom('add', 'sub', 'mul', 'div', 'divby', 'mod'), tie('n')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('n').map((a) => `-(${a})`),
    fc.tuple(fc.constantFrom('round', 'floor', 'ceiling'), tie('n')).map(([f, a]) => `${f}(${a})`),
  ),
})).n;
const stringExpression = fc.oneof(
  fc.constantFrom('s', "'ab'", "''", 'tolower(s)', "concat(s,'x')", 'trim(s)'),
  fc.tuple(fc.constantFrom('s', "'abc'"), numericExpression).map(([s, a]) => `substring(${s},${a})`),
  fc.tuple(fc.constantFrom('s', "'abc'"), numericExpression, numericExpression).map(([s, a, b]) => `substring(${s},${a},${b})`),
);
const comparison = fc.constantFrom('eq', 'ne', 'gt', 'ge', 'lt', 'le');
const condition: fc.Arbitrary<string> = fc.letrec<{ c: string }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(numericExpression, comparison, numericExpression).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(stringExpression, comparison, stringExpression).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(numericExpression, fc.array(numericAtom, { minLength: 1, maxLength: 4 })).map(([a, list]) => `${a} in (${list.join(',')})`),
    fc
      .tuple(
        fc.constantFrom('contains', 'startswith', 'endswith', 'matchesPattern'),
        stringExpression,
        fc.constantFrom("'a'", "'^a.c$'", "'(a|a)+$'", "'[a-z]+'", "'x*'"),
      )
      .map(([f, a, b]) => `${f}(${a},${b})`),
    tie('c').map((c) => `not (${c})`),
    fc.tuple(tie('c'), fc.constantFrom('and', 'or'), tie('c')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
  ),
})).c;

describe('toMongo throws nothing but ODataError', () => {
  const check = (text: string, options: Parameters<typeof toMongo>[1]): void => {
    let bound;
    try {
      bound = bindQuery(text, { model, entitySet: 'es' });
    } catch (error) {
      if (!(error instanceof ODataError)) throw error;
      return;
    }
    try {
      toMongo(bound, options);
    } catch (error) {
      if (!(error instanceof ODataError)) throw new Error(`${text}: ${(error as Error).name}: ${(error as Error).message}`);
    }
  };

  it('random filters over every numeric operator, function and literal kind', () => {
    fc.assert(
      fc.property(condition, fc.constantFrom({}, mapping, { decimal: (t: string) => ({ decimal: t }) }), (filter, options) =>
        check(`$filter=${encodeURIComponent(filter)}&$orderby=id`, options),
      ),
      { numRuns: 1500 },
    );
  });

  it('random bound queries of odata-engine/testing', () => {
    fc.assert(
      fc.property(modelQueryArbitrary(model, 'es'), fc.constantFrom({}, mapping), (text, options) => check(text, { ...options })),
      { numRuns: 800 },
    );
  });
});
