/**
 * The handler behind Node's `http`, Express and Fastify, each on a real port, and Hono (its fetch): the same
 * request gives the same status, headers and body as calling the handler directly.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineModel } from '../../src/index.js';
import { createODataHandler, memorySource, odataFastifyPlugin, sqlSource, toNodeListener, type ODataHandler } from '../../src/server/index.js';

const model = defineModel({
  namespace: 'Shop',
  entityTypes: { Product: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Decimal' } } },
  entitySets: { Products: { type: 'Product' } },
});
const rows = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, name: `p${i + 1}`, price: `${i + 1}.50` }));
const handler: ODataHandler = createODataHandler({ model, source: memorySource({ Products: rows }), basePath: '/odata', maxPageSize: 5 });

const closers: (() => Promise<void>)[] = [];
const bases: Record<string, string> = {};
let honoFetch: (request: Request) => Response | Promise<Response> = () => new Response(null, { status: 500 });

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

beforeAll(async () => {
  const plain = http.createServer(toNodeListener(handler));
  bases.http = await listen(plain);
  closers.push(() => new Promise((resolve) => plain.close(() => resolve())));

  const app = express();
  app.use('/odata', toNodeListener(handler));
  const expressServer = http.createServer(app);
  bases.express = await listen(expressServer);
  closers.push(() => new Promise((resolve) => expressServer.close(() => resolve())));

  const fastify = Fastify();
  await fastify.register(odataFastifyPlugin(handler), { prefix: '/odata' });
  bases.fastify = await fastify.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => fastify.close());

  // Hono runs on web Requests: its route is the handler itself (served here through its fetch).
  const hono = new Hono();
  hono.all('/odata/*', (c) => handler(c.req.raw));
  hono.all('/odata', (c) => handler(c.req.raw));
  honoFetch = hono.fetch;
});
afterAll(async () => {
  for (const close of closers) await close();
});

const PATHS = [
  '/odata/',
  '/odata/Products?$count=true&$orderby=price desc',
  '/odata/Products(3)/name',
  '/odata/Products/$count',
  '/odata/Products(99)',
  '/odata/$metadata',
];

describe('adapters', () => {
  const send = (adapter: string, path: string, init?: RequestInit): Promise<Response> =>
    adapter === 'hono' ? Promise.resolve(honoFetch(new Request(`http://127.0.0.1${path}`, init))) : fetch(`${bases[adapter]}${path}`, init);
  for (const adapter of ['http', 'express', 'fastify', 'hono']) {
    it(`${adapter}: the handler's answers over a real socket`, async () => {
      for (const path of PATHS) {
        const direct = await handler(new Request(`http://127.0.0.1${path}`));
        const over = await send(adapter, path);
        const [directText, overText] = [await direct.text(), await over.text()];
        expect({
          path,
          status: over.status,
          type: over.headers.get('content-type'),
          body: overText.replaceAll(bases[adapter] ?? 'http://127.0.0.1', 'http://127.0.0.1'),
        }).toEqual({
          path,
          status: direct.status,
          type: direct.headers.get('content-type'),
          body: directText,
        });
      }
      const post = await send(adapter, '/odata/Products', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(post.status).toBe(405);
      const head = await send(adapter, '/odata/Products', { method: 'HEAD' });
      expect(head.status).toBe(200);
    });
  }
});

describe('a source that fails', () => {
  it('is a 503 with a body that tells nothing of the failure, reported to onError; a slow one times out', async () => {
    const errors: unknown[] = [];
    const failing = createODataHandler({
      model,
      source: sqlSource({ dialect: 'postgres', query: () => Promise.reject(new Error('connection to 10.0.0.7 lost')) }),
      onError: (error) => errors.push(error),
    });
    const response = await failing(new Request('http://localhost/Products'));
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(text).not.toContain('10.0.0.7');
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'service_unavailable' } });
    expect(errors).toHaveLength(1);
    const slow = createODataHandler({ model, source: sqlSource({ dialect: 'postgres', query: () => new Promise(() => {}) }), timeout: 50 });
    expect((await slow(new Request('http://localhost/Products'))).status).toBe(503);
  });
});
