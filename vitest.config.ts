import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that measure time or the process's memory (latency under a flood, connection timeouts,
 * statement limits, worker restarts, growth ratios): they run last, one at a time, with nothing
 * else of the suite beside them. Their bounds are behaviour (no lockout, nothing waits forever),
 * with margins for a loaded machine; speed itself is measured in bench/.
 */
const SERIAL = [
  'test/examples/asset-service/connections.test.ts',
  'test/examples/asset-service/fairness.test.ts',
  'test/examples/asset-service/db-limits.test.ts',
  'test/examples/asset-service/http-edges.test.ts',
  'test/examples/asset-service/pglite-worker.test.ts',
  'test/examples/asset-service/pg-connection-loss.test.ts',
  'test/model/csdl-growth.test.ts',
  'test/backends/match-pattern.test.ts',
];

/**
 * The longest files of the parallel project (tens of seconds each on 2 cores), started first so
 * that none of them is left running alone at the end. Vitest orders files by their last duration
 * when it has a results cache, and by size without one (CI, after `npm ci`): README examples and
 * the package build are small files that then started last. Files not listed keep vitest's order.
 */
const LONG_FIRST = [
  'test/backends/apply-hierarchy-engines.test.ts',
  'test/package/portability.test.ts',
  'test/backends/sql/sql-engines.test.ts',
  'test/fuzz/differential.test.ts',
  'test/package/readme.test.ts',
  'test/syntax/robustness.test.ts',
  'test/conformance/published-models.test.ts',
  'test/examples/asset-service/lists.test.ts',
  'test/cache/shape-cache.test.ts',
  'test/examples/asset-service/demo.test.ts',
  'test/fuzz/apply-differential.test.ts',
  'test/examples/asset-service/pglite.test.ts',
  'test/examples/asset-service/pglite-kill.test.ts',
];
const root = fileURLToPath(new URL('.', import.meta.url));

class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
      const index = LONG_FIRST.indexOf(relative(root, spec.moduleId).replaceAll('\\', '/'));
      return index < 0 ? LONG_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the rest stay in vitest's order (projects' groupOrder first).
    return (await super.sort(files)).sort((a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b));
  }
}

export default defineConfig({
  resolve: {
    // The example server imports the library by its package name; map it to the source.
    alias: [
      { find: /^odata-engine$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
      { find: /^odata-engine\/core$/, replacement: fileURLToPath(new URL('./src/core.ts', import.meta.url)) },
      { find: /^odata-engine\/filter$/, replacement: fileURLToPath(new URL('./src/filter.ts', import.meta.url)) },
      { find: /^odata-engine\/(memory|sql|mongo)$/, replacement: fileURLToPath(new URL('./src/backends/$1/index.ts', import.meta.url)) },
      { find: /^odata-engine\/testing$/, replacement: fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)) },
      // Chevrotain's package entry imports the lodash-es barrel (about 640 modules): most of a second
      // per test file, every file importing the parser anew. Its own single-file ES module build of
      // the same version (lib/chevrotain.mjs, in its package) imports in tens of ms. (The package
      // build bundles Chevrotain in for the same reason: tsup.config.ts.)
      { find: /^chevrotain$/, replacement: fileURLToPath(new URL('./node_modules/chevrotain/lib/chevrotain.mjs', import.meta.url)) },
    ],
  },
  test: {
    testTimeout: 60_000,
    // Opening an in-process engine (PGlite compiles its WebAssembly) can take seconds on a loaded 2-core machine.
    hookTimeout: 60_000,
    pool: 'threads',
    setupFiles: ['test/setup/fast-check-seed.ts'],
    sequence: { sequencer: LongFirstSequencer },
    // The empty PGlite cluster the fixtures start from (no initdb per database).
    globalSetup: ['test/setup/pglite-data-dir.ts'],
    projects: [
      {
        extends: true,
        // Many files wait on servers, child processes and the live databases: two workers on two
        // cores (vitest would take one, a core less than the machine has).
        // Concurrent tests (only the README examples', each a Node process of its own) run three at a time.
        test: {
          name: 'parallel',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SERIAL],
          maxWorkers: 2,
          maxConcurrency: 3,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'serial', include: SERIAL, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
