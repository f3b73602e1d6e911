import { describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { SERVICE_DEFAULT_DATABASE_TIMEOUTS, useServerWithFixtures } from './support/test-server.js';

/**
 * Ordinary concurrency on a healthy database: with the default pool (10) and
 * DATABASE_CONNECT_TIMEOUT_MS (1 s), a burst waits its turn for a connection up to its request
 * deadline instead of failing after pg-pool's 1 s acquire timeout (before: 100 concurrent creates
 * got 40 x 503, confirms sharing a product 175 of 250). The deadline, lock and statement bounds
 * are generous here so that the test holds on a shared two-core machine at a load of 30 and more;
 * `pnpm bench` measures the same bursts with every default.
 */
describe('a burst on one process with the default pool waits its turn: no 503', () => {
  const suite = useServerWithFixtures({
    DATABASE_CONNECT_TIMEOUT_MS: SERVICE_DEFAULT_DATABASE_TIMEOUTS.DATABASE_CONNECT_TIMEOUT_MS,
    DATABASE_POOL_MAX: '',
    REQUEST_DEADLINE_MS: '120000',
    LOG_LEVEL: 'silent',
  });
  const BURST = 200;

  /** How many answers of each status, a refusal's status with its detail code (503 busy). */
  const statusCounts = (responses: { status: number; body: { error?: { details?: { code?: string }[] } } }[]) =>
    responses.reduce<Record<string, number>>((counts, { status, body }) => {
      const key = status >= 500 ? `${status} ${body.error?.details?.[0]?.code}` : String(status);
      return { ...counts, [key]: (counts[key] ?? 0) + 1 };
    }, {});

  it('200 concurrent creates in one series all answer 201, with 200 distinct numbers', async () => {
    const { http } = suite.server;
    const responses = await Promise.all(
      Array.from({ length: BURST }, () => http.post('/sales-orders').send(orderBody(suite.fixtures))),
    );
    expect(statusCounts(responses)).toEqual({ 201: BURST });
    const numbers = new Set(responses.map((response) => response.body.data.order_number as string));
    expect(numbers.size).toBe(BURST);
  }, 240_000);

  it('200 concurrent confirms of orders sharing a limited product: 2xx or 422, none 503, and no oversell', async () => {
    const { http, database } = suite.server;
    const product = await createLicensedProduct(database.prisma, {
      licences: [{ validFrom: '2026-01-01', validTo: '2026-12-31', quantity: '150' }],
    });
    const ids: number[] = [];
    // The drafts ten at a time: the burst under test is the confirms.
    for (let start = 0; start < BURST; start += 10) {
      const created = await Promise.all(
        Array.from({ length: 10 }, () =>
          http
            .post('/sales-orders')
            .send(orderBody(suite.fixtures, { details: [{ product_id: product.id, quantity: 1, rate: 10 }] })),
        ),
      );
      expect(statusCounts(created), JSON.stringify(created.find((response) => response.status !== 201)?.body)).toEqual({
        201: 10,
      });
      ids.push(...created.map((response) => response.body.data.sales_order_id as number));
    }
    const responses = await Promise.all(ids.map((id) => http.post(`/sales-orders/${id}/confirm`).send({})));
    // 150 units licensed: 150 confirms take one each, the other 50 meet the quota warning (422).
    expect(statusCounts(responses)).toEqual({ 200: 150, 422: 50 });
  }, 240_000);
});
