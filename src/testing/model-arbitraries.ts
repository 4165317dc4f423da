/**
 * fast-check arbitraries for a model: rows of an entity set, with the values that break
 * backends (nulls, empty and very long strings, Unicode, `%`, `_`, `'`, `\`, Int64 extremes,
 * decimals with many digits, dates around offsets and leap days), and query strings that are
 * valid for the entity set (filters, orderings, pages, selects, expands).
 */
import fc from 'fast-check';
import type { EntitySet, Model, Property, StructuredType } from '../model/model.js';

/** A row as the in-memory backend and the test harness use it. */
export type TestRow = Record<string, unknown>;

const EDGE_STRINGS = [
  '',
  ' ',
  'a',
  'A',
  'ab',
  'abc',
  '%',
  '_',
  "'",
  "''",
  '\\',
  'a%b',
  'a_b',
  "O'Neil",
  'Ünï',
  'ü',
  'ß',
  '😀',
  'x😀y',
  'line\nbreak',
  '\t',
  'NULL',
  'null',
];

const stringValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...EDGE_STRINGS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('a'.repeat(300), 'Z'.repeat(1000)) },
);

const INT32 = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(-2147483648, 2147483647, 0, -1, 1));
const INT64 = fc.oneof(fc.bigInt({ min: -1000n, max: 1000n }), fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n));
const DECIMAL = fc.oneof(
  fc
    .tuple(fc.integer({ min: -100000, max: 100000 }), fc.nat(99))
    .map(([whole, cents]) => `${whole < 0 ? '-' : ''}${Math.abs(whole)}.${String(cents).padStart(2, '0')}`),
  fc.constantFrom('12345678901234567890.123456789', '-0.000000000000000001', '0', '1.5', '-1.5', '2.5'),
);
const DOUBLE = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0.1, 0.5, -0.5, 1.5, 2.5),
);
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
const DATE = fc.oneof(
  fc
    .record({ y: fc.integer({ min: 1970, max: 2030 }), m: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 28 }) })
    .map(({ y, m, d }) => `${y}-${pad(m)}-${pad(d)}`),
  fc.constantFrom('2000-02-29', '2024-02-29', '1999-12-31', '2000-01-01', '2023-12-31'),
);
const OFFSET = fc.constantFrom('Z', '+01:00', '-05:00', '+14:00', '-12:00', '+05:30');
const DATE_TIME_OFFSET = fc.oneof(
  fc
    .tuple(DATE, fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }), OFFSET)
    .map(([d, h, m, s, o]) => `${d}T${pad(h)}:${pad(m)}:${pad(s)}${o}`),
  fc.constantFrom('2024-01-01T00:30:00+01:00', '2023-12-31T23:30:00Z', '2024-02-29T23:59:59-05:00', '2000-03-01T00:00:00+14:00'),
);
const TIME_OF_DAY = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m, s]) => `${pad(h)}:${pad(m)}:${pad(s)}`);
const DURATION = fc.tuple(fc.boolean(), fc.nat(5), fc.nat(23)).map(([neg, d, h]) => `${neg ? '-' : ''}P${d}DT${h}H`);
const GUID = fc.uuid().chain((uuid) => fc.constantFrom(uuid, uuid.toUpperCase()));

