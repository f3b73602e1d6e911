import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type Database, openDatabase } from '../src/db/database.js';
import { loadConfig } from '../src/startup/config.js';
import { eventually } from './support/eventually.js';
import { createFixtures, type Fixtures, ORDER_DATE } from './support/fixtures.js';
import { orderWriteGate } from './support/order-write-gate.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { createTestDatabase } from './support/test-server.js';
import { signJwt, TEST_JWT_SECRET } from './support/tokens.js';

/**
 * An import whose process is killed (SIGKILL: no shutdown, a chunk cut half-way) is resumed by
 * another process once the chunk's job expires, and ends with exactly one order per order of
 * the file: the ones the dead chunk made are found again by their idempotency keys.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'an import across a killed process (skipped without TEST_DATABASE_URL)',
  () => {
    let testDatabase: Awaited<ReturnType<typeof createTestDatabase>>;
    let database: Database;
    let fixtures: Fixtures;
    let token: string;
    const running: ServerProcess[] = [];
    const ORDERS = 300;

    const startProcess = async () => {
      const server = await startServerProcess({
        ...testDatabase.env,
        JWT_SECRET: TEST_JWT_SECRET,
        RATE_LIMIT_PER_MINUTE: '100000',
        IMPORT_CHUNK_SIZE: '20',
        // The dead process's chunk runs again this long after it started.
        IMPORT_CHUNK_TIMEOUT_SECONDS: '15',
        // A loaded machine's waits, not the service's defaults (an upload once met a 1 s connection wait).
        DATABASE_CONNECT_TIMEOUT_MS: '10000',
        DATABASE_STATEMENT_TIMEOUT_MS: '30000',
        DATABASE_LOCK_TIMEOUT_MS: '10000',
      });
      running.push(server);
      return server;
    };
    const progressOf = async (server: ServerProcess, id: number) =>
      (await request(server.api).get(`/imports/${id}`).set('Authorization', `Bearer ${token}`)).body.data as {
        state: string;
        orders_created: number;
        orders_failed: number;
      };

    beforeAll(async () => {
      testDatabase = await createTestDatabase();
      database = await openDatabase(
        loadConfig({ DATABASE_URL: testDatabase.env.DATABASE_URL!, DATABASE_POOL_MAX: '2' }),
      );
      fixtures = await createFixtures(database.prisma);
      token = await signJwt({ payload: { permissions: ['*'] }, expiresIn: '1h' });
    }, 120_000);

    afterAll(async () => {
      await Promise.all(running.map(stopServerProcess));
      await database?.close();
      await testDatabase?.drop();
    });

    it('a second process resumes it, without a duplicate or a missing order', async () => {
      const f = fixtures;
      const rows = Array.from(
        { length: ORDERS },
        (_, index) =>
          `kill-${index},${f.customers.customer.id},${f.locations.dhaka.id},${ORDER_DATE},${f.products.otherProduct.id},1,10,kill-${index}`,
      );
      const csv = [
        'order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate,customer_reference',
        ...rows,
      ].join('\n');
      const first = await startProcess();
      const started = await request(first.api)
        .post('/imports')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'text/csv')
        .send(csv);
      expect(started.status).toBe(202);
      const id = started.body.data.import_id as number;

      // Some chunks done, the import still running: kill it in the middle of one. The gate holds
      // the next chunk's insert (its transaction open) until the process is dead, so a fast
      // machine cannot finish the file first.
      const gate = await orderWriteGate(testDatabase.env.DATABASE_URL);
      const made = () => database.prisma.salesOrder.count({ where: { customerReference: { startsWith: 'kill-' } } });
      let recorded: number;
      let madeAtDeath: number;
      try {
        await eventually(async () => (await progressOf(first, id)).orders_created >= 40, 120_000);
        await gate.shut();
        recorded = (await progressOf(first, id)).orders_created;
        first.child.kill('SIGKILL');
        await new Promise((resolve) => first.child.once('exit', resolve));
        running.splice(running.indexOf(first), 1);
        madeAtDeath = await made();
      } finally {
        await gate.close();
      }
      expect((await progressOf(await startProcess(), id)).state).toBe('running');
      expect(madeAtDeath).toBeLessThan(ORDERS);

      const second = running[0]!;
      await eventually(async () => (await progressOf(second, id)).state === 'completed', 240_000);
      const done = await progressOf(second, id);
      expect(done).toMatchObject({ state: 'completed', orders_created: ORDERS, orders_failed: 0 });
      // Exactly one order per row of the file.
      const orders = await database.prisma.salesOrder.findMany({
        where: { customerReference: { startsWith: 'kill-' } },
        select: { customerReference: true },
      });
      expect(orders).toHaveLength(ORDERS);
      expect(new Set(orders.map((order) => order.customerReference)).size).toBe(ORDERS);
      expect(await database.prisma.importResult.count({ where: { importId: id } })).toBe(ORDERS);
      // The kill fell after the last recorded chunk: what was made beyond it was found again, not made twice.
      expect(madeAtDeath).toBeGreaterThanOrEqual(recorded);
    }, 400_000);
  },
);
