import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The example server imports the library by its package name; map it to the source.
    alias: [
      { find: /^odata-engine$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
      { find: /^odata-engine\/core$/, replacement: fileURLToPath(new URL('./src/core.ts', import.meta.url)) },
      { find: /^odata-engine\/(memory|sql|mongo)$/, replacement: fileURLToPath(new URL('./src/backends/$1/index.ts', import.meta.url)) },
      { find: /^odata-engine\/testing$/, replacement: fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // Opening an in-process engine (PGlite compiles its WebAssembly) can take seconds on a loaded 2-core machine.
    hookTimeout: 60_000,
    pool: 'threads',
    setupFiles: ['test/setup/fast-check-seed.ts'],
  },
});
