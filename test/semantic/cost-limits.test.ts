/**
 * Bounds on what a query may cost that `maxLength` and the expression depth do not catch: every
 * path segment is a node (a 2 000-hop navigation path would be 4 000 joins), Decimal literals have
 * a digit limit, and a negative literal substring length is a bad request (URL 5.1.1.5.7).
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, defineModel, toSql, validateQuery } from '../../src/index.js';
import { failure } from '../helpers/failure.js';

const model = defineModel({
  namespace: 'N',
  entityTypes: {
    Category: {
      key: ['id'],
      properties: { id: 'Edm.Int32', productId: 'Edm.Int32', name: 'Edm.String', cost: 'Edm.Decimal' },
      navigation: { product: { type: 'Product', constraints: { productId: 'id' } } },
    },
    Product: {
      key: ['id'],
      properties: { id: 'Edm.Int32', categoryId: 'Edm.Int32', name: 'Edm.String' },
      navigation: { category: { type: 'Category', constraints: { categoryId: 'id' } } },
    },
  },
  entitySets: { categories: { type: 'Category' }, products: { type: 'Product' } },
});
const settings = { model, entitySet: 'categories' };

const errorOf = failure;

/** `product/category/product/…/name` with `hops` navigation segments. */
function hops(n: number): string {
  return `${Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'product' : 'category')).join('/')}/name`;
}

describe('every path segment counts as a node', () => {
  it('a 2 000-hop navigation path is node_count_exceeded with the default settings, before any SQL is made', () => {
    const query = `$filter=${hops(2000)} eq 'x'`;
    expect(query.length).toBeGreaterThan(15_000);
    const error = errorOf(() => bindQuery(query, settings));
    expect(error.code).toBe('node_count_exceeded');
    expect(error.status).toBe(400);
    expect(error.message).toContain("The node count limit of '100' has been exceeded");
    expect(validateQuery(query, settings).map((d) => d.code)).toEqual(['node_count_exceeded']);
  });

  it('a path of n segments costs n nodes: the limit falls exactly between n and n + 1', () => {
    // `hops(n) eq 'x'`: the comparison, n + 1 path segments and the literal.
    const cost = (n: number): number => 1 + (n + 1) + 1;
    for (const n of [1, 4, 20]) {
      expect(() => bindQuery(`$filter=${hops(n)} eq 'x'`, { ...settings, maxNodeCount: cost(n) })).not.toThrow();
      expect(errorOf(() => bindQuery(`$filter=${hops(n)} eq 'x'`, { ...settings, maxNodeCount: cost(n) - 1 })).code).toBe('node_count_exceeded');
    }
  });

  it('a short navigation path binds and compiles with the defaults', () => {
    const bound = bindQuery(`$filter=${hops(6)} eq 'x'`, settings);
    expect(toSql(bound, { dialect: 'postgres' }).sql.match(/LEFT JOIN/g)).toHaveLength(6);
  });
});

describe('Decimal literals are bounded', () => {
  const digits = (n: number): string => `${'9'.repeat(n - 1)}.5`;

  it('64 digits bind; 65 are literal_too_long, with the setting named', () => {
    expect(digits(64).replace('.', '')).toHaveLength(64);
    expect(() => bindQuery(`$filter=cost lt ${digits(64)}`, settings)).not.toThrow();
    const error = errorOf(() => bindQuery(`$filter=cost lt ${digits(65)}`, settings));
    expect(error.code).toBe('literal_too_long');
    expect(error.message).toContain("set the 'maxDecimalDigits' setting");
    expect(error.position).toBe('cost lt '.length);
  });

  it('an integer too large for Int64 is a Decimal and bounded the same way; the setting raises the bound', () => {
    expect(errorOf(() => bindQuery(`$filter=cost lt ${'1'.repeat(70)}`, settings)).code).toBe('literal_too_long');
    expect(() => bindQuery(`$filter=cost lt ${'1'.repeat(70)}`, { ...settings, maxDecimalDigits: 70 })).not.toThrow();
  });

  it("the issue's 93 KB of Decimal literals are refused at once", () => {
    const literal = `0.${'1'.repeat(93_000)}`;
    expect(errorOf(() => bindQuery(`$filter=cost lt ${literal}`, settings)).code).toBe('literal_too_long');
  });

  it('inside an in list too', () => {
    expect(errorOf(() => bindQuery(`$filter=cost in (1.5, ${digits(80)})`, settings)).code).toBe('literal_too_long');
  });
});

