import { type FeedEvent, type Import, type ImportEvent, Permission } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { type Fixtures, ORDER_DATE } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * `import.completed` / `import.failed`: one event per import that ends so, besides its
 * orders' own `sales_order.created`, written with the import's final state, carrying what
 * GET /imports/{id} shows; read in GET /events and delivered to webhooks only by the import's
 * owner holding sales_orders.import besides events.read (and, limited to locations, only for an
 * import started inside them): another caller, even one holding `*`, learns nothing of it.
 */

const HEADER = 'order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate,customer_reference';

const csv = (f: Fixtures, refs: string[], location = f.locations.dhaka.id) =>
  [
    HEADER,
    ...refs.map(
      (ref) =>
        `${ref},${f.customers.customer.id},${location},${ORDER_DATE},${f.products.otherProduct.id},${ref.endsWith('-bad') ? 'ten' : 2},10,${ref}`,
    ),
  ].join('\n');

describe('import.* events', () => {
  const suite = useServerWithFixtures({
    IMPORT_CHUNK_SIZE: '2',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms',
  });
  const receivers: WebhookReceiver[] = [];
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  const IMPORTER = [
    Permission.eventsRead,
    Permission.import,
    Permission.create,
    Permission.read,
    Permission.webhooksManage,
  ];
  const token = (subject: string, permissions: string[] = IMPORTER, locations?: (string | number)[]) =>
    signJwt({ subject, payload: { permissions, ...(locations ? { locations } : {}) }, expiresIn: '1h' });
  const as = (bearer: string) => ({
    get: (path: string, query: Record<string, string> = {}) =>
      request(suite.server.api).get(path).query(query).set('Authorization', `Bearer ${bearer}`),
    post: (path: string, body: object) =>
      request(suite.server.api).post(path).set('Authorization', `Bearer ${bearer}`).send(body),
    upload: (file: string) =>
      request(suite.server.api)
        .post('/imports')
        .set('Authorization', `Bearer ${bearer}`)
        .set('Content-Type', 'text/csv')
        .send(file),
  });

  /** Starts an import as `bearer` and waits for its end; answers it as GET /imports/{id} reads it. */
  const imported = async (bearer: string, file: string): Promise<Import> => {
    const started = await as(bearer).upload(file);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.data.import_id as number;
    let last: Import | undefined;
    await eventually(async () => {
      last = (await as(bearer).get(`/imports/${id}`)).body.data as Import;
      return last.state !== 'queued' && last.state !== 'running';
    }, 60_000);
    return last!;
  };

  /** Every event a caller reads from the oldest, relayed first. */
  const feedOf = async (bearer: string): Promise<FeedEvent[]> => {
    await suite.server.events.relay.runOnce();
    const items: FeedEvent[] = [];
    let after: string | undefined;
    for (;;) {
      const response = await as(bearer).get('/events', { limit: '500', ...(after ? { after } : {}) });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      items.push(...(response.body.data.items as FeedEvent[]));
      after = response.body.data.next_cursor as string;
      if (!response.body.data.has_more) return items;
    }
  };
  const importEventsOf = (items: FeedEvent[], id?: number) =>
    items.filter(
      (event): event is ImportEvent =>
        event.type.startsWith('import.') && (id === undefined || (event as ImportEvent).import_id === id),
    );

  const hooked = async (bearer: string) => {
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    const response = await as(bearer).post('/webhook-endpoints', { url: receiver.url });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return { receiver, endpoint: response.body.data as { id: number; secret: string } };
  };

  it('a completed import: exactly one import.completed, in the feed and to its owner’s webhook, with what GET /imports/{id} shows', async () => {
    const f = suite.fixtures;
    const owner = await token('importer-a');
    const mine = await hooked(owner);
    const other = await token('importer-b');
    const theirs = await hooked(other);

    const done = await imported(owner, csv(f, ['ev-1', 'ev-2', 'ev-3-bad', 'ev-4', 'ev-5']));
    expect(done).toMatchObject({ state: 'completed', orders_created: 4, orders_failed: 1, rows_read: 5 });

    const feed = await feedOf(owner);
    const events = importEventsOf(feed, done.import_id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'import.completed', import_id: done.import_id, data: done });
    expect(Object.keys(events[0]!.data).sort()).toEqual(Object.keys(done).sort());
    // Besides its orders' own events, each once, before it.
    const created = feed.filter(
      (event) =>
        event.type === 'sales_order.created' &&
        'sales_order_id' in event &&
        String(event.data.customer_reference).startsWith('ev-'),
    );
    expect(created).toHaveLength(4);
    expect(feed.indexOf(created.at(-1)!)).toBeLessThan(feed.indexOf(events[0]!));

    // The owner's endpoint gets it once; the other caller's endpoint gets its orders but not it.
    const importPayloads = (hook: Awaited<ReturnType<typeof hooked>>) =>
      (hook.receiver.verifyAll(hook.endpoint.secret) as { type: string; data: { import_id?: number } }[]).filter(
        (payload) => payload.type.startsWith('import.'),
      );
    await eventually(async () => importPayloads(mine).length >= 1, 60_000);
    await eventually(async () => theirs.receiver.received.length >= 4, 60_000);
    expect(importPayloads(mine)).toEqual([{ type: 'import.completed', timestamp: expect.any(String), data: done }]);
    expect(importPayloads(theirs)).toEqual([]);
    // Nothing was even queued for the other endpoint: its deliveries name no import event.
    const deliveries = (await as(other).get(`/webhook-endpoints/${theirs.endpoint.id}/deliveries`, { limit: '100' }))
      .body.data.items as { event_type: string }[];
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.filter((delivery) => delivery.event_type.startsWith('import.'))).toEqual([]);
    // Replayed, still nothing of the import.
    await as(other)
      .post(`/webhook-endpoints/${theirs.endpoint.id}/replay`, { since: '2000-01-01 00:00:00' })
      .expect(202);
    const replayed = (await as(other).get(`/webhook-endpoints/${theirs.endpoint.id}/deliveries`, { limit: '100' })).body
      .data.items as { event_type: string }[];
    expect(replayed.filter((delivery) => delivery.event_type.startsWith('import.'))).toEqual([]);
  });

  it('a failed import: exactly one import.failed, and no import.completed', async () => {
    const f = suite.fixtures;
    const owner = await token('importer-f');
    // The stored file changed after upload (what alone fails an import): a trigger swaps in bytes
    // that are not CSV, so the first chunk cannot read it.
    const { prisma } = suite.server.database;
    await prisma.$executeRawUnsafe(`CREATE FUNCTION spoil_import_file() RETURNS trigger AS $$
      BEGIN NEW.file := '\\x00ff00ff'::bytea; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER spoil_import_file BEFORE INSERT ON imports FOR EACH ROW EXECUTE FUNCTION spoil_import_file()`,
    );
    let failed: Import;
    try {
      const started = await as(owner).upload(csv(f, ['fail-1', 'fail-2']));
      expect(started.status).toBe(202);
      failed = started.body.data as Import;
    } finally {
      await prisma.$executeRawUnsafe('DROP TRIGGER spoil_import_file ON imports');
      await prisma.$executeRawUnsafe('DROP FUNCTION spoil_import_file');
    }
    await eventually(
      async () => (await as(owner).get(`/imports/${failed.import_id}`)).body.data.state === 'failed',
      60_000,
    );
    const done = (await as(owner).get(`/imports/${failed.import_id}`)).body.data as Import;
    expect(done.error).toEqual(expect.any(String));
    const events = importEventsOf(await feedOf(owner), failed.import_id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'import.failed', import_id: done.import_id, data: done });
  });

  it('another caller, one without sales_orders.import and a scoped one learn nothing of it; a scoped owner sees its own', async () => {
    const f = suite.fixtures;
    const owner = await token('importer-c');
    const everywhere = await imported(owner, csv(f, ['vis-1']));
    expect(importEventsOf(await feedOf(owner), everywhere.import_id)).toHaveLength(1);

    // Another caller, even one holding every permission, sees no import of another's.
    const stranger = await token('importer-d');
    expect(importEventsOf(await feedOf(stranger))).toEqual([]);
    const admin = await token('root-admin', [Permission.all]);
    expect(importEventsOf(await feedOf(admin))).toEqual([]);
    // The owner without sales_orders.import: none of its own either.
    const ownerNoImport = await token('importer-c', [Permission.eventsRead, Permission.read]);
    expect(importEventsOf(await feedOf(ownerNoImport))).toEqual([]);
    // The owner, limited to Dhaka, does not see the import it started for every location.
    const ownerInDhaka = await token('importer-c', IMPORTER, [f.locations.dhaka.code]);
    expect(importEventsOf(await feedOf(ownerInDhaka))).toEqual([]);

    // An import started limited to Dhaka: its owner sees it so; limited elsewhere, or another scoped caller, not.
    const inDhaka = await imported(ownerInDhaka, csv(f, ['vis-2']));
    expect(inDhaka.state).toBe('completed');
    expect(importEventsOf(await feedOf(ownerInDhaka)).map((event) => event.import_id)).toEqual([inDhaka.import_id]);
    expect(importEventsOf(await feedOf(owner)).map((event) => event.import_id)).toEqual([
      everywhere.import_id,
      inDhaka.import_id,
    ]);
    const ownerInCtg = await token('importer-c', IMPORTER, [f.locations.chattogram.code]);
    expect(importEventsOf(await feedOf(ownerInCtg))).toEqual([]);
    const strangerInDhaka = await token('importer-e', IMPORTER, [f.locations.dhaka.code]);
    expect(importEventsOf(await feedOf(strangerInDhaka))).toEqual([]);
    // Typed for, still nothing.
    const typed = await as(stranger).get('/events', { types: 'import.completed,import.failed' });
    expect(typed.status).toBe(200);
    expect(typed.body.data.items).toEqual([]);
  });
});
