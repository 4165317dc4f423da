/**
 * A typed generator of the whole expression grammar the binder accepts over a model: every
 * canonical function (geo functions aside: they need spatial properties) with well-typed arguments
 * that are properties, literals, `null` and nested computed expressions; every arithmetic
 * operator, comparisons, `and`/`or`/`not`, `in`, `has`, `any`/`all`, `$count`, navigation paths,
 * `cast`, `isof` and `case`; and literals at the edges (0, -0, negative, 2^31, 2^53, 2^63 − 1,
 * Int64, Decimals with many digits, Doubles with exponents, `INF`, `-INF`, `NaN`, empty and
 * non-ASCII strings, dates at the ends of the calendar). Expressions are generated for a target
 * type, so most of them bind; the rest are refused with an `ODataError`, which is a valid outcome
 * too.
 */
import { DYNAMIC_PROPERTY_NAMES } from './stored-data.js';
import fc from 'fast-check';
import type { EntitySet, Model, NavigationProperty, Property, StructuredType } from '../model/model.js';

/** A type as the generator sees it: an `Edm.*` primitive name, or `enum:` and the enum's qualified name. */
type TypeKey = string;

const NUMERIC_RANK: Readonly<Record<string, number>> = {
  'Edm.Byte': 1,
  'Edm.SByte': 1,
  'Edm.Int16': 2,
  'Edm.Int32': 3,
  'Edm.Int64': 4,
  'Edm.Decimal': 5,
  'Edm.Single': 6,
  'Edm.Double': 7,
};
const NUMERIC = ['Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Double'] as const;
const INTEGER = ['Edm.Int16', 'Edm.Int32', 'Edm.Int64'] as const;
const isNumericKey = (type: TypeKey): boolean => NUMERIC_RANK[type] !== undefined;
/** Types the generator produces values of (besides the model's enums). */
const VALUE_TYPES = ['Edm.Boolean', 'Edm.String', ...NUMERIC, 'Edm.Date', 'Edm.DateTimeOffset', 'Edm.TimeOfDay', 'Edm.Duration', 'Edm.Guid'] as const;
/** Types with an order (`gt`, `lt`, …). */
const ORDERED = new Set<TypeKey>(['Edm.String', ...NUMERIC, 'Edm.Date', 'Edm.DateTimeOffset', 'Edm.TimeOfDay', 'Edm.Duration', 'Edm.Boolean', 'Edm.Guid']);

const quote = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** Literals at the edges, in OData syntax, by type. */
export const EDGE_LITERALS: Readonly<Record<string, readonly string[]>> = {
  'Edm.Boolean': ['true', 'false'],
  'Edm.Int32': ['0', '-0', '1', '-1', '2', '3', '7', '-7', '10', '100', '-100', '255', '32767', '-32768', '2147483647', '-2147483648'],
  'Edm.Int64': [
    '2147483648',
    '-2147483649',
    '4294967296',
    '9007199254740992',
    '9007199254740993',
    '-9007199254740993',
    '9223372036854775807',
    '-9223372036854775808',
  ],
  'Edm.Decimal': [
    '0.0',
    '-0.0',
    '0.5',
    '-0.5',
    '1.5',
    '2.5',
    '-2.5',
    '0.1',
    '1.0',
    '100.25',
    '12345678901234567890.123456789',
    '-12345678901234567890.123456789',
    '0.000000000000000001',
    '99999999999999999999999999999.9',
    '2147483648.5',
  ],
  'Edm.Double': [
    '0e0',
    '-0e0',
    '1e0',
    '2.5e0',
    '-1.5e0',
    '0.1e0',
    '1e10',
    '-1e10',
    '1e308',
    '-1.7976931348623157e308',
    '1e-300',
    '9.007199254740993e15',
    '3.14e0',
    'INF',
    '-INF',
    'NaN',
  ],
  'Edm.String': [
    '',
    'a',
    'A',
    'Alpha',
    'alpha',
    'b',
    'Z',
    '%',
    '_',
    "O'Neil",
    '\\',
    'ü',
    'Ü',
    'ünï',
    '😀',
    'x y',
    ' a ',
    '100%',
    '12',
    'a'.repeat(60),
    'a\u0000b',
  ].map(quote),
  'Edm.Date': ['0001-01-01', '9999-12-31', '1970-01-01', '2000-02-29', '2024-02-29', '1999-12-31', '2024-01-01', '-0001-12-31'],
  'Edm.DateTimeOffset': [
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '1970-01-01T00:00:00Z',
    '2024-02-29T12:00:00Z',
    '2024-01-01T00:30:00+01:00',
    '2023-12-31T23:30:00-05:00',
    '2024-02-29T12:00:00.123456Z',
    '2000-01-01T00:00:00+14:00',
    '2024-02-29T12:00:00.1230005Z',
    '1970-01-01T00:00:00.0000001Z',
    '9999-12-31T23:59:59.9999999Z',
    '10000-01-01T00:00:00Z',
  ],
  'Edm.TimeOfDay': ['00:00:00', '23:59:59.999', '12:00:00', '08:00:00.5', '00:00:01', '23:59:59.9999999', '00:00:00.0000005'],
  'Edm.Duration': [
    "duration'P1D'",
    "duration'PT0S'",
    "duration'-P1DT2H'",
    "duration'PT12H'",
    "duration'P365D'",
    "duration'PT0.001S'",
    "duration'-PT1M'",
    "duration'PT0.0000001S'",
    "duration'P10675199DT2H48M5.4775807S'",
    "duration'-P10675199D'",
    "duration'P10675200D'",
    "duration'-P3652059DT23H59M59.9999999S'",
  ],
  'Edm.Guid': [
    '00000000-0000-0000-0000-000000000000',
    'AAAAAAAA-0000-0000-0000-000000000001',
    'bbbbbbbb-0000-0000-0000-000000000002',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
  ],
};

