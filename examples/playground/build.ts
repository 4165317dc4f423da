/**
 * Builds the playground into one static HTML file (the script inlined), so it opens from disk
 * or from any static server: `npm run build:playground` writes `examples/playground/dist/index.html`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');

/** A server's model for the page: its CSDL JSON document and its `$top` limit per entity set. */
export interface PlaygroundModel {
  readonly csdl: unknown;
  readonly maxTop?: Readonly<Record<string, number>>;
}

/**
 * Builds the page and returns its HTML; writes it to `outDir/index.html` when given. With a
 * server's model, the page uses it instead of its built-in one.
 */
export async function buildPlayground(outDir?: string, server?: PlaygroundModel): Promise<string> {
  const result = await build({
    entryPoints: [join(here, 'src', 'main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
    // The library from source, through its public entry point.
    alias: { 'odata-engine': join(root, 'src', 'index.ts') },
  });
  const script = (result.outputFiles[0]?.text ?? '').replaceAll('</script', '<\\/script');
  // JSON inside <script>: `<` escaped, so no `</script>` or `<!--` can end it.
  const model = server === undefined ? '' : JSON.stringify(server).replaceAll('<', '\\u003c');
  const html = readFileSync(join(here, 'index.html'), 'utf8')
    .replace('/*CSDL*/', () => model)
    .replace('/*PLAYGROUND_SCRIPT*/', () => script);
  if (outDir !== undefined) {
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'index.html'), html);
  }
  return html;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = join(here, 'dist');
  const html = await buildPlayground(out);
  process.stdout.write(`playground: ${join(out, 'index.html')} (${(html.length / 1024).toFixed(0)} KB)\n`);
}
