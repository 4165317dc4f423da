/**
 * `$batch` (OData 4.01 Protocol §11.7): several requests in one, in the JSON format (JSON Format
 * §19: `{ "requests": [ { "id", "method", "url", "headers" } ] }`) or as `multipart/mixed`
 * (Protocol §11.7.2: each part an `application/http` request). Each request is answered by the
 * service itself, in order; writes inside a batch are refused as outside (405), as is a batch
 * inside a batch. The body and the number of requests are bounded.
 */
import { ODataError } from '../errors/odata-error.js';

/** Limits of a batch. */
export interface BatchLimits {
  /** Most bytes of a batch request's body (default 1 MiB): beyond, 413. */
  readonly maxBytes: number;
  /** Most requests in one batch (default 100): beyond, 400. */
  readonly maxRequests: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxBytes: 1024 * 1024, maxRequests: 100 };

/** One request of a batch, as read. */
interface BatchItem {
  readonly id?: string;
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

function invalid(reason: string): ODataError {
  return new ODataError({ code: 'invalid_option_value', reason, appendLocation: false });
}

/** The body of a request as text, refused past `max` bytes (without reading further). */
async function readBody(request: Request, max: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  const tooLarge = (): ODataError =>
    new ODataError({ code: 'invalid_option_value', status: 413, reason: `The batch is larger than ${max} bytes`, appendLocation: false });
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(all);
  } catch {
    throw invalid('The batch is not UTF-8 text');
  }
}

function jsonItems(text: string): BatchItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('The batch is not JSON');
  }
  const requests = (parsed as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(requests)) throw invalid(`A JSON batch has a 'requests' array`);
  return requests.map((entry: unknown, index) => {
    const item = entry as { id?: unknown; method?: unknown; url?: unknown; headers?: unknown } | null;
    if (item === null || typeof item !== 'object' || typeof item.method !== 'string' || typeof item.url !== 'string') {
      throw invalid(`Request ${index + 1} of the batch needs a 'method' and a 'url'`);
    }
    const headers: Record<string, string> = {};
    if (item.headers !== undefined && item.headers !== null && typeof item.headers === 'object') {
      for (const [name, value] of Object.entries(item.headers)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
    }
    return { ...(typeof item.id === 'string' ? { id: item.id } : {}), method: item.method.toUpperCase(), url: item.url, headers };
  });
}

/** The parts of a multipart body, split at its boundary. */
function parts(text: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const pieces = text.split(delimiter);
  // Before the first delimiter: the preamble; after the closing `--`: the epilogue.
  const out: string[] = [];
  for (const piece of pieces.slice(1)) {
    if (piece.startsWith('--')) break;
    out.push(piece.replace(/^\r?\n/, '').replace(/\r?\n$/, ''));
  }
  return out;
}

/** Headers and body of a MIME part or an HTTP message (`\r\n` or `\n` line ends). */
function headed(text: string): { head: string[]; body: string } {
  const match = /\r?\n\r?\n/.exec(text);
  const head = match === null ? text : text.slice(0, match.index);
  const body = match === null ? '' : text.slice(match.index + match[0].length);
  return { head: head.split(/\r?\n/).filter((line) => line !== ''), body };
}

