/**
 * Authentication and authorization:
 * - client secrets stored as scrypt hashes (node:crypto), compared in constant time;
 * - access tokens as HS256 JWTs signed and checked with node:crypto, with an expiry;
 * - the OAuth 2.0 client-credentials token endpoint's logic;
 * - the per-request checks: a valid bearer token (else 401), then exactly one valid
 *   `Service-Tenant-Id` header naming a tenant the client may use, and write permission for
 *   writes (else 403).
 */
import type { TenantAccessCache } from './tenant-access.js';
import { createHmac, randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AuthenticationError, AuthorizationError, OAuthError } from './errors.js';
import type { Queryable } from './db.js';
import type { TokenGuard } from './throttle.js';

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 } as const;

function scryptAsync(secret: string, salt: Buffer, N: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keyLength, { N, r, p, maxmem: 128 * N * r * 2 }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Hashes a client secret: `scrypt$N$r$p$salt$hash` (base64url salt and hash). */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLength);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `secret` matches a hash from {@link hashSecret} (constant-time comparison). */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4] as string, 'base64url');
  const expected = Buffer.from(parts[5] as string, 'base64url');
  const actual = await scryptAsync(secret, salt, N, r, p, expected.length);
  return timingSafeEqual(actual, expected);
}

/** The claims of an access token. */
export interface TokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly scope: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
}

