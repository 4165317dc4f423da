/**
 * The deepest nesting of each form the default limits bind runs on PGlite (issue 26, the review
 * before landing): a value a guard reads twice is a derived table (`withValues`), fenced with
 * `OFFSET 0` so that PostgreSQL does not pull it up and put the expression back in every place
 * that reads it. Without the fence, 11 nested Double cases (a 7 KB statement) and 6 nested Double
 * multiplications ran PGlite out of memory while planning.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, createTableSql, toSql } from '../../../src/index.js';
import { NESTING_FORMS, nestedFilter, nestingModel } from '../../fixtures/nesting-forms.js';
import { pglite } from '../../fixtures/sql-engines.js';

describe('the deepest nesting the default limits allow plans and runs on PGlite', () => {
  it('every nesting form', async () => {
    const engine = await pglite();
    try {
      await engine.exec(createTableSql(nestingModel.entitySets.get('ts')!, 'postgres'));
      for (const form of Object.keys(NESTING_FORMS)) {
        let deepest: ReturnType<typeof bindQuery> | undefined;
        for (let depth = 1; depth <= 48; depth++) {
          try {
            deepest = bindQuery(nestedFilter(form, depth), { model: nestingModel, entitySet: 'ts' });
          } catch {
            break;
          }
        }
        expect(deepest, form).toBeDefined();
        const { sql, params } = toSql(deepest!, { dialect: 'postgres' });
        await expect(engine.query(sql, params), form).resolves.toEqual([]);
      }
    } finally {
      await engine.close();
    }
  }, 120_000);
});
