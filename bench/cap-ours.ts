/**
 * The odata-engine side of bench/cap.ts in a process of its own: `createODataHandler` over
 * `memorySource` with the bench's rows, served by Node's `http` through `toNodeListener`.
 * Prints `listening <port>` once it listens.
 */
import { createServer } from 'node:http';
import { createODataHandler, memorySource, toNodeListener } from '../src/server/index.js';
import { capRows, shopModel } from './cap-shared.js';

const handler = createODataHandler({ model: shopModel, source: memorySource({ Products: capRows() }), basePath: '/odata' });
const server = createServer(toNodeListener(handler));
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
