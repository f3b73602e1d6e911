import { randomBytes } from 'node:crypto';

import { createClient } from 'redis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { captureLog, WARN_LEVEL } from './support/log-capture.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const redisUrl = process.env.TEST_REDIS_URL;

/**
 * What a hung Redis may add to a request: the 50 ms fallback timeout, plus slack for a loaded
 * two-core machine. Before the fallback was bounded, every request waited 500 ms.
 */
const ADDED_LATENCY_BOUND_MS = 250;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe.skipIf(!redisUrl)('the rate limit while Redis hangs, through a TCP proxy (needs TEST_REDIS_URL)', () => {
  const log = captureLog();
  const prefix = `so-test:${randomBytes(6).toString('hex')}:`;
  const reader = createClient({ url: redisUrl });
  let proxy: TcpProxy;
  let server: TestServer;

  beforeAll(async () => {
    const target = new URL(redisUrl!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    server = await startTestServer(
      {
        // The same database number as TEST_REDIS_URL's, which `reader` reads.
        REDIS_URL: `redis://127.0.0.1:${proxy.port}${target.pathname}`,
        REDIS_KEY_PREFIX: prefix,
        // The service's default (50 ms), not the harness's generous one.
        REDIS_TIMEOUT_MS: '',
        RATE_LIMIT_PER_MINUTE: '1000',
        LOG_LEVEL: 'info',
      },
      { logStream: log.stream },
    );
    await reader.connect();
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    if (reader.isOpen) await reader.close();
  });

  /** A rate-limited route that needs neither credentials nor the database. */
  const limitedCall = async () => {
    const started = Date.now();
    const response = await request(server.api).get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.ratelimit).toMatch(/^"1000-in-1min"; r=\d+; t=\d+$/);
    return { elapsed: Date.now() - started, remaining: Number(/r=(\d+)/.exec(String(response.headers.ratelimit))![1]) };
  };

  /** This server's count for this client, as stored in Redis (0 before the first). */
  const sharedCount = async () => {
    const keys = await reader.keys(`${prefix}*`);
    return keys.length === 0 ? 0 : Number(await reader.get(keys[0]!));
  };

  it('answers each request within about 50 ms of added latency, counting in memory, and counts in Redis again once it answers', async () => {
    // Counting in Redis: each request moves the shared count.
    await vi.waitFor(
      async () => {
        const before = await sharedCount();
        await limitedCall();
        expect(await sharedCount()).toBe(before + 1);
      },
      { timeout: 10_000, interval: 100 },
    );
    const baseline = median(
      await Promise.all([0, 1, 2, 3, 4].map(() => limitedCall())).then((calls) => calls.map((call) => call.elapsed)),
    );
    const countBeforeHang = await sharedCount();
    const mark = log.entries.length;

    proxy.hang();
    try {
      let previous: number | undefined;
      for (let index = 0; index < 20; index += 1) {
        const { elapsed, remaining } = await limitedCall();
        expect(elapsed, `request ${index} (baseline ${baseline} ms)`).toBeLessThan(baseline + ADDED_LATENCY_BOUND_MS);
        // Still limited, in this instance's memory: every request uses up one more.
        if (previous !== undefined) expect(remaining).toBe(previous - 1);
        previous = remaining;
      }
      // At most one warning, not one per request (none when a busy moment earlier in the
      // minute already used up the throttled warning).
      const alerts = log.since(mark).filter((entry) => entry.level >= WARN_LEVEL);
      expect(alerts.length).toBeLessThanOrEqual(1);
      for (const alert of alerts) expect(alert.msg).toMatch(/Redis did not answer in time/);
    } finally {
      proxy.restore();
    }

    // Back to the shared count without a restart.
    await vi.waitFor(
      async () => {
        const before = await sharedCount();
        await limitedCall();
        expect(await sharedCount()).toBe(before + 1);
      },
      { timeout: 10_000, interval: 200 },
    );
    expect(await sharedCount()).toBeGreaterThan(countBeforeHang);
  });
});
