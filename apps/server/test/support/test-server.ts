import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

import type { DestinationStream } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, inject } from 'vitest';

import { type Database, openDatabase } from '../../src/db/database.js';
import { type EventProcessing, startEventProcessing } from '../../src/events/event-processing.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/http/redis-client.js';
import { startIdempotencyPurge } from '../../src/idempotency/idempotency-purge.js';
import { startJobQueue } from '../../src/jobs/job-queue.js';
import { createLogger } from '../../src/observability/logger.js';
import { createApp } from '../../src/startup/app.js';
import { loadConfig } from '../../src/startup/config.js';
import { createHttpServer } from '../../src/startup/http-server.js';
import { createFixtures, type Fixtures } from './fixtures.js';
import { adminQuery, databaseUrl } from './postgres-server.js';
import { signJwt, TEST_JWT_SECRET } from './tokens.js';

export interface TestServer {
  /** Origin of the running server, e.g. http://127.0.0.1:54321 */
  origin: string;
  /** Base of the API routes: origin + BASE_PATH. */
  api: string;
  /**
   * An HTTP client for the API routes (paths relative to `api`) that sends whatever a
   * well-behaved caller sends by default, including an all-permission Bearer token for the
   * subject TEST_SUBJECT; tests about misbehaving or unauthenticated callers use `request(api)`.
   */
  http: ReturnType<typeof request.agent>;
  database: Database;
  /** The server's events machinery (relay, delivery queue and workers, purge). */
  events: EventProcessing;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Where the server's JSON log lines go (LOG_LEVEL must let them through). */
  logStream?: DestinationStream;
  /** Called with the SQL of every statement the server's Prisma client sends. */
  onQuery?: (sql: string) => void;
  /**
   * The default TimeZone of the test database (`ALTER DATABASE ... SET timezone`), as a host's
   * PostgreSQL may have it; PostgreSQL server only.
   */
  databaseTimeZone?: string;
  /**
   * Reach the test database through this loopback port (a TcpProxy in front of the PostgreSQL
   * server from TEST_DATABASE_URL) instead of the server's own.
   */
  databasePort?: number;
}

/**
 * A database of its own for one test file: a clone of the migrated template on the
 * PostgreSQL server (TEST_DATABASE_URL), or an in-memory embedded PGlite.
 */
export const createTestDatabase = async ({
  timeZone,
  port,
  demo = false,
}: {
  timeZone?: string;
  port?: number;
  /**
   * Holding the demo data already (a clone of the demo template: milliseconds, where loading it
   * takes seconds). On PGlite the database is empty: the service loads the data itself
   * (SEED_DEMO_DATA=always).
   */
  demo?: boolean;
} = {}): Promise<{
  env: Record<string, string>;
  drop(): Promise<void>;
}> => {
  const template = inject(demo ? 'demoTemplateDatabase' : 'templateDatabase');
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!template || !serverUrl) {
    if (timeZone !== undefined) throw new Error('databaseTimeZone needs TEST_DATABASE_URL');
    if (port !== undefined) throw new Error('a database port needs TEST_DATABASE_URL (a PostgreSQL server)');
    // No LISTEN on the embedded database: a row a test writes with SQL, as the host would, is
    // seen by the cached credentials and dropdowns only after their TTL (docs/configuration.md),
    // so here they read on every request unless a test sets a TTL itself. The tests of
    // invalidation by NOTIFY need TEST_DATABASE_URL.
    return {
      env: { DATA_DIR: 'memory://', AUTH_CACHE_TTL_MS: '0', MASTER_DATA_CACHE_TTL_MS: '0' },
      drop: async () => {},
    };
  }
  const name = template.replace(/(_demo)?_template$/, `_${randomBytes(6).toString('hex')}`);
  await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  if (timeZone !== undefined) await adminQuery(serverUrl, `ALTER DATABASE "${name}" SET timezone = '${timeZone}'`);
  const url = new URL(databaseUrl(serverUrl, name));
  if (port !== undefined) {
    url.hostname = '127.0.0.1';
    url.port = String(port);
  }
  return {
    env: { DATABASE_URL: url.toString() },
    drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => {}),
  };
};

/** With TEST_REDIS_URL, every test server counts in that Redis under keys of its own. */
const redisEnvironment = (): Record<string, string> => {
  const url = process.env.TEST_REDIS_URL;
  return url ? { REDIS_URL: url, REDIS_KEY_PREFIX: `so-test:${randomBytes(6).toString('hex')}:` } : {};
};

