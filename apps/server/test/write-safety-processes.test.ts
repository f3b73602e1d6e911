import { randomUUID } from 'node:crypto';

import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type Database, openDatabase } from '../src/db/database.js';
import { loadConfig } from '../src/startup/config.js';
import { createFixtures, type Fixtures, orderBody } from './support/fixtures.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { createTestDatabase } from './support/test-server.js';
import { signJwt, TEST_JWT_SECRET } from './support/tokens.js';

/**
 * Idempotency-Key and If-Match where it matters most: several server processes (as behind a
 * load balancer) on one PostgreSQL database, and a process that restarts between a request
 * and its retry. Each process is the real service started as an operator starts it.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'write safety across server processes (skipped without TEST_DATABASE_URL)',
  () => {
    let testDatabase: Awaited<ReturnType<typeof createTestDatabase>>;
    let database: Database;
    let fixtures: Fixtures;
    let token: string;
    const running: ServerProcess[] = [];

    const startProcess = async () => {
      const server = await startServerProcess({
        ...testDatabase.env,
        JWT_SECRET: TEST_JWT_SECRET,
        RATE_LIMIT_PER_MINUTE: '100000',
      });
      running.push(server);
      return server;
    };
    const call = (server: ServerProcess) => ({
      post: (key: string, body: object) =>
        request(server.api)
          .post('/sales-orders')
          .set('Authorization', `Bearer ${token}`)
          .set('Idempotency-Key', key)
          .send(body),
      put: (id: number, ifMatch: string, body: object) =>
        request(server.api)
          .put(`/sales-orders/${id}`)
          .set('Authorization', `Bearer ${token}`)
          .set('If-Match', ifMatch)
          .send(body),
      get: (id: number) => request(server.api).get(`/sales-orders/${id}`).set('Authorization', `Bearer ${token}`),
    });
    const ordersWithRemarks = (remarks: string) => database.prisma.salesOrder.count({ where: { remarks } });

    beforeAll(async () => {
      testDatabase = await createTestDatabase();
      database = await openDatabase(
        loadConfig({ DATABASE_URL: testDatabase.env.DATABASE_URL!, DATABASE_POOL_MAX: '2' }),
      );
      fixtures = await createFixtures(database.prisma);
      token = await signJwt({ payload: { permissions: ['*'] }, expiresIn: '1h' });
      await Promise.all([startProcess(), startProcess()]);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(running.map(stopServerProcess));
      await database?.close();
      await testDatabase?.drop();
    });

    it("the same key through two processes: one order, and the second process replays the first one's response", async () => {
      const [a, b] = running as [ServerProcess, ServerProcess];
      const key = randomUUID();
      const body = orderBody(fixtures, { remarks: `two processes ${key}` });

      const first = await call(a).post(key, body);
      const second = await call(b).post(key, body);
      const reused = await call(b).post(key, orderBody(fixtures, { remarks: 'another body' }));

      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);
      expect(second.headers.location).toBe(first.headers.location);
      expect(reused.status).toBe(422);
      expect(reused.body.error.details[0].code).toBe('idempotency_key_reused');
      expect(await ordersWithRemarks(`two processes ${key}`)).toBe(1);
    });

    it('10 concurrent POSTs with one key spread over two processes: one order, ten identical 201 bodies', async () => {
      const key = randomUUID();
      const body = orderBody(fixtures, { remarks: `spread ${key}` });

      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, index) => call(running[index % 2]!).post(key, body)),
      );

      expect(responses.map((response) => response.status)).toEqual(Array(10).fill(201));
      for (const response of responses) expect(response.body).toEqual(responses[0]!.body);
      expect(await ordersWithRemarks(`spread ${key}`)).toBe(1);
    });

    it('replays after the server process restarts', async () => {
      const key = randomUUID();
      const body = orderBody(fixtures, { remarks: `restart ${key}` });
      const before = running[0]!;
      const first = await call(before).post(key, body);
      expect(first.status).toBe(201);

      await stopServerProcess(before);
      running.splice(running.indexOf(before), 1);
      const after = await startProcess();
      const retry = await call(after).post(key, body);

      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await ordersWithRemarks(`restart ${key}`)).toBe(1);
    });

    it("two concurrent PUTs with the same If-Match through two processes: one 200, one 412, and the stored order is the winner's", async () => {
      const [a, b] = running as [ServerProcess, ServerProcess];
      const created = await call(a).post(randomUUID(), orderBody(fixtures));
      const id = created.body.data.sales_order_id as number;
      const edits = [
        { remarks: 'edit from process A', other_charges: [{ description: 'Insurance', amount: 120.5 }] },
        {
          remarks: 'edit from process B',
          details: [{ product_id: fixtures.products.otherProduct.id, quantity: 4, rate: 250 }],
          other_charges: [],
        },
      ];

      const responses = await Promise.all([call(a).put(id, '"1"', edits[0]!), call(b).put(id, '"1"', edits[1]!)]);

      expect(responses.map((response) => response.status).sort()).toEqual([200, 412]);
      const winner = responses.findIndex((response) => response.status === 200);
      const loser = responses[1 - winner]!;
      expect(loser.body.error.details[0]).toMatchObject({ code: 'version_mismatch', current_version: 2 });
      const order = (await call(a).get(id)).body.data;
      expect(order.version).toBe(2);
      if (winner === 0) {
        expect(order).toMatchObject({
          remarks: 'edit from process A',
          subtotal: 7555,
          other_charges_total: 120.5,
          grand_total: 7675.5,
        });
        expect(order.details).toHaveLength(2);
        expect(order.other_charges).toEqual([expect.objectContaining({ description: 'Insurance', amount: 120.5 })]);
      } else {
        expect(order).toMatchObject({
          remarks: 'edit from process B',
          subtotal: 1000,
          other_charges_total: 0,
          grand_total: 1000,
        });
        expect(order.details).toEqual([
          expect.objectContaining({ product_id: fixtures.products.otherProduct.id, quantity: 4, amount: 1000 }),
        ]);
        expect(order.other_charges).toEqual([]);
      }
    });
  },
);
