/**
 * Generates the odata2ts client of test/server/clients.test.ts: `npx tsx test/server/generated/generate.ts`.
 *
 * 1. Serves TripPin with `createODataHandler` on a free port of 127.0.0.1 and reads its
 *    `$metadata` with `Accept: application/xml` into trippin-metadata.xml. (odata2ts 0.34's own
 *    download asks with axios's default `Accept: application/json, text/plain, *\/*`, which a 4.01
 *    service rightly answers with CSDL JSON, and it reads only CSDL XML: odata2ts 0.39.1 added the
 *    header. So the metadata is read here and handed to it as a file.)
 * 2. Runs the odata2ts CLI on that file (mode `service`, its default emit mode: JavaScript with
 *    declarations, compiled with tsconfig.odata2ts.json) into trippin/.
 *
 * The output is committed as generated, untouched: the `.js` files are outside the type check and
 * the formatter's globs, and the `.d.ts` files are covered by `skipLibCheck`. The test checks that
 * the committed metadata is still what the handler serves: run this script again when it is not.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { modelFromCsdlXml } from '../../../src/index.js';
import { createODataHandler, memorySource, toNodeListener } from '../../../src/server/index.js';
import { CORPUS_DIR } from '../../conformance/corpus.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const model = modelFromCsdlXml(readFileSync(resolve(CORPUS_DIR, 'metadata', 'trippin-v4-servicerw.xml'), 'utf8'));
const server = http.createServer(toNodeListener(createODataHandler({ model, source: memorySource({}), basePath: '/odata' })));
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
try {
  const { port } = server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/odata/$metadata`, { headers: { accept: 'application/xml' } });
  if (!response.ok) throw new Error(`$metadata: ${response.status}`);
  const metadata = resolve(here, 'trippin-metadata.xml');
  writeFileSync(metadata, await response.text());
  const output = resolve(here, 'trippin');
  rmSync(output, { recursive: true, force: true });
  const cli = resolve(root, 'node_modules/@odata2ts/odata2ts/lib/run-cli.js');
  execFileSync(process.execPath, [cli, '--source', metadata, '--output', output, '--mode', 'service', '--tsconfig', resolve(here, 'tsconfig.odata2ts.json')], {
    cwd: root,
    stdio: 'inherit',
  });
} finally {
  server.close();
}
