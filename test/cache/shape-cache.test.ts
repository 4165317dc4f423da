/**
 * The shape cache (issue 15): a text of a known shape with other literals, served from the cache,
 * is exactly its fresh compile (bound query, SQL of every dialect, MongoDB query, and errors) on
 * random queries over the full grammar; entries stay bounded; a shape's plan never serves another
 * entity set, model, limit, dialect, tenant or mapping; a literal whose value changes the typing
 * or the plan is not replaced; and the scan of a shape agrees with the lexer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bindQuery,
  createPlanCache,
  defineModel,
  ODataError,
  toMongo,
  toSql,
  type BindSettings,
  type BoundQuery,
  type PlanCache,
  type SqlQuery,
  type ToSqlOptions,
} from '../../src/index.js';
import { sameShape, shapeOf, type QueryShape } from '../../src/cache/shape.js';
import { shapedOf } from '../../src/cache/shape-plan.js';
import { lex } from '../../src/syntax/lexer.js';
import { applyQueryArbitrary, typedQueryArbitrary } from '../../src/testing/index.js';
import { FUZZ_SET, fuzzModel } from '../fixtures/fuzz-data.js';

const DIALECTS = ['postgres', 'mysql', 'sqlite', 'mssql', 'duckdb'] as const;

/** Everything a SQL result holds, the lazily compiled pieces included. */
function sqlOf(query: SqlQuery): unknown {
  return {
    sql: query.sql,
    params: query.params,
    count: query.count,
    where: query.where,
    orderBy: query.orderBy,
    select: query.select,
    columns: query.columns,
    expansions: query.expansions,
    computed: query.computed,
  };
}

/** A result, or the error with everything a client sees of it. */
function outcome(compute: () => unknown): unknown {
  try {
    return { value: compute() };
  } catch (error) {
    if (error instanceof ODataError) return { error: error.code, message: error.message, status: error.status, option: error.option, position: error.position };
    throw error;
  }
}

