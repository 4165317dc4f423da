/**
 * odata-engine/server: a read-only OData service as a function from a web `Request` to a
 * `Response` (`createODataHandler`), over a source: rows in memory, any SQL database through a
 * `query(sql, params)` function, or MongoDB. Web standards only.
 *
 * @packageDocumentation
 */
export { createODataHandler, type ODataHandler, type ODataHandlerOptions } from './handler.js';
export type { ODataSource, SourceReadOptions, SourceResult } from './source.js';
export { memorySource } from './sources/memory.js';
export { sqlSource, type SqlSourceOptions } from './sources/sql.js';
export { serviceDocument } from './service-document.js';
export { mongoSource, type MongoDb, type MongoSourceOptions } from './sources/mongo.js';
export { toNodeListener, requestFromNode, writeToNode, type NodeRequestLike, type NodeResponseLike } from './adapters/node.js';
export { odataFastifyPlugin, type FastifyLike, type FastifyReplyLike } from './adapters/fastify.js';
