import type { SalesOrderEvent, WebhookDelivery, WebhookEndpoint } from '@sales-order/contract';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { orderBody } from './support/fixtures.js';
import { captureLog, WARN_LEVEL } from './support/log-capture.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Webhooks end to end: real receivers on loopback ports, started here, that verify every
 * delivery with the `standardwebhooks` package. Loopback receivers need WEBHOOK_ALLOW_HTTP and
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS; the SSRF tests at the end run without them.
 */

const FAST_DELIVERY = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms',
  WEBHOOK_TIMEOUT_MS: '500',
  LOG_LEVEL: 'warn',
};

type Suite = ReturnType<typeof useServerWithFixtures>;

const webhookHelpers = (suite: Suite) => {
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    // Each test's endpoints and receivers go with it, so later orders reach only later tests'.
    const { http } = suite.server;
    for (const endpoint of (await http.get('/webhook-endpoints').expect(200)).body.data.items as WebhookEndpoint[]) {
      await http.delete(`/webhook-endpoints/${endpoint.id}`).expect(200);
    }
    for (const receiver of receivers.splice(0)) await receiver.close();
  });
  const receiver = async (...args: Parameters<typeof startWebhookReceiver>) => {
    const started = await startWebhookReceiver(...args);
    receivers.push(started);
    return started;
  };
  const register = async (url: string, extra: Record<string, unknown> = {}) =>
    (
      await suite.server.http
        .post('/webhook-endpoints')
        .send({ url, ...extra })
        .expect(201)
    ).body.data as WebhookEndpoint & {
      secret: string;
    };
  const createOrder = async (overrides: Record<string, unknown> = {}) =>
    (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures, overrides)).expect(201)).body.data
      .sales_order_id as number;
  const deliveries = async (endpointId: number, query: Record<string, string | number> = {}) =>
    (await suite.server.http.get(`/webhook-endpoints/${endpointId}/deliveries`).query(query).expect(200)).body.data
      .items as WebhookDelivery[];
  const eventsOf = async (id: number) => {
    await suite.server.events.relay.runOnce();
    return (await suite.server.http.get('/events').query({ sales_order_id: id }).expect(200)).body.data
      .items as SalesOrderEvent[];
  };
  return { receiver, register, createOrder, deliveries, eventsOf };
};

const payloadOf = (body: string) => JSON.parse(body) as { type: string; timestamp: string; data: { version: number } };