describe('a literal zero divisor is a bad request (URL 5.1.1.2.5, 5.1.1.2.6)', () => {
  // Category: id Int32, cost Decimal; a Double operand comes from cast.
  const refused = [
    'id div 0',
    'id div -0',
    'id div (0)',
    'id mod 0',
    'id divby 0',
    'cost div 0',
    'cost div 0.0',
    'cost mod 0.00',
    'cost divby 0',
    'id div 0.0',
    'cast(id,Edm.Double) mod 0',
    'cast(id,Edm.Int64) div 0',
  ];
  for (const expression of refused) {
    it(`${expression} eq 1 is invalid_argument, 400, at the divisor`, () => {
      const query = `$filter=${expression} eq 1`;
      const error = errorOf(() => bindQuery(query, settings));
      expect(error.code).toBe('invalid_argument');
      expect(error.status).toBe(400);
      expect(error.message).toMatch(/right operand of '(div|divby|mod)' must not be zero/);
      const divisor = expression.lastIndexOf(' ') + 1;
      expect(error.position).toBe(expression[divisor] === '(' ? divisor + 1 : divisor);
      // the validator reports the same code at the same place
      const diagnostics = validateQuery(query, settings);
      expect(diagnostics.map((d) => d.code)).toContain('invalid_argument');
    });
  }
  it('in $compute, $orderby and $apply too', () => {
    expect(errorOf(() => bindQuery('$compute=id mod 0 as m', settings)).code).toBe('invalid_argument');
    expect(errorOf(() => bindQuery('$orderby=id div 0', settings)).code).toBe('invalid_argument');
    expect(errorOf(() => bindQuery('$apply=compute(cost divby 0 as q)', settings)).code).toBe('invalid_argument');
  });
  it('Double div and divby by zero (INF, -INF, NaN), non-zero literals and computed divisors bind', () => {
    for (const expression of [
      'cast(id,Edm.Double) div 0',
      'cast(id,Edm.Double) divby 0.0e0',
      'id div 1',
      'cost div 0.001',
      'cost div 0e5',
      'cost div 1e-5',
      'id div (id sub id)',
      'id mod id',
    ]) {
      expect(() => bindQuery(`$filter=${expression} eq 1`, settings), expression).not.toThrow();
    }
  });
});

describe('substring with a negative literal length is a bad request', () => {
  for (const length of ['-1', '-(1)', '-2147483649', '-1.5']) {
    it(`substring(name,0,${length})`, () => {
      const query = `$filter=substring(name,0,${length}) eq 'x'`;
      const error = errorOf(() => bindQuery(query, settings));
      // -1.5 is a Decimal: no substring overload takes it.
      expect(error.code).toBe(length === '-1.5' ? 'type_mismatch' : 'invalid_argument');
      expect(error.status).toBe(400);
    });
  }

  it('zero, positive and computed lengths bind (a computed negative length yields null per row)', () => {
    for (const length of ['0', '3', 'length(name) sub 10', '-length(name)']) {
      expect(() => bindQuery(`$filter=substring(name,0,${length}) eq 'x'`, settings)).not.toThrow();
    }
  });
});

describe('Date and DateTimeOffset literals outside the years 0001 to 9999 are refused at bind time', () => {
  // PostgreSQL's ISO input has no year 0000 or negative years, SQLite compares five-digit years as
  // text, MariaDB's DATETIME stops at 9999, and every computed value outside the range is null.
  const dated = defineModel({
    namespace: 'D',
    entityTypes: { Event: { key: ['id'], properties: { id: 'Edm.Int32', born: 'Edm.Date', at: 'Edm.DateTimeOffset' } } },
    entitySets: { events: { type: 'Event' } },
  });
  const on = { model: dated, entitySet: 'events' };
  for (const filter of [
    'born gt 0000-01-01',
    'born eq -0001-12-31',
    'born lt 10000-01-01',
    'at ge 0000-12-31T23:59:59Z',
    'at lt 10000-01-01T00:00:00Z',
    'at in (2020-01-01T00:00:00Z,-0001-01-01T00:00:00Z)',
    'at gt 0001-01-01T00:30:00+01:00',
    'at lt 9999-12-31T23:30:00-01:00',
  ]) {
    it(filter, () => {
      const error = errorOf(() => bindQuery(`$filter=${filter}`, on));
      expect(error.code).toBe('invalid_literal');
      expect(error.message).toContain('outside the years 0001 to 9999');
      expect(validateQuery(`$filter=${filter}`, on).map((d) => d.code)).toEqual(['invalid_literal']);
    });
  }
  it('the edges of the range bind', () => {
    for (const filter of [
      'born ge 0001-01-01',
      'born le 9999-12-31',
      'at ge 0001-01-01T00:00:00Z',
      'at le 9999-12-31T23:59:59.999999999999Z',
      'at gt 0001-01-01T01:00:00+01:00',
    ]) {
      expect(() => bindQuery(`$filter=${filter}`, on), filter).not.toThrow();
    }
  });
});

describe('Duration literals longer than .NET TimeSpan are refused at bind time', () => {
  // PostgreSQL's interval holds 2^31 days and 2^63 microseconds; OData.net parses durations as TimeSpan.
  const timed = defineModel({
    namespace: 'D',
    entityTypes: { Event: { key: ['id'], properties: { id: 'Edm.Int32', span: 'Edm.Duration', at: 'Edm.DateTimeOffset' } } },
    entitySets: { events: { type: 'Event' } },
  });
  const on = { model: timed, entitySet: 'events' };
  for (const filter of [
    "span eq duration'P999999999D'",
    "span lt duration'-P10675200D'",
    "span eq duration'PT99999999999999H'",
    "at add duration'P10675199DT2H48M5.4775808S' eq null",
    "span in (duration'P1D',duration'P99999999999D')",
  ]) {
    it(filter, () => {
      const error = errorOf(() => bindQuery(`$filter=${filter}`, on));
      expect(error.code).toBe('invalid_literal');
      expect(error.message).toContain('TimeSpan');
      expect(validateQuery(`$filter=${filter}`, on).map((d) => d.code)).toEqual(['invalid_literal']);
    });
  }
  it('the edges of the range bind', () => {
    for (const filter of [
      "span eq duration'P10675199DT2H48M5.4775807S'",
      "span eq duration'-P10675199DT2H48M5.4775807S'",
      "span eq duration'PT0.000000000001S'",
    ]) {
      expect(() => bindQuery(`$filter=${filter}`, on), filter).not.toThrow();
    }
  });
});