/** Values of a property's type (without null). */
export function valueArbitrary(property: Property): fc.Arbitrary<unknown> {
  const type = property.type;
  let single: fc.Arbitrary<unknown>;
  if (type.kind === 'enum') {
    const names = [...type.type.members.keys()];
    single = type.type.isFlags ? fc.subarray(names, { minLength: 1 }).map((members) => members.join(',')) : fc.constantFrom(...names);
  } else if (type.kind === 'complex' || type.kind === 'entity') {
    single = fc.constant(null);
  } else {
    switch (type.name) {
      case 'Edm.String':
        single = stringValue;
        break;
      case 'Edm.Boolean':
        single = fc.boolean();
        break;
      case 'Edm.Byte':
        single = fc.integer({ min: 0, max: 255 });
        break;
      case 'Edm.SByte':
        single = fc.integer({ min: -128, max: 127 });
        break;
      case 'Edm.Int16':
        single = fc.integer({ min: -32768, max: 32767 });
        break;
      case 'Edm.Int32':
        single = INT32;
        break;
      case 'Edm.Int64':
        single = INT64;
        break;
      case 'Edm.Decimal':
        single = DECIMAL;
        break;
      case 'Edm.Double':
      case 'Edm.Single':
        single = DOUBLE;
        break;
      case 'Edm.Guid':
        single = GUID;
        break;
      case 'Edm.Date':
        single = DATE;
        break;
      case 'Edm.DateTimeOffset':
        single = DATE_TIME_OFFSET;
        break;
      case 'Edm.TimeOfDay':
        single = TIME_OF_DAY;
        break;
      case 'Edm.Duration':
        single = DURATION;
        break;
      default:
        single = type.name.startsWith('Edm.Geo') ? spatialArbitrary(type.name) : fc.constant(null);
    }
  }
  return property.collection ? fc.array(single, { maxLength: 4 }) : single;
}

/** A coordinate in quarters (exact in a double and in every engine's text of it), longitude within ±180, latitude within ±90. */
const position = fc.tuple(fc.integer({ min: -720, max: 720 }), fc.integer({ min: -360, max: 360 })).map(([x, y]) => [x / 4, y / 4]);

/**
 * GeoJSON values of a spatial type (without a CRS: of the family's default SRID): points, line
 * strings of two or three positions, rectangles as polygons; the abstract types and the multi
 * kinds as points and null.
 */
function spatialArbitrary(name: string): fc.Arbitrary<unknown> {
  const kind = name.replace(/^Edm\.Geography|^Edm\.Geometry/, '');
  if (kind === 'Point' || kind === '') return position.map((coordinates) => ({ type: 'Point', coordinates }));
  if (kind === 'LineString') return fc.array(position, { minLength: 2, maxLength: 3 }).map((coordinates) => ({ type: 'LineString', coordinates }));
  if (kind === 'Polygon')
    return fc.tuple(position, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 })).map(([[x, y], w, h]) => {
      const x0 = Math.min(x as number, 180 - w / 4);
      const y0 = Math.min(y as number, 90 - h / 4);
      const x1 = x0 + w / 4;
      const y1 = y0 + h / 4;
      return {
        type: 'Polygon',
        coordinates: [
          [
            [x0, y0],
            [x1, y0],
            [x1, y1],
            [x0, y1],
            [x0, y0],
          ],
        ],
      };
    });
  return fc.constant(null);
}

/** Rows of `entitySet` with unique keys; nullable properties are sometimes null. */
export function rowsArbitrary(model: Model, entitySet: string, options: { readonly maxLength?: number } = {}): fc.Arbitrary<TestRow[]> {
  const set = requireSet(model, entitySet);
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const property of set.type.properties.values()) {
    const value = valueArbitrary(property);
    fields[property.name] = property.nullable && !set.type.key.includes(property.name) ? fc.option(value, { nil: null, freq: 5 }) : value;
  }
  const row = fc.record(fields) as fc.Arbitrary<TestRow>;
  const keyOf = (r: TestRow): string => set.type.key.map((k) => String(r[k]).toLowerCase()).join('|');
  return fc.uniqueArray(row, { maxLength: options.maxLength ?? 25, selector: keyOf });
}

