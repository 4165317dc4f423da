/** Vitest global setup: the PGlite cluster every test's PGlite starts from (test/fixtures/pglite-data-dir.ts). */
import { preparePgliteDataDir } from '../fixtures/pglite-data-dir.js';

export default async function setup(): Promise<void> {
  await preparePgliteDataDir();
}
