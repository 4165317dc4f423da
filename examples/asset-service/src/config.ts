/**
 * Configuration from the environment. Demo credentials that are not given are generated once and
 * kept in `<DATA_DIR>/demo-credentials.json`, so a restart prints (and accepts) the same ones.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  /** Whether to seed demo records into an empty demo tenant. */
  readonly seed: boolean;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number;
  /** pino log level (`info`, `warn`, `silent`, …). */
  readonly logLevel: string;
  /** Longest time one SQL statement may run, in ms (`STATEMENT_TIMEOUT_MS`, default 5000); then 503. */
  readonly statementTimeoutMs: number;
  /** PGlite: a statement running this long (ms) while other clients wait is cancelled (`PGLITE_PREEMPT_MS`, default 1000, 0: off); then 503. */
  readonly pglitePreemptMs: number;
  /** Requests of one client running at a time (`MAX_REQUESTS_PER_CLIENT`, default 4). */
  readonly maxRequestsPerClient: number;
  /** Requests of one client waiting beyond those (`MAX_QUEUED_PER_CLIENT`, default 64); then 429. */
  readonly maxQueuedPerClient: number;
  /** Requests admitted (running and waiting) across all clients (`MAX_REQUESTS_TOTAL`, default 256); then 503. */
  readonly maxRequestsTotal: number;
  /** Longest wait of a request behind its client's others, in ms (`MAX_QUEUE_WAIT_MS`, default 10000); then 429. */
  readonly maxQueueWaitMs: number;
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
  mkdirSync(dataDir, { recursive: true });
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
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST ?? '127.0.0.1',
    dataDir,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    databaseSchema,
    demo,
    tokenSigningKey,
    tokenTtlSeconds: integer(env, 'TOKEN_TTL_SECONDS', 3600, 1, 86_400),
    seed: env.SEED !== 'false',
    bodyLimit: integer(env, 'BODY_LIMIT', 64 * 1024, 1024, 10 * 1024 * 1024),
    logLevel: env.LOG_LEVEL ?? 'info',
    statementTimeoutMs: integer(env, 'STATEMENT_TIMEOUT_MS', 5000, 10, 600_000),
    pglitePreemptMs: integer(env, 'PGLITE_PREEMPT_MS', 1000, 0, 600_000),
    maxRequestsPerClient: integer(env, 'MAX_REQUESTS_PER_CLIENT', 4, 1, 10_000),
    maxQueuedPerClient: integer(env, 'MAX_QUEUED_PER_CLIENT', 64, 0, 100_000),
    maxRequestsTotal: integer(env, 'MAX_REQUESTS_TOTAL', 256, 1, 1_000_000),
    maxQueueWaitMs: integer(env, 'MAX_QUEUE_WAIT_MS', 10_000, 10, 600_000),
  };
}
