/**
 * `sqlTemplate`: every statement and piece of `toSql`, split at its placeholders, is rebuilt
 * exactly by a tag that numbers placeholders as the dialect does (twelve and more parameters, so
 * that `$1` is never taken for the start of `$12`), and runs composed in other SQL on PGlite.
 */
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { bindQuery, defineModel, DIALECTS, ODataError, sqlTemplate, toSql, type DialectName } from '../../../src/index.js';
import { pgliteDataDir } from '../../fixtures/pglite-data-dir.js';

const model = defineModel({
  namespace: 'Tpl',
  entityTypes: { Product: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double' } } },
  entitySets: { template_products: { type: 'Product' } },
});
const ids = Array.from({ length: 12 }, (_, i) => `id eq ${i + 1}`).join(' or ');
const bound = bindQuery(`$filter=(${ids}) and name ne 'x?$1' and price ge 2&$orderby=price desc&$top=5&$skip=1&$count=true`, {
  model,
  entitySet: 'template_products',
});

/** A tagged template that writes the dialect's placeholders again, numbered from `first`. */
const rebuild =
  (dialect: DialectName, first = 1) =>
  (strings: TemplateStringsArray, ...values: unknown[]) => ({
    sql: strings.reduce((text, part, i) => text + (i === 0 ? '' : DIALECTS[dialect].placeholder(first + i - 1)) + part, ''),
    params: values,
  });

describe('sqlTemplate', () => {
  for (const dialect of Object.keys(DIALECTS) as DialectName[]) {
    it(`splits every statement and piece on ${dialect}`, () => {
      const compiled = toSql(bound, { dialect });
      const statements = [compiled, compiled.count, compiled.where, compiled.orderBy, compiled.select];
      expect(compiled.params.length).toBeGreaterThanOrEqual(14);
      for (const statement of statements) {
        if (statement === undefined) throw new Error('a piece is missing');
        const [strings, ...values] = sqlTemplate(statement, dialect);
        expect(strings.length).toBe(values.length + 1);
        expect(rebuild(dialect)(strings, ...values)).toEqual({ sql: statement.sql, params: statement.params });
      }
    });
  }

  it('refuses text that does not hold its placeholders', () => {
    expect(() => sqlTemplate({ sql: 'a = $2', params: [1] }, 'postgres')).toThrow(ODataError);
  });

  it('composes the where and order pieces into other SQL that runs (PGlite)', async () => {
    const db = new PGlite(pgliteDataDir());
    try {
      await db.exec(`CREATE TABLE template_products (id integer PRIMARY KEY, name text, price double precision, shop integer);
        INSERT INTO template_products SELECT i, 'p' || i, i, i % 2 FROM generate_series(1, 20) i`);
      const compiled = toSql(bound, { dialect: 'postgres' });
      // Our own condition holds $1: the pieces' placeholders are numbered after it.
      const where = rebuild('postgres', 2)(...sqlTemplate(compiled.where!, 'postgres'));
      const order = rebuild('postgres', 2 + where.params.length)(...sqlTemplate(compiled.orderBy!, 'postgres'));
      const text = `SELECT t0.id FROM template_products t0 WHERE t0.shop = $1 AND (${where.sql}) ORDER BY ${order.sql}`;
      const { rows } = await db.query<{ id: number }>(text, [0, ...where.params, ...order.params]);
      expect(rows.map((r) => r.id)).toEqual([12, 10, 8, 6, 4, 2]);
    } finally {
      await db.close();
    }
  });
});