/** Patterns for `matchesPattern` that every regex flavour reads alike. */
const PATTERNS = ['^A', 'a$', '^$', '[0-9]', '^[a-z]+$', 'l.h', 'x|y', '^.{3}$', 'ü', '%'].map(quote);

/** Options of {@link typedFilterArbitrary}, {@link typedExpressionArbitrary} and {@link typedQueryArbitrary}. */
export interface TypedArbitraryOptions {
  /** Nesting of computed expressions (default 3). */
  readonly maxDepth?: number;
  /** Canonical functions to leave out (for example those a backend does not implement). */
  readonly excludeFunctions?: readonly string[];
  /** Leave out `cast`, `isof` and `case` (default false). */
  readonly noTypeFunctions?: boolean;
  /** Include `now()` (its value changes between backends' runs; default false). */
  readonly now?: boolean;
}

interface CollectionSource {
  readonly path: string;
  readonly element: StructuredType | TypeKey;
}

/** What an expression can refer to: values by type, collections, the lambda variables in use. */
interface Scope {
  readonly key: string;
  readonly values: ReadonlyMap<TypeKey, readonly string[]>;
  readonly collections: readonly CollectionSource[];
  readonly lambdaDepth: number;
}

function typeKeyOf(property: Property): TypeKey | undefined {
  if (property.type.kind === 'enum') return `enum:${property.type.type.qualifiedName}`;
  if (property.type.kind !== 'primitive') return undefined;
  const name = property.type.name;
  if (name === 'Edm.Byte' || name === 'Edm.SByte') return 'Edm.Int16';
  if (name === 'Edm.Single') return 'Edm.Double';
  return (VALUE_TYPES as readonly string[]).includes(name) ? name : undefined;
}

/** Adds the values reachable from `type` under `prefix` (complex properties and single-valued navigation one level deep). */
function collect(
  type: StructuredType,
  prefix: string,
  excluded: ReadonlySet<string>,
  values: Map<TypeKey, string[]>,
  collections: CollectionSource[],
  hops: number,
): void {
  for (const property of type.properties.values()) {
    if (!property.filterable || excluded.has(property.name)) continue;
    if (property.type.kind === 'complex') {
      if (!property.collection && hops === 0) collect(property.type.type, `${prefix}${property.name}/`, new Set(), values, [], 1);
      continue;
    }
    const key = typeKeyOf(property);
    if (key === undefined) continue;
    if (property.collection) collections.push({ path: `${prefix}${property.name}`, element: key });
    else values.set(key, [...(values.get(key) ?? []), `${prefix}${property.name}`]);
  }
  if (hops > 0) return;
  for (const navigation of type.navigation.values()) {
    if (!navigation.filterable) continue;
    if (navigation.collection) collections.push({ path: `${prefix}${navigation.name}`, element: navigation.target });
    else collect(navigation.target, `${prefix}${navigation.name}/`, new Set(), values, [], 1);
  }
}

function scopeOf(type: StructuredType, excluded: ReadonlySet<string>): Scope {
  const values = new Map<TypeKey, string[]>();
  const collections: CollectionSource[] = [];
  collect(type, '', excluded, values, collections, 0);
  return { key: type.qualifiedName, values, collections, lambdaDepth: 0 };
}

