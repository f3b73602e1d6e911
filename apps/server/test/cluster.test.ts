import { randomBytes } from 'node:crypto';
import { once } from 'node:events';

import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { loadConfig } from '../src/startup/config.js';
import { configProblems } from './support/config-problems.js';
import { adminQuery, databaseUrl } from './support/postgres-server.js';
import {
  connectionRefused,
  runFailingServerProcess,
  type ServerProcess,
  startServerProcess,
  stopServerProcess,
} from './support/server-process.js';

const LIMIT = 5;
const WORKERS = 2;

type LogEntry = { msg?: string; pid?: number; path?: string; status?: number };

const entries = (server: ServerProcess): LogEntry[] =>
  server.output.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogEntry);

/** Pids of the workers that logged `msg`, in order. */
const pidsOf = (server: ServerProcess, msg: string) =>
  entries(server)
    .filter((entry) => entry.msg === msg)
    .map((entry) => entry.pid!);

/** The primary says 'listening' once every worker listens (the child process is tsx's wrapper). */
const primaryPid = (server: ServerProcess) => pidsOf(server, 'listening')[0];

/**
 * One request on a connection of its own: the primary hands connections to the workers in
 * turn, so consecutive requests land on different workers (a kept-alive socket would not).
 */
const fresh = (server: ServerProcess, path: string, client: string) =>
  request(server.api).get(path).set('Connection', 'close').set('X-Forwarded-For', client);

