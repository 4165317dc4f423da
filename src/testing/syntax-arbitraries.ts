/**
 * fast-check arbitraries of syntax trees: literals, expressions, `$search` expressions and whole
 * queries. Every generated tree is one the parser can produce, so `parse(print(tree))` equals
 * `tree` (spans aside). Generated nodes have empty spans (`{start: 0, end: 0}`).
 */
import fc from 'fast-check';
import {
  CANONICAL_FUNCTIONS,
  type CanonicalFunctionName,
  type ComputeItem,
  type ExpandItem,
  type Expression,
  type ItemPathSegment,
  type Literal,
  type MemberPath,
  type NestedOptions,
  type ODataQuery,
  type OrderByItem,
  type PathSegment,
  type SearchExpression,
  type SelectItem,
  type Span,
  type TypeName,
} from '../syntax/ast.js';
import { findLambdaVariable } from '../syntax/builders.js';

const at: Span = { start: 0, end: 0 };

/** Words that the lexer reads as keywords or that have a meaning where a name stands. */
const RESERVED = new Set(
  [
    'and',
    'or',
    'not',
    'eq',
    'ne',
    'gt',
    'ge',
    'lt',
    'le',
    'has',
    'in',
    'add',
    'sub',
    'mul',
    'div',
    'divby',
    'mod',
    'asc',
    'desc',
    'as',
    'true',
    'false',
    'null',
    'inf',
    'nan',
    'any',
    'all',
    'case',
    'max',
  ].map((word) => word.toLowerCase()),
);

/** A simple identifier (no dots), never a keyword. */
export const identifierArbitrary: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom('Name', 'Price', 'Id', 'Tags', 'Items', 'Address', 'City', 'Rating', 'locality', 'Ünïcode', '_private', '__proto__', 'constructor'),
    fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/),
  )
  .filter((name) => !RESERVED.has(name.toLowerCase()));

/** A namespace-qualified name such as `Model.Customer`. */
export const qualifiedNameArbitrary: fc.Arbitrary<string> = fc
  .tuple(fc.array(identifierArbitrary, { minLength: 1, maxLength: 2 }), identifierArbitrary)
  .map(([namespace, name]) => [...namespace, name].join('.'));

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

const dateArbitrary = fc
  .record({ year: fc.integer({ min: 0, max: 9999 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 28 }) })
  .map(({ year, month, day }) => `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`);

const timeArbitrary = fc
  .record({
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.option(fc.integer({ min: 0, max: 59 }), { nil: undefined }),
    fraction: fc.option(fc.stringMatching(/^\d{1,7}$/), { nil: undefined }),
  })
  .map(({ hour, minute, second, fraction }) => {
    let text = `${pad(hour, 2)}:${pad(minute, 2)}`;
    if (second !== undefined) text += `:${pad(second, 2)}${fraction === undefined ? '' : `.${fraction}`}`;
    return text;
  });

const offsetArbitrary = fc.oneof(
  fc.constant('Z'),
  fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 14 }), fc.constantFrom(0, 30, 45)).map(([sign, h, m]) => `${sign}${pad(h, 2)}:${pad(m, 2)}`),
);