function headerMap(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

function multipartItems(text: string, boundary: string): BatchItem[] {
  const items: BatchItem[] = [];
  for (const part of parts(text, boundary)) {
    const { head, body } = headed(part);
    const partHeaders = headerMap(head);
    const type = partHeaders['content-type'] ?? '';
    if (/^multipart\/mixed/i.test(type)) {
      // A change set: writes only, which this service refuses; its requests are answered 405 each.
      const inner = boundaryOf(type);
      if (inner === undefined) throw invalid('A change set needs a boundary');
      items.push(...multipartItems(body, inner));
      continue;
    }
    if (!/^application\/http/i.test(type)) throw invalid(`A batch part is 'application/http', not '${type}'`);
    const message = headed(body);
    const [requestLine, ...headerLines] = message.head;
    const line = /^([A-Za-z]+)\s+(\S+)(?:\s+HTTP\/\d(?:\.\d)?)?$/.exec(requestLine ?? '');
    if (line === null) throw invalid(`A batch part has no request line ('GET People HTTP/1.1')`);
    items.push({
      ...(partHeaders['content-id'] === undefined ? {} : { id: partHeaders['content-id'] }),
      method: (line[1] as string).toUpperCase(),
      url: line[2] as string,
      headers: headerMap(headerLines),
    });
  }
  return items;
}

/** The outer request's headers (authorization, preferences, versions), each request's own over them. */
function innerHeaders(request: Request, item: BatchItem): Headers {
  const headers = new Headers();
  request.headers.forEach((value, name) => {
    if (name !== 'content-type' && name !== 'content-length') headers.set(name, value);
  });
  for (const [name, value] of Object.entries(item.headers)) headers.set(name, value);
  return headers;
}

const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  413: 'Content Too Large',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/**
 * Answers a `$batch` request: its requests read (JSON or multipart), each sent to `serve` as a
 * `Request` of its own (relative URLs against the service root), the answers written in the
 * request's format.
 */
export async function answerBatch(request: Request, root: string, serve: (request: Request) => Promise<Response>, limits: BatchLimits): Promise<Response> {
  const contentType = request.headers.get('content-type') ?? '';
  const text = await readBody(request, limits.maxBytes);
  const json = /^application\/json/i.test(contentType);
  const boundary = json ? undefined : boundaryOf(contentType);
  if (!json && (!/^multipart\/mixed/i.test(contentType) || boundary === undefined)) {
    throw new ODataError({
      code: 'invalid_option_value',
      status: 415,
      reason: `A batch is 'application/json' or 'multipart/mixed' with a boundary`,
      appendLocation: false,
    });
  }
  const items = json ? jsonItems(text) : multipartItems(text, boundary as string);
  if (items.length > limits.maxRequests) throw invalid(`A batch holds at most ${limits.maxRequests} requests; this one has ${items.length}`);
  const answers: { item: BatchItem; response: Response; body: string }[] = [];
  for (const item of items) {
    const url = new URL(item.url, root);
    const inner =
      url.pathname.endsWith('/$batch') || !url.href.startsWith(root)
        ? new Response(
            JSON.stringify({ error: { code: 'invalid_option_value', message: 'A batch request addresses the service, and is no batch itself', details: [] } }),
            { status: 400, headers: { 'content-type': 'application/json' } },
          )
        : await serve(new Request(url, { method: item.method, headers: innerHeaders(request, item) }));
    answers.push({ item, response: inner, body: await inner.text() });
  }
  if (json) {
    const responses = answers.map(({ item, response, body }) => {
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (name !== 'odata-version') headers[name] = value;
      });
      const type = response.headers.get('content-type') ?? '';
      const parsed = body === '' ? undefined : /json/.test(type) ? (JSON.parse(body) as unknown) : body;
      return { ...(item.id === undefined ? {} : { id: item.id }), status: response.status, headers, ...(parsed === undefined ? {} : { body: parsed }) };
    });
    return new Response(JSON.stringify({ responses }), { status: 200, headers: { 'content-type': 'application/json' } });
  }
  const outer = `batchresponse_${crypto.randomUUID()}`;
  const chunks = answers.map(({ item, response, body }) => {
    const lines = [`HTTP/1.1 ${response.status} ${REASONS[response.status] ?? ''}`.trimEnd()];
    response.headers.forEach((value, name) => lines.push(`${name}: ${value}`));
    const partHead = ['Content-Type: application/http', 'Content-Transfer-Encoding: binary', ...(item.id === undefined ? [] : [`Content-ID: ${item.id}`])];
    return `--${outer}\r\n${partHead.join('\r\n')}\r\n\r\n${lines.join('\r\n')}\r\n\r\n${body}\r\n`;
  });
  return new Response(`${chunks.join('')}--${outer}--\r\n`, { status: 200, headers: { 'content-type': `multipart/mixed; boundary=${outer}` } });
}
