import { afterAll, describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/** How long after its event each delivery a receiver got arrived (ms, ascending), and their 99th percentile. */
const deliveryLatencies = (receiver: WebhookReceiver) => {
  const latencies = receiver.received
    .map((received) => received.at - Date.parse((JSON.parse(received.body) as { timestamp: string }).timestamp))
    .sort((a, b) => a - b);
  return { latencies, p99: latencies[Math.ceil(latencies.length * 0.99) - 1]! };
};

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

    const { latencies, p99 } = deliveryLatencies(fast);
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
  const TIMEOUT_MS = 5_000;
  const suite = useServerWithFixtures({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
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

    // No second attempt may start before the first times out: the second to arrive is the
    // later marker, and the leases are sampled until it does.
    let mostOutAtOnce = 0;
    await eventually(async () => {
      const { rows } = await suite.server.database.pool.query<{ out: number }>(
        `SELECT count(*)::int AS out FROM webhook_deliveries WHERE status = 'pending' AND lease_until > now()`,
      );
      mostOutAtOnce = Math.max(mostOutAtOnce, rows[0]!.out);
      return hanging!.received.length >= 2;
    }, 60_000);
    expect(mostOutAtOnce).toBe(1);
    const [first, second] = hanging.received;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(TIMEOUT_MS / 2);
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

/**
 * Seven receivers that never answer beside a healthy one, with the sending slots at their
 * defaults (8, 2 per endpoint, 10 s timeout). Without a breaker, the hanging endpoints' backlog
 * took every slot, a whole timeout at a time, for as long as it lasted: a fresh endpoint got a
 * few of its events in a minute. An endpoint whose attempts keep timing out is parked (its jobs
 * leave the queue) and probed with one delivery at a time after a cooldown; probes take at most
 * half a process's slots. A receiver that answers again gets its backlog at the next probe: one
 * of the seven does so as the healthy endpoint's traffic starts, so that its probe (30 s after its
 * breaker opened) and its drained backlog fall inside that traffic too.
 */
describe('a circuit breaker for endpoints that keep timing out', () => {
  const suite = useServerWithFixtures({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_TIMEOUT_MS: '',
    WEBHOOK_CONCURRENCY: '',
    WEBHOOK_ENDPOINT_CONCURRENCY: '',
    LOG_LEVEL: 'silent',
  });
  const receivers: WebhookReceiver[] = [];
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  /** Deliveries being sent to these endpoints right now (their leases). */
  const outTo = async (endpointIds: number[]) =>
    (
      await suite.server.database.pool.query<{ out: number }>(
        `SELECT count(*)::int AS out FROM webhook_deliveries
         WHERE endpoint_id = ANY($1::int[]) AND status = 'pending' AND lease_until > now()`,
        [endpointIds],
      )
    ).rows[0]!.out;

  it("keeps a healthy endpoint's p99 under 5 s beside 7 hanging ones, and resumes one that answers again", async () => {
    const { http } = suite.server;
    const hanging = await Promise.all(
      Array.from({ length: 7 }, () => startWebhookReceiver(() => ({ status: 200, delayMs: 120_000 }))),
    );
    receivers.push(...hanging);
    const hangingIds: number[] = [];
    for (const receiver of hanging) {
      hangingIds.push((await http.post('/webhook-endpoints').send({ url: receiver.url }).expect(201)).body.data.id);
    }
    // A backlog of 60 orders for each hanging endpoint: 420 jobs queued ahead of anything else.
    await http
      .post('/sales-orders/bulk')
      .send({ orders: Array.from({ length: 60 }, () => orderBody(suite.fixtures)) })
      .expect(201);
    // Every hanging endpoint has timed out twice (its share, a timeout at a time).
    await eventually(async () => {
      const { rows } = await suite.server.database.pool.query<{ endpoints: number }>(
        `SELECT count(*)::int AS endpoints FROM (
           SELECT d.endpoint_id FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
           WHERE d.endpoint_id = ANY($1::int[]) AND a.error LIKE 'no complete answer%'
           GROUP BY d.endpoint_id HAVING count(*) >= 2) timed_out`,
        [hangingIds],
      );
      return rows[0]!.endpoints === hangingIds.length;
    }, 120_000);

    // One of them answers again from now on: its next probe succeeds and its whole backlog follows,
    // beside the healthy endpoint's traffic. The other six keep hanging.
    const [recovering, ...stillHanging] = hanging;
    const stillHangingIds = hangingIds.slice(1);
    recovering!.respondWith(() => ({ status: 204 }));

    // A fresh endpoint now, as the red team's: 45 orders over about 45 s.
    const healthy = await startWebhookReceiver(() => ({ status: 204 }));
    receivers.push(healthy);
    await http.post('/webhook-endpoints').send({ url: healthy.url }).expect(201);
    let mostHangingOut = 0;
    const orders = 45;
    for (let index = 0; index < orders; index += 1) {
      await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201);
      mostHangingOut = Math.max(mostHangingOut, await outTo(stillHangingIds));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    await eventually(async () => healthy.received.length >= orders, 60_000);
    const { latencies, p99 } = deliveryLatencies(healthy);
    expect(p99, `healthy endpoint latencies (ms): ${latencies.join(', ')}`).toBeLessThan(5_000);
    // The hanging endpoints were probed meanwhile, at most half the 8 slots at once.
    expect(mostHangingOut).toBeLessThanOrEqual(4);
    const hangingReceived = stillHanging.reduce((sum, receiver) => sum + receiver.received.length, 0);
    // Parked: far fewer attempts than their 6 x 106 pending deliveries, two slots each, would make.
    expect(hangingReceived).toBeLessThan(6 * 2 * 10);

    // The one that answers again was probed, and its whole backlog (60 orders before, 45 during) followed.
    await eventually(async () => {
      const { rows } = await suite.server.database.pool.query<{ pending: number }>(
        `SELECT count(*)::int AS pending FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`,
        [hangingIds[0]],
      );
      return rows[0]!.pending === 0;
    }, 180_000);
    const { rows: sent } = await suite.server.database.pool.query<{ succeeded: number; total: number }>(
      `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded, count(*)::int AS total
       FROM webhook_deliveries WHERE endpoint_id = $1`,
      [hangingIds[0]],
    );
    expect(sent[0]).toEqual({ succeeded: sent[0]!.total, total: sent[0]!.total });
    expect(sent[0]!.total).toBeGreaterThanOrEqual(60 + orders);
  }, 480_000);
});

/**
 * Jobs of an endpoint that is disabled or deleted leave the queue at once: drained one by one,
 * each took a sending slot ahead of every other endpoint's deliveries.
 */
describe('jobs of a disabled or deleted endpoint', () => {
  const suite = useServerWithFixtures({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_CONCURRENCY: '0',
    LOG_LEVEL: 'silent',
  });

  /** Jobs waiting in the delivery queue for an endpoint. */
  const queuedFor = async (endpointId: number) =>
    (
      await suite.server.database.pool.query<{ queued: number }>(
        `SELECT count(*)::int AS queued FROM pgboss.job
         WHERE name = 'webhook-deliveries' AND (data->>'endpoint_id')::int = $1 AND state < 'active'`,
        [endpointId],
      )
    ).rows[0]!.queued;

  it('leave the queue when it is disabled, come back when it is enabled, and leave it when it is deleted', async () => {
    const { http } = suite.server;
    // No sending slots here: the jobs stay queued until something removes them.
    const endpoint = (await http.post('/webhook-endpoints').send({ url: 'http://127.0.0.1:9/never' }).expect(201)).body
      .data.id as number;
    for (let sent = 0; sent < 300; sent += 100) {
      await http
        .post('/sales-orders/bulk')
        .send({ orders: Array.from({ length: 100 }, () => orderBody(suite.fixtures)) })
        .expect(201);
    }
    await eventually(async () => (await queuedFor(endpoint)) === 300, 60_000);
    await http.patch(`/webhook-endpoints/${endpoint}`).send({ enabled: false }).expect(200);
    expect(await queuedFor(endpoint)).toBe(0);
    await http.patch(`/webhook-endpoints/${endpoint}`).send({ enabled: true }).expect(200);
    expect(await queuedFor(endpoint)).toBe(300);
    await http.delete(`/webhook-endpoints/${endpoint}`).expect(200);
    expect(await queuedFor(endpoint)).toBe(0);
  }, 120_000);
});