/** An empty database: the migrations have to run for real. */
const createEmptyDatabase = async () => {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const name = `so_cluster_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  return {
    url: databaseUrl(serverUrl, name),
    drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
};

/**
 * N+k requests from one client, alternating over the workers: a budget of N shared by every
 * worker refuses exactly k (one memory store per worker would let all of them through).
 */
const expectOneBudgetAcrossWorkers = async (server: ServerProcess) => {
  const client = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
  const path = `/sales-orders/${900_000 + Math.floor(Math.random() * 10_000)}`;
  const statuses: number[] = [];
  for (let index = 0; index < LIMIT + 3; index += 1) statuses.push((await fresh(server, path, client)).status);
  expect(statuses).toEqual([...Array<number>(LIMIT).fill(401), 429, 429, 429]);
  // Both workers answered this client.
  await vi.waitFor(() => {
    const answered = entries(server).filter((entry) => entry.path === `/api${path}`);
    expect(answered).toHaveLength(LIMIT + 3);
    expect(new Set(answered.map((entry) => entry.pid)).size).toBe(WORKERS);
  });
};

describe('WEB_CONCURRENCY configuration', () => {
  const problems = (env: Record<string, string>) => configProblems(env).join('\n');

  it('defaults to one process and is parsed strictly', () => {
    expect(loadConfig({}).webConcurrency).toBe(1);
    expect(loadConfig({ WEB_CONCURRENCY: '4', DATABASE_URL: 'postgresql://db/x' }).webConcurrency).toBe(4);
    for (const value of ['0', '2 ', '1.5', '0x2', 'two', '65'])
      expect(problems({ WEB_CONCURRENCY: value, DATABASE_URL: 'postgresql://db/x' }), value).toMatch(
        /^WEB_CONCURRENCY: WEB_CONCURRENCY must be an integer from 1 to 64$/,
      );
  });

  it('refuses several workers on the embedded database at start-up, saying why', async () => {
    const { code, stderr } = await runFailingServerProcess({ WEB_CONCURRENCY: '2' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/WEB_CONCURRENCY: must be 1 with the embedded database \(DATABASE_URL unset\)/);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'WEB_CONCURRENCY=2 on a PostgreSQL server (skipped without TEST_DATABASE_URL)',
  () => {
    let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
    let server: ServerProcess;

    beforeAll(async () => {
      database = await createEmptyDatabase();
      server = await startServerProcess({
        DATABASE_URL: database.url,
        WEB_CONCURRENCY: String(WORKERS),
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        // Each test is its own client behind a trusted proxy.
        TRUST_PROXY: 'loopback',
        // Long enough that the test sees /readyz 503 on a loaded machine; it waits only for the
        // drain's end, not for this bound.
        SHUTDOWN_DRAIN_DELAY_MS: '10000',
      });
      // The primary's 'listening' line may come before its workers' own: wait for each of them.
      await vi.waitFor(() => expect(pidsOf(server, 'worker listening')).toHaveLength(WORKERS), {
        timeout: 180_000,
        interval: 200,
      });
    });
    afterAll(async () => {
      if (server) await stopServerProcess(server);
      await database?.drop();
    });

    it('applies the migrations once, in a process of its own, before any worker starts', () => {
      const log = entries(server);
      const migrated = log.filter((entry) => entry.msg?.startsWith('applied migrations: '));
      expect(migrated).toHaveLength(1);
      const workers = pidsOf(server, 'worker listening');
      expect(workers).not.toContain(migrated[0]!.pid);
      expect(log.indexOf(migrated[0]!)).toBeLessThan(log.findIndex((entry) => entry.msg === 'starting the workers'));
      expect(log.filter((entry) => entry.msg === 'worker died: starting another')).toEqual([]);
    });

    it('answers from two worker processes, each listening, none of them the primary', async () => {
      const workers = pidsOf(server, 'worker listening');
      expect(new Set(workers).size).toBe(WORKERS);
      expect(workers).not.toContain(primaryPid(server));
      for (let index = 0; index < 4; index += 1)
        expect((await fresh(server, '/sales-orders/1', `203.0.113.${index + 1}`)).status).toBe(401);
      await vi.waitFor(() => {
        const answered = entries(server).filter((entry) => entry.path === '/api/sales-orders/1');
        expect(new Set(answered.map((entry) => entry.pid))).toEqual(new Set(workers));
      });
    });

    it('keeps one rate-limit budget per client across the workers without Redis', async () => {
      await expectOneBudgetAcrossWorkers(server);
    });

    it('replaces a worker that dies, and keeps serving', { timeout: 240_000 }, async () => {
      const [victim, survivor] = pidsOf(server, 'worker listening') as [number, number];
      process.kill(victim, 'SIGKILL');
      await vi.waitFor(
        () => {
          const listening = pidsOf(server, 'worker listening');
          expect(listening).toHaveLength(WORKERS + 1);
          expect(listening.at(-1)).not.toBe(victim);
          expect(listening.at(-1)).not.toBe(survivor);
        },
        // A new worker process starts: a minute and more on a loaded 2-core machine.
        { timeout: 180_000, interval: 200 },
      );
      expect(entries(server).filter((entry) => entry.msg === 'worker died: starting another')).toHaveLength(1);
      const replacement = pidsOf(server, 'worker listening').at(-1)!;
      for (let index = 0; index < 4; index += 1)
        expect((await fresh(server, '/sales-orders/2', `203.0.113.${index + 101}`)).status).toBe(401);
      await vi.waitFor(() => {
        const answered = entries(server).filter((entry) => entry.path === '/api/sales-orders/2');
        expect(new Set(answered.map((entry) => entry.pid))).toEqual(new Set([survivor, replacement]));
      });
    });

    it(
      'on SIGTERM, every worker drains (readyz 503, requests served), stops accepting, and the service exits 0',
      { timeout: 120_000 },
      async () => {
        const origin = server.api.replace(/\/api$/, '');
        const port = Number(new URL(origin).port);
        const exited = once(server.child, 'exit');
        server.child.kill('SIGTERM');
        // Both workers: several fresh connections, all of them answered 503 by /readyz.
        await vi.waitFor(
          async () => {
            const statuses = await Promise.all(
              [1, 2, 3, 4].map(async () => (await request(origin).get('/readyz').set('Connection', 'close')).status),
            );
            expect(statuses).toEqual([503, 503, 503, 503]);
          },
          { timeout: 8_000, interval: 50 },
        );
        expect((await fresh(server, '/sales-orders/3', '203.0.113.201')).status).toBe(401);
        await vi.waitFor(async () => expect(await connectionRefused(port)).toBe(true), {
          timeout: 60_000,
          interval: 100,
        });
        const [code] = await exited;
        expect(code).toBe(0);
        const stopped = pidsOf(server, 'stopped');
        // Each live worker, then the primary.
        expect(stopped).toHaveLength(WORKERS + 1);
        expect(stopped.at(-1)).toBe(primaryPid(server));
        expect(pidsOf(server, 'draining: /readyz answers 503, requests are still served')).toHaveLength(WORKERS);
      },
    );
  },
);

describe.skipIf(!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL)(
  'WEB_CONCURRENCY=2 with Redis (skipped without TEST_DATABASE_URL and TEST_REDIS_URL)',
  () => {
    let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
    let server: ServerProcess;

    beforeAll(async () => {
      database = await createEmptyDatabase();
      server = await startServerProcess({
        DATABASE_URL: database.url,
        WEB_CONCURRENCY: String(WORKERS),
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        TRUST_PROXY: 'loopback',
        REDIS_URL: process.env.TEST_REDIS_URL!,
        REDIS_KEY_PREFIX: `so-test:${randomBytes(6).toString('hex')}:`,
        REDIS_TIMEOUT_MS: '1000',
      });
      // Until a worker reaches Redis it counts on this machine (the fallback): wait for both.
      await vi.waitFor(() => expect(new Set(pidsOf(server, 'connected to Redis')).size).toBe(WORKERS), {
        timeout: 10_000,
      });
    });
    afterAll(async () => {
      if (server) await stopServerProcess(server);
      await database?.drop();
    });

    it('keeps one rate-limit budget per client across the workers', async () => {
      await expectOneBudgetAcrossWorkers(server);
    });
  },
);
