/**
 * `negotiateFormat`: the format and OData version of a response from the request's `$format`,
 * `Accept`, `Accept-Charset`, `OData-Version` and `OData-MaxVersion` (PROT §5.1, §7, §8.1.5,
 * §8.2.1, §8.2.7; JSON Format §3, §4.1), and the `Content-Type` and `OData-Version` to send.
 */
import { ODataError } from '../../errors/odata-error.js';
import type { MetadataLevel, ODataVersion } from './versions.js';

/** The parts of a request that decide the format (header values as sent; `format` the decoded `$format`). */
export interface FormatRequest {
  readonly accept?: string | null | undefined;
  /** The `$format` query option's value, percent-decoded (`json`, `application/json;odata.metadata=none`). */
  readonly format?: string | null | undefined;
  readonly acceptCharset?: string | null | undefined;
  /** `OData-Version`: the version of the request's payload (4.0 or 4.01, else 400). */
  readonly version?: string | null | undefined;
  /** `OData-MaxVersion`: the greatest version the client reads (below 4.0: 400). */
  readonly maxVersion?: string | null | undefined;
  /**
   * `metadata` for `$metadata` (XML by default and for `*` ranges, CSDL JSON for
   * `application/json`, PROT §11.1.2); `data` (default) for everything else (OData JSON only).
   */
  readonly resource?: 'data' | 'metadata';
}

/** Choices of the service. */
export interface NegotiateOptions {
  /** The version of a response to a request without `OData-MaxVersion` (PROT §8.2.7; default `4.01`). */
  readonly defaultVersion?: ODataVersion;
  /**
   * Write `streaming` and `IEEE754Compatible` in the `Content-Type` even when the client did not
   * ask for them, as ASP.NET Core OData does (`…;odata.streaming=true;IEEE754Compatible=false`).
   * Default `false`: only `metadata` and what the client asked for (PROT §8.2.1: the service
   * SHOULD NOT add format parameters the `Accept` header does not name).
   */
  readonly explicitParameters?: boolean;
}

/** The negotiated format of a response. */
export interface NegotiatedFormat {
  readonly mediaType: 'application/json' | 'application/xml';
  /** The amount of control information (JSON data responses; `minimal` otherwise). */
  readonly metadata: MetadataLevel;
  /** Int64 and Decimal values (and counts) as strings (JSON Format §3.2). */
  readonly ieee754Compatible: boolean;
  /** Whether the client asked for `streaming=true` (the bodies of this module always follow its ordering). */
  readonly streaming: boolean;
  /** The response's `OData-Version`. */
  readonly version: ODataVersion;
  /** The `Content-Type` to send. */
  readonly contentType: string;
  /** `content-type` and `odata-version`, for the response. */
  readonly headers: Readonly<Record<string, string>>;
}

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
  /** Parameters other than `q`, names in lower case. */
  readonly parameters: ReadonlyMap<string, string>;
  readonly text: string;
}

function notAcceptable(reason: string): ODataError {
  return new ODataError({ code: 'not_acceptable', status: 406, reason, appendLocation: false });
}

function badVersion(reason: string): ODataError {
  return new ODataError({ code: 'unsupported_version', status: 400, reason, appendLocation: false });
}

