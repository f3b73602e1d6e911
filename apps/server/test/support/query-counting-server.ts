import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from './test-server.js';

export interface QueryCountingServer {
  http: ReturnType<typeof request.agent>;
  database: Database;
  /** Runs `action` and returns the SQL statements the service sent meanwhile. */
  queriesDuring(action: () => Promise<unknown>): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The real app on its own test database (a clone on TEST_DATABASE_URL, or an in-memory
 * PGlite), whose Prisma client reports every SQL statement it sends (Prisma's `query` log
 * event), so that a test can count what one HTTP request costs.
 */
export const startQueryCountingServer = async (): Promise<QueryCountingServer> => {
  const testDatabase = await createTestDatabase();
  const config = loadConfig({ LOG_LEVEL: 'silent', ...testDatabase.env });
  let queries: string[] = [];
  const database = await openDatabase(config, {
    createClient: (adapter) => {
      const client = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
      client.$on('query', (event) => queries.push(event.query));
      // The log option only widens the client's event types; the app uses it as any other client.
      return client as unknown as PrismaClient;
    },
  });
  const server = createApp({ config, logger: createLogger(config.logLevel), database }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    http: request.agent(`${origin}${config.basePath}`),
    database,
    queriesDuring: async (action) => {
      queries = [];
      await action();
      const sent = queries;
      queries = [];
      return sent;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await database.close();
      await testDatabase.drop();
    },
  };
};