const whenReady = async (redis: RedisClient) => {
  if (!redis.isReady) await once(redis, 'ready');
};

/**
 * Bounds far above the service's defaults (database: 1 s connection wait, 1.5 s statement, 1 s
 * lock wait; Redis: 50 ms), so that only the outage tests meet them, not the tests that queue
 * many transactions or count requests exactly on a loaded machine. Outage tests pass
 * SERVICE_DEFAULT_DATABASE_TIMEOUTS or an empty REDIS_TIMEOUT_MS.
 */
const GENEROUS_TIMEOUTS = {
  DATABASE_CONNECT_TIMEOUT_MS: '10000',
  DATABASE_STATEMENT_TIMEOUT_MS: '30000',
  DATABASE_LOCK_TIMEOUT_MS: '10000',
  REDIS_TIMEOUT_MS: '1000',
  // A request may wait 30 s for a connection, not 10: on a machine at load 28 the connection
  // gate's estimate of the wait passed 10 s and refused the set-up calls of tests about other
  // things (DatabaseOverloadedError). The tests about shedding set their own deadline.
  REQUEST_DEADLINE_MS: '30000',
};

/** Empty values: the service's own defaults, as an operator who leaves them unset gets. */
export const SERVICE_DEFAULT_DATABASE_TIMEOUTS = {
  DATABASE_CONNECT_TIMEOUT_MS: '',
  DATABASE_STATEMENT_TIMEOUT_MS: '',
  DATABASE_LOCK_TIMEOUT_MS: '',
};

/**
 * The real service on a loopback port, over its own database: what tests talk to through
 * HTTP. `env` overrides configuration variables, exactly as an operator would set them; by
 * default the server accepts HS256 tokens signed with TEST_JWT_SECRET, allows 100000
 * requests a minute (so only the tests about the rate limit meet it) and waits for the
 * database and Redis far longer than the service's defaults (GENEROUS_TIMEOUTS).
 */
export const startTestServer = async (
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<TestServer> => {
  const testDatabase = await createTestDatabase({ timeZone: options.databaseTimeZone, port: options.databasePort });
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    RATE_LIMIT_PER_MINUTE: '100000',
    ...GENEROUS_TIMEOUTS,
    ...redisEnvironment(),
    ...testDatabase.env,
    ...env,
  });
  const logger = createLogger(config.logLevel, options.logStream);
  const database = await openDatabase(config, { onQuery: options.onQuery, logger });
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;
  // A test that points REDIS_URL somewhere unreachable wants the fallback, not a wait.
  if (redis && env.REDIS_URL === undefined) await whenReady(redis);
  const jobs = await startJobQueue(database, logger);
  const events = await startEventProcessing(database, config, { jobs, logger, purge: true });
  const app = createApp({ config, logger, database, events, jobs, redis });
  const idempotencyPurge = startIdempotencyPurge(database.prisma, {
    intervalSeconds: config.idempotency.purgeIntervalSeconds,
    logger,
  });
  const server = createHttpServer(app, config, logger).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const http = request.agent(`${origin}${config.basePath}`);
  // Long enough for any test file; harmless where a test configures other JWT keys.
  http.set('Authorization', `Bearer ${await signJwt({ payload: { permissions: ['*'] }, expiresIn: '2h' })}`);
  return {
    origin,
    api: `${origin}${config.basePath}`,
    http,
    database,
    events,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await idempotencyPurge.stop();
      await events.stop();
      await jobs.stop();
      await database.close();
      if (redis) await closeRedis(redis);
      await testDatabase.drop();
    },
  };
};

/**
 * Registers the usual suite hooks: a test server with the fixtures before the suite's tests,
 * closed after them. Read `suite.server` and `suite.fixtures` inside tests and hooks.
 */
export const useServerWithFixtures = (env: Record<string, string> = {}, options: TestServerOptions = {}) => {
  let server: TestServer | undefined;
  let fixtures: Fixtures | undefined;
  beforeAll(async () => {
    server = await startTestServer(env, options);
    fixtures = await createFixtures(server.database.prisma);
  });
  afterAll(() => server?.close());
  return {
    get server(): TestServer {
      if (!server) throw new Error('the test server starts in beforeAll');
      return server;
    },
    get fixtures(): Fixtures {
      if (!fixtures) throw new Error('the fixtures are created in beforeAll');
      return fixtures;
    },
  };
};