/** Splits at `separator` outside double quotes. */
function split(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (c === separator && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
}

/** The media ranges of an `Accept` header (or a `$format` media type), malformed ones left out. */
function mediaRanges(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const item of split(header, ',')) {
    const [head = '', ...rest] = split(item, ';');
    const match = /^\s*([\w.+*!#$&^-]+)\/([\w.+*!#$&^-]+)\s*$/.exec(head);
    if (match === null) continue;
    const parameters = new Map<string, string>();
    let q = 1;
    for (const parameter of rest) {
      const eq = parameter.indexOf('=');
      if (eq < 0) continue;
      const name = parameter.slice(0, eq).trim().toLowerCase();
      const value = unquote(parameter.slice(eq + 1).trim());
      if (name === 'q') q = Number(value);
      else parameters.set(name, value);
    }
    if (!Number.isFinite(q) || q <= 0) continue;
    ranges.push({ type: (match[1] as string).toLowerCase(), subtype: (match[2] as string).toLowerCase(), q, parameters, text: item.trim() });
  }
  // Highest quality first; equal qualities keep the client's order.
  return ranges
    .map((range, index) => ({ range, index }))
    .sort((a, b) => b.range.q - a.range.q || a.index - b.index)
    .map(({ range }) => range);
}

/** What a JSON range asks for; `undefined` when a parameter is unknown or has an unknown value (PROT §8.2.1: rejected). */
function jsonParameters(range: MediaRange): { metadata: MetadataLevel; ieee754?: boolean; streaming?: boolean; charset?: string } | undefined {
  let metadata: MetadataLevel = 'minimal';
  const result: { ieee754?: boolean; streaming?: boolean; charset?: string } = {};
  for (const [name, raw] of range.parameters) {
    const value = raw.toLowerCase();
    const bool = value === 'true' ? true : value === 'false' ? false : undefined;
    switch (name) {
      case 'odata.metadata':
      case 'metadata':
        if (value !== 'minimal' && value !== 'full' && value !== 'none') return undefined;
        metadata = value;
        break;
      case 'odata.streaming':
      case 'streaming':
        if (bool === undefined) return undefined;
        result.streaming = bool;
        break;
      case 'ieee754compatible':
        if (bool === undefined) return undefined;
        result.ieee754 = bool;
        break;
      case 'exponentialdecimals':
      case 'odata.exponentialdecimals':
        if (bool === undefined) return undefined;
        break;
      case 'charset':
        if (value !== 'utf-8') return undefined;
        result.charset = raw;
        break;
      default:
        return undefined;
    }
  }
  return { metadata, ...result };
}

/** The response version: the greatest supported one not above `OData-MaxVersion` (PROT §5.1, §8.2.7). */
function responseVersion(request: FormatRequest, fallback: ODataVersion): ODataVersion {
  const version = request.version?.trim();
  if (version !== undefined && version !== '' && version !== '4.0' && version !== '4.01') {
    throw badVersion(`The OData-Version '${version}' is not supported: the service reads 4.0 and 4.01 requests`);
  }
  const max = request.maxVersion?.trim();
  if (max === undefined || max === '') return fallback;
  if (!/^\d+\.\d+$/.test(max)) throw badVersion(`The OData-MaxVersion '${max}' is not a version (digits, '.', digits)`);
  const value = Number(max);
  if (value < 4) throw badVersion(`The OData-MaxVersion '${max}' is below 4.0, the lowest version the service sends`);
  return value < 4.01 ? '4.0' : '4.01';
}

/** Whether `Accept-Charset` allows UTF-8, the only charset of the responses. */
function utf8Acceptable(header: string | null | undefined): boolean {
  if (header === null || header === undefined || header.trim() === '') return true;
  let star: number | undefined;
  for (const item of header.split(',')) {
    const [name = '', ...parameters] = item.split(';').map((part) => part.trim().toLowerCase());
    const qText = parameters.find((p) => p.startsWith('q='))?.slice(2);
    const q = qText === undefined ? 1 : Number(qText);
    if (name === 'utf-8') return q > 0;
    if (name === '*') star = q;
  }
  return star !== undefined && star > 0;
}

/**
 * The format of a response: `$format` if present (it overrides `Accept`: `json`, `xml` for
 * `$metadata`, or a media type with parameters), else the `Accept` media ranges by quality
 * (`application/json`, `application/*`, `*∕*`), with `metadata` (`minimal` default, `full`,
 * `none`), `IEEE754Compatible`, `streaming` and `charset` (UTF-8 only) parameters, with or
 * without the `odata.` prefix; the OData version from `OData-MaxVersion` (4.0 for 4.0, 4.01 for
 * 4.01 or above, the default without it). The `Content-Type` names the format parameters with
 * `odata.` in a 4.0 response, without it in 4.01 (JSON Format §3.1), `charset` only when asked.
 *
 * @throws {ODataError} `not_acceptable` (406) when no acceptable format is supported (another
 *   media type, an unknown format parameter or value, `Accept-Charset` without UTF-8);
 *   `unsupported_version` (400) for an `OData-Version` other than 4.0 and 4.01, or an
 *   `OData-MaxVersion` below 4.0 or malformed
 * @example
 * ```ts
 * negotiateFormat({ accept: 'application/json;odata.metadata=full', maxVersion: '4.0' });
 * // { mediaType: 'application/json', metadata: 'full', version: '4.0', ieee754Compatible: false,
 * //   contentType: 'application/json;odata.metadata=full', headers: { 'content-type': …, 'odata-version': '4.0' }, … }
 * negotiateFormat({ format: 'json' }).contentType; // 'application/json;metadata=minimal'
 * ```
 */
export function negotiateFormat(request: FormatRequest, options: NegotiateOptions = {}): NegotiatedFormat {
  const version = responseVersion(request, options.defaultVersion ?? '4.01');
  if (!utf8Acceptable(request.acceptCharset))
    throw notAcceptable(`The Accept-Charset '${request.acceptCharset ?? ''}' excludes UTF-8, the only charset the service sends`);
  const metadataResource = request.resource === 'metadata';
  const format = request.format?.trim() ?? '';
  const accept = request.accept?.trim() ?? '';
  const source = format !== '' ? format : accept;
  let ranges: MediaRange[];
  if (format.toLowerCase() === 'json') ranges = mediaRanges('application/json');
  else if (format.toLowerCase() === 'xml') ranges = mediaRanges('application/xml');
  else if (source === '') ranges = mediaRanges(metadataResource ? 'application/xml' : 'application/json');
  else ranges = mediaRanges(source);
  const prefix = version === '4.0' ? 'odata.' : '';
  for (const range of ranges) {
    const anyApplication = range.type === '*' || (range.type === 'application' && range.subtype === '*');
    const json = range.type === 'application' && range.subtype === 'json';
    const charset = range.parameters.get('charset');
    if (metadataResource) {
      // CSDL JSON for application/json, CSDL XML for application/xml and wildcards (PROT §11.1.2).
      const xml = anyApplication || (range.type === 'application' && range.subtype === 'xml');
      if (!json && !xml) continue;
      if (charset !== undefined && charset.toLowerCase() !== 'utf-8') continue;
      const mediaType = json ? 'application/json' : 'application/xml';
      const contentType = charset === undefined ? mediaType : `${mediaType};charset=${charset}`;
      return {
        mediaType,
        metadata: 'minimal',
        ieee754Compatible: false,
        streaming: false,
        version,
        contentType,
        headers: { 'content-type': contentType, 'odata-version': version },
      };
    }
    if (!json && !anyApplication) continue;
    const parameters = jsonParameters(range);
    if (parameters === undefined) continue;
    const explicit = options.explicitParameters === true;
    const parts = [`application/json`, `${prefix}metadata=${parameters.metadata}`];
    if (parameters.streaming !== undefined || explicit) parts.push(`${prefix}streaming=${String(parameters.streaming ?? true)}`);
    if (parameters.ieee754 !== undefined || explicit) parts.push(`IEEE754Compatible=${String(parameters.ieee754 ?? false)}`);
    if (parameters.charset !== undefined) parts.push(`charset=${parameters.charset}`);
    const contentType = parts.join(';');
    return {
      mediaType: 'application/json',
      metadata: parameters.metadata,
      ieee754Compatible: parameters.ieee754 === true,
      streaming: parameters.streaming === true,
      version,
      contentType,
      headers: { 'content-type': contentType, 'odata-version': version },
    };
  }
  const what = format !== '' ? `$format '${format}'` : `Accept '${accept}'`;
  throw notAcceptable(
    metadataResource
      ? `The ${what} names no format of the metadata document the service sends (application/xml, application/json)`
      : `The ${what} names no format the service sends (application/json with the parameters metadata, streaming, IEEE754Compatible, charset=utf-8)`,
  );
}
