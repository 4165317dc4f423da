/**
 * The service's words for a data exception the database raises (SQLSTATE class 22): a 400 that
 * names no PostgreSQL text. The library no longer sends a query the binder accepts that PostgreSQL
 * refuses (the fuzzing campaigns count such database errors as findings), so the errors here come
 * from plain SQL on a real PGlite.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientDataError } from '../../../examples/asset-service/src/errors.js';
import { pgliteDataDir } from '../../fixtures/pglite-data-dir.js';

describe('clientDataError on real PostgreSQL errors', () => {
  let db: PGlite;
  beforeAll(async () => {
    db = new PGlite(pgliteDataDir());
  });
  afterAll(async () => {
    await db.close();
  });
  const refusal = async (sql: string): Promise<unknown> =>
    db.query(sql).then(
      () => undefined,
      (error: unknown) => error,
    );

  it.each([
    ['SELECT 2147483647::integer + 1', 'A value in the request, or computed from it, is out of range.'],
    ['SELECT 1 / 0', 'The request divides by zero.'],
    ["SELECT 'x'::integer", 'A value in the request cannot be evaluated.'],
  ])('%s is a 400 in our words', async (sql, message) => {
    const error = await refusal(sql);
    expect(error).toBeInstanceOf(Error);
    const mapped = clientDataError(error);
    expect(mapped?.message).toBe(message);
    expect(mapped?.message).not.toMatch(/integer|numeric|ERROR/);
  });

  it("an error of another class is not the client's", async () => {
    expect(clientDataError(await refusal('SELECT * FROM no_such_table'))).toBeUndefined();
  });
});
