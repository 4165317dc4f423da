/**
 * The HTTP server: Fastify with request logging, the auth hook, the token endpoint,
 * `/$metadata`, the four collections, and error handling. {@link startService} opens the
 * database, creates the schema, provisions the demo tenant and clients, and listens.
 */
import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { authenticate, authorizeTenant, issueToken, type TenantAccess } from './auth.js';
import { ownerOnlyTree, type Config } from './config.js';
import { openPglite, openPostgres, type Database } from './db.js';
import { AuthorizationError, envelope, handleError, OAuthError, UnavailableError, ValidationError } from './errors.js';
import { registerLimits } from './limits.js';
import { csdl, HOST_MAX_TOP, model, resources } from './model.js';
import { METADATA, metadataFormat } from './metadata.js';
import { rawQuery, registerCollection, type RouteAccess } from './routes.js';
import { SkipTokens } from './paging.js';
import { TenantAccessCache } from './tenant-access.js';
import { createSchema } from './schema.js';
import { conventionalUrl } from './url-conventions.js';
import { ensureClient, ensureTenant, seedDemoData } from './seed.js';
import { TokenThrottle } from './throttle.js';
import { clientErrorHandler, trackRequestLines } from './transport.js';
import { guardConnections, type ConnectionCounts } from './connections.js';

/** Options of {@link buildServer} beyond the configuration. */
export interface ServerOptions {
  /** Where log lines go (default stdout). */
  readonly logStream?: Writable;
  /** Called when the embedded database's worker was restarted (after a statement timeout). */
  readonly onDatabaseRestart?: (info: { readonly reason: string; readonly ms: number }) => void;
}

function routeAccess(request: FastifyRequest): RouteAccess | undefined {
  const config = request.routeOptions.config as Partial<RouteAccess> | undefined;
  return config?.tenant === undefined ? undefined : { tenant: config.tenant, write: config.write === true };
}

/** Logs (a warning, at most every 10 s) how many connections were refused or closed by the connection limits. */
function logConnectionPressure(app: FastifyInstance, counts: () => ConnectionCounts): void {
  let last = counts();
  const timer = setInterval(() => {
    const now = counts();
    const delta = {
      refusedPerAddress: now.refusedPerAddress - last.refusedPerAddress,
      refusedFull: now.refusedFull - last.refusedFull,
      evicted: now.evicted - last.evicted,
    };
    last = now;
    if (delta.refusedPerAddress + delta.refusedFull + delta.evicted > 0)
      app.log.warn({ ...delta, open: now.open }, 'connections refused or closed by the connection limits in the last 10 s');
  }, 10_000);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}

/**
 * Builds the Fastify app on an open, migrated database (it does not listen).
 */