describe('webhook endpoints', () => {
  // Its 404s are asserted on their answers; at warn their access lines would fill the suite's output.
  const suite = useServerWithFixtures({ ...FAST_DELIVERY, LOG_LEVEL: 'silent' });
  const { register, receiver } = webhookHelpers(suite);

  it('are registered with a secret shown once, read, changed, disabled and enabled, and deleted', async () => {
    const { http } = suite.server;
    const target = await receiver();
    const response = await http
      .post('/webhook-endpoints')
      .send({ url: target.url, description: 'Warehouse', event_types: ['sales_order.created'] })
      .expect(201);
    const created = response.body.data as WebhookEndpoint & { secret: string };
    expect(response.headers.location).toBe(`/api/webhook-endpoints/${created.id}`);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(created).toMatchObject({
      url: target.url,
      description: 'Warehouse',
      event_types: ['sales_order.created'],
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      previous_secret_expires_at: null,
    });
    const read = (await http.get(`/webhook-endpoints/${created.id}`).expect(200)).body.data;
    const { secret: _secret, ...withoutSecret } = created;
    expect(read).toEqual(withoutSecret);
    expect(JSON.stringify((await http.get('/webhook-endpoints').expect(200)).body)).not.toContain(created.secret);

    const disabled = (await http.patch(`/webhook-endpoints/${created.id}`).send({ enabled: false }).expect(200)).body
      .data;
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'manual' });
    expect(disabled.disabled_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const changed = (
      await http
        .patch(`/webhook-endpoints/${created.id}`)
        .send({ enabled: true, event_types: null, description: null, url: `${target.url}/v2` })
        .expect(200)
    ).body.data;
    expect(changed).toMatchObject({
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
      event_types: null,
      description: null,
      url: `${target.url}/v2`,
    });

    await http.delete(`/webhook-endpoints/${created.id}`).expect(200, {
      success: true,
      data: { id: created.id, deleted: true },
      message: 'Webhook endpoint deleted',
    });
    await http.get(`/webhook-endpoints/${created.id}`).expect(404);
    await http.patch(`/webhook-endpoints/${created.id}`).send({ enabled: true }).expect(404);
    await http.post(`/webhook-endpoints/${created.id}/rotate-secret`).expect(404);
    await http.post(`/webhook-endpoints/${created.id}/ping`).expect(404);
    await http.get(`/webhook-endpoints/${created.id}/deliveries`).expect(404);
  });

  it('refuse what does not fit the contract (400) and a service already at its maximum (422)', async () => {
    const { http } = suite.server;
    const refused = async (body: Record<string, unknown>, path: string, status = 400) => {
      const response = await http.post('/webhook-endpoints').send(body).expect(status);
      expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    };
    await refused({ url: 'https://user:pass@hooks.example.com/in' }, 'url');
    await refused({ url: 'https://hooks.example.com/in#part' }, 'url');
    await refused({ url: 'ftp://hooks.example.com/in' }, 'url');
    await refused({ url: 'not a url' }, 'url');
    await refused({ url: `https://hooks.example.com/${'a'.repeat(2048)}` }, 'url');
    await refused({ url: 'https://127.0.0.1/in', event_types: ['sales_order.shipped'] }, 'event_types.0');
    await refused({ url: 'https://127.0.0.1/in', event_types: [] }, 'event_types');
    const endpoint = await register('http://127.0.0.1:9/in');
    await http.patch(`/webhook-endpoints/${endpoint.id}`).send({}).expect(400);

    // 49 more, as rows, then the 51st is refused.
    await suite.server.database.prisma.$executeRaw`
      INSERT INTO webhook_endpoints (url, secret, enabled, disabled_reason)
      SELECT 'http://127.0.0.1:9/in', 'whsec_AAAA', false, 'manual' FROM generate_series(1, 49)`;
    const full = await http.post('/webhook-endpoints').send({ url: 'http://127.0.0.1:9/in' }).expect(422);
    expect(full.body.error.details[0]).toMatchObject({ code: 'too_many_webhook_endpoints' });
  });

  it('need webhooks.manage', async () => {
    const api = request(suite.server.api);
    const token = `Bearer ${await signJwt({ subject: 'clerk', payload: { permissions: ['sales_orders.read', 'sales_orders.create', 'events.read'] } })}`;
    for (const call of [
      api.get('/webhook-endpoints'),
      api.post('/webhook-endpoints').send({ url: 'https://127.0.0.1/in' }),
      api.get('/webhook-endpoints/1/deliveries'),
      api.post('/webhook-endpoints/1/replay').send({ since: '2026-01-01 00:00:00' }),
      api.post('/webhook-endpoints/1/ping'),
    ]) {
      const response = await call.set('Authorization', token).expect(403);
      expect(response.body.error.message).toContain('webhooks.manage');
    }
    const manager = `Bearer ${await signJwt({ subject: 'ops', payload: { permissions: ['webhooks.manage'] } })}`;
    await api.get('/webhook-endpoints').set('Authorization', manager).expect(200);
  });
});