const durationArbitrary = fc
  .record({
    negative: fc.boolean(),
    days: fc.option(fc.nat(400), { nil: undefined }),
    hours: fc.option(fc.nat(23), { nil: undefined }),
    minutes: fc.option(fc.nat(59), { nil: undefined }),
    seconds: fc.option(fc.stringMatching(/^\d{1,2}(\.\d{1,4})?$/), { nil: undefined }),
  })
  .map(({ negative, days, hours, minutes, seconds }) => {
    let text = `${negative ? '-' : ''}P${days === undefined ? '' : `${days}D`}`;
    if (hours !== undefined || minutes !== undefined || seconds !== undefined) {
      text += `T${hours === undefined ? '' : `${hours}H`}${minutes === undefined ? '' : `${minutes}M`}${seconds === undefined ? '' : `${seconds}S`}`;
    }
    return text;
  });

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const binaryArbitrary = fc.uint8Array({ maxLength: 12 }).map((bytes) => {
  let bits = 0;
  let value = 0;
  let text = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      text += BASE64URL[(value >> bits) & 63];
    }
  }
  if (bits > 0) text += BASE64URL[(value << (6 - bits)) & 63];
  return text;
});

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Every kind of literal, with values at the edges: Int64 extremes, long decimals, odd strings. */
export const literalArbitrary: fc.Arbitrary<Literal> = fc.oneof(
  fc.constant<Literal>({ kind: 'literal', type: 'null', value: null, span: at }),
  fc.boolean().map((value): Literal => ({ kind: 'literal', type: 'Edm.Boolean', value, span: at })),
  fc.integer({ min: INT32_MIN, max: INT32_MAX }).map((value): Literal => ({ kind: 'literal', type: 'Edm.Int32', value, span: at })),
  fc
    .oneof(fc.bigInt({ min: -(2n ** 63n), max: BigInt(INT32_MIN) - 1n }), fc.bigInt({ min: BigInt(INT32_MAX) + 1n, max: 2n ** 63n - 1n }))
    .map((value): Literal => ({ kind: 'literal', type: 'Edm.Int64', value, span: at })),
  fc
    .tuple(fc.boolean(), fc.stringMatching(/^\d{1,20}$/), fc.stringMatching(/^\d{1,30}$/))
    .map(([negative, whole, fraction]): Literal => ({ kind: 'literal', type: 'Edm.Decimal', value: `${negative ? '-' : ''}${whole}.${fraction}`, span: at })),
  fc.double().map((value): Literal => ({ kind: 'literal', type: 'Edm.Double', value, span: at })),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((value): Literal => ({ kind: 'literal', type: 'Edm.String', value, span: at })),
  fc
    .constantFrom("O'Neil", "''", '%', '_', '\\', '&;#', ')', 'a+b', '__proto__')
    .map((value): Literal => ({ kind: 'literal', type: 'Edm.String', value, span: at })),
  fc.uuid().map((value): Literal => ({ kind: 'literal', type: 'Edm.Guid', value, span: at })),
  dateArbitrary.map((value): Literal => ({ kind: 'literal', type: 'Edm.Date', value, span: at })),
  fc.tuple(dateArbitrary, timeArbitrary, offsetArbitrary).map(([date, time, offset]): Literal => ({
    kind: 'literal',
    type: 'Edm.DateTimeOffset',
    value: `${date}T${time}${offset}`,
    span: at,
  })),
  timeArbitrary.map((value): Literal => ({ kind: 'literal', type: 'Edm.TimeOfDay', value, span: at })),
  durationArbitrary.map((value): Literal => ({ kind: 'literal', type: 'Edm.Duration', value, span: at })),
  binaryArbitrary.map((value): Literal => ({ kind: 'literal', type: 'Edm.Binary', value, span: at })),
  fc
    .tuple(fc.integer({ min: -180, max: 180 }), fc.integer({ min: -90, max: 90 }))
    .map(([x, y]): Literal => ({ kind: 'literal', type: 'Edm.Geography', value: `SRID=4326;Point(${x} ${y})`, span: at })),
  fc
    .tuple(qualifiedNameArbitrary, fc.array(fc.oneof(identifierArbitrary, fc.nat(64).map(String)), { minLength: 1, maxLength: 3 }))
    .map(([enumType, value]): Literal => ({ kind: 'literal', type: 'enum', enumType, value, span: at })),
);

const typeNameArbitrary: fc.Arbitrary<TypeName> = fc
  .tuple(fc.oneof(fc.constantFrom('Edm.Int32', 'Edm.String', 'Edm.Boolean', 'Edm.DateTimeOffset'), qualifiedNameArbitrary), fc.boolean())
  .map(([name, collection]) => ({ kind: 'typeName', name, collection, span: at }));

/** Options of the expression and query arbitraries. */
export interface SyntaxArbitraryOptions {
  /** How deep expressions nest (default 4). */
  readonly maxDepth?: number;
  /** `$search` form: `'text'` (one string, the parser's default) or `'grammar'`. */
  readonly search?: 'text' | 'grammar';
}

const BINARY_OPERATORS = ['and', 'or', 'eq', 'ne', 'gt', 'ge', 'lt', 'le', 'add', 'sub', 'mul', 'div', 'divby', 'mod'] as const;

const FUNCTIONS = (Object.keys(CANONICAL_FUNCTIONS) as CanonicalFunctionName[]).filter((name) => name !== 'cast' && name !== 'isof');

