import { randomBytes } from 'node:crypto';

import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const LIMIT = 5;
const PATH = '/sales-orders/1';

/** Asserts the envelope and headers of a refusal by the rate limit. */
const expectLimited = (response: request.Response, limit = LIMIT) => {
  expect(response.status).toBe(429);
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(response.headers.ratelimit).toMatch(new RegExp(`^"${limit}-in-1min"; r=0; t=\\d+$`));
  expect(response.headers['ratelimit-policy']).toMatch(
    new RegExp(`^"${limit}-in-1min"; q=${limit}; w=60; pk=:[A-Za-z0-9+/=]+:$`),
  );
  const message = `Too many requests: at most ${limit} per minute from one address`;
  expect(response.body).toEqual({
    success: false,
    error: { message, code: 429, details: [{ path: '', message, code: 'rate_limited' }] },
  });
};

describe('rate limit per client address', () => {
  it('allows the default 100 requests a minute and answers the 101st with 429', async () => {
    // An empty value means the default, as for an operator who leaves the variable unset.
    const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '' });
    try {
      for (let index = 1; index <= 100; index += 1) {
        const response = await server.http.post('/sales-orders/calculate-totals').send({ details: [] });
        expect(response.status, `request ${index}`).toBe(200);
        expect(response.headers.ratelimit).toMatch(new RegExp(`^"100-in-1min"; r=${100 - index}; t=\\d+$`));
      }
      expectLimited(await server.http.post('/sales-orders/calculate-totals').send({ details: [] }), 100);
    } finally {
      await server.close();
    }
  });

  describe('with the socket address (TRUST_PROXY unset)', () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    });
    afterAll(() => server?.close());

    it('counts anonymous requests before authentication, and then refuses everyone from that address', async () => {
      for (let index = 1; index <= LIMIT; index += 1) {
        const response = await request(server.api).get(PATH).set('X-Forwarded-For', `203.0.113.${index}`);
        expect(response.status).toBe(401);
        expect(response.headers.ratelimit).toMatch(new RegExp(`; r=${LIMIT - index}; `));
      }
      // A forged X-Forwarded-For buys nothing: the socket address is the same.
      expectLimited(await request(server.api).get(PATH).set('X-Forwarded-For', '198.51.100.77'));
      // Credentials do not help either: the limit comes first.
      expectLimited(await server.http.get(PATH));
      expectLimited(await request(server.api).options(PATH).set('Origin', 'https://erp.example.com'));
    });

    it('exempts the health checks, which load balancers probe often', async () => {
      expect((await request(server.origin).get('/healthz')).status).toBe(200);
      expect((await request(server.origin).get('/readyz')).status).toBe(200);
      expect((await request(server.origin).get('/healthz')).headers.ratelimit).toBeUndefined();
    });
  });

  it('counts per forwarded address when TRUST_PROXY trusts the proxy in front', async () => {
    const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'loopback' });
    try {
      const from = (address: string) => request(server.api).get(PATH).set('X-Forwarded-For', address);
      for (let index = 1; index <= LIMIT; index += 1) expect((await from('203.0.113.10')).status).toBe(401);
      expectLimited(await from('203.0.113.10'));
      // Another client behind the same proxy has its own budget.
      const other = await from('203.0.113.11');
      expect(other.status).toBe(401);
      expect(other.headers.ratelimit).toMatch(new RegExp(`; r=${LIMIT - 1}; `));
    } finally {
      await server.close();
    }
  });

  it('keeps limiting, per instance, while Redis is unreachable', async () => {
    const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(LIMIT), REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      for (let index = 1; index <= LIMIT; index += 1)
        expect((await server.http.post('/sales-orders/calculate-totals').send({ details: [] })).status).toBe(200);
      expectLimited(await server.http.post('/sales-orders/calculate-totals').send({ details: [] }));
    } finally {
      await server.close();
    }
  });
});

// Two service processes of its own start here: minutes on a loaded 2-core machine.
describe.skipIf(!process.env.TEST_REDIS_URL)(
  'rate limit shared through Redis (skipped without TEST_REDIS_URL)',
  { timeout: 240_000 },
  () => {
    const processes: ServerProcess[] = [];

    afterAll(async () => {
      await Promise.all(processes.map(stopServerProcess));
    });

    it('gives two server processes one combined budget per client', async () => {
      const shared = {
        REDIS_URL: process.env.TEST_REDIS_URL!,
        REDIS_KEY_PREFIX: `so-test:${randomBytes(6).toString('hex')}:`,
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        // A loaded machine can make a healthy Redis miss the default 50 ms (counted in memory then).
        REDIS_TIMEOUT_MS: '1000',
      };
      processes.push(...(await Promise.all([startServerProcess(shared), startServerProcess(shared)])));
      const [first, second] = processes as [ServerProcess, ServerProcess];

      // Alternating between the two: five requests in all are allowed, not five each.
      const statuses = [];
      for (const target of [first, second, first, second, first])
        statuses.push((await request(target.api).get(PATH)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      expectLimited(await request(second.api).get(PATH));
      expectLimited(await request(first.api).get(PATH));
    });
  },
);
