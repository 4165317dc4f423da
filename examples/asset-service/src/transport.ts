/**
 * The HTTP transport's own errors, answered in the service's formats instead of Node's or
 * Fastify's: a request whose headers or body do not arrive in time (408), headers over the size
 * limit (431), bytes that are not HTTP (400). They happen before Fastify has a request, so the
 * answer is written to the socket directly: the OAuth error form for the token endpoint, the
 * envelope elsewhere.
 *
 * Which endpoint a broken request was for is known only from its request line, which Node's
 * parser keeps to itself until the headers are complete; {@link trackRequestLines} therefore reads
 * the first line of each request on a connection as it arrives.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { envelope, isTokenPath } from './errors.js';

/** What is known of the request being received on a connection. */
interface ConnectionState {
  /** Whether any byte arrived since the last complete request. */
  received: boolean;
  /** The start of the request line, while its end has not arrived yet. */
  line: string;
  /** Whether the request line is complete (or was given up on). */
  lineDone: boolean;
  /** The request target of the request line, once known. */
  target: string | undefined;
}

const LONGEST_REQUEST_LINE = 8 * 1024;
const states = new WeakMap<Socket, ConnectionState>();

function fresh(): ConnectionState {
  return { received: false, line: '', lineDone: false, target: undefined };
}

function onData(state: ConnectionState, chunk: Buffer): void {
  state.received = true;
  if (state.lineDone) return;
  state.line += chunk.toString('latin1', 0, Math.min(chunk.length, LONGEST_REQUEST_LINE));
  // Empty lines before a request line are allowed (RFC 9112 section 2.2).
  state.line = state.line.replace(/^(\r?\n)+/, '');
  const end = state.line.indexOf('\n');
  if (end >= 0) {
    const match = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ (\S+) HTTP\/\d\.\d\r?$/.exec(state.line.slice(0, end));
    state.target = match?.[1];
    state.lineDone = true;
    state.line = '';
  } else if (state.line.length >= LONGEST_REQUEST_LINE) {
    state.lineDone = true;
    state.line = '';
  }
}

/**
 * Follows the request line of each request on each connection of `server` (see the module
 * documentation); the state is reset when a response is finished.
 */
export function trackRequestLines(server: Server): void {
  server.on('connection', (socket: Socket) => {
    const state = fresh();
    states.set(socket, state);
    // Before Node's own listener, so that a chunk the parser refuses has been seen.
    socket.prependListener('data', (chunk: Buffer) => onData(state, chunk));
  });
  server.on('request', (_request, response: ServerResponse) => {
    response.on('finish', () => {
      const state = states.get(response.socket as Socket);
      if (state !== undefined) Object.assign(state, fresh());
    });
  });
}

/** The status and words for a transport error. */
function describe(error: NodeJS.ErrnoException, maxHeaderSize: number): { status: number; message: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'The request did not arrive in time.' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: `The request line and headers are too large (at most ${maxHeaderSize} bytes).` };
    default:
      return { status: 400, message: 'The request is not valid HTTP/1.1.' };
  }
}

/**
 * Fastify's `clientErrorHandler`: answers a transport error in the service's format, if the
 * client sent anything and no response was started, and closes the connection. Fastify calls it
 * with the instance as `this`.
 */
export function clientErrorHandler(maxHeaderSize: number): (this: { readonly log: FastifyBaseLogger }, error: NodeJS.ErrnoException, socket: Socket) => void {
  return function handle(this: { readonly log: FastifyBaseLogger }, error, socket) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const state = states.get(socket);
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    // A connection that never sent a byte (an idle one timing out) is just closed, as is one
    // whose response has begun.
    if (!socket.writable || state?.received !== true || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const { status, message } = describe(error, maxHeaderSize);
    const traceId = randomUUID();
    const token = isTokenPath(state.target);
    this.log.info({ traceId, code: error.code, status, target: state.target?.slice(0, 200) }, `client error: ${message}`);
    const body = JSON.stringify(
      token ? { error: 'invalid_request', error_description: message } : envelope('ValidationException', { Message: message }, traceId),
    );
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      ...(token ? ['cache-control: no-store'] : []),
      `trace-id: ${traceId}`,
      'connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
    // A client that does not read its answer is not waited for.
    setTimeout(() => socket.destroy(), 1000).unref();
  };
}
