/** `odataFastifyPlugin`: a handler as a Fastify plugin serving every path under its prefix. */
import type { ODataHandler } from '../handler.js';
import { requestFromNode, type NodeRequestLike } from './node.js';

/** The part of a Fastify instance the plugin uses. */
export interface FastifyLike {
  route(options: { method: string[]; url: string; handler: (request: { raw: NodeRequestLike }, reply: FastifyReplyLike) => Promise<unknown> }): unknown;
}

/** The part of a Fastify reply the plugin uses. */
export interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(body?: unknown): unknown;
}

/**
 * A Fastify plugin: register it with a prefix (`app.register(odataFastifyPlugin(handler), { prefix: '/odata' })`;
 * the handler's `basePath` is that prefix). HEAD is Fastify's own route for GET; writes reach the handler, which answers 405.
 *
 * @example
 * ```ts
 * const app = Fastify();
 * await app.register(odataFastifyPlugin(createODataHandler({ model, source, basePath: '/odata' })), { prefix: '/odata' });
 * ```
 */
export function odataFastifyPlugin(handler: ODataHandler): (instance: unknown) => Promise<void> {
  // Typed structurally (FastifyLike): Fastify's own route types are generic beyond matching.
  return async (unknownInstance) => {
    const instance = unknownInstance as FastifyLike;
    const serve = async (request: { raw: NodeRequestLike }, reply: FastifyReplyLike): Promise<unknown> => {
      const response = await handler(requestFromNode(request.raw));
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      // Bytes, not text: Fastify rewrites the Content-Type of a text payload (adds a charset).
      const body = response.body === null ? undefined : new Uint8Array(await response.arrayBuffer());
      return reply.code(response.status).headers(headers).send(body);
    };
    for (const url of ['/', '/*']) instance.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url, handler: serve });
  };
}
