/**
 * One tree's side of bench/structure-compile.ts: binds the queries with that tree's `src/`, then
 * times `toSql` for every built-in dialect, `toMongo` and `compileQuery` over all of them.
 *
 *   node --import tsx bench/structure-compile-worker.ts <tree> <queries.json> [bundle|tsx]
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [tree = '', queriesFile = '', mode = 'bundle'] = process.argv.slice(2);

/**
 * The tree's engine and the fuzzing model, as `dist/` is built (esbuild, one bundle, no `keepNames`:
 * tsx would wrap every closure in a naming call) or, with mode `tsx`, through tsx.
 */
async function load(): Promise<typeof import('../src/index.js') & typeof import('../test/fixtures/fuzz-data.js')> {
  const entry = `export * from './src/index.ts';\nexport { fuzzModel, FUZZ_SET } from './test/fixtures/fuzz-data.ts';\n`;
  if (mode === 'tsx') {
    const [engine, data] = await Promise.all([
      import(pathToFileURL(join(tree, 'src/index.ts')).href),
      import(pathToFileURL(join(tree, 'test/fixtures/fuzz-data.ts')).href),
    ]);
    return { ...engine, ...data };
  }
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: tree, sourcefile: 'structure-entry.ts', loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}

const loaded = await load();
const engine = loaded;
const { fuzzModel, FUZZ_SET } = loaded;
const texts = JSON.parse(readFileSync(queriesFile, 'utf8')) as string[];

const bound = texts.flatMap((text) => {
  try {
    return [engine.bindQuery(text, { model: fuzzModel, entitySet: FUZZ_SET })];
  } catch {
    return [];
  }
});

type Compile = (query: (typeof bound)[number]) => unknown;
const compilers: Record<string, Compile> = {
  ...Object.fromEntries(
    Object.keys(engine.DIALECTS).map((dialect) => [`toSql ${dialect}`, (q: (typeof bound)[number]) => engine.toSql(q, { dialect: dialect as never })]),
  ),
  toMongo: (q) => engine.toMongo(q),
  'compileQuery (memory)': (q) => engine.compileQuery(q),
};

/** What a compile gave, as a short hash (bigints as text): the statement and its parameters, the pipeline, or the refusal's code. */
const digest = (compile: Compile, q: (typeof bound)[number]): string => {
  let given: string;
  try {
    const result = compile(q);
    given = typeof result === 'function' ? 'closure' : JSON.stringify(result, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
  } catch (error) {
    given = `error ${(error as { code?: string }).code ?? ''} ${(error as Error).message}`;
  }
  return createHash('sha1').update(given).digest('hex').slice(0, 12);
};

const out: Record<string, { nsPerQuery: number; compiled: number; refused: number; digests: string[] }> = {};
for (const [name, compile] of Object.entries(compilers)) {
  const ok = bound.filter((q) => {
    try {
      compile(q);
      return true;
    } catch {
      return false;
    }
  });
  const pass = (): number => {
    const start = process.hrtime.bigint();
    for (const q of ok) compile(q);
    return Number(process.hrtime.bigint() - start);
  };
  const warmUntil = performance.now() + 300;
  while (performance.now() < warmUntil) pass();
  const samples = Array.from({ length: 5 }, pass).sort((a, b) => a - b);
  out[name] = {
    nsPerQuery: samples[2]! / Math.max(1, ok.length),
    compiled: ok.length,
    refused: bound.length - ok.length,
    digests: bound.map((q) => digest(compile, q)),
  };
}
process.stdout.write(JSON.stringify({ targets: out }));
