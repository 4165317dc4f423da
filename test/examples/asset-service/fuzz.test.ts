/**
 * The fuzzing recipe against the example service (PGlite): every collection and navigation list, valid queries → 200
 * with a list, near-miss invalid ones → 400 with the expected OData error code, never 5xx or a hang.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { diffAssetServicePaging, fuzzAssetService } from '../../../examples/fuzz/fuzz-asset-service.js';
import { startHarness, type Harness } from './harness.js';

describe('fuzzing the example service over HTTP', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('every collection and navigation list: 60 valid and 60 invalid queries each', async () => {
    const { config } = harness;
    await fuzzAssetService({ url: harness.url, clientId: config.demo.clientId, clientSecret: config.demo.clientSecret, tenant: config.demo.tenantId }, 60);
  }, 120_000);

  it('server-driven paging: every collection answers 60 random queries alike in one page and in pages of 2', async () => {
    const { config } = harness;
    await diffAssetServicePaging(
      { url: harness.url, clientId: config.demo.clientId, clientSecret: config.demo.clientSecret, tenant: config.demo.tenantId },
      60,
    );
  }, 120_000);
});
