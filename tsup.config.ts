import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'es2022',
    platform: 'neutral',
    external: ['chevrotain', 'fast-check'],
  },
  {
    // One self-contained, minified ESM file for browsers (Chevrotain bundled in).
    entry: { 'browser/odata-engine': 'src/browser.ts' },
    format: ['esm'],
    dts: true,
    minify: true,
    target: 'es2022',
    platform: 'browser',
    // saxes (the CSDL XML reader's parser) is bundled in too.
    noExternal: ['chevrotain', 'saxes'],
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    external: ['chevrotain'],
  },
]);
