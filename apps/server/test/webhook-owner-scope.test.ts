import { Permission, type WebhookDelivery, type WebhookEndpoint } from '@sales-order/contract';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';

import { jwtSubjectScopeRepository } from '../src/auth/jwt-subject-scope-repository.js';
import { notReceivingReason, outOfScopeReason } from '../src/events/delivery-worker.js';
import { createApiKey, createSession } from './support/credentials.js';
import { eventually } from './support/eventually.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';
import { useReceiversAndEndpoints, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * A webhook endpoint receives by its owner's location scope as it is at each delivery, not as it
 * was when the endpoint was registered: a host session narrowed by the host, an API key whose
 * locations change, a JWT subject that presents a narrower token. The owner keeps seeing and
 * deleting its own endpoint, and sees through its deliveries nothing of the locations it lost.
 * Real receivers on loopback; orders at Bogura, Chattogram and Dhaka.
 */
describe('webhook endpoints follow their owner’s scope now', () => {
  const suite = useServerWithFixtures({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // Long enough for a narrowing to land between a refused attempt and its retry.
    WEBHOOK_RETRY_SCHEDULE: '2s,2s,2s',
    WEBHOOK_TIMEOUT_MS: '1000',
    // Longer than any wait below: what changes the deliveries is not a cache running out.
    AUTH_CACHE_TTL_MS: '300000',
  });
  const api = () => request(suite.server.api);
  const prisma = () => suite.server.database.prisma;
  let bogura: { id: number; code: string };

  beforeAll(async () => {
    // As the host writes master data: a third location.
    bogura = await prisma().location.create({ data: { code: 'BOG', name: 'Bogura' } });
  });

  // The harness's token holds `*`, webhooks.admin included: it sees and deletes every endpoint.
  const { start: receiver } = useReceiversAndEndpoints(() => suite.server.http);
  const RECEIVING = [Permission.webhooksManage, Permission.eventsRead];
  /** An order made by the harness (every location) at a location: its id. */
  const orderAt = async (locationId: number) =>
    (
      await suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { location_id: locationId }))
        .expect(201)
    ).body.data.sales_order_id as number;
  /** The orders (id and location) whose events a receiver got, in arrival order. */
  const receivedOrders = (target: WebhookReceiver) =>
    target.received.map(({ body }) => {
      const { data } = JSON.parse(body) as { data: { sales_order_id: number; location_id: number } };
      return { id: data.sales_order_id, location: data.location_id };
    });
  /** Every delivery to an endpoint, as the harness (every location, webhooks.admin) sees them. */
  const allDeliveries = async (endpointId: number) =>
    (await suite.server.http.get(`/webhook-endpoints/${endpointId}/deliveries`).expect(200)).body.data
      .items as WebhookDelivery[];
  /** Waits until an endpoint's deliveries are all settled and `orderId`'s has arrived. */
  const settledAfter = async (target: WebhookReceiver, endpointId: number, orderId: number) =>
    eventually(
      async () =>
        receivedOrders(target).some(({ id }) => id === orderId) &&
        (await allDeliveries(endpointId)).every(({ status }) => status !== 'pending'),
      60_000,
    );

  it('a host session narrowed to Dhaka receives Dhaka only; it sees and deletes its endpoint; an expired one receives nothing', async () => {
    const { dhaka, chattogram } = suite.fixtures.locations;
    const target = await receiver();
    const session = await createSession(prisma(), { userId: 'scope-dana', permissions: RECEIVING, locations: null });
    const owner = { Cookie: session.cookie, Origin: suite.server.origin };
    const endpoint = (await api().post('/webhook-endpoints').set(owner).send({ url: target.url }).expect(201)).body
      .data as WebhookEndpoint;
    expect(endpoint.locations).toBeNull();
    const before = await orderAt(bogura.id);
    await settledAfter(target, endpoint.id, before);

    // The host narrows the user's session (its own table).
    await prisma()
      .$executeRaw`UPDATE sessions SET locations = ARRAY[${dhaka.code}]::text[] WHERE user_id = 'scope-dana'`;
    const elsewhere = [await orderAt(bogura.id), await orderAt(chattogram.id)];
    const inDhaka = await orderAt(dhaka.id);
    await settledAfter(target, endpoint.id, inDhaka);
    expect(receivedOrders(target)).toEqual([
      { id: before, location: bogura.id },
      { id: inDhaka, location: dhaka.id },
    ]);
    // Not offered at all: the fan-out made no delivery of the others to this endpoint.
    const made = (await allDeliveries(endpoint.id)).map(({ sales_order_id }) => sales_order_id);
    for (const id of elsewhere) expect(made).not.toContain(id);

    // The narrowed owner still has its endpoint (registered for every location), and through its
    // deliveries sees only what it may read now: not the Bogura order delivered before.
    await api().get(`/webhook-endpoints/${endpoint.id}`).set(owner).expect(200);
    const listed = (await api().get('/webhook-endpoints').set(owner).expect(200)).body.data.items as WebhookEndpoint[];
    expect(listed.map(({ id }) => id)).toEqual([endpoint.id]);
    const itsDeliveries = (await api().get(`/webhook-endpoints/${endpoint.id}/deliveries`).set(owner).expect(200)).body
      .data.items as WebhookDelivery[];
    expect(itsDeliveries.map(({ sales_order_id }) => sales_order_id)).toEqual([inDhaka]);
    expect((await allDeliveries(endpoint.id)).map(({ sales_order_id }) => sales_order_id)).toContain(before);

    // The session expires: its user's endpoint stops receiving, each delivery failing unsent.
    await prisma()
      .$executeRaw`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = 'scope-dana'`;
    const afterExpiry = await orderAt(dhaka.id);
    await eventually(
      async () =>
        (await allDeliveries(endpoint.id)).some(
          ({ sales_order_id, status }) => sales_order_id === afterExpiry && status === 'failed',
        ),
      60_000,
    );
    const [latest] = await allDeliveries(endpoint.id);
    expect(latest).toMatchObject({
      sales_order_id: afterExpiry,
      status: 'failed',
      attempts: [{ status_code: null, error: notReceivingReason('session:scope-dana') }],
    });
    expect(receivedOrders(target).map(({ id }) => id)).not.toContain(afterExpiry);

    // Signed in again, narrowed: it deletes its own endpoint.
    const again = await createSession(prisma(), {
      userId: 'scope-dana',
      permissions: RECEIVING,
      locations: [dhaka.code],
    });
    await api()
      .delete(`/webhook-endpoints/${endpoint.id}`)
      .set({ Cookie: again.cookie, Origin: suite.server.origin })
      .expect(200);
    await suite.server.http.get(`/webhook-endpoints/${endpoint.id}`).expect(404);
  });

  it("an API key narrowed while a delivery waits for its retry: the retry fails unsent; later ones follow the key's locations", async () => {
    const { dhaka, chattogram } = suite.fixtures.locations;
    const target = await receiver();
    target.respondWith(() => ({ status: 500 }));
    const { key, summary } = await createApiKey(prisma(), RECEIVING);
    const owner = { Authorization: `ApiKey ${key}` };
    const endpoint = (await api().post('/webhook-endpoints').set(owner).send({ url: target.url }).expect(201)).body
      .data as WebhookEndpoint;
    const waiting = await orderAt(bogura.id);
    await eventually(async () => target.received.length === 1, 60_000);

    // Narrowed to Dhaka while the Bogura delivery waits 2 s for its retry.
    await prisma().$executeRaw`UPDATE api_keys SET locations = ${[dhaka.id]}::int[] WHERE prefix = ${summary.prefix}`;
    await eventually(
      async () =>
        (await allDeliveries(endpoint.id)).some(
          ({ sales_order_id, status }) => sales_order_id === waiting && status === 'failed',
        ),
      60_000,
    );
    const [refused] = await allDeliveries(endpoint.id);
    expect(refused!.attempts).toHaveLength(2);
    expect(refused!.attempts[1]).toMatchObject({
      status_code: null,
      error: outOfScopeReason(`api_key:${summary.prefix}`),
    });
    expect(target.received).toHaveLength(1);

    target.respondWith(() => ({ status: 204 }));
    await orderAt(chattogram.id);
    const inDhaka = await orderAt(dhaka.id);
    await settledAfter(target, endpoint.id, inDhaka);
    expect(receivedOrders(target).slice(1)).toEqual([{ id: inDhaka, location: dhaka.id }]);

    // The narrowed key sees and deletes its endpoint (registered for every location).
    await api().get(`/webhook-endpoints/${endpoint.id}`).set(owner).expect(200);
    await api().delete(`/webhook-endpoints/${endpoint.id}`).set(owner).expect(200);
  });

  it('a JWT subject that presents a Dhaka-only token on any request receives Dhaka only from then on', async () => {
    const { dhaka, chattogram } = suite.fixtures.locations;
    const target = await receiver();
    const everywhere = {
      Authorization: `Bearer ${await signJwt({ subject: 'scope-jo', payload: { permissions: RECEIVING } })}`,
    };
    const endpoint = (await api().post('/webhook-endpoints').set(everywhere).send({ url: target.url }).expect(201)).body
      .data as WebhookEndpoint;
    const before = await orderAt(bogura.id);
    await settledAfter(target, endpoint.id, before);

    // Any request with a narrower token: here, reading the endpoint it registered for every location.
    const narrowed = {
      Authorization: `Bearer ${await signJwt({ subject: 'scope-jo', payload: { permissions: RECEIVING, locations: [dhaka.code] } })}`,
    };
    await api().get(`/webhook-endpoints/${endpoint.id}`).set(narrowed).expect(200);
    await orderAt(bogura.id);
    await orderAt(chattogram.id);
    const inDhaka = await orderAt(dhaka.id);
    await settledAfter(target, endpoint.id, inDhaka);
    expect(receivedOrders(target)).toEqual([
      { id: before, location: bogura.id },
      { id: inDhaka, location: dhaka.id },
    ]);
    // A replay by the narrowed owner offers Dhaka's events only.
    const replayed = (
      await api()
        .post(`/webhook-endpoints/${endpoint.id}/replay`)
        .set(narrowed)
        .send({ since: '2026-01-01 00:00:00' })
        .expect(202)
    ).body.data as { queued: number };
    expect(replayed.queued).toBeGreaterThan(0);
    await eventually(
      async () => (await allDeliveries(endpoint.id)).every(({ status }) => status !== 'pending'),
      60_000,
    );
    expect(
      new Set(
        receivedOrders(target)
          .slice(2)
          .map(({ location }) => location),
      ),
    ).toEqual(new Set([dhaka.id]));

    await api().delete(`/webhook-endpoints/${endpoint.id}`).set(narrowed).expect(200);
  });

  it("records a subject's scope only when it differs from the one stored", async () => {
    const db = prisma();
    const recordedAt = async () =>
      (
        await db.$queryRaw<{ recorded_at: Date; locations: number[] | null }[]>`
          SELECT recorded_at, locations FROM jwt_subject_scopes WHERE identity = 'jwt:scope-writes'`
      )[0];
    await jwtSubjectScopeRepository.record(db, 'jwt:scope-writes', [2, 1]);
    const first = await recordedAt();
    expect(first!.locations).toEqual([2, 1]);
    await jwtSubjectScopeRepository.record(db, 'jwt:scope-writes', [2, 1]);
    expect((await recordedAt())!.recorded_at).toEqual(first!.recorded_at);
    await jwtSubjectScopeRepository.record(db, 'jwt:scope-writes', null);
    expect((await recordedAt())!.locations).toBeNull();
  });
});