/** The scope inside `path/any(v:…)`: the outer values, and the variable's. */
function lambdaScope(outer: Scope, source: CollectionSource, variable: string): Scope {
  const values = new Map([...outer.values].map(([k, v]) => [k, [...v]]));
  const collections: CollectionSource[] = [];
  if (typeof source.element === 'string') {
    values.set(source.element, [...(values.get(source.element) ?? []), variable]);
  } else {
    const inner = new Map<TypeKey, string[]>();
    collect(source.element, `${variable}/`, new Set(), inner, collections, 1);
    for (const [k, v] of inner) values.set(k, [...(values.get(k) ?? []), ...v]);
    // Primitive collections of the element (`v/tags`) can be iterated too.
    for (const property of source.element.properties.values()) {
      const key = typeKeyOf(property);
      if (property.collection && key !== undefined && property.filterable) collections.push({ path: `${variable}/${property.name}`, element: key });
    }
  }
  return { key: `${outer.key}>${source.path}`, values, collections, lambdaDepth: outer.lambdaDepth + 1 };
}

/**
 * A literal zero divisor of integer or Decimal `div`/`divby` and of `mod` is a bind-time error
 * (URL 5.1.1.2.5-6): one in ten is kept so that the refusal is exercised, the others become a zero
 * computed per row (`(0 add 0)`), which every backend must make null.
 */
const LITERAL_ZERO_KEPT = fc.integer({ min: 0, max: 9 }).map((n) => n === 0);
function divisor(text: string, kept: boolean): string {
  return !kept && /^-?0+(\.0+)?(e[+-]?\d+)?$/i.test(text.replace(/^\((.*)\)$/, '$1')) ? `(${text} add 0)` : text;
}

/** Builds typed expression arbitraries over a model (memoized per scope, type and depth). */
class ExpressionGenerator {
  private readonly memo = new Map<string, fc.Arbitrary<string>>();
  private readonly excluded: ReadonlySet<string>;
  private readonly enums: ReadonlyMap<string, { readonly members: readonly string[]; readonly flags: boolean }>;

  constructor(
    model: Model,
    private readonly options: TypedArbitraryOptions,
  ) {
    this.excluded = new Set(options.excludeFunctions ?? []);
    const enums = new Map<string, { members: string[]; flags: boolean }>();
    for (const type of model.types.values())
      if (type.kind === 'enum') enums.set(type.qualifiedName, { members: [...type.members.keys()], flags: type.isFlags });
    this.enums = enums;
  }

  private fn(name: string): boolean {
    return !this.excluded.has(name);
  }

  /** Expressions of `type` in `scope`, nested up to `depth`. */
  of(type: TypeKey, scope: Scope, depth: number): fc.Arbitrary<string> {
    const key = `${scope.key}|${type}|${depth}`;
    let arbitrary = this.memo.get(key);
    if (arbitrary === undefined) {
      arbitrary = this.build(type, scope, depth);
      this.memo.set(key, arbitrary);
    }
    return arbitrary;
  }

