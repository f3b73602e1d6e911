import { Permission, type WebhookDelivery, type WebhookEndpoint } from '@sales-order/contract';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApiKey, createSession } from './support/credentials.js';
import { eventually } from './support/eventually.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';
import { useReceiversAndEndpoints } from './support/webhook-receiver.js';

/**
 * Receiving order events through a webhook needs events.read, at register,
 * change, replay and at each delivery; an endpoint belongs to the caller that registered it, and
 * another sees 404 unless it holds webhooks.admin. Real receivers on loopback.
 */
describe('webhook endpoints: owners and events.read', () => {
  const suite = useServerWithFixtures({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms',
    WEBHOOK_TIMEOUT_MS: '500',
  });
  const api = () => request(suite.server.api);
  const prisma = () => suite.server.database.prisma;
  // The harness's token holds `*`, webhooks.admin included: it sees and deletes every endpoint.
  const { start: receiver } = useReceiversAndEndpoints(() => suite.server.http);
  const jwt = async (subject: string, permissions: string[]) => ({
    Authorization: `Bearer ${await signJwt({ subject, payload: { permissions } })}`,
  });
  const apiKey = async (permissions: string[]) => {
    const { key, summary } = await createApiKey(prisma(), permissions);
    return { headers: { Authorization: `ApiKey ${key}` }, prefix: summary.prefix };
  };
  const createOrder = async () =>
    (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;
  const deliveriesOf = async (endpointId: number) =>
    (await suite.server.http.get(`/webhook-endpoints/${endpointId}/deliveries`).expect(200)).body.data
      .items as WebhookDelivery[];

  it('webhooks.manage alone cannot register, change or replay: events.read is needed too (403 naming it)', async () => {
    const target = await receiver();
    const manager = await jwt('manager', [Permission.webhooksManage]);
    const refused = await api().post('/webhook-endpoints').set(manager).send({ url: target.url });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('This needs the permission events.read');

    const reader = await jwt('manager', [Permission.webhooksManage, Permission.eventsRead]);
    const endpoint = (await api().post('/webhook-endpoints').set(reader).send({ url: target.url }).expect(201)).body
      .data as WebhookEndpoint;
    expect(endpoint.owner).toBe('jwt:manager');
    for (const call of [
      api().patch(`/webhook-endpoints/${endpoint.id}`).send({ description: 'mine' }),
      api().post(`/webhook-endpoints/${endpoint.id}/replay`).send({ since: '2026-01-01 00:00:00' }),
    ]) {
      const response = await call.set(manager);
      expect(response.status).toBe(403);
      expect(response.body.error.message).toBe('This needs the permission events.read');
    }
    expect(await deliveriesOf(endpoint.id)).toEqual([]);
    // Reading its own endpoint shows no order: webhooks.manage is enough for it.
    await api().get(`/webhook-endpoints/${endpoint.id}`).set(manager).expect(200);

    const document = (await api().get('/openapi.json').expect(200)).body;
    for (const [path, method] of [
      ['/webhook-endpoints', 'post'],
      ['/webhook-endpoints/{id}', 'patch'],
      ['/webhook-endpoints/{id}/replay', 'post'],
    ] as const) {
      expect(document.paths[path][method]['x-permissions'], `${method} ${path}`).toEqual([
        Permission.webhooksManage,
        Permission.eventsRead,
      ]);
    }
  });

  it("an endpoint is its creator's: another caller gets 404 on every route and does not list it; webhooks.admin sees all", async () => {
    const target = await receiver();
    const alice = await apiKey([Permission.webhooksManage, Permission.eventsRead]);
    const bob = await jwt('bob', [Permission.webhooksManage, Permission.eventsRead]);
    const carol = {
      Cookie: (
        await createSession(prisma(), {
          userId: 'carol',
          permissions: [Permission.webhooksManage, Permission.eventsRead],
        })
      ).cookie,
      Origin: suite.server.origin,
    };
    const admin = await jwt('ops', [Permission.webhooksManage, Permission.webhooksAdmin, Permission.eventsRead]);

    const created = (await api().post('/webhook-endpoints').set(alice.headers).send({ url: target.url }).expect(201))
      .body.data as WebhookEndpoint & { secret: string };
    expect(created.owner).toBe(`api_key:${alice.prefix}`);
    const bobs = (
      await api()
        .post('/webhook-endpoints')
        .set(bob)
        .send({ url: `${target.url}/bob` })
        .expect(201)
    ).body.data as WebhookEndpoint;
    const listed = async (headers: Record<string, string>) =>
      ((await api().get('/webhook-endpoints').set(headers).expect(200)).body.data.items as WebhookEndpoint[]).map(
        (endpoint) => endpoint.id,
      );
    expect(await listed(alice.headers)).toEqual([created.id]);
    expect(await listed(bob)).toEqual([bobs.id]);
    expect(await listed(carol)).toEqual([]);
    expect(await listed(admin)).toEqual([created.id, bobs.id]);

    const id = created.id;
    for (const stranger of [bob, carol]) {
      for (const call of [
        () => api().get(`/webhook-endpoints/${id}`),
        () => api().patch(`/webhook-endpoints/${id}`).send({ url: 'http://127.0.0.1:9/elsewhere' }),
        () => api().post(`/webhook-endpoints/${id}/rotate-secret`),
        () => api().get(`/webhook-endpoints/${id}/deliveries`),
        () => api().post(`/webhook-endpoints/${id}/replay`).send({ since: '2026-01-01 00:00:00' }),
        () => api().post(`/webhook-endpoints/${id}/ping`),
        () => api().delete(`/webhook-endpoints/${id}`),
      ]) {
        const response = await call().set(stranger);
        expect(response.status, JSON.stringify(response.body)).toBe(404);
        expect(response.body.error.message).toBe(`webhook endpoint ${id} not found`);
      }
    }
    // Nothing changed: the URL, the secret (the ping still verifies with it) and no replay.
    const read = (await api().get(`/webhook-endpoints/${id}`).set(alice.headers).expect(200)).body.data;
    expect(read).toMatchObject({ url: target.url, previous_secret_expires_at: null });
    await api().post(`/webhook-endpoints/${id}/ping`).set(alice.headers).expect(200);
    expect(target.verifies(target.received.at(-1)!, created.secret)).toBe(true);

    // The admin reads and changes another's endpoint.
    await api().get(`/webhook-endpoints/${id}`).set(admin).expect(200);
    await api().patch(`/webhook-endpoints/${id}`).set(admin).send({ description: 'checked by ops' }).expect(200);
  });

  it('a key that loses events.read, or is revoked, stops receiving: its deliveries fail unsent with the reason', async () => {
    const target = await receiver();
    const owner = await apiKey([Permission.webhooksManage, Permission.eventsRead]);
    const endpoint = (await api().post('/webhook-endpoints').set(owner.headers).send({ url: target.url }).expect(201))
      .body.data as WebhookEndpoint;
    await createOrder();
    await eventually(async () => target.received.length === 1, 60_000);

    await prisma().$executeRaw`UPDATE api_keys SET permissions = ${[Permission.webhooksManage]}::text[]
      WHERE prefix = ${owner.prefix}`;
    await createOrder();
    await eventually(
      async () => (await deliveriesOf(endpoint.id)).some((delivery) => delivery.status === 'failed'),
      60_000,
    );
    const [latest] = await deliveriesOf(endpoint.id);
    expect(latest).toMatchObject({
      status: 'failed',
      attempts: [
        {
          status_code: null,
          error: `not sent: the endpoint's owner api_key:${owner.prefix} does not hold events.read (or its key or session is no longer valid)`,
        },
      ],
    });
    expect(target.received).toHaveLength(1);
    // The receiver's failure streak is not the owner's doing: the endpoint stays as it was.
    expect((await suite.server.http.get(`/webhook-endpoints/${endpoint.id}`).expect(200)).body.data).toMatchObject({
      enabled: true,
      failing_since: null,
    });

    // Given back, it receives again; revoked, it stops again.
    await prisma()
      .$executeRaw`UPDATE api_keys SET permissions = ${[Permission.webhooksManage, Permission.eventsRead]}::text[]
      WHERE prefix = ${owner.prefix}`;
    await createOrder();
    await eventually(async () => target.received.length === 2, 60_000);
    await prisma().$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE prefix = ${owner.prefix}`;
    await createOrder();
    await eventually(
      async () => (await deliveriesOf(endpoint.id)).filter((delivery) => delivery.status === 'failed').length === 2,
      60_000,
    );
    expect(target.received).toHaveLength(2);
  });

  it("a session user's endpoint receives while the user's newest session holds events.read", async () => {
    const target = await receiver();
    const permissions = [Permission.webhooksManage, Permission.eventsRead];
    const { cookie } = await createSession(prisma(), { userId: 'dana', permissions });
    const endpoint = (
      await api()
        .post('/webhook-endpoints')
        .set({ Cookie: cookie, Origin: suite.server.origin })
        .send({ url: target.url })
        .expect(201)
    ).body.data as WebhookEndpoint;
    expect(endpoint.owner).toBe('session:dana');
    await createOrder();
    await eventually(async () => target.received.length === 1, 60_000);

    // The host signs the user in again with fewer permissions.
    await createSession(prisma(), { userId: 'dana', permissions: [Permission.webhooksManage] });
    await createOrder();
    await eventually(
      async () => (await deliveriesOf(endpoint.id)).some((delivery) => delivery.status === 'failed'),
      60_000,
    );
    expect(target.received).toHaveLength(1);
  });
});
