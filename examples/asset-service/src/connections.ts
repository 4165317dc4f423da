/**
 * Open connections, bounded so that no address can lock the others out with idle or half-open
 * sockets (Node's `server.maxConnections` drops every new connection once the cap is reached,
 * whoever holds the open ones):
 *
 * - per address: at most `maxPerAddress` open connections from one client address (an IPv6
 *   address counts by its /64 prefix, which one host usually has whole); a further connection
 *   from that address is closed at once;
 * - in total: at most `maxConnections`; when a new connection would exceed that, the connection
 *   that has waited longest without a request being handled (idle since its last response, or
 *   still sending its request line and headers) is closed to make room. Connections with a
 *   request in progress are never closed for this; only if every open connection has one is the
 *   new connection refused;
 * - idle: a connection that sends no byte within `idleTimeoutMs` of opening (or of its last
 *   response) is closed. Partial requests are Node's `headersTimeout`'s.
 *
 * Requests sent on a new connection therefore get through while others hold thousands of silent
 * sockets: those are either refused at once (their address is at its cap) or closed, oldest first.
 */
import type { Server, ServerResponse } from 'node:http';
import { isIPv6, type Socket } from 'node:net';

/** The bounds of {@link guardConnections} (from the configuration). */
export interface ConnectionLimits {
  readonly maxConnections: number;
  readonly maxPerAddress: number;
  readonly idleTimeoutMs: number;
}

/** What {@link guardConnections} did, for logs and tests. */
export interface ConnectionCounts {
  /** Connections open now. */
  readonly open: number;
  /** Connections open now from the address (or /64) with the most. */
  readonly largestAddress: number;
  /** New connections closed at once because their address was at its cap (since start). */
  readonly refusedPerAddress: number;
  /** New connections closed at once because every open connection had a request in progress. */
  readonly refusedFull: number;
  /** Waiting connections closed to make room for a new one. */
  readonly evicted: number;
  /** Connections closed because they sent nothing within the idle timeout. */
  readonly idleClosed: number;
}

interface Entry {
  readonly socket: Socket;
  readonly address: string;
  /** Requests received and not yet answered. */
  inFlight: number;
  /** Whether a byte arrived since the connection became idle. */
  received: boolean;
  /** When the connection last became idle (opened, or its last response finished). */
  since: number;
}

/**
 * The key an address is counted by: an IPv4 address as it is (IPv4-mapped IPv6 included), an IPv6
 * address by its first four groups (/64).
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1] as string;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

const guards = new WeakMap<Server, { readonly counts: () => ConnectionCounts }>();

/** The counts of the guard of `server` (undefined without one), for metrics and tests. */
export function connectionCounts(server: Server): ConnectionCounts | undefined {
  return guards.get(server)?.counts();
}

/**
 * Applies the bounds of the module documentation to `server`'s connections (in place of
 * `server.maxConnections`, which must stay unset). Returns the live counts.
 */
export function guardConnections(server: Server, limits: ConnectionLimits): { readonly counts: () => ConnectionCounts; readonly stop: () => void } {
  const entries = new Map<Socket, Entry>();
  /** Connections without a request in progress, in the order they became so (oldest first). */
  const waiting = new Map<Socket, Entry>();
  const perAddress = new Map<string, number>();
  const counts = { refusedPerAddress: 0, refusedFull: 0, evicted: 0, idleClosed: 0 };

  const setWaiting = (entry: Entry): void => {
    entry.received = false;
    entry.since = performance.now();
    waiting.delete(entry.socket);
    waiting.set(entry.socket, entry);
  };

  /** Takes a connection out of the counts (at once when this module closes it; else on 'close'). */
  const forget = (entry: Entry): void => {
    if (!entries.delete(entry.socket)) return;
    waiting.delete(entry.socket);
    const left = (perAddress.get(entry.address) ?? 1) - 1;
    if (left <= 0) perAddress.delete(entry.address);
    else perAddress.set(entry.address, left);
  };
  const close = (entry: Entry): void => {
    forget(entry);
    entry.socket.destroy();
  };

  // First, so that a refused connection costs no HTTP parser.
  server.prependListener('connection', (socket: Socket) => {
    const address = addressKey(socket.remoteAddress);
    const fromAddress = perAddress.get(address) ?? 0;
    if (fromAddress >= limits.maxPerAddress) {
      counts.refusedPerAddress++;
      socket.destroy();
      return;
    }
    if (entries.size >= limits.maxConnections) {
      const oldest = waiting.values().next();
      if (oldest.done === true) {
        counts.refusedFull++;
        socket.destroy();
        return;
      }
      counts.evicted++;
      close(oldest.value);
    }
    const entry: Entry = { socket, address, inFlight: 0, received: false, since: 0 };
    entries.set(socket, entry);
    perAddress.set(address, fromAddress + 1);
    setWaiting(entry);
    socket.on('data', () => {
      entry.received = true;
    });
    socket.once('close', () => forget(entry));
  });

  server.on('request', (request: { socket: Socket }, response: ServerResponse) => {
    const entry = entries.get(request.socket);
    if (entry === undefined) return;
    entry.inFlight++;
    waiting.delete(entry.socket);
    response.once('close', () => {
      entry.inFlight--;
      if (entry.inFlight === 0 && entries.has(entry.socket) && !entry.socket.destroyed) setWaiting(entry);
    });
  });

  // Connections that sent nothing since they became idle, oldest first; one timer for all.
  const sweep = setInterval(
    () => {
      const cutoff = performance.now() - limits.idleTimeoutMs;
      for (const entry of waiting.values()) {
        if (entry.since > cutoff) break;
        if (entry.received) continue;
        counts.idleClosed++;
        close(entry);
      }
    },
    Math.max(25, Math.min(1000, Math.floor(limits.idleTimeoutMs / 4))),
  );
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
  const guard = {
    counts: (): ConnectionCounts => ({ open: entries.size, largestAddress: Math.max(0, ...perAddress.values()), ...counts }),
    stop: () => clearInterval(sweep),
  };
  guards.set(server, guard);
  return guard;
}
