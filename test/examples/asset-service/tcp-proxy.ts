/**
 * A TCP proxy (node:net) between the service and a database server, for failure tests that must
 * not touch the shared server: `reset()` resets every connection (the service sees ECONNRESET, the
 * server a client that went away), `down()` also stops listening (the service's new connections are
 * refused) until `up()` listens again on the same port, and `freeze()` stops forwarding anything,
 * on open and new connections alike, without closing them (a network partition) until `thaw()`.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** The port the proxy listens on (127.0.0.1). */
  readonly port: number;
  /** Connections open now. */
  readonly open: number;
  /** Resets every open connection (RST towards the service). */
  reset(): void;
  /** Resets every connection and stops listening: connecting is refused. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Forwards nothing more, closes nothing: bytes sent either way are never delivered. */
  freeze(): void;
  /** Resets the connections held while frozen and forwards new ones again. */
  thaw(): void;
  close(): Promise<void>;
}

/** Starts a proxy on a free port of 127.0.0.1 to `target`. */
export async function startTcpProxy(target: { readonly host: string; readonly port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ readonly downstream: Socket; readonly upstream: Socket }>();
  /** Connections accepted while frozen: held open, never forwarded. */
  const held = new Set<Socket>();
  let frozen = false;
  const server: Server = createServer((downstream) => {
    if (frozen) {
      held.add(downstream);
      downstream.pause();
      downstream.on('error', () => downstream.destroy()).on('close', () => held.delete(downstream));
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair = { downstream, upstream };
    pairs.add(pair);
    const end = (): void => {
      pairs.delete(pair);
      downstream.destroy();
      upstream.destroy();
    };
    downstream.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    downstream.pipe(upstream);
    upstream.pipe(downstream);
  });
  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  const { port } = address;
  const reset = (): void => {
    for (const { downstream, upstream } of [...pairs]) {
      downstream.resetAndDestroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  const stopListening = (): Promise<void> => new Promise((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  return {
    port,
    get open() {
      return pairs.size;
    },
    reset,
    down: async () => {
      const closed = stopListening();
      reset();
      await closed;
    },
    up: () => listen(port),
    freeze: () => {
      frozen = true;
      for (const { downstream, upstream } of pairs) {
        downstream.unpipe(upstream);
        upstream.unpipe(downstream);
        downstream.pause();
        upstream.pause();
      }
    },
    thaw: () => {
      frozen = false;
      reset();
      for (const socket of [...held]) socket.resetAndDestroy();
      held.clear();
    },
    close: async () => {
      const closed = stopListening();
      frozen = false;
      reset();
      for (const socket of [...held]) socket.resetAndDestroy();
      held.clear();
      await closed;
    },
  };
}
