import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The root (everything), the core without a backend, `$filter` alone, one entry per backend, and the testing kit.
    // No source maps: they doubled the tarball and pointed at sources the package does not ship.
    entry: {
      index: 'src/index.ts',
      core: 'src/core.ts',
      filter: 'src/filter.ts',
      memory: 'src/backends/memory/index.ts',
      sql: 'src/backends/sql/index.ts',
      mongo: 'src/backends/mongo/index.ts',
      server: 'src/server/index.ts',
      'testing/index': 'src/testing/index.ts',
    },
    format: ['esm', 'cjs'],
    // CommonJS entries share chunks too, so that `ODataError` (and every class) is one class
    // whichever entries a program requires.
    splitting: true,
    dts: true,
    target: 'es2022',
    platform: 'neutral',
    // Chevrotain is bundled in (one chunk): its package entry imports the lodash-es barrel, about
    // 640 modules, which made importing the package take a quarter of a second; and the CommonJS
    // build then needs no ES module from require(), which Node allows only from 20.19 on. saxes
    // (small, CommonJS) too, so that no module of it goes through Node's CommonJS lexer at import.
    noExternal: ['chevrotain', 'saxes'],
    external: ['fast-check'],
    // Whitespace and comments are dropped (and, for ES modules, syntax shortened): Node compiles a
    // third less text at import. Names are kept, so stack traces stay readable; CommonJS output is
    // not syntax-minified because tsup's CommonJS rewrite of shared chunks breaks on it.
    esbuildOptions(options, { format }) {
      options.minifyWhitespace = true;
      options.minifySyntax = format === 'esm';
    },
  },
  {
    // One self-contained, minified ESM file for browsers: its dependencies (Chevrotain, and saxes
    // for CSDL XML) are bundled in.
    entry: { 'browser/odata-engine': 'src/browser.ts' },
    format: ['esm'],
    dts: true,
    minify: true,
    target: 'es2022',
    platform: 'browser',
    noExternal: ['chevrotain', 'saxes'],
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    // The command line loads the package's own root module (and, for `fuzz`, its testing kit)
    // instead of a second copy of it (and would bundle, never import, the bundled dependencies).
    external: ['./index.js', './testing/index.js'],
    noExternal: ['chevrotain', 'saxes'],
  },
]);
