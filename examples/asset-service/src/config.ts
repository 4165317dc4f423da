/**
 * Configuration from the environment. Demo credentials that are not given are generated once and
 * kept in `<DATA_DIR>/demo-credentials.json`, so a restart prints (and accepts) the same ones.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Everything the server needs to start. */
export interface Config {
  /** TCP port (0: any free port). */
  readonly port: number;
  /** Interface to listen on. */
  readonly host: string;
  /** Where PGlite keeps its files and where generated demo credentials are stored. */
  readonly dataDir: string;
  /** `postgres://…` to use a real PostgreSQL server instead of the embedded one. */
  readonly databaseUrl?: string;
  /** PostgreSQL schema holding the service's tables (created if missing). */
  readonly databaseSchema: string;
  /** The demo tenant and its two clients. */
  readonly demo: DemoCredentials;
  /** Key for signing access tokens (HMAC-SHA256). */
  readonly tokenSigningKey: string;
  /** Access token lifetime in seconds. */
  readonly tokenTtlSeconds: number;
  /** How long a tenant grant read from the database is believed (0: every request asks). */
  readonly tenantAccessCacheSeconds: number;
  /** Whether to seed demo records into an empty demo tenant. */
  readonly seed: boolean;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number;
  /** pino log level (`info`, `warn`, `silent`, …). */
  readonly logLevel: string;
  /** Longest time one SQL statement may run, in ms (`STATEMENT_TIMEOUT_MS`, default 5000); then 503. */
  readonly statementTimeoutMs: number;
  /**
   * PGlite: a statement running this long (ms) while a light client waits is cancelled (503), and a
   * client whose statements run this long is heavy: it runs while the others leave the database
   * free (`PGLITE_PREEMPT_MS`, default 250, 0: off).
   */
  readonly pglitePreemptMs: number;
  /** PGlite: its memory (which never shrinks) past this many MiB restarts its worker after the statement (`PGLITE_MAX_HEAP_MIB`, default 320, 0: never). */
  readonly pgliteMaxHeapMiB: number;
  /** Requests of one client running at a time (`MAX_REQUESTS_PER_CLIENT`, default 4). */
  readonly maxRequestsPerClient: number;
  /** Requests of one client waiting beyond those (`MAX_QUEUED_PER_CLIENT`, default 64); then 429. */
  readonly maxQueuedPerClient: number;
  /** Requests admitted (running and waiting) across all clients (`MAX_REQUESTS_TOTAL`, default 256); then 503. */
  readonly maxRequestsTotal: number;
  /** Longest wait of a request behind its client's others, in ms (`MAX_QUEUE_WAIT_MS`, default 10000); then 429. */
  readonly maxQueueWaitMs: number;
  /** HTTP limits: how long and how much a client may take (see the README, "Security: what is bounded by default"). */
  readonly http: HttpLimits;
  /** Token checks and the token endpoint's throttling of failed attempts. */
  readonly tokens: TokenLimits;
}

/** How long a client may take to send a request, how big its headers may be, how many connections there may be. */
export interface HttpLimits {
  /** Time to receive a request's headers, from its first byte (or the connection's start), in ms (`HEADERS_TIMEOUT_MS`). */
  readonly headersTimeoutMs: number;
  /** Time to receive a whole request, headers and body, in ms (`REQUEST_TIMEOUT_MS`). */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open after a response, in ms (`KEEP_ALIVE_TIMEOUT_MS`). */
  readonly keepAliveTimeoutMs: number;
  /** A connection on which nothing moves for this long (in ms) is closed (`CONNECTION_TIMEOUT_MS`). */
  readonly connectionTimeoutMs: number;
  /** Largest request line plus headers, in bytes (`MAX_HEADER_SIZE`; larger: 431). */
  readonly maxHeaderSize: number;
  /**
   * Open connections at most (`MAX_CONNECTIONS`): beyond it, the connection that has waited longest
   * without a request in progress is closed to make room (see connections.ts).
   */
  readonly maxConnections: number;
  /** Open connections from one client address (IPv6: one /64) at most; further ones are closed at once (`MAX_CONNECTIONS_PER_ADDRESS`, at most `MAX_CONNECTIONS`). */
  readonly maxConnectionsPerAddress: number;
}

