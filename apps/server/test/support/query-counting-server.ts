import { startTestServer, type TestServer } from './test-server.js';

export interface QueryCountingServer extends TestServer {
  /** Runs `action` and returns the SQL statements the service sent meanwhile. */
  queriesDuring(action: () => PromiseLike<unknown>): Promise<string[]>;
}

/**
 * A test server whose Prisma client reports every SQL statement it sends (Prisma's `query`
 * event), so that a test can count what one HTTP request costs. Its outbox relay is stopped.
 */
export const startQueryCountingServer = async (env: Record<string, string> = {}): Promise<QueryCountingServer> => {
  let queries: string[] = [];
  const server = await startTestServer(env, { onQuery: (sql) => queries.push(sql) });
  // The outbox relay's polls would count as the request's: it runs only when a test asks.
  await server.events.relay.stop();
  return {
    ...server,
    queriesDuring: async (action) => {
      queries = [];
      await action();
      const sent = queries;
      queries = [];
      return sent;
    },
  };
};