/** Expressions of every kind the parser produces. */
export function expressionArbitrary(options: SyntaxArbitraryOptions = {}): fc.Arbitrary<Expression> {
  const maxDepth = options.maxDepth ?? 4;
  const searchMode = options.search ?? 'text';
  const { expression } = fc.letrec<{ expression: Expression; path: MemberPath; segment: PathSegment }>((tie) => {
    const sub = tie('expression');
    const primary: fc.Arbitrary<Expression> = fc.oneof(literalArbitrary, tie('path'));
    return {
      expression: fc.oneof(
        { maxDepth, depthSize: 'small', withCrossShrink: true },
        literalArbitrary,
        tie('path'),
        fc.record({ kind: fc.constant('alias' as const), name: identifierArbitrary, span: fc.constant(at) }),
        fc.record({ kind: fc.constant('binary' as const), operator: fc.constantFrom(...BINARY_OPERATORS), left: sub, right: sub, span: fc.constant(at) }),
        fc.record({ kind: fc.constant('binary' as const), operator: fc.constant('has' as const), left: sub, right: primary, span: fc.constant(at) }),
        fc.record({
          kind: fc.constant('in' as const),
          left: sub,
          right: fc.oneof(
            fc.record({ kind: fc.constant('list' as const), items: fc.array(literalArbitrary, { maxLength: 4 }), span: fc.constant(at) }),
            tie('path'),
          ),
          span: fc.constant(at),
        }),
        fc.record({ kind: fc.constant('unary' as const), operator: fc.constantFrom('not' as const, 'negate' as const), operand: sub, span: fc.constant(at) }),
        fc.constantFrom(...FUNCTIONS).chain((name) => {
          const [min, max] = CANONICAL_FUNCTIONS[name];
          return fc.array(sub, { minLength: min, maxLength: max }).map((args): Expression => ({ kind: 'call', name, args, span: at }));
        }),
        fc
          .tuple(fc.constantFrom('cast' as const, 'isof' as const), fc.option(sub, { nil: undefined }), typeNameArbitrary)
          .map(([name, value, type]): Expression => ({ kind: 'call', name, args: value === undefined ? [type] : [value, type], span: at })),
        fc.record({
          kind: fc.constant('case' as const),
          branches: fc.array(fc.record({ when: sub, then: sub, span: fc.constant(at) }), { minLength: 1, maxLength: 3 }),
          span: fc.constant(at),
        }),
        fc.record({ kind: fc.constant('array' as const), items: fc.array(sub, { maxLength: 3 }), span: fc.constant(at) }),
        fc.record({
          kind: fc.constant('object' as const),
          members: fc.array(fc.record({ name: fc.string({ maxLength: 8 }), value: sub, span: fc.constant(at) }), { maxLength: 3 }),
          span: fc.constant(at),
        }),
      ),
      segment: fc.oneof(
        fc.record({ kind: fc.constant('member' as const), name: fc.oneof(identifierArbitrary, qualifiedNameArbitrary), span: fc.constant(at) }),
        fc.record({ kind: fc.constant('annotation' as const), term: qualifiedNameArbitrary, span: fc.constant(at) }),
        fc.record({ kind: fc.constant('filter' as const), predicate: sub, span: fc.constant(at) }),
        fc
          .tuple(fc.oneof(identifierArbitrary, qualifiedNameArbitrary), fc.boolean(), fc.array(fc.tuple(identifierArbitrary, sub), { maxLength: 2 }))
          .map(([name, named, args]): PathSegment => ({
            kind: 'invoke',
            name,
            args: args.map(([argName, value]) => (named ? { name: argName, value, span: at } : { value, span: at })),
            span: at,
          })),
      ),
      path: fc
        .tuple(
          fc.oneof(
            fc.constant({ kind: 'implicit' as const }),
            fc.constant({ kind: '$it' as const }),
            fc.constant({ kind: '$this' as const }),
            fc.constant({ kind: '$root' as const }),
            identifierArbitrary.map((name) => ({ kind: 'alias' as const, name })),
          ),
          fc.oneof(
            fc.record({ kind: fc.constant('member' as const), name: identifierArbitrary, span: fc.constant(at) }),
            fc.record({ kind: fc.constant('annotation' as const), term: qualifiedNameArbitrary, span: fc.constant(at) }),
          ),
          fc.array(tie('segment'), { maxLength: 2 }),
          fc.option(
            fc.oneof(
              fc
                .record({
                  kind: fc.constant('lambda' as const),
                  operator: fc.constantFrom('any' as const, 'all' as const),
                  variable: identifierArbitrary,
                  predicate: sub,
                  span: fc.constant(at),
                })
                // A nested lambda may not declare the same variable again.
                .filter((lambda) => findLambdaVariable(lambda.predicate, lambda.variable) === undefined),
              fc.constant<PathSegment>({ kind: 'lambda', operator: 'any', span: at }),
              fc.constant<PathSegment>({ kind: 'count', span: at }),
              fc
                .record({ filter: fc.option(sub, { nil: undefined }), search: fc.option(searchArbitrary('grammar'), { nil: undefined }) })
                .map(({ filter, search }): PathSegment => ({
                  kind: 'count',
                  ...(filter === undefined ? {} : { filter }),
                  ...(search === undefined ? {} : { search: searchMode === 'text' ? toText(search) : search }),
                  span: at,
                })),
            ),
            { nil: undefined },
          ),
        )
        .map(([head, first, rest, last]): MemberPath => {
          const segments = [first, ...rest, ...(last === undefined ? [] : [last])];
          return { kind: 'path', head, segments, span: at };
        }),
    };
  });
  return expression;
}

