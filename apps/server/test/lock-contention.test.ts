import { describe, expect, it } from 'vitest';

import type { Prisma } from '../src/generated/prisma/client.js';
import { eventually } from './support/eventually.js';
import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { captureLog, WARN_LEVEL } from './support/log-capture.js';
import { orderWriteGate } from './support/order-write-gate.js';
import { SERVICE_DEFAULT_DATABASE_TIMEOUTS, useServerWithFixtures } from './support/test-server.js';

/**
 * A request that waits for a lock another transaction holds past DATABASE_LOCK_TIMEOUT_MS meets
 * contention, not an outage: it tries again while its deadline (REQUEST_DEADLINE_MS, 6 s here)
 * leaves room for another wait, then 503 `busy` with a short Retry-After, nothing at warn or
 * above in the log, and the database still counted as available. At the service's own timeouts.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'lock contention is not a database outage (skipped without TEST_DATABASE_URL)',
  () => {
    const log = captureLog();
    const suite = useServerWithFixtures(
      { ...SERVICE_DEFAULT_DATABASE_TIMEOUTS, REQUEST_DEADLINE_MS: '6000', LOG_LEVEL: 'info', REDIS_URL: '' },
      { logStream: log.stream },
    );

    /** Locks the rows `lock` selects in a transaction of its own, until `release`. */
    const holdRow = async (lock: (tx: Prisma.TransactionClient) => Promise<unknown>) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const isHeld = new Promise<void>((resolve) => (held = resolve));
      const holder = suite.server.database.prisma
        .$transaction(
          async (tx) => {
            await lock(tx);
            held();
            await released;
          },
          { timeout: 30_000 },
        )
        .catch(() => undefined);
      await isHeld;
      return {
        release: async () => {
          release();
          await holder;
        },
      };
    };

    /** Holds the order's row until `release`. */
    const holdOrder = (id: number) =>
      holdRow((tx) => tx.$queryRaw`SELECT 1 FROM sales_orders WHERE id = ${id} FOR UPDATE`);

    /** When the transactions now waiting for a lock in this database began. */
    const lockWaitsStarted = async (): Promise<string[]> => {
      const rows = await suite.server.database.prisma.$queryRaw<{ started: Date }[]>`
        SELECT xact_start AS started FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      return rows.map((row) => row.started.toISOString());
    };

    /** Waits until a lock wait began, then until another transaction waits in its place: a retry. */
    const secondLockWait = async () => {
      let first: string | undefined;
      await eventually(async () => {
        [first] = await lockWaitsStarted();
        return first !== undefined;
      }, 10_000);
      await eventually(async () => {
        const waits = await lockWaitsStarted();
        return waits.length === 1 && waits[0] !== first;
      }, 10_000);
    };

    it('a create (one statement) whose wait for its series ends while its deadline has room tries again: 201', async () => {
      const gate = await orderWriteGate(suite.server.database.pool.options.connectionString);
      await gate.shut();
      const answer = suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures))
        .then((r) => r);
      try {
        await secondLockWait();
      } finally {
        await gate.open();
        await gate.close();
      }
      expect((await answer).status).toBe(201);
    });

    it('a PUT whose lock wait ends while its deadline has room tries again, and is answered 200 once the lock is free', async () => {
      const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
        .sales_order_id as number;
      const holder = await holdOrder(id);
      const answer = suite.server.http
        .put(`/sales-orders/${id}`)
        .send({ remarks: 'waited its turn' })
        .then((r) => r);
      try {
        // The PUT's first transaction waits; once lock_timeout (1 s) ends it, a new transaction
        // of the same request waits in its place. Only then is the lock released.
        await secondLockWait();
      } finally {
        await holder.release();
      }
      const response = await answer;
      expect(response.status).toBe(200);
      const read = await suite.server.http.get(`/sales-orders/${id}`).expect(200);
      expect(read.body.data.remarks).toBe('waited its turn');
    });

    it('a PUT whose lock is held past its deadline: 503 busy, Retry-After 1, logged below warn', async () => {
      // A background poll slowed at start-up on a loaded machine can open an outage episode of
      // its own; the contention below must be judged from a database counted as available.
      await eventually(async () => suite.server.database.availability.available, 60_000);
      const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
        .sales_order_id as number;
      const holder = await holdOrder(id);
      const mark = log.entries.length;

      const response = await suite.server.http.put(`/sales-orders/${id}`).send({ remarks: 'contended' });
      await holder.release();

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

    it('a delivery whose line is held past its deadline, after taking its order: 503 busy, rolled back, then recorded', async () => {
      await eventually(async () => suite.server.database.availability.available, 60_000);
      const created = await suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { status: 'confirmed', acknowledge_warnings: true }))
        .expect(201);
      const id = created.body.data.sales_order_id as number;
      const order = (await suite.server.http.get(`/sales-orders/${id}`).expect(200)).body.data;
      const lineId = order.details[0].sales_order_detail_id as number;
      // The line's row only: the delivery takes its order's row, then waits on its lines.
      const holder = await holdRow(
        (tx) => tx.$queryRaw`SELECT 1 FROM sales_order_details WHERE id = ${lineId} FOR UPDATE`,
      );
      const body = { delivery_date: ORDER_DATE, lines: [{ sales_order_detail_id: lineId, quantity: 1 }] };

      const response = await suite.server.http.post(`/sales-orders/${id}/deliveries`).send(body);
      await holder.release();

      expect(response.status).toBe(503);
      expect(response.body.error.details).toEqual([{ path: '', code: 'busy', message: expect.any(String) }]);
      expect(suite.server.database.availability.available).toBe(true);
      // Rolled back, the order's lock let go with it: the same delivery is recorded once, and only it.
      await suite.server.http.post(`/sales-orders/${id}/deliveries`).send(body).expect(201);
      const deliveries = (await suite.server.http.get(`/sales-orders/${id}/deliveries`).expect(200)).body.data;
      expect(deliveries.items).toHaveLength(1);
      const after = (await suite.server.http.get(`/sales-orders/${id}`).expect(200)).body.data;
      expect(after).toMatchObject({ version: order.version + 1 });
      expect(after.details[0]).toMatchObject({ delivered_quantity: 1 });
    });
  },
);