  literal(type: TypeKey): fc.Arbitrary<string> {
    if (type.startsWith('enum:')) {
      const name = type.slice(5);
      const info = this.enums.get(name);
      if (info === undefined) return fc.constant('null');
      const members = info.flags ? fc.subarray([...info.members], { minLength: 1 }).map((m) => m.join(',')) : fc.constantFrom(...info.members);
      return members.map((m) => `${name}'${m}'`);
    }
    const edges = EDGE_LITERALS[type] ?? ['null'];
    switch (type) {
      case 'Edm.Int16':
        return fc.oneof(fc.constantFrom('0', '1', '-1', '32767', '-32768'), fc.integer({ min: -300, max: 300 }).map(String));
      case 'Edm.Int32':
        return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...edges) }, { weight: 1, arbitrary: fc.integer({ min: -1000, max: 1000 }).map(String) });
      case 'Edm.Decimal':
        return fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...edges) },
          { weight: 1, arbitrary: fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.nat(99)).map(([w, f]) => `${w}.${String(f).padStart(2, '0')}`) },
        );
      case 'Edm.Double':
        return fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...edges) },
          { weight: 1, arbitrary: fc.integer({ min: -1000, max: 1000 }).map((n) => `${n / 4}e0`) },
        );
      default:
        return fc.constantFrom(...edges);
    }
  }

  private leaves(type: TypeKey, scope: Scope): fc.WeightedArbitrary<string>[] {
    const paths = scope.values.get(type) ?? [];
    const leaves: fc.WeightedArbitrary<string>[] = [
      { weight: 3, arbitrary: this.literal(type) },
      { weight: 1, arbitrary: fc.constant('null') },
    ];
    if (paths.length > 0) leaves.push({ weight: 5, arbitrary: fc.constantFrom(...paths) });
    return leaves;
  }

  private build(type: TypeKey, scope: Scope, depth: number): fc.Arbitrary<string> {
    const choices = this.leaves(type, scope);
    if (type === 'Edm.Boolean') choices.push(...this.booleans(scope, depth));
    else if (depth > 0) choices.push(...this.computed(type, scope, depth - 1));
    return choices.length === 1 ? (choices[0] as fc.WeightedArbitrary<string>).arbitrary : fc.oneof(...choices);
  }

  /** Numeric operand types whose promotion with some other is `type`. */
  private numericPair(type: TypeKey, scope: Scope, depth: number): fc.Arbitrary<[string, string]> {
    const rank = NUMERIC_RANK[type] as number;
    const narrower = NUMERIC.filter((t) => (NUMERIC_RANK[t] as number) <= rank && (type !== 'Edm.Int16' || t === 'Edm.Int16'));
    const other = fc.constantFrom(...narrower).chain((t) => this.of(t, scope, depth));
    const self = this.of(type, scope, depth);
    return fc.oneof(fc.tuple(self, other), fc.tuple(other, self));
  }

  private computed(type: TypeKey, scope: Scope, depth: number): fc.WeightedArbitrary<string>[] {
    const out: fc.WeightedArbitrary<string>[] = [];
    const add = (weight: number, arbitrary: fc.Arbitrary<string>): void => {
      out.push({ weight, arbitrary });
    };
    const call = (name: string, ...args: fc.Arbitrary<string>[]): fc.Arbitrary<string> => fc.tuple(...args).map((a) => `${name}(${a.join(',')})`);
    const string = this.of('Edm.String', scope, depth);
    const dto = this.of('Edm.DateTimeOffset', scope, depth);
    const date = this.of('Edm.Date', scope, depth);
    const time = this.of('Edm.TimeOfDay', scope, depth);
    const duration = this.of('Edm.Duration', scope, depth);
    const anyInteger = fc.constantFrom(...INTEGER).chain((t) => this.of(t, scope, depth));
    const anyNumber = fc.constantFrom(...NUMERIC).chain((t) => this.of(t, scope, depth));
    if (isNumericKey(type)) {
      for (const op of ['add', 'sub', 'mul'])
        add(
          2,
          this.numericPair(type, scope, depth).map(([a, b]) => `(${a} ${op} ${b})`),
        );
      for (const op of ['div', 'mod'])
        add(
          2,
          fc.tuple(this.numericPair(type, scope, depth), LITERAL_ZERO_KEPT).map(([[a, b], kept]) => `(${a} ${op} ${divisor(b, kept)})`),
        );
      add(
        1,
        this.of(type, scope, depth).map((a) => `(-(${a}))`),
      );
      if (type === 'Edm.Decimal') {
        add(
          1,
          fc
            .tuple(
              fc.constantFrom('Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal').chain((t) => this.of(t, scope, depth)),
              fc.constantFrom('Edm.Int32', 'Edm.Int64', 'Edm.Decimal').chain((t) => this.of(t, scope, depth)),
            )
            .map(([a, b]) => `(${a} divby ${divisor(b, false)})`),
        );
        for (const name of ['round', 'floor', 'ceiling'])
          if (this.fn(name))
            add(
              2,
              call(
                name,
                fc.constantFrom('Edm.Int16', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal').chain((t) => this.of(t, scope, depth)),
              ),
            );
        if (this.fn('fractionalseconds')) add(1, call('fractionalseconds', fc.oneof(dto, time)));
        if (this.fn('totalseconds')) add(1, call('totalseconds', duration));
      }
      if (type === 'Edm.Double') {
        add(
          1,
          this.numericPair(type, scope, depth).map(([a, b]) => `(${a} divby ${b})`),
        );
        for (const name of ['round', 'floor', 'ceiling']) if (this.fn(name)) add(2, call(name, this.of('Edm.Double', scope, depth)));
      }
      if (type === 'Edm.Int32') {
        if (this.fn('length')) add(3, call('length', string));
        if (this.fn('indexof')) add(3, call('indexof', string, string));
        for (const name of ['year', 'month', 'day']) if (this.fn(name)) add(1, call(name, fc.oneof(date, dto)));
        for (const name of ['hour', 'minute', 'second']) if (this.fn(name)) add(1, call(name, fc.oneof(dto, time)));
        if (this.fn('totaloffsetminutes')) add(1, call('totaloffsetminutes', dto));
      }
      if (type === 'Edm.Int64') {
        const counted = scope.collections.map((c) => `${c.path}/$count`);
        if (counted.length > 0) add(2, fc.constantFrom(...counted));
      }
      if (!this.options.noTypeFunctions && this.fn('cast'))
        add(
          1,
          anyNumber.map((a) => `cast(${a},${type})`),
        );
      if (!this.options.noTypeFunctions) add(1, this.caseOf(type, scope, depth));
      return out;
    }
    switch (type) {
      case 'Edm.String':
        for (const name of ['tolower', 'toupper', 'trim']) if (this.fn(name)) add(2, call(name, string));
        if (this.fn('concat')) add(2, call('concat', string, string));
        if (this.fn('substring')) {
          add(2, call('substring', string, anyInteger));
          add(2, call('substring', string, anyInteger, anyInteger));
        }
        if (!this.options.noTypeFunctions && this.fn('cast'))
          add(
            1,
            fc.oneof(anyNumber, this.of('Edm.Boolean', scope, 0), this.of('Edm.Guid', scope, 0), date).map((a) => `cast(${a},Edm.String)`),
          );
        break;
      case 'Edm.Date':
        if (this.fn('date')) add(2, call('date', dto));
        add(
          1,
          fc.tuple(date, fc.constantFrom('add', 'sub'), duration).map(([a, op, b]) => `(${a} ${op} ${b})`),
        );
        break;
      case 'Edm.DateTimeOffset':
        add(
          2,
          fc.tuple(dto, fc.constantFrom('add', 'sub'), duration).map(([a, op, b]) => `(${a} ${op} ${b})`),
        );
        add(
          1,
          fc.tuple(duration, dto).map(([a, b]) => `(${a} add ${b})`),
        );
        for (const name of ['mindatetime', 'maxdatetime']) if (this.fn(name)) add(1, fc.constant(`${name}()`));
        if (this.options.now === true && this.fn('now')) add(1, fc.constant('now()'));
        break;
      case 'Edm.TimeOfDay':
        if (this.fn('time')) add(2, call('time', dto));
        break;
      case 'Edm.Duration':
        add(
          1,
          fc.tuple(duration, fc.constantFrom('add', 'sub'), duration).map(([a, op, b]) => `(${a} ${op} ${b})`),
        );
        add(
          1,
          fc.tuple(dto, dto).map(([a, b]) => `(${a} sub ${b})`),
        );
        add(
          1,
          fc.tuple(date, date).map(([a, b]) => `(${a} sub ${b})`),
        );
        add(
          1,
          duration.map((a) => `(-(${a}))`),
        );
        break;
      default:
        break;
    }
    // An integer cast to an enumeration: the member with that value (URL 5.1.1.10.1 rule 10).
    if (!this.options.noTypeFunctions && this.fn('cast') && type.startsWith('enum:'))
      add(
        1,
        anyInteger.map((a) => `cast(${a},${type.slice(5)})`),
      );
    if (!this.options.noTypeFunctions && !type.startsWith('enum:')) add(1, this.caseOf(type, scope, depth));
    return out;
  }

  private caseOf(type: TypeKey, scope: Scope, depth: number): fc.Arbitrary<string> {
    const value = this.of(type, scope, depth);
    return fc.tuple(this.of('Edm.Boolean', scope, Math.min(depth, 1)), value, value).map(([when, a, b]) => `case((${when}):${a},true:${b})`);
  }

  /** A comparable pair's type: numbers with any numbers, Date with DateTimeOffset, the rest with themselves. */
  private comparisons(scope: Scope, depth: number): fc.Arbitrary<string> {
    const enumKeys = [...scope.values.keys()].filter((k) => k.startsWith('enum:'));
    const types: TypeKey[] = [
      'Edm.String',
      ...NUMERIC,
      'Edm.Date',
      'Edm.DateTimeOffset',
      'Edm.TimeOfDay',
      'Edm.Duration',
      'Edm.Guid',
      'Edm.Boolean',
      ...enumKeys,
    ];
    return fc.constantFrom(...types).chain((type) => {
      const left = this.of(type, scope, depth);
      const partner = isNumericKey(type)
        ? fc.constantFrom(...NUMERIC).chain((t) => this.of(t, scope, depth))
        : type === 'Edm.Date' || type === 'Edm.DateTimeOffset'
          ? fc.constantFrom('Edm.Date', 'Edm.DateTimeOffset').chain((t) => this.of(t, scope, depth))
          : type === 'Edm.Boolean'
            ? this.of(type, scope, 0)
            : this.of(type, scope, depth);
      const flags = type.startsWith('enum:') && this.enums.get(type.slice(5))?.flags === true;
      const operators = ORDERED.has(type) || (type.startsWith('enum:') && !flags) ? ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] : ['eq', 'ne'];
      return fc.tuple(left, fc.constantFrom(...operators), partner).map(([a, op, b]) => `${a} ${op} ${b}`);
    });
  }

  private booleans(scope: Scope, depth: number): fc.WeightedArbitrary<string>[] {
    const out: fc.WeightedArbitrary<string>[] = [];
    const add = (weight: number, arbitrary: fc.Arbitrary<string>): void => {
      out.push({ weight, arbitrary });
    };
    const inner = Math.max(depth - 1, 0);
    add(8, this.comparisons(scope, Math.min(depth, 2)));
    const string = this.of('Edm.String', scope, Math.min(depth, 2));
    for (const name of ['contains', 'startswith', 'endswith', 'substringof'])
      if (this.fn(name))
        add(
          2,
          fc.tuple(string, string).map(([a, b]) => `${name}(${a},${b})`),
        );
    if (this.fn('matchesPattern'))
      add(
        1,
        fc.tuple(string, fc.constantFrom(...PATTERNS)).map(([a, p]) => `matchesPattern(${a},${p})`),
      );
    // in: a value against a list of literals of its type.
    const listTypes: TypeKey[] = [
      'Edm.String',
      'Edm.Int32',
      'Edm.Int64',
      'Edm.Decimal',
      'Edm.Double',
      'Edm.Date',
      'Edm.Guid',
      ...[...scope.values.keys()].filter((k) => k.startsWith('enum:')),
    ];
    add(
      2,
      fc
        .constantFrom(...listTypes)
        .chain((type) =>
          fc
            .tuple(
              this.of(type, scope, Math.min(depth, 1)),
              fc.array(fc.oneof({ weight: 5, arbitrary: this.literal(type) }, { weight: 1, arbitrary: fc.constant('null') }), { minLength: 1, maxLength: 4 }),
            )
            .map(([a, items]) => `${a} in (${items.join(',')})`),
        ),
    );
    // has: flag enums against their literals.
    const flagKeys = [...scope.values.keys()].filter((k) => k.startsWith('enum:') && this.enums.get(k.slice(5))?.flags === true);
    if (flagKeys.length > 0)
      add(
        2,
        fc.constantFrom(...flagKeys).chain((type) => fc.tuple(this.of(type, scope, 0), this.literal(type)).map(([a, b]) => `${a} has ${b}`)),
      );
    if (depth > 0) {
      const bool = this.of('Edm.Boolean', scope, inner);
      add(
        3,
        fc.tuple(bool, fc.constantFrom('and', 'or'), bool).map(([a, op, b]) => `(${a}) ${op} (${b})`),
      );
      add(
        2,
        bool.map((a) => `(not (${a}))`),
      );
      if (scope.lambdaDepth < 2 && scope.collections.length > 0) {
        const variable = `v${scope.lambdaDepth}`;
        const lambdas = scope.collections.map((source) => {
          const predicate = this.of('Edm.Boolean', lambdaScope(scope, source, variable), inner);
          return fc.oneof(
            fc.tuple(fc.constantFrom('any', 'all'), predicate).map(([op, p]) => `${source.path}/${op}(${variable}:${p})`),
            fc.constant(`${source.path}/any()`),
          );
        });
        add(3, fc.oneof(...lambdas));
      }
      const collections = scope.collections.filter((c) => typeof c.element === 'string').map((c) => c.path);
      if (collections.length > 0) {
        for (const name of ['hassubset', 'hassubsequence'])
          if (this.fn(name))
            add(
              1,
              fc.tuple(fc.constantFrom(...collections), fc.constantFrom(...collections)).map(([a, b]) => `${name}(${a},${b})`),
            );
      }
      if (!this.options.noTypeFunctions && this.fn('isof')) {
        add(
          1,
          fc
            .tuple(
              fc.constantFrom(...NUMERIC, 'Edm.String').chain((t) => this.of(t, scope, 0)),
              fc.constantFrom(...NUMERIC, 'Edm.String'),
            )
            .map(([a, t]) => `isof(${a},${t})`),
        );
        if (this.enums.size > 0)
          add(
            1,
            fc
              .tuple(
                fc.constantFrom(...INTEGER).chain((t) => this.of(t, scope, 0)),
                fc.constantFrom(...this.enums.keys()),
              )
              .map(([a, t]) => `isof(${a},${t})`),
          );
      }
    }
    return out;
  }
}

