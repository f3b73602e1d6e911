import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { inject } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { createLogger } from '../../src/logger.js';
import { adminQuery, databaseUrl } from './postgres-server.js';

export interface TestServer {
  /** Origin of the running server, e.g. http://127.0.0.1:54321 */
  origin: string;
  /** Base of the API routes: origin + BASE_PATH. */
  api: string;
  /**
   * An HTTP client for the API routes (paths relative to `api`) that sends whatever a
   * well-behaved caller sends by default; tests about misbehaving callers use `request(api)`.
   */
  http: ReturnType<typeof request.agent>;
  database: Database;
  close(): Promise<void>;
}

/**
 * A database of its own for one test file: a clone of the migrated template on the
 * PostgreSQL server (TEST_DATABASE_URL), or an in-memory embedded PGlite.
 */
export const createTestDatabase = async (): Promise<{ env: Record<string, string>; drop(): Promise<void> }> => {
  const template = inject('templateDatabase');
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!template || !serverUrl) {
    return { env: { DATA_DIR: 'memory://' }, drop: async () => {} };
  }
  const name = template.replace(/_template$/, `_${randomBytes(6).toString('hex')}`);
  await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  return {
    env: { DATABASE_URL: databaseUrl(serverUrl, name) },
    drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => {}),
  };
};

/**
 * The real service on a loopback port, over its own database: what tests talk to through
 * HTTP. `env` overrides configuration variables, exactly as an operator would set them.
 */
export const startTestServer = async (env: Record<string, string> = {}): Promise<TestServer> => {
  const testDatabase = await createTestDatabase();
  const config = loadConfig({ LOG_LEVEL: 'silent', ...testDatabase.env, ...env });
  const database = await openDatabase(config);
  const app = createApp({ config, logger: createLogger(config.logLevel), database });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    api: `${origin}${config.basePath}`,
    http: request.agent(`${origin}${config.basePath}`),
    database,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await database.close();
      await testDatabase.drop();
    },
  };
};