export function buildServer(config: Config, db: Database, options: ServerOptions = {}): FastifyInstance {
  const app = Fastify({
    logger: { level: config.logLevel, ...(options.logStream === undefined ? {} : { stream: options.logStream }) },
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: config.bodyLimit,
    // No client may take forever (see config.ts): headers, whole request, idle keep-alive and
    // silent connections are timed out; Node checks the first two every connectionsCheckingInterval.
    http: {
      maxHeaderSize: config.http.maxHeaderSize,
      headersTimeout: config.http.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(config.http.headersTimeoutMs / 4))),
    },
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    connectionTimeout: config.http.connectionTimeoutMs,
    // Transport errors (408, 431, 400) and router errors in the service's formats, 503 while closing too.
    clientErrorHandler: clientErrorHandler(config.http.maxHeaderSize),
    frameworkErrors: async (error, request, reply) => {
      reply.header('trace-id', String(request.id));
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'A path segment is too long; ids are UUIDs.'
          : error.code === 'FST_ERR_BAD_URL'
            ? 'The path is not a valid URL (malformed percent-encoding).'
            : error.message;
      await handleError(error.code === 'FST_ERR_ASYNC_CONSTRAINT' ? error : new ValidationError(message), request, reply);
    },
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // OData URL conventions (entity set names, keys in parentheses) onto the service's paths.
    rewriteUrl: (request) => conventionalUrl(request.url ?? '/', resources),
  });
  // Not server.maxConnections: that drops new connections while idle ones hold every slot.
  const connections = guardConnections(app.server, {
    maxConnections: config.http.maxConnections,
    maxPerAddress: config.http.maxConnectionsPerAddress,
    idleTimeoutMs: config.http.keepAliveTimeoutMs,
  });
  logConnectionPressure(app, connections.counts);
  trackRequestLines(app.server);
  const throttle = new TokenThrottle(config.tokens);
  const tokenChecks = { clockSkewSeconds: config.tokens.clockSkewSeconds, maxLifetimeSeconds: config.tokens.maxLifetimeSeconds };

  // While closing, requests still arriving on open connections get a 503 with Retry-After.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    reply.header('trace-id', String(request.id));
    throw new UnavailableError();
  });

  const tenants = new WeakMap<FastifyRequest, TenantAccess>();
  const tenantOf = (request: FastifyRequest): string => {
    const access = tenants.get(request);
    if (access === undefined) throw new AuthorizationError('No tenant for this request.');
    return access.tenantId;
  };

  app.setErrorHandler(handleError);
  app.setNotFoundHandler(async (request, reply) => {
    await reply
      .code(404)
      .send(envelope('EntityNotFoundException', { Message: `No resource at '${request.method} ${request.url.split('?')[0] ?? ''}'.` }, String(request.id)));
  });

  // Concurrency limits per client and in total (429/503) on the tenant routes, before any database
  // work (the tenant check included). The client is the token's subject; an invalid token is left
  // to the authentication hook below (401).
  registerLimits(app, config, (request) => {
    if (routeAccess(request)?.tenant !== true) return undefined;
    try {
      return authenticate(request.headers.authorization, config.tokenSigningKey).sub;
    } catch {
      return undefined;
    }
  });

  // Grants of tenants to clients, believed for a few seconds (see tenant-access.ts).
  const tenantAccess = new TenantAccessCache(config.tenantAccessCacheSeconds * 1000);

  // Authentication (401) and tenant authorization (403) come before the body is read.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('trace-id', String(request.id));
    if (request.routeOptions.url === '/directory/connect/token' || request.routeOptions.url === '/playground') return;
    const claims = authenticate(request.headers.authorization, config.tokenSigningKey, tokenChecks);
    const access = routeAccess(request);
    if (access?.tenant === true) tenants.set(request, await authorizeTenant(db, claims, request.raw, access.write, tenantAccess));
  });

  // JSON bodies only (and forms for the token endpoint): other content types are a 415. A GET or
  // DELETE carries no body: a Content-Type sent without one (curl -H, fetch) is ignored.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'DELETE' && request.method !== 'GET' && request.method !== 'HEAD') return;
    const { headers } = request;
    if (headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0'))
      delete headers['content-type'];
  });
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (request.method === 'DELETE' && text.trim() === '') done(null, undefined);
    else json(request, text, done);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, new URLSearchParams(String(body)));
  });

  app.post('/directory/connect/token', async (request, reply) => {
    if (!(request.body instanceof URLSearchParams)) {
      throw new OAuthError('invalid_request', "The token request must be sent as 'application/x-www-form-urlencoded'.");
    }
    const token = await issueToken(db, request.body, request.headers.authorization, {
      signingKey: config.tokenSigningKey,
      ttlSeconds: config.tokenTtlSeconds,
      guard: throttle.guard(request.ip),
    });
    await reply.header('cache-control', 'no-store').send(token);
  });

  app.get('/$metadata', async (request, reply) => {
    const { contentType, body } = METADATA[metadataFormat(rawQuery(request.url), request.headers.accept)];
    await reply.header('odata-version', '4.01').header('vary', 'Accept').header('content-type', contentType).send(body);
  });

  // The playground: a static page (no data, no credentials) with this service's model embedded.
  let playground: Promise<string> | undefined;
  app.get('/playground', async (_request, reply) => {
    playground ??= import('../../playground/build.js').then(({ buildPlayground }) =>
      buildPlayground(undefined, { csdl, maxTop: Object.fromEntries(resources.map((r) => [r.entitySet, r.maxTop ?? HOST_MAX_TOP])) }),
    );
    await reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await playground);
  });

  const skipTokens = new SkipTokens(config.tokenSigningKey);
  for (const resource of resources) registerCollection(app, db, resource, tenantOf, skipTokens);
  return app;
}

/** A running service. */
export interface Service {
  readonly app: FastifyInstance;
  readonly db: Database;
  /** `http://host:port`. */
  readonly url: string;
  /** Stops accepting requests, lets running ones finish, and closes the database. */
  close(): Promise<void>;
}

/**
 * Opens the database (PGlite in `config.dataDir`, or `config.databaseUrl`), creates the schema,
 * provisions the demo tenant and clients, seeds demo data when the tenant is empty, and listens.
 */
export async function startService(config: Config, options: ServerOptions = {}): Promise<Service> {
  const dbOptions = {
    statementTimeoutMs: config.statementTimeoutMs,
    preemptMs: config.pglitePreemptMs,
    maxHeapMiB: config.pgliteMaxHeapMiB,
    onRestart: (info: { reason: string; ms: number }) => {
      logger?.warn({ reason: info.reason, restartMs: Math.round(info.ms) }, 'the embedded database was restarted');
      options.onDatabaseRestart?.(info);
    },
    // A lost PostgreSQL connection is discarded; the request that used it got a 503.
    onConnectionLost: (error: unknown) => {
      const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
      logger?.warn({ code, reason: message }, 'a database connection was lost or could not be made');
    },
  };
  let logger: FastifyInstance['log'] | undefined;
  const db =
    config.databaseUrl === undefined
      ? await openPglite(config.dataDir, config.databaseSchema, dbOptions)
      : await openPostgres(config.databaseUrl, config.databaseSchema, dbOptions);
  try {
    await createSchema(db, model, config.databaseSchema);
    const { demo } = config;
    await ensureTenant(db, demo.tenantId, 'Demo tenant');
    await ensureClient(db, { clientId: demo.clientId, secret: demo.clientSecret, name: 'Demo read-write client', canWrite: true, tenants: [demo.tenantId] });
    await ensureClient(db, {
      clientId: demo.readOnlyClientId,
      secret: demo.readOnlyClientSecret,
      name: 'Demo read-only client',
      canWrite: false,
      tenants: [demo.tenantId],
    });
    if (config.seed) await seedDemoData(db, demo.tenantId);
    // PGlite's files are the service user's only (it unpacks its initial files world-writable).
    if (config.databaseUrl === undefined) ownerOnlyTree(config.dataDir);
  } catch (error) {
    await db.close();
    throw error;
  }
  const app = buildServer(config, db, options);
  logger = app.log;
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await db.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  let closing: Promise<void> | undefined;
  return {
    app,
    db,
    url: `http://${host}:${port}`,
    close: () => {
      closing ??= (async () => {
        await app.close();
        await db.close();
      })();
      return closing;
    },
  };
}