/** Compiles `text` through the cache (binding, every dialect, MongoDB) and checks each against a fresh compile; whether the bound query came from a shape's plan. */
function checkAgainstFresh(
  cache: PlanCache,
  text: string,
  settings: BindSettings,
  options: Omit<ToSqlOptions, 'dialect'> = { scope: { tenant_id: 't' } },
): boolean {
  const fresh = outcome(() => bindQuery(text, settings));
  const cached = outcome(() => cache.bind(text, settings));
  expect(cached, text).toEqual(fresh);
  if (!('value' in (fresh as object))) return false;
  const bound = (cached as { value: BoundQuery }).value;
  const freshBound = (fresh as { value: BoundQuery }).value;
  for (const dialect of DIALECTS) {
    const expected = outcome(() => sqlOf(toSql(freshBound, { ...options, dialect })));
    expect(
      outcome(() => sqlOf(toSql(bound, { ...options, dialect, cache }))),
      `${dialect}: ${text}`,
    ).toEqual(expected);
  }
  expect(
    outcome(() => toMongo(bound, { cache })),
    `MongoDB: ${text}`,
  ).toEqual(outcome(() => toMongo(freshBound)));
  return shapedOf(bound) !== undefined;
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';

/** Another token for a slot (not always of its class: the shape then differs, which is tested too). */
function otherImage(image: string, kind: string, random: number[]): string {
  const next = (): number => random.push(random.shift() as number) && (random[random.length - 1] as number);
  switch (kind) {
    case 'string': {
      const body = image.slice(1, -1);
      const pools = [/[a-z]/.test(body) ? LOWER : '', /[A-Z]/.test(body) ? UPPER : '', /\d/.test(body) ? DIGITS : ''].filter((p) => p !== '');
      const length = 1 + (next() % 12);
      let text = '';
      for (let i = 0; i < length; i++) {
        const pool = pools[next() % pools.length] as string;
        text += pool[next() % pool.length];
      }
      if (body.trim().includes(' ') && text.length > 1) text = `${text.slice(0, 1)} ${text.slice(1)}`;
      return `'${body.startsWith(' ') ? ' ' : ''}${text}${body.endsWith(' ') && body.trim() !== '' ? ' ' : ''}'`;
    }
    case 'int32':
      return String(Number(image) + (next() % 2 === 0 ? (next() % 200) - 100 : (next() % 2_000_000) - 1_000_000));
    case 'decimal':
      return image.replace(/\d/g, (digit, at: number) =>
        at === 0 || image[at - 1] === '-' ? (digit === '0' ? '0' : String(1 + (next() % 9))) : String(next() % 10),
      );
    default: {
      // Dates, some of them invalid (an error the cache must report as binding does).
      const year = 1900 + (next() % 200);
      return `${year}-${String(1 + (next() % 12)).padStart(2, '0')}-${String(1 + (next() % 31)).padStart(2, '0')}`;
    }
  }
}

/** `text` (of shape `shape`) with other literals. */
function variantOf(shape: QueryShape, random: number[]): string {
  const parts = shape.parts.map((part) => (part.value === undefined ? part.raw : undefined));
  shape.parts.forEach((part, index) => {
    if (part.value === undefined) return;
    let value = '';
    let at = 0;
    for (const slot of shape.slots) {
      if (slot.part !== index) continue;
      value += part.value.slice(at, slot.offset) + otherImage(slot.image, slot.kind, random);
      at = slot.offset + slot.image.length;
    }
    parts[index] = `${part.rawName}=${encodeURIComponent(value + part.value.slice(at))}`;
  });
  return shape.prefix + parts.join('&');
}

describe('shapes are found without building their keys', () => {
  it('sameShape is the equality of the keys, and equal keys have equal hashes (random queries, their variants, other shapes)', () => {
    const shapes: QueryShape[] = [];
    fc.assert(
      fc.property(typedQueryArbitrary(fuzzModel, FUZZ_SET), fc.array(fc.nat(1_000_000), { minLength: 16, maxLength: 16 }), ({ text }, random) => {
        const shape = shapeOf(text, false);
        if (shape === undefined) return;
        const variant = shapeOf(variantOf(shape, random), false);
        for (const other of [variant, ...shapes.slice(-8)]) {
          if (other === undefined) continue;
          expect(sameShape(shape, other), `${shape.key} | ${other.key}`).toBe(shape.key === other.key);
          expect(sameShape(other, shape)).toBe(shape.key === other.key);
          if (shape.key === other.key) expect(other.hash).toBe(shape.hash);
        }
        shapes.push(shape);
      }),
      { numRuns: 400 },
    );
    expect(shapes.length).toBeGreaterThan(50);
    // Texts that differ only outside the literals, or in a literal's class, are other shapes.
    const pairs: [string, string][] = [
      ["$filter=Name eq 'ab' and Id gt 5", "$filter=Name eq 'cd' and Id gt 7"],
      ["$filter=Name eq 'ab' and Id gt 5", "$filter=Name eq 'ab' and Id ge 5"],
      ["$filter=Name eq 'ab' and Id gt 5", "$filter=Name eq 'AB' and Id gt 5"],
      ["$filter=Name eq 'ab'&$top=5", "$filter=Name eq 'ab'&$top=6"],
      ["$filter=Name eq 'ab'", "%24filter=Name%20eq%20'xy'"],
      ["$filter=Name eq 'ab'", "$filter=Name  eq 'ab'"],
    ];
    const same = pairs.map(([a, b]) => sameShape(shapeOf(a, false) as QueryShape, shapeOf(b, false) as QueryShape));
    expect(same).toEqual([true, false, false, false, true, false]);
  });
});

describe('shape cache', () => {
  it('a text of a known shape with other literals gives what a fresh compile gives (random queries, every dialect, MongoDB, errors)', () => {
    const cache = createPlanCache({ maxEntries: 300 });
    const settings: BindSettings = { model: fuzzModel, entitySet: FUZZ_SET };
    let shaped = 0;
    let hits = 0;
    fc.assert(
      fc.property(typedQueryArbitrary(fuzzModel, FUZZ_SET), fc.array(fc.nat(1_000_000), { minLength: 16, maxLength: 16 }), ({ text }, random) => {
        const shape = shapeOf(text, false);
        if (shape === undefined) return;
        shaped++;
        checkAgainstFresh(cache, text, settings);
        for (let round = 0; round < 3; round++) {
          if (checkAgainstFresh(cache, variantOf(shape, random), settings)) hits++;
        }
      }),
      { numRuns: 250 },
    );
    // The property is not vacuous: many texts have a shape, and many of their variants are served from a shape's plan.
    expect(shaped).toBeGreaterThan(25);
    expect(hits).toBeGreaterThan(25);
    expect(cache.size).toBeLessThanOrEqual(300);
  });

  it('$apply: random pipelines, and texts of their shapes with other literals, give what a fresh compile gives', () => {
    const cache = createPlanCache({ maxEntries: 300 });
    const settings: BindSettings = { model: fuzzModel, entitySet: FUZZ_SET };
    let shaped = 0;
    fc.assert(
      fc.property(applyQueryArbitrary(fuzzModel, FUZZ_SET), fc.array(fc.nat(1_000_000), { minLength: 16, maxLength: 16 }), ({ text: generated }, random) => {
        // A $filter after $apply with a literal the shape cache replaces ($apply itself is kept as written).
        const text = `${generated
          .split('&')
          .filter((part) => !part.startsWith('$filter='))
          .join('&')}&$filter=${encodeURIComponent('n ge 17 or n lt 4000')}`;
        checkAgainstFresh(cache, text, settings);
        const shape = shapeOf(text, false);
        if (shape === undefined) return;
        shaped++;
        for (let round = 0; round < 2; round++) checkAgainstFresh(cache, variantOf(shape, random), settings);
      }),
      { numRuns: 150 },
    );
    expect(shaped).toBeGreaterThan(10);
  });

  it('the same on random filters made of literals next to properties and functions (the shapes a server sees)', () => {
    const cache = createPlanCache({ maxEntries: 400 });
    const settings: BindSettings = { model: fuzzModel, entitySet: FUZZ_SET };
    const str = fc
      .oneof({ weight: 8, arbitrary: fc.stringMatching(/^[A-Za-z0-9 ]{1,8}$/) }, { weight: 1, arbitrary: fc.constantFrom("a''b", '', '%_', 'ü') })
      .map((t) => `'${t}'`);
    const int = fc
      .oneof(
        fc.integer({ min: -300, max: 300 }),
        fc.integer({ min: -2147483648, max: 2147483647 }),
        fc.constantFrom(32767, 32768, 2147483647, 3000000000, -129, 255, 256, 65536),
      )
      .map(String);
    const num = fc.oneof(
      fc.tuple(fc.integer({ min: -99, max: 999 }), fc.nat(999)).map(([a, b]) => `${a}.${b}`),
      fc.constantFrom('1.5e3', '0.0', '10.50', '-0.25'),
    );
    const date = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.date({ min: new Date('1890-01-01'), max: new Date('2110-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
      },
      { weight: 1, arbitrary: fc.constantFrom('2021-02-29', '2020-02-29', '2020-13-01') },
    );
    const sp = fc.constantFrom('name', 'code', 'tolower(name)', 'toupper(code)', 'trim(name)');
    const ip = fc.constantFrom('n16', 'n32', 'n64', 'id', 'parentId');
    const op = fc.constantFrom('eq', 'ne', 'gt', 'ge', 'lt', 'le');
    const atom = fc.oneof(
      fc.tuple(sp, op, str).map(([p, o, l]) => `${p} ${o} ${l}`),
      fc.tuple(ip, op, int).map(([p, o, l]) => `${p} ${o} ${l}`),
      fc.tuple(fc.constantFrom('dec', 'dbl', 'n32'), op, num).map(([p, o, l]) => `${p} ${o} ${l}`),
      fc.tuple(op, date).map(([o, l]) => `born ${o} ${l}`),
      fc.tuple(fc.constantFrom('contains', 'startswith', 'endswith'), sp, str).map(([f, p, l]) => `${f}(${p},${l})`),
      fc.tuple(sp, int).map(([p, l]) => `length(${p}) gt ${l}`),
      fc.tuple(sp, str, int).map(([p, l, i]) => `indexof(${p},${l}) eq ${i}`),
      fc.tuple(sp, int, str).map(([p, i, l]) => `substring(${p},${i}) eq ${l}`),
      fc.tuple(fc.constantFrom('year', 'month', 'day'), int).map(([f, l]) => `${f}(born) eq ${l}`),
      fc.tuple(ip, int, op, int).map(([p, a, o, b]) => `${p} add ${a} ${o} ${b}`),
      fc.tuple(ip, int, int).map(([p, a, b]) => `${p} in (${a},${b})`),
      fc.tuple(sp, str, str).map(([p, a, b]) => `${p} in (${a},${b})`),
      fc.tuple(int, ip).map(([l, p]) => `${l} lt ${p}`),
      fc.tuple(num, op, num).map(([a, o, b]) => `dec mul ${a} ${o} ${b}`),
      str.map((l) => `status eq ${l}`),
      fc.tuple(ip, int, int).map(([p, a, b]) => `${p} eq ${a} add ${b}`),
      fc.tuple(int, int).map(([a, b]) => `children/any(c:c/n32 gt ${a} and c/n16 lt ${b})`),
    );
    const filter = fc
      .tuple(fc.array(atom, { minLength: 1, maxLength: 4 }), fc.constantFrom(' and ', ' or '), fc.boolean())
      .map(([atoms, joint, negate]) => (negate ? `not (${atoms.join(joint)})` : atoms.join(joint)));
    const query = fc
      .record({
        filter,
        order: fc.option(
          fc.oneof(
            sp,
            fc.tuple(ip, int).map(([p, i]) => `${p} add ${i}`),
          ),
          { freq: 3 },
        ),
        expand: fc.option(filter, { freq: 3 }),
        top: fc.option(fc.nat(12), { freq: 3 }),
      })
      .map(({ filter: f, order, expand, top }) =>
        [
          `$filter=${encodeURIComponent(f)}`,
          ...(order === null ? [] : [`$orderby=${encodeURIComponent(order)} desc,id`]),
          ...(expand === null ? [] : [`$expand=children(${encodeURIComponent(`$filter=${expand};$top=2`)})`]),
          ...(top === null ? [] : [`$top=${top}`]),
        ].join('&'),
      );
    let hits = 0;
    fc.assert(
      fc.property(query, fc.array(fc.nat(1_000_000), { minLength: 16, maxLength: 16 }), (text, random) => {
        checkAgainstFresh(cache, text, settings);
        const shape = shapeOf(text, false);
        if (shape === undefined) return;
        for (let round = 0; round < 3; round++) if (checkAgainstFresh(cache, variantOf(shape, random), settings)) hits++;
      }),
      { numRuns: 400 },
    );
    expect(hits).toBeGreaterThan(200);
    expect(cache.size).toBeLessThanOrEqual(400);
  });

  const model = defineModel({
    namespace: 'Shop',
    enumTypes: { Status: ['draft', 'active'] },
    entityTypes: {
      Product: {
        key: ['id'],
        properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Decimal', rating: 'Edm.Int32', small: 'Edm.Int16', born: 'Edm.Date', status: 'Status' },
      },
    },
    entitySets: { products: { type: 'Product', maxTop: 50 } },
  });
  const settings: BindSettings = { model, entitySet: 'products' };
  const medium = (word: string, price: string, rating: number, year: number): string =>
    `$filter=contains(tolower(name),'${word}') and price gt ${price} and (rating ge ${rating} or startswith(name,'Q')) and year(born) eq ${year}&$orderby=price desc&$top=10`;

  it('serves a shape from one plan: new literals cost no entry', () => {
    const cache = createPlanCache();
    expect(checkAgainstFresh(cache, medium('milk', '2.5', 30, 2020), settings)).toBe(false);
    const size = cache.size;
    // One bound query, the shape, and for five dialects and MongoDB the shape's template and the
    // first text's own compiled form (so that text again costs a lookup).
    expect(size).toBe(14);
    const words = ['salt', 'rice', 'honey', 'tea', 'oats'];
    for (let i = 0; i < 200; i++) {
      expect(checkAgainstFresh(cache, medium(words[i % words.length] as string, `${1 + (i % 9)}.${1 + (i % 7)}`, 10 + (i % 100), 1900 + i), settings)).toBe(
        true,
      );
    }
    expect(cache.size).toBe(size);
    // The statement carries the new literals as parameters.
    const statement = toSql(cache.bind(medium('bread', '7.25', 77, 1999), settings), { dialect: 'postgres', cache });
    expect(statement.params).toEqual(['%bread%', '7.25', 77, 'Q%', 1999, 10]);
  });

  it('$compute: a computed property used in $filter and $orderby follows the $filter literals; literals inside $compute stay exact', () => {
    const cache = createPlanCache();
    const fuzz = { model: fuzzModel, entitySet: FUZZ_SET } as const;
    const texts = (n: number, word: string) => [
      `$compute=n32 mul 2 as twice,concat(code,'-') as label&$filter=twice gt ${n} and label ne '${word}'&$orderby=twice desc&$select=id,twice,label`,
      `$compute=n32 mul 2 as twice&$filter=${n} lt twice&$select=id,twice`,
      `$expand=children($compute=n16 add 3 as k;$filter=k gt ${n};$select=id,k)&$select=id`,
      `$expand=children($compute=n16 add ${n} as k;$filter=k gt 1;$select=id,k)&$select=id`,
    ];
    const served = texts(5, 'x').map(() => 0);
    for (let i = 0; i < 30; i++) {
      texts(5 + i * 37, ['x', 'abc', 'Zeta'][i % 3] as string).forEach((text, k) => {
        if (checkAgainstFresh(cache, text, fuzz)) served[k] = (served[k] as number) + 1;
      });
    }
    // The first three shapes are served from their plans; a literal inside a nested $compute is not a slot there.
    expect(served.slice(0, 3).every((n) => n > 20)).toBe(true);
    expect(served[3]).toBe(0);
  });

  it('keeps at most maxEntries entries with shapes, and no long text', () => {
    const cache = createPlanCache({ maxEntries: 20, maxQueryLength: 200 });
    for (let i = 0; i < 60; i++) {
      // 60 shapes (the property differs), each seen with several literals.
      const property = ['rating', 'id'][i % 2] as string;
      for (let j = 0; j < 3; j++) checkAgainstFresh(cache, `$filter=${property} gt ${10 + j} and name eq 'x${'a'.repeat(i)}'`, settings);
      expect(cache.size).toBeLessThanOrEqual(20);
    }
    const long = `$filter=${Array.from({ length: 20 }, (_, i) => `rating eq ${10 + i}`).join(' or ')}`;
    const size = cache.size;
    expect(cache.bind(long, settings)).not.toBe(cache.bind(long, settings));
    expect(cache.size).toBe(size);
  });

  it('with shapes: false, keeps plans by exact text only', () => {
    const cache = createPlanCache({ shapes: false });
    checkAgainstFresh(cache, medium('milk', '2.5', 30, 2020), settings);
    expect(checkAgainstFresh(cache, medium('salt', '3.5', 31, 2021), settings)).toBe(false);
    expect(cache.size).toBe(14);
  });

  it('never serves a shape to another entity set, model, limit, dialect, tenant or mapping', () => {
    const make = (type: 'Edm.Int32' | 'Edm.Decimal') =>
      defineModel({
        namespace: 'N',
        entityTypes: {
          A: { key: ['id'], properties: { id: 'Edm.Int32', v: type, s: 'Edm.String' } },
          B: { key: ['id'], properties: { id: 'Edm.Int32', v: type, s: 'Edm.String' } },
        },
        entitySets: { as: { type: 'A' }, bs: { type: 'B', maxTop: 5 } },
      });
    const ints = make('Edm.Int32');
    const decimals = make('Edm.Decimal');
    const cache = createPlanCache();
    const text = (v: number, s: string): string => `$filter=v gt ${v} and s eq '${s}'&$top=4&$orderby=v`;
    const cases: { settings: BindSettings; options: Omit<ToSqlOptions, 'dialect'> & { dialect: (typeof DIALECTS)[number] } }[] = [
      { settings: { model: ints, entitySet: 'as' }, options: { dialect: 'postgres', scope: { tenant_id: 't1' } } },
      { settings: { model: ints, entitySet: 'as' }, options: { dialect: 'postgres', scope: { tenant_id: 't2' } } },
      { settings: { model: ints, entitySet: 'as' }, options: { dialect: 'mysql', scope: { tenant_id: 't1' } } },
      { settings: { model: ints, entitySet: 'as' }, options: { dialect: 'postgres', scope: { tenant_id: 't1' }, tables: { as: 'other_table' } } },
      { settings: { model: ints, entitySet: 'as' }, options: { dialect: 'postgres', naming: 'snake_case' } },
      { settings: { model: ints, entitySet: 'bs' }, options: { dialect: 'postgres', scope: { tenant_id: 't1' } } },
      { settings: { model: ints, entitySet: 'as', maxTop: 3 }, options: { dialect: 'postgres', scope: { tenant_id: 't1' } } },
      { settings: { model: decimals, entitySet: 'as' }, options: { dialect: 'postgres', scope: { tenant_id: 't1' } } },
    ];
    // Each case learns its shape from its own first text, then serves the others from it.
    for (let round = 0; round < 4; round++) {
      for (const [index, { settings: s, options }] of cases.entries()) {
        const t = text(20 + round * 7 + index, `word${'x'.repeat(round)}`);
        const fresh = outcome(() => sqlOf(toSql(bindQuery(t, s), options)));
        const got = outcome(() => sqlOf(toSql(cache.bind(t, s), { ...options, cache })));
        expect(got, JSON.stringify({ round, index })).toEqual(fresh);
        expect(outcome(() => toMongo(cache.bind(t, s), { cache }))).toEqual(outcome(() => toMongo(bindQuery(t, s))));
      }
    }
    const t2 = toSql(cache.bind(text(99, 'tenant'), { model: ints, entitySet: 'as' }), { dialect: 'postgres', scope: { tenant_id: 't2' }, cache });
    expect(shapedOf(cache.bind(text(99, 'tenant'), { model: ints, entitySet: 'as' }))).toBeDefined();
    expect(t2.params).toEqual(['t2', 99, 'tenant', 4]);
  });

  it('does not reuse a plan when a literal changes the typing or the plan', () => {
    const cache = createPlanCache();
    const keyOf = (text: string): string | undefined => shapeOf(text, false)?.key;
    // Int32 against Int64, and integer against decimal: other shapes.
    expect(keyOf('$filter=rating gt 30')).not.toBe(keyOf('$filter=rating gt 3000000000'));
    expect(keyOf('$filter=rating gt 30')).not.toBe(keyOf('$filter=rating gt 30.5'));
    // Values next to an edge of an integer type stay exact; so do null, booleans, enums, $top.
    expect(keyOf('$filter=small gt 32767')).toBeUndefined();
    expect(keyOf('$filter=small gt 0')).toBeUndefined();
    expect(keyOf("$filter=status eq Shop.Status'draft'")).toBeUndefined();
    expect(keyOf('$filter=name eq null')).toBeUndefined();
    expect(keyOf('$top=10')).toBeUndefined();
    // Case matters (tolower(name) never equals an upper-case text).
    expect(keyOf("$filter=tolower(name) eq 'abc'")).not.toBe(keyOf("$filter=tolower(name) eq 'Abc'"));
    for (const text of [
      '$filter=rating gt 30',
      '$filter=rating gt 3000000000',
      '$filter=rating gt 30.5',
      "$filter=tolower(name) eq 'abc'",
      "$filter=tolower(name) eq 'Abc'",
      '$filter=small gt 40000',
      '$filter=small gt 300',
      '$filter=small gt 400',
    ]) {
      checkAgainstFresh(cache, text, settings);
    }
    // A string compared with an enum is converted by its value: the shape has no plan.
    checkAgainstFresh(cache, "$filter=status eq 'draft'", settings);
    expect(checkAgainstFresh(cache, "$filter=status eq 'active'", settings)).toBe(false);
    // A literal among literals only may be folded: no plan.
    checkAgainstFresh(cache, '$filter=rating eq 20 add 30', settings);
    expect(checkAgainstFresh(cache, '$filter=rating eq 21 add 31', settings)).toBe(false);
  });

  it('reports the errors binding reports, for a text of a known shape', () => {
    const cache = createPlanCache();
    const text = (date: string, rating: string): string => `$filter=born eq ${date} and rating gt ${rating}`;
    expect(checkAgainstFresh(cache, text('2020-02-10', '30'), settings)).toBe(false);
    expect(checkAgainstFresh(cache, text('2020-03-11', '31'), settings)).toBe(true);
    // An invalid date: the same invalid_literal error with its position.
    const error = outcome(() => cache.bind(text('2020-02-30', '30'), settings));
    expect(error).toEqual(outcome(() => bindQuery(text('2020-02-30', '30'), settings)));
    expect(error).toMatchObject({ error: 'invalid_literal', option: '$filter', position: 8 });
    // $top over the limit: $top is not a slot, the same error.
    expect(outcome(() => cache.bind(`${text('2020-01-01', '40')}&$top=51`, settings))).toEqual(
      outcome(() => bindQuery(`${text('2020-01-01', '40')}&$top=51`, settings)),
    );
    checkAgainstFresh(cache, `${text('2020-01-01', '40')}&$top=50`, settings);
    checkAgainstFresh(cache, `${text('2020-01-01', '40')}&$top=51`, settings);
  });

  it('marks as slots only tokens the lexer reads as one literal', () => {
    fc.assert(
      fc.property(typedQueryArbitrary(fuzzModel, FUZZ_SET), ({ text }) => {
        const shape = shapeOf(text, false);
        if (shape === undefined) return;
        for (const slot of shape.slots) {
          const value = shape.parts[slot.part]?.value as string;
          const token = lex(value, 'expression').tokens.find((t) => t.startOffset === slot.offset);
          expect(token?.image, text).toBe(slot.image);
          expect(token?.tokenType.name).toBe({ string: 'StringLiteral', int32: 'NumberLiteral', decimal: 'NumberLiteral', date: 'DateLiteral' }[slot.kind]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