/** Access token checks and the throttling of failed client authentications. */
export interface TokenLimits {
  /** Tokens whose `exp - iat` is longer are refused (`TOKEN_MAX_LIFETIME_SECONDS`, default the TTL). */
  readonly maxLifetimeSeconds: number;
  /** Tokens issued (`iat`) further in the future than this are refused (`TOKEN_CLOCK_SKEW_SECONDS`). */
  readonly clockSkewSeconds: number;
  /** Failed token requests per client id in the window before 429 `slow_down` (`TOKEN_FAILURES_PER_CLIENT`). */
  readonly failuresPerClient: number;
  /** Failed token requests per client address in the window before 429 `slow_down` (`TOKEN_FAILURES_PER_ADDRESS`). */
  readonly failuresPerAddress: number;
  /** The sliding window of the two counts above, in seconds (`TOKEN_FAILURE_WINDOW_SECONDS`). */
  readonly failureWindowSeconds: number;
}

/** The demo tenant and clients, from the environment or generated. */
export interface DemoCredentials {
  readonly tenantId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly readOnlyClientId: string;
  readonly readOnlyClientSecret: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function secret(): string {
  return randomBytes(24).toString('base64url');
}

function readJson(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

/**
 * Creates the data directory owner-only (0700), and makes an existing one owned by this user
 * owner-only too: it holds the database files, the demo secrets and the token signing key.
 */
function ownerOnlyDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  if ((stat.mode & 0o077) !== 0 && (process.getuid === undefined || stat.uid === process.getuid())) chmodSync(dir, 0o700);
}

/**
 * Takes group and other permissions off everything under `dir` (owned by this user): PGlite
 * unpacks its initial database files world-writable, whatever the umask, and older data
 * directories were created that way too.
 */
export function ownerOnlyTree(dir: string): void {
  ownerOnlyDirectory(dir);
  const uid = process.getuid?.();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isSymbolicLink()) continue;
    const path = join(entry.parentPath, entry.name);
    const stat = statSync(path);
    if ((stat.mode & 0o077) !== 0 && (uid === undefined || stat.uid === uid)) chmodSync(path, stat.mode & 0o700);
  }
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got '${text}'`);
  return value;
}

/**
 * Reads the configuration from environment variables (see the example's README for the list).
 * Generated values (demo credentials, the token signing key) are persisted in the data directory.
 *
 * @param env the environment (default `process.env`)
 * @throws Error for a malformed value, such as a `DEMO_TENANT_ID` that is not a UUID
 */
export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(env.DATA_DIR ?? join(process.cwd(), '.data', 'asset-service'));
  ownerOnlyDirectory(dataDir);
  const file = join(dataDir, 'demo-credentials.json');
  const stored = readJson(file);
  const pick = (name: string, key: string, generate: () => string): string => {
    const fromEnv = env[name];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    const fromFile = stored[key];
    return typeof fromFile === 'string' && fromFile !== '' ? fromFile : generate();
  };
  const demo: DemoCredentials = {
    tenantId: pick('DEMO_TENANT_ID', 'tenantId', randomUUID).toLowerCase(),
    clientId: pick('DEMO_CLIENT_ID', 'clientId', () => 'demo-client'),
    clientSecret: pick('DEMO_CLIENT_SECRET', 'clientSecret', secret),
    readOnlyClientId: pick('DEMO_READONLY_CLIENT_ID', 'readOnlyClientId', () => 'demo-readonly-client'),
    readOnlyClientSecret: pick('DEMO_READONLY_CLIENT_SECRET', 'readOnlyClientSecret', secret),
  };
  if (!UUID.test(demo.tenantId)) throw new Error(`DEMO_TENANT_ID must be a UUID, got '${demo.tenantId}'`);
  if (demo.clientId === demo.readOnlyClientId) throw new Error('DEMO_CLIENT_ID and DEMO_READONLY_CLIENT_ID must differ');
  const tokenSigningKey = pick('TOKEN_SIGNING_KEY', 'tokenSigningKey', () => randomBytes(32).toString('base64url'));
  // Only values that were generated or are already stored go to the file: secrets given in the
  // environment stay out of it. Old stored values are kept, so unsetting a variable restores them.
  const toStore: Record<string, string> = {};
  for (const [key, value] of Object.entries(stored)) if (typeof value === 'string') toStore[key] = value;
  const envNames: Record<string, string> = {
    tenantId: 'DEMO_TENANT_ID',
    clientId: 'DEMO_CLIENT_ID',
    clientSecret: 'DEMO_CLIENT_SECRET',
    readOnlyClientId: 'DEMO_READONLY_CLIENT_ID',
    readOnlyClientSecret: 'DEMO_READONLY_CLIENT_SECRET',
    tokenSigningKey: 'TOKEN_SIGNING_KEY',
  };
  const values: Record<string, string> = { ...demo, tokenSigningKey };
  let changed = false;
  for (const [key, name] of Object.entries(envNames)) {
    const fromEnv = env[name];
    if ((fromEnv === undefined || fromEnv === '') && toStore[key] !== values[key]) {
      toStore[key] = values[key] as string;
      changed = true;
    }
  }
  if (changed) {
    writeFileSync(file, `${JSON.stringify(toStore, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  const databaseUrl = env.DATABASE_URL === undefined || env.DATABASE_URL === '' ? undefined : env.DATABASE_URL;
  const databaseSchema = env.DATABASE_SCHEMA ?? 'asset_service';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) throw new Error(`DATABASE_SCHEMA must be a lowercase SQL identifier, got '${databaseSchema}'`);
  const tokenTtlSeconds = integer(env, 'TOKEN_TTL_SECONDS', 3600, 1, 86_400);
  const maxConnections = integer(env, 'MAX_CONNECTIONS', 1000, 1, 1_000_000);
  const http: HttpLimits = {
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    connectionTimeoutMs: integer(env, 'CONNECTION_TIMEOUT_MS', 60_000, 100, 3_600_000),
    maxHeaderSize: integer(env, 'MAX_HEADER_SIZE', 16 * 1024, 1024, 1024 * 1024),
    maxConnections,
    maxConnectionsPerAddress: integer(env, 'MAX_CONNECTIONS_PER_ADDRESS', Math.min(100, maxConnections), 1, maxConnections),
  };
  if (http.headersTimeoutMs > http.requestTimeoutMs)
    throw new Error(`HEADERS_TIMEOUT_MS (${http.headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${http.requestTimeoutMs})`);
  const tokens: TokenLimits = {
    maxLifetimeSeconds: integer(env, 'TOKEN_MAX_LIFETIME_SECONDS', tokenTtlSeconds, 1, 7 * 86_400),
    clockSkewSeconds: integer(env, 'TOKEN_CLOCK_SKEW_SECONDS', 60, 0, 3600),
    failuresPerClient: integer(env, 'TOKEN_FAILURES_PER_CLIENT', 10, 1, 1_000_000),
    failuresPerAddress: integer(env, 'TOKEN_FAILURES_PER_ADDRESS', 30, 1, 1_000_000),
    failureWindowSeconds: integer(env, 'TOKEN_FAILURE_WINDOW_SECONDS', 60, 1, 86_400),
  };
  if (tokens.maxLifetimeSeconds < tokenTtlSeconds)
    throw new Error(`TOKEN_MAX_LIFETIME_SECONDS (${tokens.maxLifetimeSeconds}) must be at least TOKEN_TTL_SECONDS (${tokenTtlSeconds})`);
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST ?? '127.0.0.1',
    dataDir,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    databaseSchema,
    demo,
    tokenSigningKey,
    tokenTtlSeconds,
    tenantAccessCacheSeconds: integer(env, 'TENANT_ACCESS_CACHE_SECONDS', 5, 0, 3600),
    seed: env.SEED !== 'false',
    bodyLimit: integer(env, 'BODY_LIMIT', 64 * 1024, 1024, 10 * 1024 * 1024),
    logLevel: env.LOG_LEVEL ?? 'info',
    http,
    tokens,
    statementTimeoutMs: integer(env, 'STATEMENT_TIMEOUT_MS', 5000, 10, 600_000),
    pglitePreemptMs: integer(env, 'PGLITE_PREEMPT_MS', 250, 0, 600_000),
    pgliteMaxHeapMiB: integer(env, 'PGLITE_MAX_HEAP_MIB', 320, 0, 64 * 1024),
    maxRequestsPerClient: integer(env, 'MAX_REQUESTS_PER_CLIENT', 4, 1, 10_000),
    maxQueuedPerClient: integer(env, 'MAX_QUEUED_PER_CLIENT', 64, 0, 100_000),
    maxRequestsTotal: integer(env, 'MAX_REQUESTS_TOTAL', 256, 1, 1_000_000),
    maxQueueWaitMs: integer(env, 'MAX_QUEUE_WAIT_MS', 10_000, 10, 600_000),
  };
}
