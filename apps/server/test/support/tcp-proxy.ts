import { once } from 'node:events';
import net from 'node:net';

/**
 * A TCP proxy that a test controls, placed between a client and a server (the service and
 * PostgreSQL, or a caller and the service), to simulate outages without touching the real
 * server:
 *
 * - `forward` (the start): bytes flow both ways.
 * - `cut()`: every open connection is reset and new ones are refused at once, like a server
 *   that went away.
 * - `hang()`: connections stay open but no byte moves in either direction, and new
 *   connections are accepted and then left silent, like a server that stopped answering.
 * - `dropResponses()`: requests reach the server, but the first byte it answers with closes
 *   the client's connection instead of being delivered: the lost acknowledgement.
 * - `restore()`: back to forwarding for new connections (hung ones are reset, as a real
 *   network partition's stale connections would be).
 */
export type ProxyMode = 'forward' | 'cut' | 'hang' | 'drop-responses';

export interface TcpProxy {
  /** Loopback port the proxy listens on. */
  port: number;
  mode(): ProxyMode;
  cut(): void;
  hang(): void;
  dropResponses(): void;
  restore(): void;
  /** Connections accepted since the start. */
  connectionCount(): number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | null;
}

export const startTcpProxy = async (target: { host: string; port: number }): Promise<TcpProxy> => {
  let mode: ProxyMode = 'forward';
  let accepted = 0;
  const pairs = new Set<Pair>();

  const destroyPair = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };

  const connect = (pair: Pair) => {
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    pair.client.on('data', (chunk) => {
      if (mode === 'hang') return;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (mode === 'hang') return;
      if (mode === 'drop-responses') {
        destroyPair(pair);
        return;
      }
      pair.client.write(chunk);
    });
    upstream.on('close', () => destroyPair(pair));
    upstream.on('error', () => destroyPair(pair));
  };

  const server = net.createServer((client) => {
    accepted += 1;
    client.on('error', () => {});
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, upstream: null };
    pairs.add(pair);
    client.on('close', () => destroyPair(pair));
    // A connection opened while hung stays silent; it is reset on restore.
    if (mode !== 'hang') connect(pair);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;

  return {
    port,
    mode: () => mode,
    cut: () => {
      mode = 'cut';
      for (const pair of [...pairs]) {
        pair.client.resetAndDestroy();
        destroyPair(pair);
      }
    },
    hang: () => {
      mode = 'hang';
    },
    dropResponses: () => {
      mode = 'drop-responses';
    },
    restore: () => {
      const wasHung = mode === 'hang';
      mode = 'forward';
      if (wasHung) for (const pair of [...pairs]) destroyPair(pair);
    },
    connectionCount: () => accepted,
    close: async () => {
      for (const pair of [...pairs]) destroyPair(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
