/**
 * `toNodeListener`: a handler as a listener of Node's `http.createServer`, and as Express
 * middleware (Express's request and response are Node's). Structural types only: this module
 * imports nothing of Node, so the entry stays portable.
 */
import type { ODataHandler } from '../handler.js';

/** The part of Node's `IncomingMessage` the listener reads (Express adds `originalUrl`). */
export interface NodeRequestLike {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly originalUrl?: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** A TLS socket has `encrypted: true`. */
  readonly socket?: object | null;
  on(event: 'close', listener: () => void): unknown;
}

/** The part of Node's `ServerResponse` the listener writes. */
export interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: Uint8Array | string): unknown;
  readonly headersSent?: boolean;
}

/** A web `Request` from a Node request: its method, URL (from `Host`) and headers; no body (the handler only reads). */
export function requestFromNode(request: NodeRequestLike, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const each of Array.isArray(value) ? value : [value]) headers.append(name, each);
  }
  const host = headers.get('host') ?? 'localhost';
  const protocol = (request.socket as { encrypted?: unknown } | null | undefined)?.encrypted === true ? 'https' : 'http';
  const url = new URL(request.originalUrl ?? request.url ?? '/', `${protocol}://${host}`);
  return new Request(url, { method: request.method ?? 'GET', headers, ...(signal === undefined ? {} : { signal }) });
}

/** Writes a web `Response` to a Node response. */
export async function writeToNode(response: Response, target: NodeResponseLike): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = response.body === null ? undefined : new Uint8Array(await response.arrayBuffer());
  target.writeHead(response.status, headers);
  target.end(body);
}

/**
 * A listener of `http.createServer` (or Express middleware: `app.use('/odata', toNodeListener(handler))`;
 * the handler's `basePath` is then `/odata`, as Express keeps it in `originalUrl`).
 *
 * @example
 * ```ts
 * // `http` is Node's http module (this module itself imports nothing of Node).
 * http.createServer(toNodeListener(createODataHandler({ model, source }))).listen(4004);
 * ```
 */
export function toNodeListener(handler: ODataHandler): (request: NodeRequestLike, response: NodeResponseLike) => Promise<void> {
  return async (request, response) => {
    const controller = new AbortController();
    request.on('close', () => controller.abort());
    try {
      await writeToNode(await handler(requestFromNode(request, controller.signal)), response);
    } catch {
      // The handler answers every error itself; only writing to a client that went away fails here.
      if (response.headersSent !== true) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end('{"error":{"code":"internal_error","message":"An internal error occurred.","details":[]}}');
      }
    }
  };
}
