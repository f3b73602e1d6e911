import { type ApiKeyEvent, type CreatedApiKey, type FeedEvent, Permission } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { createFixtures, type Fixtures, orderBody } from './support/fixtures.js';
import { captureLog } from './support/log-capture.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { signJwt } from './support/tokens.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * API keys' changes as `api_key.*` events: written in the change's transaction, read
 * in GET /events and delivered to webhooks only by callers (owners) holding api_keys.manage
 * besides events.read, and only for keys inside a scoped caller's locations; never the secret,
 * in an event, a delivery or a log line.
 */

const secretPart = (key: CreatedApiKey) => key.secret.slice(13);

describe('api_key.* events', () => {
  const log = captureLog();
  let server: TestServer;
  let fixtures: Fixtures;
  const receivers: WebhookReceiver[] = [];
  /** Every secret the tests made: none may show anywhere but in the answer that made it. */
  const secrets: string[] = [];

  const token = (permissions: string[], locations?: (string | number)[], subject = 'events-admin') =>
    signJwt({ payload: { permissions, ...(locations ? { locations } : {}) }, subject, expiresIn: '1h' });
  const as = (bearer: string) => ({
    get: (path: string, query: Record<string, string> = {}) =>
      request(server.api).get(path).query(query).set('Authorization', `Bearer ${bearer}`),
    post: (path: string, body: object = {}) =>
      request(server.api).post(path).set('Authorization', `Bearer ${bearer}`).send(body),
    patch: (path: string, body: object) =>
      request(server.api).patch(path).set('Authorization', `Bearer ${bearer}`).send(body),
  });
  const asKey = (key: CreatedApiKey) => ({
    post: (path: string, body: object = {}) =>
      request(server.api).post(path).set('Authorization', `ApiKey ${key.secret}`).send(body),
    get: (path: string, query: Record<string, string> = {}) =>
      request(server.api).get(path).query(query).set('Authorization', `ApiKey ${key.secret}`),
  });

  let admin: string;
  const createKey = async (body: object, bearer = admin): Promise<CreatedApiKey> => {
    const response = await as(bearer).post('/api-keys', body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const created = response.body.data as CreatedApiKey;
    secrets.push(secretPart(created));
    return created;
  };

  /** Every event a caller reads from the oldest, relayed first. */
  const feedOf = async (read: (query: Record<string, string>) => request.Test, query: Record<string, string> = {}) => {
    await server.events.relay.runOnce();
    const items: FeedEvent[] = [];
    let after: string | undefined;
    for (;;) {
      const response = await read({ limit: '500', ...query, ...(after ? { after } : {}) });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      items.push(...(response.body.data.items as FeedEvent[]));
      after = response.body.data.next_cursor as string;
      if (!response.body.data.has_more) return items;
    }
  };
  const keyEventsOf = (items: FeedEvent[], keyId?: number) =>
    items.filter(
      (event): event is ApiKeyEvent =>
        event.type.startsWith('api_key.') && (keyId === undefined || (event as ApiKeyEvent).api_key_id === keyId),
    );

  beforeAll(async () => {
    server = await startTestServer(
      {
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms',
        LOG_LEVEL: 'debug',
      },
      { logStream: log.stream },
    );
    fixtures = await createFixtures(server.database.prisma);
    admin = await token([Permission.all], undefined, 'root-admin');
  }, 300_000);

  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
    await server?.close();
  });

  it('records create, rename, rotate and revoke as events in GET /events, with who and what changed', async () => {
    const reader = await token([Permission.eventsRead, Permission.apiKeysManage, Permission.read]);
    const key = await createKey({ name: 'Warehouse sync', permissions: [Permission.read] });
    await as(admin).patch(`/api-keys/${key.id}`, { name: 'Warehouse sync 2' }).expect(200);
    const rotated = await as(admin).post(`/api-keys/${key.id}/rotate`, { expire_current_in_seconds: 60 }).expect(201);
    const successor = rotated.body.data as CreatedApiKey;
    secrets.push(secretPart(successor));
    await as(admin).post(`/api-keys/${key.id}/revoke`).expect(200);

    const items = await feedOf((query) => as(reader).get('/events', query));
    const own = keyEventsOf(items, key.id);
    expect(own.map((event) => event.type)).toEqual([
      'api_key.created',
      'api_key.renamed',
      'api_key.rotated',
      'api_key.revoked',
    ]);
    expect(own[0]).toEqual({
      id: expect.any(String),
      type: 'api_key.created',
      occurred_at: expect.any(String),
      api_key_id: key.id,
      data: {
        api_key: { ...key, secret: undefined },
        actor: 'root-admin',
        changes: [
          { field: 'name', from: null, to: 'Warehouse sync' },
          { field: 'permissions', from: null, to: [Permission.read] },
          { field: 'locations', from: null, to: null },
          { field: 'expires_at', from: null, to: null },
        ],
      },
    });
    expect(own[0]).not.toHaveProperty('sales_order_id');
    expect(own[0]).not.toHaveProperty('version');
    expect(own[1]!.data).toMatchObject({
      api_key: { name: 'Warehouse sync 2' },
      changes: [{ field: 'name', from: 'Warehouse sync', to: 'Warehouse sync 2' }],
    });
    expect(own[2]!.data.changes).toContainEqual({ field: 'successor_id', from: null, to: successor.id });
    expect(own[3]!.data.api_key).toMatchObject({ id: key.id, active: false, revoked_by: 'root-admin' });
    // The successor's creation, between the rotation's two writes of one transaction.
    expect(keyEventsOf(items, successor.id).map((event) => [event.type, event.data.api_key.rotated_from_id])).toEqual([
      ['api_key.created', key.id],
    ]);
    // Its history says the same as its events, entry for entry.
    const history = (await as(admin).get(`/api-keys/${key.id}/history`).expect(200)).body.data.items;
    expect(own.map((event) => [event.type, event.data.actor, event.data.changes])).toEqual(
      history.map((entry: { action: string; actor: string; changes: unknown }) => [
        `api_key.${entry.action}`,
        entry.actor,
        entry.changes,
      ]),
    );
    // The type filter takes them as any other type.
    const created = await feedOf((query) => as(reader).get('/events', query), { types: 'api_key.created' });
    expect(created.length).toBeGreaterThan(0);
    expect(created.every((event) => event.type === 'api_key.created')).toBe(true);
  });

  it('writes no event for a refused or rolled-back change', async () => {
    const before = await server.database.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM events WHERE subject_type = 'api_key'`;
    const weak = await token([Permission.apiKeysManage, Permission.read]);
    await as(weak)
      .post('/api-keys', { name: 'grab', permissions: [Permission.delete] })
      .expect(403);
    await as(admin)
      .post('/api-keys', { name: 'typo', permissions: [Permission.read], locations: ['NOPE'] })
      .expect(422);
    const gone = await createKey({ name: 'gone', permissions: [Permission.read] });
    await as(admin).post(`/api-keys/${gone.id}/revoke`).expect(200);
    await as(admin).post(`/api-keys/${gone.id}/revoke`).expect(409);
    await as(admin).post(`/api-keys/${gone.id}/rotate`).expect(409);
    const after = await server.database.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM events WHERE subject_type = 'api_key'`;
    // Only the create and the revoke of `gone`.
    expect(after[0]!.n - before[0]!.n).toBe(2);
  });

  it('shows them only to a caller holding api_keys.manage besides events.read', async () => {
    await createKey({ name: 'hidden from readers', permissions: [Permission.read] });
    const ordersOnly = await token([Permission.eventsRead, Permission.read, Permission.create]);
    const items = await feedOf((query) => as(ordersOnly).get('/events', query));
    expect(keyEventsOf(items)).toEqual([]);
    const typed = await feedOf((query) => as(ordersOnly).get('/events', query), { types: 'api_key.created' });
    expect(typed).toEqual([]);
    // The same caller with api_keys.manage (and the permission of the keys it may manage) sees them.
    const manager = await token([Permission.eventsRead, Permission.apiKeysManage, Permission.read]);
    expect(keyEventsOf(await feedOf((query) => as(manager).get('/events', query))).length).toBeGreaterThan(0);
    // And api_keys.manage without events.read reads no feed at all.
    const noFeed = await token([Permission.apiKeysManage]);
    expect((await as(noFeed).get('/events')).status).toBe(403);
  });

  it('shows a manager only the events of keys within its reach: none of a key holding a permission it lacks', async () => {
    const readerKey = await createKey({ name: 'reads orders', permissions: [Permission.read] });
    const confirmerKey = await createKey({
      name: 'confirms orders',
      permissions: [Permission.read, Permission.confirm],
    });
    const weaker = await token([Permission.eventsRead, Permission.apiKeysManage, Permission.read], undefined, 'weaker');
    const seen = new Set(
      keyEventsOf(await feedOf((query) => as(weaker).get('/events', query))).map((event) => event.api_key_id),
    );
    expect(seen.has(readerKey.id)).toBe(true);
    expect(seen.has(confirmerKey.id)).toBe(false);
    // As the key routes answer it: the stronger key is not there for this manager.
    expect((await as(weaker).get(`/api-keys/${confirmerKey.id}`)).status).toBe(404);
    // A holder of `*` sees both.
    const all = new Set(
      keyEventsOf(await feedOf((query) => as(admin).get('/events', query))).map((event) => event.api_key_id),
    );
    expect([all.has(readerKey.id), all.has(confirmerKey.id)]).toEqual([true, true]);
  });

  it('shows a caller limited to locations only the events of keys inside them', async () => {
    const { dhaka, chattogram } = fixtures.locations;
    const inDhaka = await createKey({ name: 'dhaka tablet', permissions: [Permission.read], locations: [dhaka.id] });
    const inCtg = await createKey({ name: 'ctg tablet', permissions: [Permission.read], locations: [chattogram.id] });
    const wider = await createKey({
      name: 'both',
      permissions: [Permission.read],
      locations: [dhaka.id, chattogram.id],
    });
    const everywhere = await createKey({ name: 'everywhere', permissions: [Permission.read] });
    const none = await createKey({ name: 'none', permissions: [Permission.read], locations: [] });
    const dhakaReader = await token(
      [Permission.eventsRead, Permission.apiKeysManage, Permission.read],
      [dhaka.code],
      'dhaka-reader',
    );
    const seen = new Set(
      keyEventsOf(await feedOf((query) => as(dhakaReader).get('/events', query))).map((event) => event.api_key_id),
    );
    expect(seen.has(inDhaka.id)).toBe(true);
    expect(seen.has(none.id)).toBe(true);
    for (const hidden of [inCtg, wider, everywhere]) expect(seen.has(hidden.id), hidden.name).toBe(false);
    // A key limited to Dhaka reads the same through the feed.
    const dhakaKey = await createKey({
      name: 'dhaka events',
      permissions: [Permission.eventsRead, Permission.apiKeysManage, Permission.read],
      locations: [dhaka.code],
    });
    const byKey = keyEventsOf(await feedOf((query) => asKey(dhakaKey).get('/events', query))).map(
      (event) => event.api_key_id,
    );
    expect(byKey).toContain(inDhaka.id);
    expect(byKey).not.toContain(inCtg.id);
    expect(byKey).not.toContain(everywhere.id);
  });

  it('delivers them to webhooks whose owner holds api_keys.manage, within its locations, and to no other', async () => {
    const { dhaka, chattogram } = fixtures.locations;
    const start = async (owner: CreatedApiKey) => {
      const receiver = await startWebhookReceiver();
      receivers.push(receiver);
      const response = await asKey(owner).post('/webhook-endpoints', { url: receiver.url });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return { receiver, endpoint: response.body.data as { id: number; secret: string } };
    };
    const receiving = [Permission.eventsRead, Permission.webhooksManage];
    const keyAdmin = await createKey({
      name: 'key admin hook',
      permissions: [...receiving, Permission.apiKeysManage, Permission.read],
    });
    const orderOnly = await createKey({ name: 'orders hook', permissions: receiving });
    const dhakaAdmin = await createKey({
      name: 'dhaka admin hook',
      permissions: [...receiving, Permission.apiKeysManage, Permission.read],
      locations: [dhaka.id],
    });
    // Their own creations are positioned before any endpoint exists: not offered to them.
    await server.events.relay.runOnce();
    const all = await start(keyAdmin);
    const orders = await start(orderOnly);
    const scoped = await start(dhakaAdmin);

    const inDhaka = await createKey({ name: 'hooked dhaka', permissions: [Permission.read], locations: [dhaka.id] });
    const inCtg = await createKey({ name: 'hooked ctg', permissions: [Permission.read], locations: [chattogram.id] });
    await as(admin).patch(`/api-keys/${inCtg.id}`, { name: 'hooked ctg 2' }).expect(200);
    await server.events.relay.runOnce();

    const keyIdsOf = (receiver: WebhookReceiver, secret: string) =>
      (receiver.verifyAll(secret) as { type: string; data: { api_key?: { id: number } } }[]).flatMap((payload) =>
        payload.type.startsWith('api_key.') ? [`${payload.type}:${payload.data.api_key!.id}`] : [],
      );
    await eventually(async () => keyIdsOf(all.receiver, all.endpoint.secret).length >= 3, 60_000);
    // One key's events in order; two keys' side by side.
    const toAll = keyIdsOf(all.receiver, all.endpoint.secret);
    expect([...toAll].sort()).toEqual(
      [`api_key.created:${inDhaka.id}`, `api_key.created:${inCtg.id}`, `api_key.renamed:${inCtg.id}`].sort(),
    );
    expect(toAll.indexOf(`api_key.created:${inCtg.id}`)).toBeLessThan(toAll.indexOf(`api_key.renamed:${inCtg.id}`));
    await eventually(async () => keyIdsOf(scoped.receiver, scoped.endpoint.secret).length >= 1, 60_000);
    // An order's event after them: once it has arrived at the order-only receiver, so would have any key event.
    await as(admin)
      .post('/sales-orders', orderBody(fixtures, { location_id: dhaka.id }))
      .expect(201);
    await server.events.relay.runOnce();
    await eventually(async () => orders.receiver.received.length >= 1, 60_000);
    await eventually(async () => scoped.receiver.received.length >= 2, 60_000);
    expect(keyIdsOf(orders.receiver, orders.endpoint.secret)).toEqual([]);
    expect(keyIdsOf(scoped.receiver, scoped.endpoint.secret)).toEqual([`api_key.created:${inDhaka.id}`]);
    // Nothing was even queued for them: the deliveries list shows no key event either, nor after a replay.
    const keyDeliveriesTo = async () =>
      (
        (await asKey(orderOnly).get(`/webhook-endpoints/${orders.endpoint.id}/deliveries`).expect(200)).body.data
          .items as { event_type: string }[]
      ).filter((delivery) => delivery.event_type.startsWith('api_key.'));
    expect(await keyDeliveriesTo()).toEqual([]);
    const replayed = await asKey(orderOnly)
      .post(`/webhook-endpoints/${orders.endpoint.id}/replay`, { since: '2000-01-01 00:00:00' })
      .expect(202);
    expect(replayed.body.data.queued).toBeGreaterThan(0);
    expect(await keyDeliveriesTo()).toEqual([]);
    const scopedReplay = await asKey(dhakaAdmin)
      .post(`/webhook-endpoints/${scoped.endpoint.id}/replay`, { since: '2000-01-01 00:00:00' })
      .expect(202);
    expect(scopedReplay.body.data.queued).toBeGreaterThan(0);
    const scopedDeliveries = (
      await asKey(dhakaAdmin).get(`/webhook-endpoints/${scoped.endpoint.id}/deliveries`, { limit: '100' }).expect(200)
    ).body.data.items as { event_type: string; event_id: string }[];
    const everyKeyEvent = keyEventsOf(await feedOf((query) => as(admin).get('/events', query)));
    const insideDhaka = (locations: number[] | null) =>
      locations !== null && locations.every((location) => location === dhaka.id);
    const outside = new Set(
      everyKeyEvent.filter((event) => !insideDhaka(event.data.api_key.locations)).map((event) => event.id),
    );
    expect(outside.size).toBeGreaterThan(5);
    const replayedIds = scopedDeliveries.map((delivery) => delivery.event_id);
    expect(replayedIds.filter((id) => outside.has(id))).toEqual([]);
    // While the keys inside Dhaka's come again.
    const dhakaEvents = everyKeyEvent.filter((event) => event.api_key_id === inDhaka.id).map((event) => event.id);
    for (const id of dhakaEvents) expect(replayedIds).toContain(id);
  });

  it('never carries a secret: not in an event, a stored row, a delivery or a log line', async () => {
    await server.events.relay.runOnce();
    expect(secrets.length).toBeGreaterThan(10);
    const rows = await server.database.prisma.$queryRaw<{ text: string }[]>`
      SELECT data::text AS text FROM events
      UNION ALL SELECT row_to_json(c)::text FROM api_key_changes c
      UNION ALL SELECT row_to_json(a)::text FROM webhook_delivery_attempts a`;
    const stored = rows.map((row) => row.text).join('\n');
    const feed = JSON.stringify(await feedOf((query) => as(admin).get('/events', query)));
    const delivered = receivers.flatMap((receiver) => receiver.received.map((received) => received.body)).join('\n');
    const logged = log.entries.map((entry) => JSON.stringify(entry)).join('\n');
    expect(log.entries.length).toBeGreaterThan(10);
    expect(delivered).toContain('api_key.created');
    for (const secret of secrets) {
      expect(stored).not.toContain(secret);
      expect(feed).not.toContain(secret);
      expect(delivered).not.toContain(secret);
      expect(logged).not.toContain(secret);
    }
  });
});
