import { afterAll, describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Per-endpoint fair shares of the sending slots: with one receiver that
 * never answers in time, another endpoint's deliveries never wait for its attempts to time out.
 * Before, the 8 slots were taken first come first served, in batches of 4 that waited for their
 * slowest job: the hanging endpoint's jobs held them all, a whole timeout at a time, and the
 * fast endpoint's deliveries waited that long or longer. On a quiet machine they leave within
 * 2 s of their events; the test's bound is half the timeout, so that a machine busy enough to
 * slow every delivery does not fail it while slots held by the hanging endpoint still do.
 */
describe('webhook endpoints share the sending slots fairly', () => {
  const TIMEOUT_MS = 30_000;
  const suite = useServerWithFixtures({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // The slots an operator gets by default: 8, 2 for one endpoint. A hanging attempt holds its
    // slot for 30 s (10 s by default), far from what a busy machine adds to a delivery.
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_CONCURRENCY: '',
    WEBHOOK_ENDPOINT_CONCURRENCY: '',
    WEBHOOK_RETRY_SCHEDULE: '5s',
    LOG_LEVEL: 'silent',
  });
  const receivers: WebhookReceiver[] = [];
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  const endpointIdOf = async (url: string): Promise<number> => {
    const { rows } = await suite.server.database.pool.query<{ id: number }>(
      'SELECT id FROM webhook_endpoints WHERE url = $1',
      [url],
    );
    return rows[0]!.id;
  };

  it("a hanging receiver holds its own share only: the healthy endpoint's deliveries never wait for its timeout", async () => {
    const { http } = suite.server;
    // Answers after a minute: every attempt runs into WEBHOOK_TIMEOUT_MS.
    const hanging = await startWebhookReceiver(() => ({ status: 200, delayMs: 60_000 }));
    const fast = await startWebhookReceiver(() => ({ status: 204 }));
    receivers.push(hanging, fast);
    await http.post('/webhook-endpoints').send({ url: hanging.url }).expect(201);
    await http.post('/webhook-endpoints').send({ url: fast.url }).expect(201);

    // Deliveries being sent to the hanging endpoint at once, as their leases show (the limit holds
    // across processes, so it is kept in the database, not in pg-boss's fetch alone).
    const hangingId = await endpointIdOf(hanging.url);
    let mostOutAtOnce = 0;
    const sampleOut = async () => {
      const { rows } = await suite.server.database.pool.query<{ out: number }>(
        `SELECT count(*)::int AS out FROM webhook_deliveries
         WHERE endpoint_id = $1 AND status = 'pending' AND lease_until > now()`,
        [hangingId],
      );
      mostOutAtOnce = Math.max(mostOutAtOnce, rows[0]!.out);
    };

    // 40 orders over about 12 s: each event goes to both endpoints, the hanging one's jobs
    // queued first in each pair.
    const orders = 40;
    for (let index = 0; index < orders; index += 1) {
      await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201);
      await sampleOut();
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await eventually(async () => fast.received.length >= orders, 60_000);

    const latencies = fast.received
      .map((received) => received.at - Date.parse((JSON.parse(received.body) as { timestamp: string }).timestamp))
      .sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1]!;
    expect(p99, `fast endpoint latencies (ms): ${latencies.join(', ')}`).toBeLessThan(TIMEOUT_MS / 2);
    // The hanging endpoint was being tried meanwhile, with at most its share of slots at once.
    expect(hanging.received.length).toBeGreaterThan(0);
    expect(mostOutAtOnce).toBeGreaterThan(0);
    expect(mostOutAtOnce).toBeLessThanOrEqual(2);
    expect(hanging.received.length).toBeLessThanOrEqual(
      2 * Math.ceil((Date.now() - hanging.received[0]!.at) / TIMEOUT_MS) + 2,
    );
  }, 120_000);
});

/**
 * The endpoint's limit is strict, not what pg-boss's fetch alone gives: with eight sending slots
 * woken at once by a burst, each fetch can see the endpoint's slot free at the same moment.
 */
describe("an endpoint's share of the sending slots is a limit, not a tendency", () => {
  const suite = useServerWithFixtures({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_TIMEOUT_MS: '10000',
    WEBHOOK_CONCURRENCY: '8',
    WEBHOOK_ENDPOINT_CONCURRENCY: '1',
    LOG_LEVEL: 'silent',
  });
  let hanging: WebhookReceiver | undefined;
  afterAll(async () => {
    await hanging?.close();
  });

  it('a burst of 24 orders to a hanging endpoint with a share of 1: one delivery out at a time', async () => {
    hanging = await startWebhookReceiver(() => ({ status: 200, delayMs: 60_000 }));
    await suite.server.http.post('/webhook-endpoints').send({ url: hanging.url }).expect(201);
    const orders = Array.from({ length: 24 }, () => orderBody(suite.fixtures));
    await suite.server.http.post('/sales-orders/bulk').send({ orders }).expect(201);

    // The first attempt is out; no second may start before it times out (10 s). Sampled for 3 s.
    await eventually(async () => hanging!.received.length > 0, 60_000);
    const until = Date.now() + 3_000;
    let mostOutAtOnce = 0;
    while (Date.now() < until) {
      const { rows } = await suite.server.database.pool.query<{ out: number }>(
        `SELECT count(*)::int AS out FROM webhook_deliveries WHERE status = 'pending' AND lease_until > now()`,
      );
      mostOutAtOnce = Math.max(mostOutAtOnce, rows[0]!.out);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(mostOutAtOnce).toBe(1);
    expect(hanging.received).toHaveLength(1);
  }, 60_000);
});

/**
 * A slot that finished a job takes the next at once: pg-boss waits out its polling interval (1 s)
 * after each job it hands a slot, so a backlog went out at one delivery per slot per second, and
 * to one endpoint at a few a second (a receiver answering at once drained
 * 300 deliveries in minutes, not seconds).
 */
describe("a backlog to one endpoint drains at the receiver's pace", () => {
  const suite = useServerWithFixtures({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // One slot: polled once a second, it would need 300 s for 300 deliveries.
    WEBHOOK_CONCURRENCY: '1',
    WEBHOOK_ENDPOINT_CONCURRENCY: '1',
    LOG_LEVEL: 'silent',
  });
  let receiver: WebhookReceiver | undefined;
  afterAll(async () => {
    await receiver?.close();
  });

  it('300 deliveries from one slot to a receiver that answers at once: all sent well within 300 s', async () => {
    receiver = await startWebhookReceiver(() => ({ status: 204 }));
    await suite.server.http.post('/webhook-endpoints').send({ url: receiver.url }).expect(201);
    const orders = 300;
    for (let sent = 0; sent < orders; sent += 100) {
      const batch = Array.from({ length: 100 }, () => orderBody(suite.fixtures));
      await suite.server.http.post('/sales-orders/bulk').send({ orders: batch }).expect(201);
    }
    // Half the time a slot polled once a second needs, whatever the machine's speed: slower work
    // only makes that one worse. On this 2-core machine the 300 go out in a few seconds.
    const drained = await eventually(async () => receiver!.received.length >= orders, 150_000);
    expect(drained).toBeLessThan(150_000);
    expect(new Set(receiver.received.map((received) => received.headers['webhook-id'])).size).toBe(orders);
  }, 240_000);
});
