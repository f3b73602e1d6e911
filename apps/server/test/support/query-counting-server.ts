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
  // A JWT subject's scope is written at its first request (auth/jwt-subject-scopes.ts), and not
  // again while it stays the same: the harness's first request is made here, so no test counts it.
  await server.http.get('/webhook-endpoints').expect(200);
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