function requireSet(model: Model, name: string): EntitySet {
  const set = model.entitySets.get(name);
  if (set === undefined) throw new Error(`No entity set '${name}' in the model`);
  return set;
}

/**
 * Typed `$filter` expressions for an entity set over the whole grammar the binder accepts: see
 * the module comment. Most bind; the rest must be refused with an `ODataError`.
 *
 * @example
 * ```ts
 * fc.sample(typedFilterArbitrary(model, 'items', { maxDepth: 3 }), 5);
 * // e.g. "substring(name,(length(code) mul 2)) eq 'x'"
 * ```
 */
export function typedFilterArbitrary(model: Model, entitySet: string, options: TypedArbitraryOptions = {}): fc.Arbitrary<string> {
  const set = requireSet(model, entitySet);
  return new ExpressionGenerator(model, options).of('Edm.Boolean', scopeOf(set.type, set.capabilities.nonFilterableProperties), options.maxDepth ?? 3);
}

/**
 * Typed expressions of one type (`'Edm.Int64'`, `'Edm.String'`, …, or `'enum:Ns.Color'`) over an
 * entity set's properties, for `$orderby` items or as building blocks.
 */
export function typedExpressionArbitrary(model: Model, entitySet: string, type: string, options: TypedArbitraryOptions = {}): fc.Arbitrary<string> {
  const set = requireSet(model, entitySet);
  return new ExpressionGenerator(model, options).of(type, scopeOf(set.type, set.capabilities.nonFilterableProperties), options.maxDepth ?? 2);
}