/** A nested `$search` in text mode keeps the source text of a valid search expression. */
function toText(search: SearchExpression): SearchExpression {
  return { kind: 'searchText', text: printSearchText(search), span: at };
}

function printSearchText(node: SearchExpression): string {
  switch (node.kind) {
    case 'searchText':
      return node.text;
    case 'searchTerm':
      return node.phrase ? `"${node.value}"` : node.value;
    case 'searchNot':
      return node.operand.kind === 'searchBinary' ? `NOT (${printSearchText(node.operand)})` : `NOT ${printSearchText(node.operand)}`;
    case 'searchBinary': {
      const strength = (n: SearchExpression): number => (n.kind === 'searchBinary' ? (n.operator === 'OR' ? 1 : 2) : 3);
      const own = node.operator === 'OR' ? 1 : 2;
      const left = strength(node.left) < own ? `(${printSearchText(node.left)})` : printSearchText(node.left);
      const right = strength(node.right) <= own ? `(${printSearchText(node.right)})` : printSearchText(node.right);
      return `${left} ${node.operator} ${right}`;
    }
  }
}

const searchWordArbitrary = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9.\-_!*+,:@/?$=]{0,8}$/).filter((word) => !['AND', 'OR', 'NOT'].includes(word));

/** `$search` expressions: in grammar mode a search tree, in text mode one string. */
export function searchArbitrary(mode: 'text' | 'grammar' = 'grammar'): fc.Arbitrary<SearchExpression> {
  const { search } = fc.letrec<{ search: SearchExpression }>((tie) => ({
    search: fc.oneof(
      { maxDepth: 3, depthSize: 'small' },
      searchWordArbitrary.map((value): SearchExpression => ({ kind: 'searchTerm', value, phrase: false, span: at })),
      fc.stringMatching(/^[A-Za-z0-9 .,'-]{1,12}$/).map((value): SearchExpression => ({ kind: 'searchTerm', value, phrase: true, span: at })),
      fc.record({ kind: fc.constant('searchNot' as const), operand: tie('search'), span: fc.constant(at) }),
      fc.record({
        kind: fc.constant('searchBinary' as const),
        operator: fc.constantFrom('AND' as const, 'OR' as const),
        left: tie('search'),
        right: tie('search'),
        span: fc.constant(at),
      }),
    ),
  }));
  if (mode === 'grammar') return search;
  return fc.oneof(
    search.map(toText),
    fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
      .filter((text) => text.trim() !== '')
      .map((text): SearchExpression => ({ kind: 'searchText', text, span: at })),
  );
}

const itemSegmentArbitrary: fc.Arbitrary<ItemPathSegment> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('member' as const), name: fc.oneof(identifierArbitrary, qualifiedNameArbitrary), span: fc.constant(at) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('annotation' as const), term: qualifiedNameArbitrary, span: fc.constant(at) }) },
);

