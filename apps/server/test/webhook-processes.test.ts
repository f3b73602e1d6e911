import type { SalesOrderEvent, WebhookDelivery } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type Database, openDatabase } from '../src/db/database.js';
import { DELIVERY_QUEUE } from '../src/events/delivery-queue.js';
import { deliveryJobTimeoutSeconds } from '../src/events/delivery-worker.js';
import { loadConfig } from '../src/startup/config.js';
import { eventually } from './support/eventually.js';
import { createFixtures, type Fixtures, orderBody } from './support/fixtures.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from './support/server-process.js';
import { createTestDatabase } from './support/test-server.js';
import { signJwt, TEST_JWT_SECRET } from './support/tokens.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Webhooks with the real service in processes of its own on one PostgreSQL database, as an
 * operator runs it: a process killed while a delivery is under way, and two processes sharing
 * the deliveries.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'webhooks across server processes (skipped without TEST_DATABASE_URL)',
  () => {
    let testDatabase: Awaited<ReturnType<typeof createTestDatabase>>;
    let database: Database;
    let fixtures: Fixtures;
    let token: string;
    const running: ServerProcess[] = [];
    const receivers: WebhookReceiver[] = [];

    const startProcess = async (env: Record<string, string> = {}) => {
      const server = await startServerProcess({
        ...testDatabase.env,
        JWT_SECRET: TEST_JWT_SECRET,
        RATE_LIMIT_PER_MINUTE: '100000',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_RETRY_SCHEDULE: '500ms',
        // These tests are about delivery, not load: 40 concurrent writes on a CI machine busy with
        // other test files must not meet the production defaults' 1 s lock wait (503 busy) or
        // 1.5 s statement timeout (503 database_unavailable). CI saw one such 503.
        DATABASE_LOCK_TIMEOUT_MS: '10000',
        DATABASE_STATEMENT_TIMEOUT_MS: '20000',
        ...env,
      });
      running.push(server);
      return server;
    };
    /** SIGKILL, as a crash or an OOM kill ends a process: no shutdown of any kind. */
    const kill = async (server: ServerProcess) => {
      running.splice(running.indexOf(server), 1);
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGKILL');
      await exited;
    };
    const as = (server: ServerProcess) => ({
      get: (path: string) => request(server.api).get(path).set('Authorization', `Bearer ${token}`),
      post: (path: string, body?: object) => {
        const call = request(server.api).post(path).set('Authorization', `Bearer ${token}`);
        return body ? call.send(body) : call;
      },
      put: (path: string, body: object) =>
        request(server.api).put(path).set('Authorization', `Bearer ${token}`).send(body),
    });

    beforeAll(async () => {
      testDatabase = await createTestDatabase();
      database = await openDatabase(
        loadConfig({ DATABASE_URL: testDatabase.env.DATABASE_URL!, DATABASE_POOL_MAX: '2' }),
      );
      fixtures = await createFixtures(database.prisma);
      token = await signJwt({ payload: { permissions: ['*'] }, expiresIn: '1h' });
    }, 120_000);

    afterEach(async () => {
      await Promise.all(running.splice(0).map(stopServerProcess));
      for (const receiver of receivers.splice(0)) await receiver.close();
      await database.prisma.$executeRaw`DELETE FROM webhook_endpoints`;
    });

    afterAll(async () => {
      await database?.close();
      await testDatabase?.drop();
    });

    it('a process killed between the commit and the delivery: the event arrives after a restart', async () => {
      // A job expiry (2 x 5 s + 5 s) longer than a process's start on a loaded machine.
      const slowReceivers = { WEBHOOK_TIMEOUT_MS: '5000' };
      // The first request is held unanswered: the process dies with the delivery under way.
      const receiver = await startWebhookReceiver((_received, index) => ({
        status: 200,
        delayMs: index === 0 ? 120_000 : 0,
      }));
      receivers.push(receiver);
      const first = await startProcess(slowReceivers);
      const endpoint = (await as(first).post('/webhook-endpoints', { url: receiver.url }).expect(201)).body.data;
      const id = (await as(first).post('/sales-orders', orderBody(fixtures)).expect(201)).body.data.sales_order_id;
      await eventually(async () => receiver.received.length === 1, 60_000);
      await kill(first);

      // A new process takes the delivery up once the dead one's hold on it has run out: within
      // twice WEBHOOK_TIMEOUT_MS plus 15 s of the cut-off attempt, as docs/configuration.md says.
      // With pg-boss's defaults it looked for expired jobs once a minute: a process that started
      // before the job's expiry (20 s here) resent it about a minute later.
      const second = await startProcess(slowReceivers);
      await eventually(async () => receiver.received.length === 2, 60_000);
      const resentAfterMs = receiver.received[1]!.at - receiver.received[0]!.at;
      expect(resentAfterMs).toBeLessThan(2 * 5_000 + 15_000);
      const events = (await as(second).get(`/events?sales_order_id=${id}`).expect(200)).body.data
        .items as SalesOrderEvent[];
      expect(events.map((event) => event.type)).toEqual(['sales_order.created']);
      expect(receiver.received.map((received) => received.headers['webhook-id'])).toEqual([
        events[0]!.id,
        events[0]!.id,
      ]);
      receiver.verifyAll(endpoint.secret);
      await eventually(async () => {
        const [delivery] = (await as(second).get(`/webhook-endpoints/${endpoint.id}/deliveries`)).body.data
          .items as WebhookDelivery[];
        return delivery?.status === 'succeeded';
      }, 60_000);
    }, 90_000);

    it("the job queue's settings are applied at every start: a longer WEBHOOK_TIMEOUT_MS lengthens the job expiry", async () => {
      const expiry = async () =>
        (
          await database.prisma.$queryRaw<{ expire_seconds: number }[]>`
            SELECT expire_seconds FROM pgboss.queue WHERE name = ${DELIVERY_QUEUE}`
        )[0]?.expire_seconds;
      const short = await startProcess();
      expect(await expiry()).toBe(deliveryJobTimeoutSeconds(2_000));
      await kill(short);
      const long = await startProcess({ WEBHOOK_TIMEOUT_MS: '20000' });
      // 2 x 20 s + 5 s; before, the queue kept the 9 s it was created with.
      expect(await expiry()).toBe(45);
      expect(long.child.exitCode).toBeNull();
    }, 90_000);

    it('a process killed right after a commit, whatever it was doing: the event arrives after a restart', async () => {
      const receiver = await startWebhookReceiver();
      receivers.push(receiver);
      const first = await startProcess();
      await as(first).post('/webhook-endpoints', { url: receiver.url }).expect(201);
      const id = (await as(first).post('/sales-orders', orderBody(fixtures)).expect(201)).body.data.sales_order_id;
      await kill(first);
      const second = await startProcess();
      await eventually(
        async () =>
          receiver.received.some(
            (received) =>
              (JSON.parse(received.body) as { data: { sales_order_id: number } }).data.sales_order_id === id,
          ),
        60_000,
      );
      expect(second.child.exitCode).toBeNull();
    }, 90_000);

    it('two processes deliver side by side, at the same moments, without sending an event twice; each order in version order', async () => {
      const receiver = await startWebhookReceiver(() => ({ status: 200, delayMs: Math.floor(Math.random() * 20) }));
      receivers.push(receiver);
      const [a, b] = await Promise.all([startProcess(), startProcess()]);
      const endpoint = (await as(a).post('/webhook-endpoints', { url: receiver.url }).expect(201)).body.data;
      // 20 orders, each created and updated twice, half the requests through each process.
      const ids = await Promise.all(
        Array.from({ length: 20 }, async (_, index) => {
          const [one, other] = index % 2 === 0 ? [a, b] : [b, a];
          const id = (await as(one).post('/sales-orders', orderBody(fixtures)).expect(201)).body.data.sales_order_id;
          await as(other).put(`/sales-orders/${id}`, { remarks: 'second' }).expect(200);
          await as(one).put(`/sales-orders/${id}`, { remarks: 'third' }).expect(200);
          return id as number;
        }),
      );
      await eventually(async () => receiver.received.length >= 60, 60_000);
      // A later marker for each order: a fourth version. An order's events go one at a time, in
      // version order, so a duplicate of versions 1 to 3 would have arrived before it.
      await Promise.all(
        ids.map((id, index) =>
          as(index % 2 === 0 ? a : b)
            .put(`/sales-orders/${id}`, { remarks: 'fourth' })
            .expect(200),
        ),
      );
      const versionOf = (received: { body: string }) =>
        (JSON.parse(received.body) as { data: { sales_order_id: number; version: number } }).data;
      await eventually(
        async () => receiver.received.filter((received) => versionOf(received).version === 4).length >= 20,
        60_000,
      );
      const before = receiver.received.filter((received) => versionOf(received).version < 4);
      const webhookIds = before.map((received) => received.headers['webhook-id']);
      expect(new Set(webhookIds).size).toBe(60);
      expect(webhookIds).toHaveLength(60);
      receiver.verifyAll(endpoint.secret);
      const versions = new Map<number, number[]>();
      for (const received of receiver.received) {
        const data = versionOf(received);
        versions.set(data.sales_order_id, [...(versions.get(data.sales_order_id) ?? []), data.version]);
      }
      expect(versions.size).toBe(20);
      for (const [id, list] of versions) expect(list, `order ${id}`).toEqual([1, 2, 3, 4]);
    }, 90_000);
  },
);
