/**
 * The Asset Management Service over HTTP, on the live PostgreSQL server of ODATA_TEST_POSTGRES_URL,
 * in a schema of its own (dropped afterwards). Skipped with a message when the variable is unset.
 */
import { describe, it } from 'vitest';
import { serviceSuite } from './suite.js';

const url = process.env.ODATA_TEST_POSTGRES_URL;
if (url === undefined || url === '') {
  describe('asset service on live PostgreSQL', () => {
    it.skip('skipped: set ODATA_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it', () => undefined);
  });
} else {
  serviceSuite('live PostgreSQL', url);
}