/** Whole queries with every option, nested `$select`/`$expand` options, aliases and custom options. */
export function queryArbitrary(options: SyntaxArbitraryOptions = {}): fc.Arbitrary<ODataQuery> {
  const mode = options.search ?? 'text';
  const expression = expressionArbitrary({ maxDepth: options.maxDepth ?? 3, search: mode });
  const nestedSearch = searchArbitrary('grammar').map((search) => (mode === 'text' ? toText(search) : search));
  const orderBy: fc.Arbitrary<OrderByItem[]> = fc.array(
    fc.record({ kind: fc.constant('orderByItem' as const), expression, direction: fc.constantFrom('asc' as const, 'desc' as const), span: fc.constant(at) }),
    { minLength: 1, maxLength: 3 },
  );
  const compute: fc.Arbitrary<ComputeItem[]> = fc.array(
    fc.record({ kind: fc.constant('computeItem' as const), expression, alias: identifierArbitrary, span: fc.constant(at) }),
    { minLength: 1, maxLength: 2 },
  );
  const aliases = fc.dictionary(identifierArbitrary, expression, { maxKeys: 2, noNullPrototype: false });

  const nested = (
    kind: 'select' | 'expand' | '$ref' | '$count',
    select: fc.Arbitrary<SelectItem[]>,
    expand: fc.Arbitrary<ExpandItem[]>,
  ): fc.Arbitrary<NestedOptions | undefined> =>
    fc
      .record(
        {
          filter: expression,
          search: nestedSearch,
          orderBy,
          select,
          expand,
          compute,
          top: fc.nat(1000),
          skip: fc.nat(1000),
          count: fc.boolean(),
          levels: fc.oneof(fc.integer({ min: 1, max: 9 }), fc.constant('max' as const)),
          aliases,
        },
        { requiredKeys: [] },
      )
      .map((record) => {
        const allowed =
          kind === 'select'
            ? ['filter', 'search', 'orderBy', 'select', 'compute', 'top', 'skip', 'count', 'aliases']
            : kind === '$ref'
              ? ['filter', 'search', 'orderBy', 'top', 'skip', 'count']
              : kind === '$count'
                ? ['filter', 'search']
                : Object.keys(record);
        const result: Record<string, unknown> = {};
        for (const key of Object.keys(record)) {
          const value = (record as Record<string, unknown>)[key];
          if (!allowed.includes(key) || value === undefined) continue;
          if (key === 'aliases' && Object.keys(value as object).length === 0) continue;
          result[key] = value;
        }
        return Object.keys(result).length === 0 ? undefined : ({ kind: 'nestedOptions', ...result, span: at } as NestedOptions);
      });

  const { select, expand } = fc.letrec<{ select: SelectItem[]; expand: ExpandItem[] }>((tie) => ({
    select: fc.array(
      fc.oneof(
        { maxDepth: 2, depthSize: 'small' },
        fc.constant<SelectItem>({ kind: 'selectItem', path: [], star: '*', span: at }),
        qualifiedNameArbitrary.map((namespace): SelectItem => ({ kind: 'selectItem', path: [], star: { namespace }, span: at })),
        fc
          .tuple(fc.array(itemSegmentArbitrary, { minLength: 1, maxLength: 3 }), nested('select', tie('select'), fc.constant([])))
          .map(([path, options]): SelectItem => ({ kind: 'selectItem', path, ...(options === undefined ? {} : { options }), span: at })),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    expand: fc.array(
      fc.oneof(
        { maxDepth: 2, depthSize: 'small' },
        fc.constant<ExpandItem>({ kind: 'expandItem', path: [], target: '$value', span: at }),
        fc
          .tuple(fc.array(itemSegmentArbitrary, { minLength: 0, maxLength: 2 }), fc.boolean(), fc.constantFrom(undefined, '$ref' as const, '$count' as const))
          .filter(([path, star]) => star || path.length > 0)
          .chain(([path, star, suffix]) =>
            nested(suffix ?? 'expand', tie('select'), tie('expand')).map((options): ExpandItem => ({
              kind: 'expandItem',
              path,
              ...(star ? { target: '*' as const } : {}),
              ...(suffix === undefined ? {} : { suffix }),
              ...(options === undefined ? {} : { options }),
              span: at,
            })),
          ),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  }));

  const customName = fc.stringMatching(/^[a-z!][a-z0-9_.!-]{0,8}$/).filter((name) => !SYSTEM_NAMES.has(name.replace(/^\$/, '').toLowerCase()));
  return fc
    .record(
      {
        filter: expression,
        search: searchArbitrary(mode),
        orderBy,
        select,
        expand,
        compute,
        top: fc.nat(10_000),
        skip: fc.nat(1_000_000),
        count: fc.boolean(),
        aliases,
        custom: fc.dictionary(customName, fc.string({ maxLength: 10 }), { maxKeys: 2 }),
      },
      { requiredKeys: [] },
    )
    .map((record) => {
      const result: Record<string, unknown> = { kind: 'query' };
      for (const key of Object.keys(record)) {
        const value = (record as Record<string, unknown>)[key];
        if (value === undefined) continue;
        if ((key === 'aliases' || key === 'custom') && Object.keys(value as object).length === 0) continue;
        result[key] = value;
      }
      return result as unknown as ODataQuery;
    });
}

const SYSTEM_NAMES = new Set([
  'filter',
  'orderby',
  'select',
  'expand',
  'top',
  'skip',
  'count',
  'search',
  'compute',
  'format',
  'skiptoken',
  'deltatoken',
  'schemaversion',
  'apply',
  'id',
  'index',
  'levels',
]);
