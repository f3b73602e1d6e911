import { describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { orderBody } from './support/fixtures.js';
import { captureLog, WARN_LEVEL } from './support/log-capture.js';
import { SERVICE_DEFAULT_DATABASE_TIMEOUTS, useServerWithFixtures } from './support/test-server.js';

/**
 * A request that waits for a lock another transaction holds past DATABASE_LOCK_TIMEOUT_MS meets
 * contention, not an outage: 503 `busy` with a short Retry-After, nothing at warn or above in
 * the log, and the database still counted as available. At the service's own timeouts.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'lock contention is not a database outage (skipped without TEST_DATABASE_URL)',
  () => {
    const log = captureLog();
    const suite = useServerWithFixtures(
      { ...SERVICE_DEFAULT_DATABASE_TIMEOUTS, LOG_LEVEL: 'info', REDIS_URL: '' },
      { logStream: log.stream },
    );

    it('a PUT waiting past the lock timeout on a row another transaction holds: 503 busy, Retry-After 1, logged below warn', async () => {
      const { prisma } = suite.server.database;
      // A background poll slowed at start-up on a loaded machine can open an outage episode of
      // its own; the contention below must be judged from a database counted as available.
      await eventually(async () => suite.server.database.availability.available, 60_000);
      const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
        .sales_order_id as number;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const isHeld = new Promise<void>((resolve) => (held = resolve));
      const holder = prisma
        .$transaction(
          async (tx) => {
            await tx.$queryRaw`SELECT 1 FROM sales_orders WHERE id = ${id} FOR UPDATE`;
            held();
            await released;
          },
          { timeout: 30_000 },
        )
        .catch(() => undefined);
      await isHeld;
      const mark = log.entries.length;

      const response = await suite.server.http.put(`/sales-orders/${id}`).send({ remarks: 'contended' });
      release();
      await holder;

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('1');
      expect(response.body).toEqual({
        success: false,
        error: {
          code: 503,
          message: expect.stringMatching(/busy/),
          details: [{ path: '', code: 'busy', message: expect.any(String) }],
        },
      });
      expect(suite.server.database.availability.available).toBe(true);
      const entries = log.since(mark);
      expect(entries.filter((entry) => entry.level >= WARN_LEVEL)).toEqual([]);
      expect(entries.some((entry) => /database unavailable/.test(entry.msg ?? ''))).toBe(false);
      expect(entries.some((entry) => entry.msg === 'lock wait timed out: another request held the lock')).toBe(true);

      // Nothing was written: the same request goes through once the lock is free.
      const retried = await suite.server.http.put(`/sales-orders/${id}`).send({ remarks: 'contended' });
      expect(retried.status).toBe(200);
    });
  },
);