function requireSet(model: Model, name: string): EntitySet {
  const set = model.entitySets.get(name);
  if (set === undefined) throw new Error(`No entity set '${name}' in the model`);
  return set;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A literal for `property` in OData syntax (a value the rows may also hold). */
function literalArbitrary(property: Property): fc.Arbitrary<string> {
  const type = property.type;
  if (type.kind === 'enum') return fc.constantFrom(...type.type.members.keys()).map(quote);
  if (type.kind !== 'primitive') return fc.constant('null');
  switch (type.name) {
    case 'Edm.String':
      return stringValue.filter((s) => !s.includes('\n')).map(quote);
    case 'Edm.Boolean':
      return fc.boolean().map(String);
    case 'Edm.Int32':
    case 'Edm.Int16':
    case 'Edm.Byte':
    case 'Edm.SByte':
      return INT32.map(String);
    case 'Edm.Int64':
      return INT64.map(String);
    case 'Edm.Decimal':
      return DECIMAL.map((d) => (d.includes('.') ? d : `${d}.0`));
    case 'Edm.Double':
    case 'Edm.Single':
      return DOUBLE.map((d) => d.toExponential());
    case 'Edm.Guid':
      return GUID;
    case 'Edm.Date':
      return DATE;
    case 'Edm.DateTimeOffset':
      return DATE_TIME_OFFSET;
    case 'Edm.TimeOfDay':
      return TIME_OF_DAY;
    case 'Edm.Duration':
      return DURATION.map((d) => `duration'${d}'`);
    default:
      return fc.constant('null');
  }
}

const COMPARISONS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;

function isOrderableProperty(property: Property): boolean {
  if (property.collection) return false;
  if (property.type.kind === 'enum') return true;
  if (property.type.kind !== 'primitive') return false;
  return !['Edm.Binary', 'Edm.Stream', 'Edm.Untyped'].includes(property.type.name) && !property.type.name.startsWith('Edm.Geo');
}

/** Options of {@link filterArbitrary} and {@link modelQueryArbitrary}. */
export interface ModelQueryOptions {
  /** Nesting of `and`/`or`/`not` (default 3). */
  readonly maxDepth?: number;
  /** Include string functions, arithmetic and lambdas (default true). */
  readonly functions?: boolean;
  /** Include paths through navigation properties back to the same type (default true). */
  readonly navigation?: boolean;
  /** Include any/all over primitive collections (default true). */
  readonly collections?: boolean;
}

/** `$filter` texts that are valid for the entity set's type. */
export function filterArbitrary(model: Model, entitySet: string, options: ModelQueryOptions = {}): fc.Arbitrary<string> {
  const set = requireSet(model, entitySet);
  return filterFor(set.type, '', options, set.capabilities.nonFilterableProperties);
}

function filterFor(type: StructuredType, prefix: string, options: ModelQueryOptions, excluded: ReadonlySet<string> = new Set()): fc.Arbitrary<string> {
  const properties = [...type.properties.values()].filter((p) => p.filterable && !excluded.has(p.name));
  const scalars = properties.filter((p) => !p.collection && p.type.kind !== 'complex');
  const strings = scalars.filter((p) => p.type.kind === 'primitive' && p.type.name === 'Edm.String');
  const numbers = scalars.filter((p) => p.type.kind === 'primitive' && ['Edm.Int32', 'Edm.Int64', 'Edm.Decimal', 'Edm.Double'].includes(p.type.name));
  const stringCollections = properties.filter((p) => p.collection && p.type.kind === 'primitive' && p.type.name === 'Edm.String');
  const flags = scalars.filter((p) => p.type.kind === 'enum' && p.type.type.isFlags);
  const functions = options.functions ?? true;
  const name = (p: Property): string => `${prefix}${p.name}`;

  const atoms: fc.Arbitrary<string>[] = [];
  if (scalars.length > 0) {
    atoms.push(
      fc.constantFrom(...scalars).chain((p) =>
        fc.oneof(
          fc
            .tuple(
              fc.constantFrom(...(isOrderableProperty(p) && !(p.type.kind === 'enum' && p.type.type.isFlags) ? COMPARISONS : (['eq', 'ne'] as const))),
              literalArbitrary(p),
            )
            .map(([op, lit]) => `${name(p)} ${op} ${lit}`),
          fc.constantFrom('eq', 'ne').map((op) => `${name(p)} ${op} null`),
          fc.array(literalArbitrary(p), { minLength: 1, maxLength: 3 }).map((items) => `${name(p)} in (${items.join(',')})`),
        ),
      ),
    );
  }
  if (functions && strings.length > 0) {
    atoms.push(
      fc
        .tuple(
          fc.constantFrom(...strings),
          fc.constantFrom('contains', 'startswith', 'endswith'),
          fc.constantFrom('', 'a', 'A', '%', '_', "'", '\\', 'ab', 'ü', '😀'),
          fc.boolean(),
        )
        .map(([p, fn, text, lower]) => `${fn}(${lower ? `tolower(${name(p)})` : name(p)},${quote(text)})`),
      fc.tuple(fc.constantFrom(...strings), fc.constantFrom('eq', 'gt', 'lt'), fc.nat(5)).map(([p, op, n]) => `length(${name(p)}) ${op} ${n}`),
      fc
        .tuple(
          fc.constantFrom(...strings),
          fc.constantFrom('eq', 'ne', 'lt'),
          stringValue.filter((s) => !s.includes('\n')),
        )
        .map(([p, op, s]) => `toupper(${name(p)}) ${op} ${quote(s.toUpperCase())}`),
    );
  }
  if (functions && numbers.length > 0) {
    atoms.push(
      fc
        .tuple(
          fc.constantFrom(...numbers),
          fc.constantFrom('add', 'sub', 'mul'),
          fc.integer({ min: -5, max: 5 }),
          fc.constantFrom('gt', 'lt', 'eq'),
          fc.integer({ min: -100, max: 100 }),
        )
        .map(([p, op, n, cmp, m]) => `${name(p)} ${op} ${n} ${cmp} ${m}`),
    );
  }
  if ((options.collections ?? true) && stringCollections.length > 0) {
    atoms.push(
      fc
        .tuple(fc.constantFrom(...stringCollections), fc.constantFrom('any', 'all'), fc.constantFrom('a', 'x', '%', ''))
        .map(([p, op, text]) => `${name(p)}/${op}(v:v eq ${quote(text)})`),
      fc.constantFrom(...stringCollections).map((p) => `${name(p)}/any()`),
    );
  }
  if (flags.length > 0) {
    atoms.push(fc.constantFrom(...flags).chain((p) => literalArbitrary(p).map((lit) => `${name(p)} has ${lit}`)));
  }
  // Navigation back to the same type: a path through a single-valued one, any/all/$count over a collection.
  if (prefix === '' && (options.navigation ?? true)) {
    const inner = scalars.filter((p) => !(p.type.kind === 'enum' && p.type.type.isFlags));
    for (const navigation of type.navigation.values()) {
      if (navigation.target !== type || !navigation.filterable || inner.length === 0) continue;
      if (!navigation.collection) {
        atoms.push(
          fc.constantFrom(...inner).chain((p) =>
            fc.oneof(
              fc.tuple(fc.constantFrom('eq', 'ne'), literalArbitrary(p)).map(([op, lit]) => `${navigation.name}/${p.name} ${op} ${lit}`),
              fc.constantFrom('eq', 'ne').map((op) => `${navigation.name} ${op} null`),
            ),
          ),
        );
      } else {
        atoms.push(
          fc
            .tuple(
              fc.constantFrom('any', 'all'),
              fc.constantFrom(...inner).chain((p) => fc.tuple(fc.constant(p), fc.constantFrom('eq', 'ne'), literalArbitrary(p))),
            )
            .map(([op, [p, cmp, lit]]) => `${navigation.name}/${op}(x:x/${p.name} ${cmp} ${lit})`),
          fc.tuple(fc.constantFrom('eq', 'gt', 'lt'), fc.nat(3)).map(([op, n]) => `${navigation.name}/$count ${op} ${n}`),
          fc.boolean().map((negate) => `${negate ? 'not ' : ''}${navigation.name}/any()`),
        );
      }
    }
  }
  if (atoms.length === 0) return fc.constant('true');
  const atom = fc.oneof(...atoms);
  const { filter } = fc.letrec<{ filter: string }>((tie) => ({
    filter: fc.oneof(
      { maxDepth: options.maxDepth ?? 3, depthSize: 'small' },
      atom,
      fc.tuple(tie('filter'), fc.constantFrom('and', 'or'), tie('filter')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
      tie('filter').map((a) => `not (${a})`),
    ),
  }));
  return filter;
}

/** Whole query strings for the entity set: filter, ordering, paging, select, expand, count. */
export function modelQueryArbitrary(model: Model, entitySet: string, options: ModelQueryOptions = {}): fc.Arbitrary<string> {
  const set = requireSet(model, entitySet);
  const type = set.type;
  const sortable = [...type.properties.values()].filter((p) => p.sortable && isOrderableProperty(p) && !set.capabilities.nonSortableProperties.has(p.name));
  const selectable = [...type.properties.values()].filter((p) => p.selectable && !set.capabilities.nonSelectableProperties.has(p.name));
  // Navigation properties back to the same type can be expanded from the same rows.
  const selfNavigation = [...type.navigation.values()].filter(
    (n) => n.target === type && n.expandable && !set.capabilities.nonExpandableProperties.has(n.name),
  );
  const expand =
    selfNavigation.length === 0
      ? fc.constant(undefined)
      : fc.option(
          fc.uniqueArray(
            fc
              .tuple(fc.constantFrom(...selfNavigation), fc.option(fc.nat(3), { nil: undefined }))
              .map(([n, top]) => (n.collection && top !== undefined ? `${n.name}($orderby=${type.key.join(',')};$top=${top})` : n.name)),
            { minLength: 1, maxLength: 2, selector: (text) => text.split('(')[0] },
          ),
          { nil: undefined },
        );
  const orderBy =
    sortable.length === 0
      ? fc.constant(undefined)
      : fc.option(fc.uniqueArray(fc.tuple(fc.constantFrom(...sortable), fc.boolean()), { minLength: 1, maxLength: 3, selector: ([p]) => p.name }), {
          nil: undefined,
        });
  // Only what the set's capabilities allow (Capabilities vocabulary: FilterRestrictions, SortRestrictions, TopSupported, …).
  const caps = set.capabilities;
  const absent = fc.constant(undefined);
  return fc
    .record({
      filter: caps.filterable ? fc.option(filterArbitrary(model, entitySet, options), { nil: undefined }) : absent,
      orderBy: caps.sortable ? orderBy : absent,
      top: caps.topSupported ? fc.option(fc.nat(Math.min(caps.maxTop ?? 30, 30)), { nil: undefined }) : absent,
      skip: caps.skipSupported ? fc.option(fc.nat(30), { nil: undefined }) : absent,
      count: caps.countable ? fc.option(fc.boolean(), { nil: undefined }) : absent,
      select: fc.option(
        fc.subarray(
          selectable.map((p) => p.name),
          { minLength: 1 },
        ),
        { nil: undefined },
      ),
      expand: caps.expandable ? expand : absent,
    })
    .map(({ filter, orderBy: order, top, skip, count, select, expand: expanded }) => {
      const parts: string[] = [];
      if (filter !== undefined) parts.push(`$filter=${encodeURIComponent(filter)}`);
      if (order !== undefined) parts.push(`$orderby=${order.map(([p, desc]) => `${p.name}${desc ? ' desc' : ''}`).join(',')}`);
      if (top !== undefined) parts.push(`$top=${top}`);
      if (skip !== undefined) parts.push(`$skip=${skip}`);
      if (count !== undefined) parts.push(`$count=${count}`);
      if (select !== undefined) parts.push(`$select=${[...new Set([...type.key, ...select])].join(',')}`);
      if (expanded !== undefined) parts.push(`$expand=${expanded.join(',')}`);
      return parts.join('&');
    });
}
