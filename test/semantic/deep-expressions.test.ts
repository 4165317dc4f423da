/**
 * Long and deep expressions never overflow the stack: an `or` chain of 20 000 clauses binds (in a
 * loop, as a balanced tree) and runs on every backend; 5 000 nested `not`s or `add`s are a
 * `too_deep` error; validateQuery handles both.
 */
import { Query } from 'mingo';
import { describe, expect, it, vi } from 'vitest';
import { ReferenceCompiler } from '../../src/reference/evaluator.js';
import { bindQuery, compileQuery, defineModel, ODataError, toMongo, toSql, validateQuery } from '../../src/index.js';
import { MAX_BIND_DEPTH } from '../../src/semantic/bind-expression.js';

const model = defineModel({
  namespace: 'N',
  entityTypes: { E: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String' } } },
  entitySets: { es: { type: 'E' } },
});
const settings = { model, entitySet: 'es', maxNodeCount: 1_000_000, parse: { maxLength: 10_000_000 } };
const chain = (n: number, operator = 'or'): string => Array.from({ length: n }, (_, i) => `id eq ${i * 3}`).join(` ${operator} `);
const rows = Array.from({ length: 60 }, (_, i) => ({ id: i, name: `n${i}` }));

/** Depth of a bound tree (iteratively). */
function depth(node: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[node, 1]];
  while (stack.length > 0) {
    const [current, d] = stack.pop() as [Record<string, unknown>, number];
    deepest = Math.max(deepest, d);
    for (const key of ['left', 'right', 'operand']) if (typeof current[key] === 'object' && current[key] !== null) stack.push([current[key], d + 1]);
  }
  return deepest;
}

describe('deep expressions', () => {
  it('an or-chain of 20 000 clauses binds as a balanced tree and runs in memory, SQL and MongoDB', () => {
    const bound = bindQuery(`$filter=${chain(20_000)}`, settings);
    expect(depth(bound.filter)).toBeLessThan(40);
    const expected = rows.filter((r) => r.id % 3 === 0).map((r) => r.id);
    expect(
      compileQuery(bound)
        .apply(rows)
        .value.map((r) => r.id),
    ).toEqual(expected);
    const sql = toSql(bound, { dialect: 'sqlite' });
    expect(sql.params).toHaveLength(20_000);
    const mongo = toMongo(bound);
    expect(
      mongo.kind === 'find' &&
        new Query(mongo.filter)
          .find(rows.map((r) => ({ _id: r.id, name: r.name })))
          .all()
          .map((d) => (d as { _id: number })._id),
    ).toEqual(expected);
  });

  it('a short chain keeps its left-deep shape', () => {
    const bound = bindQuery('$filter=id eq 1 and id eq 2 and id eq 3', settings);
    expect(bound.filter).toMatchObject({ operator: 'and', left: { operator: 'and' }, right: { operator: 'eq' } });
  });

  it('a type error deep in a long chain is reported at its clause, as for a short one', () => {
    const text = `${chain(3_000, 'and')} and name and id eq 1`;
    try {
      bindQuery(`$filter=${text}`, settings);
      throw new Error('no error');
    } catch (error) {
      expect(error).toBeInstanceOf(ODataError);
      expect((error as ODataError).code).toBe('type_mismatch');
    }
  });

  it.each([
    ['5 000 nots', `${'not '.repeat(5_000)}true`],
    ['5 000 adds', `${Array(5_000).fill('id').join(' add ')} gt 1`],
    ['5 000 negations', `${'-'.repeat(5_000)}id gt 1`],
  ])('%s: too_deep, not a stack overflow', (_label, text) => {
    expect(() => bindQuery(`$filter=${encodeURIComponent(text)}`, settings)).toThrow(expect.objectContaining({ code: 'too_deep' }));
    expect(validateQuery(`$filter=${encodeURIComponent(text)}`, settings).map((d) => d.code)).toEqual(['too_deep']);
    expect(MAX_BIND_DEPTH).toBe(1000);
  });

  it('validateQuery finds both unknown properties of a 20 000-clause chain', () => {
    const text = chain(20_000).replace('id eq 0 ', 'nme eq 0 ').replace('id eq 59997', 'nam eq 59997');
    expect(validateQuery(`$filter=${text}`, settings).map((d) => d.code)).toEqual(['unknown_property', 'unknown_property']);
  });

  it('a nested and/or tree compiles each node once in memory (it compiled both operands twice: 2^depth)', () => {
    // ((((id eq 0 or id eq 1) and id eq 2) or id eq 3) and …): depth 18 took 7 s, depth 22 ran out of memory.
    const nested = (d: number): string => {
      let text = 'id eq 0';
      for (let i = 1; i <= d; i++) text = `(${text} ${i % 2 === 0 ? 'and' : 'or'} id eq ${i})`;
      return text;
    };
    const deep = { ...settings, parse: { ...settings.parse, maxDepth: 2_000 } };
    const calls = vi.spyOn(ReferenceCompiler.prototype, 'compile');
    try {
      for (const d of [60, 400]) {
        calls.mockClear();
        const bound = bindQuery(`$filter=${nested(d)}`, deep);
        const query = compileQuery(bound);
        // 2d + 1 comparisons and d junctions: each compiled once
        expect(calls.mock.calls.length).toBeLessThanOrEqual(2 * d + 1 + d);
        // the same rows as the formula evaluated directly
        const expected = rows.filter((r) => {
          let value = r.id === 0;
          for (let i = 1; i <= d; i++) value = i % 2 === 0 ? value && r.id === i : value || r.id === i;
          return value;
        });
        expect(query.apply(rows).value.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      }
    } finally {
      calls.mockRestore();
    }
  });
});