const ISSUER = 'asset-service';
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function sign(data: string, key: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** Signs claims as an HS256 JWT. */
export function signJwt(claims: TokenClaims, key: string): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${HEADER}.${payload}.${sign(`${HEADER}.${payload}`, key).toString('base64url')}`;
}

/** What {@link verifyJwt} accepts beyond a valid signature. */
export interface TokenChecks {
  /** The current time in seconds (default: now). */
  readonly nowSeconds?: number;
  /** How far in the future `iat` may be (clocks differ), in seconds (default 60). */
  readonly clockSkewSeconds?: number;
  /** Longest accepted lifetime `exp - iat`, in seconds (default: no limit). */
  readonly maxLifetimeSeconds?: number;
}

/**
 * Checks an HS256 JWT: its header, signature (constant time), issuer, expiry, that it was not
 * issued in the future (beyond the clock skew) and that its lifetime is not longer than allowed.
 *
 * @throws {AuthenticationError} for any token that is malformed, forged, expired or out of bounds
 */
export function verifyJwt(token: string, key: string, checks: TokenChecks | number = {}): TokenClaims {
  const {
    nowSeconds = Math.floor(Date.now() / 1000),
    clockSkewSeconds = 60,
    maxLifetimeSeconds = Number.POSITIVE_INFINITY,
  } = typeof checks === 'number' ? { nowSeconds: checks } : checks;
  const parts = token.split('.');
  if (parts.length !== 3) throw new AuthenticationError('malformed token');
  const [header, payload, signature] = parts as [string, string, string];
  if (header !== HEADER) throw new AuthenticationError('unsupported token header');
  const expected = sign(`${header}.${payload}`, key);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new AuthenticationError('bad signature');
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new AuthenticationError('malformed token payload');
  }
  if (typeof claims !== 'object' || claims === null) throw new AuthenticationError('malformed token payload');
  const c = claims as Partial<Record<keyof TokenClaims, unknown>>;
  if (c.iss !== ISSUER || typeof c.sub !== 'string' || typeof c.exp !== 'number' || typeof c.iat !== 'number') throw new AuthenticationError('bad claims');
  if (!Number.isFinite(c.exp) || !Number.isFinite(c.iat)) throw new AuthenticationError('bad claims');
  if (c.exp <= nowSeconds) throw new AuthenticationError('token expired');
  if (c.iat > nowSeconds + clockSkewSeconds) throw new AuthenticationError('token issued in the future');
  if (c.exp - c.iat > maxLifetimeSeconds) throw new AuthenticationError('token lifetime too long');
  return { iss: ISSUER, sub: c.sub, scope: typeof c.scope === 'string' ? c.scope : '', iat: c.iat, exp: c.exp, jti: typeof c.jti === 'string' ? c.jti : '' };
}

/** The token endpoint's answer. */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope: string;
}

/**
 * Decodes one half of HTTP Basic client credentials: RFC 6749 section 2.3.1 form-encodes the
 * client id and secret before Base64, so `+` is a space and `%XX` a byte.
 *
 * @throws {OAuthError} `invalid_request` for a malformed percent-encoding
 */
function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw new OAuthError('invalid_request', 'Malformed HTTP Basic credentials: invalid percent-encoding.');
  }
}

/** Longest client id that is looked up; no client has a longer one. */
const MAX_CLIENT_ID_LENGTH = 256;

/** Whether a client id can exist: not too long, and no control characters (NUL cannot even be stored). */
function plausibleClientId(clientId: string): boolean {
  // eslint-disable-next-line no-control-regex
  return clientId.length <= MAX_CLIENT_ID_LENGTH && !/[\u0000-\u001f\u007f]/.test(clientId);
}

/** A hash of a random secret, checked when the client id is unknown so both cases take as long. */
let decoyHash: Promise<string> | undefined;

/**
 * The client-credentials grant: checks `grant_type`, `client_id` and `client_secret` (from the
 * form, or from HTTP Basic authentication) and issues a token.
 *
 * @throws {OAuthError} `invalid_request`, `unsupported_grant_type` or `invalid_client` (400)
 */
export async function issueToken(
  db: Queryable,
  form: URLSearchParams,
  authorization: string | undefined,
  options: { readonly signingKey: string; readonly ttlSeconds: number; readonly guard?: TokenGuard },
): Promise<TokenResponse> {
  let clientId = form.get('client_id');
  let clientSecret = form.get('client_secret');
  if (authorization !== undefined && /^basic /i.test(authorization)) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_request', 'Malformed HTTP Basic credentials.');
    clientId = formDecode(decoded.slice(0, colon));
    clientSecret = formDecode(decoded.slice(colon + 1));
  }
  const grantType = form.get('grant_type');
  if (grantType === null || grantType === '') throw new OAuthError('invalid_request', "The 'grant_type' parameter is required.");
  if (grantType !== 'client_credentials') throw new OAuthError('unsupported_grant_type', "Only the 'client_credentials' grant is supported.");
  if (clientId === null || clientId === '' || clientSecret === null || clientSecret === '') {
    throw new OAuthError('invalid_client', "The 'client_id' and 'client_secret' parameters are required.");
  }
  options.guard?.check(clientId);
  // An id that cannot exist is not looked up (a NUL would even be refused by PostgreSQL), but its
  // secret is still checked against the decoy, so that the answer takes as long as for others.
  const rows = plausibleClientId(clientId) ? await db.query('SELECT secret_hash, can_write FROM clients WHERE client_id = $1', [clientId]) : [];
  const row = rows[0];
  decoyHash ??= hashSecret(randomUUID());
  const valid = await verifySecret(clientSecret, typeof row?.secret_hash === 'string' ? row.secret_hash : await decoyHash);
  if (row === undefined || !valid) {
    options.guard?.failed(clientId);
    throw new OAuthError('invalid_client', 'Client authentication failed.');
  }
  const now = Math.floor(Date.now() / 1000);
  const scope = row.can_write === true ? 'assets.read assets.write' : 'assets.read';
  const claims: TokenClaims = { iss: ISSUER, sub: clientId, scope, iat: now, exp: now + options.ttlSeconds, jti: randomUUID() };
  return { access_token: signJwt(claims, options.signingKey), token_type: 'Bearer', expires_in: options.ttlSeconds, scope };
}

/**
 * The bearer token's claims.
 *
 * @throws {AuthenticationError} when the header is missing, not `Bearer`, or the token is invalid or expired
 */
export function authenticate(authorization: string | undefined, signingKey: string, checks: TokenChecks = {}): TokenClaims {
  if (authorization === undefined) throw new AuthenticationError('no Authorization header');
  const match = /^Bearer +([A-Za-z0-9_\-.]+)\s*$/i.exec(authorization);
  if (match === null) throw new AuthenticationError('not a bearer token');
  return verifyJwt(match[1] as string, signingKey, checks);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The tenant header, exactly as sent: every value of every `Service-Tenant-Id` line. */
function tenantHeaderValues(rawHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === 'service-tenant-id') values.push(rawHeaders[i + 1] as string);
  }
  return values;
}

/** Who is calling, for which tenant, and whether it may write. */
export interface TenantAccess {
  readonly clientId: string;
  readonly tenantId: string;
  readonly canWrite: boolean;
}

/**
 * Checks the `Service-Tenant-Id` header (exactly one, a GUID) and that the client may use that
 * tenant, and, for writes, that it may write.
 *
 * @throws {AuthorizationError} (403) for any of these failures
 */
export async function authorizeTenant(
  db: Queryable,
  claims: TokenClaims,
  request: { readonly rawHeaders: readonly string[]; readonly headers: IncomingHttpHeaders },
  write: boolean,
  cache?: TenantAccessCache,
): Promise<TenantAccess> {
  const values = tenantHeaderValues(request.rawHeaders);
  if (values.length === 0) throw new AuthorizationError("The 'Service-Tenant-Id' header is required.");
  if (values.length > 1) throw new AuthorizationError("Exactly one 'Service-Tenant-Id' header is allowed.");
  const value = (values[0] as string).trim();
  if (!UUID.test(value)) throw new AuthorizationError("The 'Service-Tenant-Id' header must be a tenant GUID.");
  const tenantId = value.toLowerCase();
  const known = cache?.get(claims.sub, tenantId);
  if (known !== undefined) {
    if (write && !known.canWrite) throw new AuthorizationError('The client does not have permission to modify records.');
    return { clientId: claims.sub, tenantId, canWrite: known.canWrite };
  }
  const rows = await db.query(
    'SELECT c.can_write FROM client_tenants ct JOIN clients c ON c.client_id = ct.client_id WHERE ct.client_id = $1 AND ct.tenant_id = $2',
    [claims.sub, tenantId],
  );
  const row = rows[0];
  if (row === undefined) throw new AuthorizationError('The client is not authorized for this tenant.');
  const canWrite = row.can_write === true;
  cache?.set(claims.sub, tenantId, canWrite);
  if (write && !canWrite) throw new AuthorizationError('The client does not have permission to modify records.');
  return { clientId: claims.sub, tenantId, canWrite };
}