describe('webhook deliveries', () => {
  const log = captureLog();
  const suite = useServerWithFixtures(FAST_DELIVERY, { logStream: log.stream });
  const { receiver, register, createOrder, deliveries, eventsOf } = webhookHelpers(suite);

  it('deliver each event, signed as Standard Webhooks says, with the order as GET reads it', async () => {
    const target = await receiver();
    const endpoint = await register(target.url);
    const id = await createOrder();
    await suite.server.http.put(`/sales-orders/${id}`).send({ remarks: 'signed' }).expect(200);
    await eventually(async () => target.received.length === 2, 60_000);

    const events = await eventsOf(id);
    const order = (await suite.server.http.get(`/sales-orders/${id}`).expect(200)).body.data;
    const payloads = target.verifyAll(endpoint.secret);
    expect(payloads).toEqual(
      events.map((event) => ({ type: event.type, timestamp: expect.any(String), data: event.data })),
    );
    expect((payloads[1] as { data: unknown }).data).toEqual(order);
    for (const [index, received] of target.received.entries()) {
      const event = events[index]!;
      expect(received.headers['webhook-id']).toBe(event.id);
      expect(received.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(received.headers['webhook-timestamp']) * 1000 - received.at)).toBeLessThan(5_000);
      expect(received.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      // The body's timestamp is when the change was made.
      expect(new Date(payloadOf(received.body).timestamp).toISOString().slice(0, 19).replace('T', ' ')).toBe(
        event.occurred_at,
      );
      // The receiver's check is real: another secret does not verify, nor an altered body.
      expect(target.verifies(received, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe(false);
      const forged = received.body.replace('"sales_order_id":', '"sales_order_id":1');
      expect(forged).not.toBe(received.body);
      expect(target.verifies({ ...received, body: forged }, endpoint.secret)).toBe(false);
    }
    const listed = await deliveries(endpoint.id);
    expect(
      listed.map(({ event_id, event_type, version, status, attempts }) => ({
        event_id,
        event_type,
        version,
        status,
        codes: attempts.map((attempt) => attempt.status_code),
      })),
    ).toEqual([
      { event_id: events[1]!.id, event_type: 'sales_order.updated', version: 2, status: 'succeeded', codes: [204] },
      { event_id: events[0]!.id, event_type: 'sales_order.created', version: 1, status: 'succeeded', codes: [204] },
    ]);
  });

  it('deliver only the event types an endpoint takes', async () => {
    const target = await receiver();
    await register(target.url, { event_types: ['sales_order.deleted'] });
    const id = await createOrder();
    await suite.server.http.put(`/sales-orders/${id}`).send({ remarks: 'not sent' }).expect(200);
    await suite.server.http.delete(`/sales-orders/${id}`).expect(200);
    // The deletion is the order's last version: its earlier events, had they been sent, go
    // before it (an order's events go one at a time, in version order).
    await eventually(
      async () => target.received.some((received) => payloadOf(received.body).type === 'sales_order.deleted'),
      60_000,
    );
    expect(target.received.map((received) => payloadOf(received.body).type)).toEqual(['sales_order.deleted']);
  });

  it('retry a receiver that fails twice, on the schedule, with the same webhook-id, until it answers 2xx', async () => {
    const target = await receiver((_received, index) => ({ status: index < 2 ? 500 : 200 }));
    const endpoint = await register(target.url);
    await createOrder();
    await eventually(async () => {
      const [delivery] = await deliveries(endpoint.id);
      return delivery?.attempts.length === 1;
    }, 60_000);
    const [pending] = await deliveries(endpoint.id);
    expect(pending).toMatchObject({ status: 'pending', attempts: [{ status_code: 500, error: null }] });
    expect(pending!.next_attempt_at).not.toBeNull();

    await eventually(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded', 60_000);
    const [delivery] = await deliveries(endpoint.id);
    expect(delivery!.attempts.map((attempt) => attempt.status_code)).toEqual([500, 500, 200]);
    expect(delivery!.next_attempt_at).toBeNull();
    expect(new Set(target.received.map((received) => received.headers['webhook-id']))).toEqual(
      new Set([delivery!.event_id]),
    );
    target.verifyAll(endpoint.secret);
    // Each retry waited at least its 300 ms.
    for (let index = 1; index < target.received.length; index += 1) {
      expect(target.received[index]!.at - target.received[index - 1]!.at).toBeGreaterThanOrEqual(290);
    }
    const [{ failing_since }] = [(await suite.server.http.get(`/webhook-endpoints/${endpoint.id}`)).body.data];
    expect(failing_since).toBeNull();
  });

  it('count a receiver slower than WEBHOOK_TIMEOUT_MS as failed, and send again', async () => {
    const target = await receiver((_received, index) => ({ status: 200, delayMs: index === 0 ? 2_000 : 0 }));
    const endpoint = await register(target.url);
    await createOrder();
    await eventually(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded', 60_000);
    const [delivery] = await deliveries(endpoint.id);
    expect(delivery!.attempts).toMatchObject([
      { status_code: null, error: 'no complete answer within 500 ms' },
      { status_code: 200, error: null },
    ]);
    expect(delivery!.attempts[0]!.latency_ms).toBeGreaterThanOrEqual(490);
    expect(delivery!.attempts[0]!.latency_ms).toBeLessThan(1_500);
  });

  it('mark a delivery failed once the schedule is spent, and go on with the order’s next event', async () => {
    const target = await receiver(() => ({ status: 503 }));
    const endpoint = await register(target.url);
    const id = await createOrder();
    await eventually(async () => (await deliveries(endpoint.id))[0]?.status === 'failed', 60_000);
    const [failed] = await deliveries(endpoint.id);
    expect(failed!.attempts.map((attempt) => attempt.status_code)).toEqual([503, 503, 503, 503]);
    expect(failed!.next_attempt_at).toBeNull();
    expect((await deliveries(endpoint.id, { status: 'failed' })).map((each) => each.delivery_id)).toEqual([
      failed!.delivery_id,
    ]);
    expect(await deliveries(endpoint.id, { status: 'pending' })).toEqual([]);

    target.respondWith(() => ({ status: 200 }));
    await suite.server.http.put(`/sales-orders/${id}`).send({ remarks: 'after the failure' }).expect(200);
    await eventually(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded', 60_000);
    expect(payloadOf(target.received.at(-1)!.body)).toMatchObject({
      type: 'sales_order.updated',
      data: { version: 2 },
    });
  });

  it('disable an endpoint at once when it answers 410 Gone, saying so in its GET and the log', async () => {
    const target = await receiver(() => ({ status: 410 }));
    const endpoint = await register(target.url);
    const mark = log.entries.length;
    await createOrder();
    await eventually(
      async () => (await suite.server.http.get(`/webhook-endpoints/${endpoint.id}`)).body.data.enabled === false,
      60_000,
    );
    const read = (await suite.server.http.get(`/webhook-endpoints/${endpoint.id}`).expect(200)).body.data;
    expect(read).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    const [delivery] = await deliveries(endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: [{ status_code: 410 }] });
    expect(
      log.since(mark).filter((entry) => entry.level === WARN_LEVEL && entry.webhookEndpointId === endpoint.id),
    ).toMatchObject([{ msg: 'webhook endpoint disabled: the receiver answered 410 Gone', reason: 'gone' }]);
    // Nothing more goes to it: an endpoint registered now, which the next order's event reaches,
    // is the later marker.
    const witness = await receiver();
    await register(witness.url);
    await createOrder();
    await suite.server.events.relay.runOnce();
    await eventually(async () => witness.received.length >= 1, 60_000);
    expect(target.received).toHaveLength(1);
    expect(await deliveries(endpoint.id)).toHaveLength(1);
  });

  it('disable an endpoint whose deliveries have all failed for 3 days, not one failing for less', async () => {
    const target = await receiver(() => ({ status: 500 }));
    const endpoint = await register(target.url);
    const young = await register(target.url);
    const { prisma } = suite.server.database;
    await prisma.$executeRaw`UPDATE webhook_endpoints SET failing_since = now() - interval '3 days 1 minute' WHERE id = ${endpoint.id}`;
    await prisma.$executeRaw`UPDATE webhook_endpoints SET failing_since = now() - interval '2 days 23 hours' WHERE id = ${young.id}`;
    const mark = log.entries.length;
    await createOrder();
    await eventually(async () => target.received.length >= 2, 60_000);
    await eventually(
      async () => (await suite.server.http.get(`/webhook-endpoints/${endpoint.id}`)).body.data.enabled === false,
      60_000,
    );
    expect((await suite.server.http.get(`/webhook-endpoints/${endpoint.id}`)).body.data).toMatchObject({
      enabled: false,
      disabled_reason: 'failing',
    });
    expect(log.since(mark).filter((entry) => entry.level === WARN_LEVEL)).toMatchObject([
      { msg: 'webhook endpoint disabled: every delivery failed for 3 days', webhookEndpointId: endpoint.id },
    ]);
    expect((await suite.server.http.get(`/webhook-endpoints/${young.id}`)).body.data).toMatchObject({
      enabled: true,
      disabled_reason: null,
    });
    // Its delivery waits; enabled again, it resumes and the streak starts over.
    target.respondWith(() => ({ status: 200 }));
    const before = target.received.length;
    await suite.server.http.patch(`/webhook-endpoints/${endpoint.id}`).send({ enabled: true }).expect(200);
    await eventually(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded', 60_000);
    expect(target.received.length).toBeGreaterThan(before);
    expect((await suite.server.http.get(`/webhook-endpoints/${endpoint.id}`)).body.data.failing_since).toBeNull();
  });

  it('follow no redirect, and read no more than a capped part of an answer', async () => {
    const elsewhere = await receiver();
    // The redirect's Location is the other receiver: nothing must reach it.
    const redirecting = await receiver(() => ({ status: 307, headers: { location: elsewhere.url } }));
    const redirect = await register(redirecting.url);
    const endless = await startEndlessReceiver();
    try {
      const chatty = await register(endless.url);
      await createOrder();
      await eventually(async () => (await deliveries(redirect.id))[0]?.attempts.length === 1, 60_000);
      expect((await deliveries(redirect.id))[0]!.attempts[0]).toMatchObject({ status_code: 307, error: null });
      await eventually(async () => (await deliveries(chatty.id))[0]?.status === 'succeeded', 60_000);
      // A 200 that streams without end: read up to the cap, then dropped, well within the timeout.
      const [attempt] = (await deliveries(chatty.id))[0]!.attempts;
      expect(attempt).toMatchObject({ status_code: 200, error: null });
      expect(attempt!.latency_ms).toBeLessThan(450);
      expect(elsewhere.received).toHaveLength(0);
      await eventually(async () => endless.dropped(), 60_000);
    } finally {
      await endless.close();
    }
  });

  it('send the events of one order in version order, a retry holding back the next version', async () => {
    // The first try of each event fails: version k+1 must not go before version k succeeded.
    const tried = new Set<string>();
    const target = await receiver((received) => {
      const id = received.headers['webhook-id'] as string;
      const first = !tried.has(id);
      tried.add(id);
      return { status: first ? 500 : 200, delayMs: Math.floor(Math.random() * 30) };
    });
    const endpoint = await register(target.url);
    const id = await createOrder();
    for (let version = 2; version <= 6; version += 1) {
      await suite.server.http
        .put(`/sales-orders/${id}`)
        .send({ remarks: `v${version}` })
        .expect(200);
    }
    await eventually(
      async () =>
        target.received.filter((received) => tried.has(received.headers['webhook-id'] as string)).length === 12,
      60_000,
    );
    const versions = target.received.map((received) => payloadOf(received.body).data.version);
    expect(versions).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
    // The last delivery is recorded once the receiver's answer is back, a moment after it arrived.
    await eventually(
      async () => (await deliveries(endpoint.id)).every((delivery) => delivery.status === 'succeeded'),
      60_000,
    );
  });

  it('replay kept events after a feed cursor or since an instant, with their own ids; refused while disabled', async () => {
    const { http } = suite.server;
    await suite.server.events.relay.runOnce();
    const start = (await http.get('/events').query({ limit: 500 })).body.data;
    let cursor = start.next_cursor as string;
    for (let more = start.has_more; more;) {
      const page = (await http.get('/events').query({ after: cursor, limit: 500 })).body.data;
      cursor = page.next_cursor;
      more = page.has_more;
    }
    // The next whole second on the database's clock: every earlier event lies before it, and
    // the orders made once the clock has passed it lie after it.
    const since = (
      await suite.server.database.prisma.$queryRaw<{ next: string }[]>`
      SELECT to_char(date_trunc('second', now() AT TIME ZONE 'UTC') + interval '1 second', 'YYYY-MM-DD HH24:MI:SS') AS next`
    )[0]!.next;
    await eventually(
      async () =>
        (
          await suite.server.database.prisma.$queryRaw<{ passed: boolean }[]>`
          SELECT now() AT TIME ZONE 'UTC' >= ${since}::timestamp AS passed`
        )[0]!.passed,
      10_000,
    );
    const ids = [await createOrder(), await createOrder(), await createOrder()];
    const events = (await Promise.all(ids.map((id) => eventsOf(id)))).flat();

    // Registered after the orders: nothing is sent to it until it asks for a replay.
    const target = await receiver();
    const endpoint = await register(target.url);
    const replayed = await http.post(`/webhook-endpoints/${endpoint.id}/replay`).send({ after: cursor }).expect(202);
    expect(replayed.body.data).toEqual({ queued: 3, next_cursor: null });
    await eventually(async () => target.received.length === 3, 60_000);
    // Three orders: each its own stream, so they may arrive in any order among themselves.
    const idsOf = (received: typeof target.received) => received.map((each) => each.headers['webhook-id']).sort();
    expect(idsOf(target.received)).toEqual(events.map((event) => event.id).sort());
    target.verifyAll(endpoint.secret);

    const again = await http.post(`/webhook-endpoints/${endpoint.id}/replay`).send({ since }).expect(202);
    expect(again.body.data.queued).toBe(3);
    await eventually(async () => target.received.length === 6, 60_000);
    expect(idsOf(target.received.slice(3))).toEqual(events.map((event) => event.id).sort());

    await http.post(`/webhook-endpoints/${endpoint.id}/replay`).send({ after: 'nope' }).expect(400);
    await http.post(`/webhook-endpoints/${endpoint.id}/replay`).send({ after: cursor, since }).expect(400);
    await http.post(`/webhook-endpoints/${endpoint.id}/replay`).send({}).expect(400);
    await http.post('/webhook-endpoints/999999/replay').send({ since }).expect(404);
    await http.patch(`/webhook-endpoints/${endpoint.id}`).send({ enabled: false }).expect(200);
    const conflict = await http.post(`/webhook-endpoints/${endpoint.id}/replay`).send({ since }).expect(409);
    expect(conflict.body.error.details[0]).toMatchObject({ code: 'webhook_endpoint_disabled' });
  });

  it('rotate a secret: both sign for 24 hours, then only the new one', async () => {
    const { http } = suite.server;
    const target = await receiver();
    const endpoint = await register(target.url);
    const rotated = (await http.post(`/webhook-endpoints/${endpoint.id}/rotate-secret`).expect(200)).body.data;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const expires = Date.parse(`${rotated.previous_secret_expires_at.replace(' ', 'T')}Z`);
    expect(Math.abs(expires - Date.now() - 24 * 3_600_000)).toBeLessThan(60_000);
    expect((await http.get(`/webhook-endpoints/${endpoint.id}`)).body.data.previous_secret_expires_at).toBe(
      rotated.previous_secret_expires_at,
    );

    await createOrder();
    await eventually(async () => target.received.length === 1, 60_000);
    const [during] = target.received;
    expect(String(during!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(target.verifies(during!, endpoint.secret)).toBe(true);
    expect(target.verifies(during!, rotated.secret)).toBe(true);

    // 24 hours later (the expiry moved into the past), the old one signs no more.
    await suite.server.database.prisma.$executeRaw`
      UPDATE webhook_previous_secrets SET expires_at = now() - interval '1 second' WHERE endpoint_id = ${endpoint.id}`;
    await createOrder();
    await eventually(async () => target.received.length === 2, 60_000);
    const after = target.received[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(target.verifies(after, rotated.secret)).toBe(true);
    expect(target.verifies(after, endpoint.secret)).toBe(false);
  });

  it('ping: a signed test event now, answered with how the receiver responded', async () => {
    const target = await receiver(() => ({ status: 202, delayMs: 20 }));
    const endpoint = await register(target.url);
    const pinged = (await suite.server.http.post(`/webhook-endpoints/${endpoint.id}/ping`).expect(200)).body.data;
    expect(pinged).toMatchObject({ delivered: true, status_code: 202, error: null });
    expect(pinged.latency_ms).toBeGreaterThanOrEqual(15);
    expect(target.received).toHaveLength(1);
    expect(target.received[0]!.headers['webhook-id']).toBe(pinged.event_id);
    expect(target.verifyAll(endpoint.secret)).toEqual([
      {
        type: 'webhook.ping',
        timestamp: expect.any(String),
        data: { webhook_endpoint_id: endpoint.id, message: expect.any(String) },
      },
    ]);
    target.respondWith(() => ({ status: 500 }));
    expect(
      (await suite.server.http.post(`/webhook-endpoints/${endpoint.id}/ping`).expect(200)).body.data,
    ).toMatchObject({
      delivered: false,
      status_code: 500,
    });
    // A ping is no delivery of an event.
    expect(await deliveries(endpoint.id)).toEqual([]);
  });

  it('list deliveries newest first, a page at a time', async () => {
    const target = await receiver();
    const endpoint = await register(target.url);
    for (let index = 0; index < 3; index += 1) await createOrder();
    // Received is not yet recorded: the list is read once every delivery's attempt is written.
    await eventually(
      async () => (await deliveries(endpoint.id)).filter((delivery) => delivery.status === 'succeeded').length === 3,
      60_000,
    );
    const all = await deliveries(endpoint.id);
    expect(all.map((delivery) => delivery.delivery_id)).toEqual(
      [...all.map((delivery) => delivery.delivery_id)].sort((a, b) => b - a),
    );
    const first = (await suite.server.http.get(`/webhook-endpoints/${endpoint.id}/deliveries`).query({ limit: 2 })).body
      .data;
    expect(first.items).toHaveLength(2);
    const second = (
      await suite.server.http
        .get(`/webhook-endpoints/${endpoint.id}/deliveries`)
        .query({ limit: 2, cursor: first.next_cursor })
    ).body.data;
    expect(second).toEqual({ items: [all[2]], next_cursor: null });
  });
});

/** A receiver that answers 200 and then streams its body without end, and says when the service dropped it. */
const startEndlessReceiver = async () => {
  const { createServer } = await import('node:http');
  let droppedAt: number | undefined;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const timer = setInterval(() => res.write(chunk), 1);
      res.on('close', () => {
        clearInterval(timer);
        droppedAt = Date.now();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/endless`,
    dropped: async () => droppedAt !== undefined,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};

describe('server-side request forgery: without WEBHOOK_ALLOW_HTTP', () => {
  const suite = useServerWithFixtures({ LOG_LEVEL: 'silent' });

  it('refuses http:// endpoints', async () => {
    const response = await suite.server.http
      .post('/webhook-endpoints')
      .send({ url: 'http://127.0.0.1:9/in' })
      .expect(422);
    expect(response.body.error.details).toEqual([
      {
        path: 'url',
        code: 'webhook_url_not_https',
        message: 'must be https:// (http:// only with WEBHOOK_ALLOW_HTTP=true)',
      },
    ]);
  });
});

describe('server-side request forgery: without WEBHOOK_ALLOW_PRIVATE_NETWORKS', () => {
  const suite = useServerWithFixtures({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_TIMEOUT_MS: '500', LOG_LEVEL: 'silent' });
  const { receiver, createOrder, deliveries } = webhookHelpers(suite);

  it.each([
    ['https://127.0.0.1/in', 'loopback'],
    ['http://127.0.0.2:8080/in', 'loopback'],
    ['http://localhost:8080/in', 'loopback'],
    ['http://[::1]:8080/in', 'loopback'],
    ['http://[::ffff:127.0.0.1]:8080/in', 'loopback'],
    // Every IPv6 form that carries an IPv4 address, judged as that address.
    ['http://[::127.0.0.1]:8080/in', 'loopback'],
    ['http://[::7f00:1]:8080/in', 'loopback'],
    ['http://[::ffff:0:7f00:1]:8080/in', 'loopback'],
    ['http://[64:ff9b::7f00:1]:8080/in', 'loopback'],
    ['http://[64:ff9b::a9fe:a9fe]:8080/in', 'linkLocal'],
    ['http://[2002:7f00:1::1]:8080/in', 'loopback'],
    ['http://[2002:a00:1::1]:8080/in', 'private'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:8080/in', 'loopback'],
    ['http://2130706433/in', 'loopback'],
    ['http://0.0.0.0:8080/in', 'unspecified'],
  ])('refuses %s at registration (%s), and when a URL is changed to it', async (url, range) => {
    const response = await suite.server.http.post('/webhook-endpoints').send({ url }).expect(422);
    expect(response.body.error.details).toHaveLength(1);
    expect(response.body.error.details[0]).toMatchObject({ path: 'url', code: 'webhook_address_not_allowed' });
    expect(response.body.error.details[0].message).toContain(`is a ${range} address: refused`);
    const [row] = await suite.server.database.prisma.$queryRaw<{ id: number }[]>`
      INSERT INTO webhook_endpoints (url, secret) VALUES ('https://93.184.216.34/in', 'whsec_AAAA') RETURNING id`;
    await suite.server.http.patch(`/webhook-endpoints/${row!.id}`).send({ url }).expect(422);
    expect((await suite.server.http.get(`/webhook-endpoints/${row!.id}`)).body.data.url).toBe(
      'https://93.184.216.34/in',
    );
    await suite.server.database.prisma.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ${row!.id}`;
  });

  it('refuses at delivery an endpoint written with an IPv4-compatible loopback address ([::127.0.0.1])', async () => {
    const target = await receiver();
    const [endpoint] = await suite.server.database.prisma.$queryRaw<{ id: number }[]>`
      INSERT INTO webhook_endpoints (url, secret, owner)
      VALUES (${`http://[::7f00:1]:${target.port}/in`}, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'jwt:test-harness')
      RETURNING id`;
    await createOrder();
    await eventually(async () => (await deliveries(endpoint!.id))[0]?.attempts.length === 1, 60_000);
    const [attempt] = (await deliveries(endpoint!.id))[0]!.attempts;
    expect(attempt).toMatchObject({
      status_code: null,
      error: expect.stringMatching(/^::7f00:1 is a loopback address: refused/),
    });
    expect(target.received).toEqual([]);
  });

  it('refuses again at delivery, and at a ping, when an endpoint leads to a loopback address (DNS changed)', async () => {
    const target = await receiver();
    // Registered while its name resolved elsewhere: written as the row it would be.
    const [endpoint] = await suite.server.database.prisma.$queryRaw<{ id: number }[]>`
      INSERT INTO webhook_endpoints (url, secret, owner)
      VALUES (${`http://localhost:${target.port}/in`}, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'jwt:test-harness')
      RETURNING id`;
    await createOrder();
    await eventually(async () => (await deliveries(endpoint!.id))[0]?.attempts.length === 1, 60_000);
    const [attempt] = (await deliveries(endpoint!.id))[0]!.attempts;
    expect(attempt!.status_code).toBeNull();
    expect(attempt!.error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), which is a loopback address: refused/);
    const pinged = (await suite.server.http.post(`/webhook-endpoints/${endpoint!.id}/ping`).expect(200)).body.data;
    expect(pinged).toMatchObject({ delivered: false, status_code: null });
    expect(pinged.error).toMatch(/loopback address: refused/);

    await suite.server.database.prisma.$executeRaw`
      UPDATE webhook_endpoints SET url = ${`http://127.0.0.1:${target.port}/in`} WHERE id = ${endpoint!.id}`;
    const literal = (await suite.server.http.post(`/webhook-endpoints/${endpoint!.id}/ping`).expect(200)).body.data;
    expect(literal.error).toBe(
      '127.0.0.1 is a loopback address: refused (only public addresses receive webhooks unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)',
    );
    // Not one request reached the receiver.
    expect(target.received).toEqual([]);
  });
});