/**
 * Literals of one primitive type (`'Edm.Int32'`, `'Edm.Guid'`, …; the edges of
 * {@link EDGE_LITERALS} most often), in OData syntax: `null` for a type it has none of.
 */
export function typedLiteralArbitrary(model: Model, type: string): fc.Arbitrary<string> {
  return new ExpressionGenerator(model, {}).literal(type);
}

/** A generated query: the query string and its parts. */
export interface GeneratedQuery {
  /** The query string (`$filter=…&$orderby=…`), URL-encoded. */
  readonly text: string;
  /** The same options, not encoded, for reports. */
  readonly readable: string;
}

/**
 * Whole queries for an entity set over the full grammar: a typed `$filter`, an `$orderby` of
 * properties and computed expressions (ending in the key when `$top`/`$skip` page it, so that the
 * page is defined), `$top`, `$skip` (up to 2^31 + 1), `$count`, `$select` and `$expand` of navigation
 * properties back to the same entity set (with nested `$filter`, `$orderby` and `$top`), and
 * `$compute` of typed expressions, whose properties `$select` returns and `$filter` and `$orderby` use.
 */
export function typedQueryArbitrary(model: Model, entitySet: string, options: TypedArbitraryOptions = {}): fc.Arbitrary<GeneratedQuery> {
  const set = requireSet(model, entitySet);
  const type = set.type;
  const generator = new ExpressionGenerator(model, options);
  const scope = scopeOf(type, set.capabilities.nonFilterableProperties);
  const filter = generator.of('Edm.Boolean', scope, options.maxDepth ?? 3);
  const sortable = [...type.properties.values()].filter(
    (p) => p.sortable && !p.collection && !type.key.includes(p.name) && typeKeyOf(p) !== undefined && !set.capabilities.nonSortableProperties.has(p.name),
  );
  const orderTypes = ['Edm.String', 'Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Double', 'Edm.Date', 'Edm.DateTimeOffset', 'Edm.Boolean'];
  const orderItem = fc.oneof(
    { weight: 3, arbitrary: sortable.length === 0 ? fc.constant(type.key[0] as string) : fc.constantFrom(...sortable).map((p) => p.name) },
    { weight: 1, arbitrary: fc.constantFrom(...orderTypes).chain((t) => generator.of(t, scope, 1)) },
  );
  const keyOrder = fc.constantFrom('asc', 'desc').map((direction) => type.key.map((k) => `${k} ${direction}`).join(','));
  const orderBy = fc
    .tuple(fc.array(fc.tuple(orderItem, fc.constantFrom('', ' asc', ' desc')), { maxLength: 2 }), fc.option(keyOrder, { freq: 5 }))
    .map(([items, key]) => ({
      items: items.map(([e, d]) => `${e}${d}`),
      key,
    }));
  const maxTop = set.capabilities.maxTop ?? 1000;
  const top = fc.oneof(fc.nat(Math.min(maxTop, 12)), fc.constantFrom(0, 1, maxTop));
  const skip = fc.oneof(fc.nat(12), fc.constantFrom(0, 2147483647, 2147483648));
  const selectable = [...type.properties.values()].filter((p) => p.selectable && !set.capabilities.nonSelectableProperties.has(p.name)).map((p) => p.name);
  const selfNavigation = [...type.navigation.values()].filter(
    (n) => n.target === type && n.expandable && !set.capabilities.nonExpandableProperties.has(n.name),
  );
  const expandItem = (n: NavigationProperty): fc.Arbitrary<string> =>
    n.collection
      ? fc
          .record({ filter: fc.option(generator.of('Edm.Boolean', scope, 1), { freq: 2 }), top: fc.option(fc.nat(3), { freq: 2 }), desc: fc.boolean() })
          .map(({ filter: f, top: t, desc }) => {
            const nested = [
              ...(f === null ? [] : [`$filter=${f}`]),
              `$orderby=${type.key.join(',')}${desc ? ' desc' : ''}`,
              ...(t === null ? [] : [`$top=${t}`]),
            ];
            return `${n.name}(${nested.join(';')})`;
          })
      : fc.constant(n.name);
  const expand =
    selfNavigation.length === 0
      ? fc.constant(null)
      : fc.option(
          fc.subarray(selfNavigation, { minLength: 1 }).chain((ns) => fc.tuple(...ns.map(expandItem))),
          { freq: 4 },
        );
  // $compute: typed expressions under names no property of the type has.
  const alias = (i: number): string => {
    let name = `zc${i}`;
    while (type.properties.has(name) || type.navigation.has(name)) name = `z${name}`;
    return name;
  };
  // In about one query of seven (each item may be refused as a filter may: the same generator).
  const compute = fc.oneof(
    { weight: 6, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.constantFrom(...orderTypes).chain((t) => generator.of(t, scope, 2)),
        { minLength: 1, maxLength: 2 },
      ),
    },
  );
  // How the first computed property is used: in $filter (compared with null), first in $orderby, or only returned.
  const computedUse = fc.constantFrom('filter', 'orderby', 'select');
  // An open type's dynamic properties (the names generateStoredData fills): compared with a value of
  // each JSON type or with null, in $filter, and first in $orderby. Other types draw nothing here
  // (fc.constant), so their queries stay what their seeds gave before.
  const dynamicName = fc.constantFrom(...DYNAMIC_PROPERTY_NAMES);
  const dynamicCondition = fc
    .tuple(dynamicName, fc.constantFrom('eq', 'ne', 'gt', 'le'), fc.constantFrom('1', '2.5', '-1', "'a'", "'B'", "''", 'true', 'false', 'null'))
    .map(([name, operator, value]) => `${name} ${value === 'null' ? (operator === 'eq' || operator === 'gt' ? 'eq' : 'ne') : operator} ${value}`);
  const dynamic = type.open
    ? fc.option(fc.record({ condition: fc.option(dynamicCondition, { freq: 3 }), order: fc.option(dynamicName, { freq: 2 }) }), { freq: 3 })
    : fc.constant(null);
  return fc
    .record({
      compute,
      computedUse,
      filter: fc.option(filter, { freq: 12 }),
      orderBy: fc.option(orderBy, { freq: 2 }),
      top: fc.option(top, { freq: 3 }),
      skip: fc.option(skip, { freq: 4 }),
      count: fc.option(fc.boolean(), { freq: 4 }),
      select: fc.option(fc.subarray(selectable, { minLength: 1 }), { freq: 4 }),
      expand,
      dynamic,
    })
    .map(({ compute: c, computedUse, filter: f00, orderBy: o0, top: t, skip: s, count, select, expand: e, dynamic: d }) => {
      const parts: [string, string][] = [];
      const aliases = c === null ? [] : c.map((_, i) => alias(i));
      const f0 = d?.condition == null ? f00 : f00 === null ? d.condition : `(${f00}) and ${d.condition}`;
      const o = d?.order == null ? o0 : { items: [d.order, ...(o0?.items ?? [])], key: o0?.key ?? null };
      if (c !== null) parts.push(['$compute', c.map((expression, i) => `${expression} as ${aliases[i]}`).join(',')]);
      const f = c !== null && computedUse === 'filter' ? `${f0 === null ? '' : `(${f0}) and `}${aliases[0]} ne null` : f0;
      if (f !== null) parts.push(['$filter', f]);
      // A page needs a defined order: the key ends every $orderby of a paged query.
      const paged = t !== null || s !== null;
      const items = [...(c !== null && computedUse === 'orderby' ? [aliases[0] as string] : []), ...(o === null ? [] : o.items)];
      const key = o?.key ?? null;
      const order = [...items, ...(key !== null ? [key] : paged ? [type.key.join(',')] : [])];
      if (order.length > 0) parts.push(['$orderby', order.join(',')]);
      if (t !== null) parts.push(['$top', String(t)]);
      if (s !== null) parts.push(['$skip', String(s)]);
      if (count !== null) parts.push(['$count', String(count)]);
      if (select !== null) parts.push(['$select', [...new Set([...type.key, ...select, ...aliases])].join(',')]);
      if (e !== null) parts.push(['$expand', e.join(',')]);
      return {
        text: parts.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'),
        readable: parts.map(([k, v]) => `${k}=${v}`).join('&'),
      };
    });
}
