/**
 * Server-driven paging (OData 4.01 Protocol §8.2.8.3, §11.2.6.7): `Prefer: odata.maxpagesize=N`
 * (or `maxpagesize=N`) asks for pages of at most N records; the answer says
 * `Preference-Applied: odata.maxpagesize=M` (M is N capped by the collection's `$top` limit) and,
 * while records remain, carries `@odata.nextLink`: the same URL with `$skiptoken` added.
 *
 * The skip token is opaque to clients: base64url JSON of where the next page starts, with an
 * HMAC-SHA256 over it, the tenant, the list it continues (the collection, or the navigation of one
 * record: `assets/<id>/maintenanceTickets`) and the request's other query options (a key derived
 * from the service's token signing key). A token that is malformed, altered, or used with other
 * query options, on another list or in another tenant is a 400 OData error.
 *
 * Where the next page starts: by keyset (the values of the last record's order keys, `$orderby`
 * then the id; the library's `continueAfter`) when `$orderby` names only properties of the record,
 * else by offset (ordering by an expression or a navigation path). `$top` and `$skip` apply to the
 * whole result, as OData says: `$skip` to the first page, `$top` to all pages together (the
 * token carries how many of `$top` remain).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ODataError } from 'odata-engine';

/** Where the next page starts, and what is left of the request. */
export interface Continuation {
  /** Keyset: the last record's order key values (`keysetValues`). */
  readonly after?: readonly unknown[];
  /** Offset: the number of records before the next page (with `$skip` included). */
  readonly offset?: number;
  /** How many records `$top` still allows, when the request has `$top`. */
  readonly remaining?: number;
  /** The page size the previous page was given (for a next link followed without `Prefer`). */
  readonly pageSize: number;
}

/**
 * The page size a `Prefer` header asks for: the first `odata.maxpagesize` (or `maxpagesize`)
 * preference with a positive integer value; `undefined` without one. Other preferences, and an
 * unusable value, are ignored, as preferences may be.
 */
export function preferredPageSize(prefer: string | string[] | undefined): number | undefined {
  const lines = prefer === undefined ? [] : Array.isArray(prefer) ? prefer : [prefer];
  for (const line of lines) {
    for (const preference of line.split(',')) {
      const match = /^\s*(?:odata\.)?maxpagesize\s*=\s*"?(\d{1,15})"?\s*(?:;.*)?$/i.exec(preference);
      if (match === null) continue;
      const size = Number(match[1]);
      if (size > 0) return size;
    }
  }
  return undefined;
}

function invalidToken(): ODataError {
  return new ODataError({ code: 'invalid_option_value', reason: 'The $skiptoken is not valid for this request', option: '$skiptoken', appendLocation: false });
}

/**
 * Which list a token continues: the tenant, and the entity set, or the entity set, record id and
 * navigation property of a navigation list (`assets/<id>/maintenanceTickets`). The URL's spelling
 * (`/maintenance-tickets`, `/maintenanceTickets`, `/assets(<id>)/…`) is not part of it.
 */
export interface ListIdentity {
  readonly tenantId: string;
  readonly list: string;
}

/** Seals and opens skip tokens for one service (one secret). */
export class SkipTokens {
  private readonly key: Buffer;

  /** @param secret the service's token signing key; the tokens' key is derived from it. */
  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('asset-service $skiptoken v1').digest();
  }

  private mac(payload: string, list: ListIdentity, query: string): Buffer {
    return createHmac('sha256', this.key).update(`${payload}\n${list.tenantId}\n${list.list}\n${query}`).digest();
  }

  /** The token for a continuation of the request with `query` (its other options) on one list of a tenant. */
  seal(continuation: Continuation, list: ListIdentity, query: string): string {
    const payload = Buffer.from(JSON.stringify(continuation)).toString('base64url');
    return `${payload}.${this.mac(payload, list, query).toString('base64url')}`;
  }

  /** The continuation of a token. @throws {ODataError} 400 when it is malformed or not this request's (list, tenant, options). */
  open(token: string, list: ListIdentity, query: string): Continuation {
    const [payload, mac, ...rest] = token.split('.');
    if (payload === undefined || mac === undefined || rest.length > 0 || !/^[\w-]+$/.test(payload) || !/^[\w-]+$/.test(mac)) throw invalidToken();
    const expected = this.mac(payload, list, query);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidToken();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidToken();
    }
    // Sealed by this service, so well-formed; checked anyway (a leaked secret must not make a 500).
    const c = parsed as Partial<Continuation> | null;
    const count = (n: unknown): boolean => n === undefined || (Number.isSafeInteger(n) && (n as number) >= 0);
    if (c === null || typeof c !== 'object' || !Number.isSafeInteger(c.pageSize) || (c.pageSize as number) < 1 || !count(c.offset) || !count(c.remaining))
      throw invalidToken();
    if ((c.after === undefined) === (c.offset === undefined) || (c.after !== undefined && !Array.isArray(c.after))) throw invalidToken();
    return c as Continuation;
  }
}

/** The raw query string without its `$skiptoken` option(s), the other options exactly as sent. */
export function withoutSkipToken(rawQuery: string): { query: string; token: string | undefined } {
  let token: string | undefined;
  const kept = rawQuery.split('&').filter((part) => {
    const name = part.split('=', 1)[0] ?? '';
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      // left as it is: the parser reports the encoding
    }
    if (decoded.toLowerCase() !== '$skiptoken') return true;
    const value = part.slice(name.length + 1);
    try {
      token = decodeURIComponent(value);
    } catch {
      token = value;
    }
    return false;
  });
  return { query: kept.filter((part) => part !== '').join('&'), token };
}

/** The next link: the request's path with its other options and the new token (a relative URL). */
export function nextLink(path: string, query: string, token: string): string {
  return `${path}?${query === '' ? '' : `${query}&`}$skiptoken=${encodeURIComponent(token)}`;
}
