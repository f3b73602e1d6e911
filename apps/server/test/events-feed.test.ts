import { decodeEventCursor, encodeEventCursor, type SalesOrderEvent } from '@sales-order/contract';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { recordOrderEvent } from '../src/orders/store/order-event-store.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt, TEST_SUBJECT } from './support/tokens.js';

type Http = ReturnType<typeof useServerWithFixtures>['server']['http'];

/** Pages through GET /events from `after` with `query`, `limit` at a time, until has_more is false. */
const readFeed = async (
  http: Http,
  { after, limit = 100, query = {} }: { after?: string; limit?: number; query?: Record<string, string | number> } = {},
) => {
  const items: SalesOrderEvent[] = [];
  let cursor = after;
  for (;;) {
    const response = await http.get('/events').query({ ...query, limit, ...(cursor ? { after: cursor } : {}) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const page = response.body.data as { items: SalesOrderEvent[]; next_cursor: string; has_more: boolean };
    items.push(...page.items);
    cursor = page.next_cursor;
    if (!page.has_more) return { items, cursor };
  }
};

describe('events: one per change, written with the change', () => {
  const suite = useServerWithFixtures();
  const relay = () => suite.server.events.relay.runOnce();
  const eventsOf = async (id: number) => {
    await relay();
    return (await readFeed(suite.server.http, { query: { sales_order_id: id } })).items;
  };
  const eventCount = async () => {
    const [row] = await suite.server.database.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM events`;
    return row!.n;
  };

  it('create, update and delete each write one event whose data is the order as GET reads it right after', async () => {
    const { http } = suite.server;
    const { products } = suite.fixtures;
    const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;
    const afterCreate = (await http.get(`/sales-orders/${id}`).expect(200)).body.data;
    await http.put(`/sales-orders/${id}`).send({ remarks: 'Call before delivery' }).expect(200);
    const afterRemarks = (await http.get(`/sales-orders/${id}`).expect(200)).body.data;
    await http
      .put(`/sales-orders/${id}`)
      .send({
        details: [{ product_id: products.otherProduct.id, quantity: 1.125, rate: 99.9999 }],
        other_charges: [
          { description: 'Freight', amount: 120.5 },
          { description: 'Discount', amount: -20 },
        ],
      })
      .expect(200);
    const afterLines = (await http.get(`/sales-orders/${id}`).expect(200)).body.data;
    const editor = `Bearer ${await signJwt({ subject: 'clerk-9', payload: { permissions: ['*'] } })}`;
    await http.delete(`/sales-orders/${id}`).set('Authorization', editor).expect(200);

    const events = await eventsOf(id);
    expect(events.map(({ type, version, sales_order_id }) => [type, version, sales_order_id])).toEqual([
      ['sales_order.created', 1, id],
      ['sales_order.updated', 2, id],
      ['sales_order.updated', 3, id],
      ['sales_order.deleted', 4, id],
    ]);
    // The read shape exactly, key order included.
    expect(JSON.stringify(events[0]!.data)).toBe(JSON.stringify(afterCreate));
    expect(JSON.stringify(events[1]!.data)).toBe(JSON.stringify(afterRemarks));
    expect(JSON.stringify(events[2]!.data)).toBe(JSON.stringify(afterLines));
    // The deleted order's last shape: its contents as they were, at its final version.
    const deleted = events[3]!.data;
    expect(deleted).toEqual({ ...afterLines, version: 4, updated_at: deleted.updated_at, updated_by: 'clerk-9' });
    expect(deleted.updated_at >= afterLines.updated_at).toBe(true);
    for (const event of events) {
      expect(event.occurred_at).toBe(event.data.updated_at);
      expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(new Set(events.map((event) => event.id)).size).toBe(4);
    // The same versions as the order's history entries.
    const history = (await http.get(`/sales-orders/${id}/history`).expect(200)).body.data.entries as {
      version: number;
    }[];
    expect(history.map((entry) => entry.version)).toEqual(events.map((event) => event.version));
  });

  it('every lifecycle transition writes its event, with the order as GET reads it after the transition', async () => {
    const { http } = suite.server;
    const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;
    await http.post(`/sales-orders/${id}/confirm`).send({ acknowledge_warnings: true }).expect(200);
    const confirmed = (await http.get(`/sales-orders/${id}`).expect(200)).body.data;
    await http.post(`/sales-orders/${id}/close`).expect(200);
    const closed = (await http.get(`/sales-orders/${id}`).expect(200)).body.data;
    expect((await eventsOf(id)).map((event) => [event.type, event.version, JSON.stringify(event.data)])).toEqual([
      ['sales_order.created', 1, expect.any(String)],
      ['sales_order.confirmed', 2, JSON.stringify(confirmed)],
      ['sales_order.closed', 3, JSON.stringify(closed)],
    ]);

    const other = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;
    await http.post(`/sales-orders/${other}/cancel`).send({ reason: 'Customer withdrew' }).expect(200);
    const cancelled = (await http.get(`/sales-orders/${other}`).expect(200)).body.data;
    const amended = (await http.post(`/sales-orders/${other}/amend`).expect(201)).body.data;
    const draft = (await http.get(`/sales-orders/${amended.sales_order_id}`).expect(200)).body.data;
    expect((await eventsOf(other)).map((event) => [event.type, event.version, JSON.stringify(event.data)])).toEqual([
      ['sales_order.created', 1, expect.any(String)],
      ['sales_order.cancelled', 2, JSON.stringify(cancelled)],
    ]);
    expect(cancelled.cancellation_reason).toBe('Customer withdrew');
    expect(
      (await eventsOf(amended.sales_order_id)).map((event) => [event.type, event.version, JSON.stringify(event.data)]),
    ).toEqual([['sales_order.amended', 1, JSON.stringify(draft)]]);
    expect(draft.amended_from_id).toBe(other);

    // Created and confirmed in one transaction: two events, versions 1 and 2.
    const both = (
      await http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { status: 'confirmed', acknowledge_warnings: true }))
        .expect(201)
    ).body.data.sales_order_id as number;
    expect((await eventsOf(both)).map((event) => [event.type, event.version])).toEqual([
      ['sales_order.created', 1],
      ['sales_order.confirmed', 2],
    ]);
    // A refused transition leaves no event.
    const before = await eventCount();
    await http.post(`/sales-orders/${id}/cancel`).send({ reason: 'too late' }).expect(409);
    expect(await eventCount()).toBe(before);
  });

  it('a refused or rolled-back write leaves no event; an idempotent retry adds none', async () => {
    const { http } = suite.server;
    const { fixtures } = suite;
    const id = (await http.post('/sales-orders').send(orderBody(fixtures)).expect(201)).body.data
      .sales_order_id as number;
    const number = (await http.get(`/sales-orders/${id}`).expect(200)).body.data.sales_order_no as string;
    const before = await eventCount();

    // Refused before the write.
    await http
      .post('/sales-orders')
      .send(orderBody(fixtures, { customer_id: 999_999 }))
      .expect(422);
    // Refused by the write's own statement: a number another order has.
    await http
      .post('/sales-orders')
      .send(orderBody(fixtures, { sales_order_no: number }))
      .expect(422);
    // Refused after the statement wrote the order and its event, in its transaction: a series
    // number too far ahead of the counter rolls both back.
    await http
      .post('/sales-orders')
      .send(orderBody(fixtures, { sales_order_no: 'DHK-2026-99999' }))
      .expect(422);
    // An update refused after it locked the order (and bumped its version) in its transaction.
    await http.put(`/sales-orders/${id}`).send({ grand_total: 1 }).expect(422);
    await http.put(`/sales-orders/${id}`).set('If-Match', '"7"').send({ remarks: 'stale' }).expect(412);
    await http.delete(`/sales-orders/${id}`).set('If-Match', '"7"').expect(412);
    await http.delete('/sales-orders/999999').expect(404);
    expect(await eventCount()).toBe(before);

    // The same Idempotency-Key twice: one order, one event.
    const body = orderBody(fixtures, { remarks: 'idempotent' });
    const first = await http.post('/sales-orders').set('Idempotency-Key', 'events-once').send(body).expect(201);
    const again = await http.post('/sales-orders').set('Idempotency-Key', 'events-once').send(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await eventCount()).toBe(before + 1);
    expect((await eventsOf(first.body.data.sales_order_id as number)).map((event) => event.type)).toEqual([
      'sales_order.created',
    ]);
  });

  it('filters by types and order, and refuses cursors and types it did not issue', async () => {
    const { http } = suite.server;
    const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;
    await http.put(`/sales-orders/${id}`).send({ remarks: 'filtered' }).expect(200);
    await http.delete(`/sales-orders/${id}`).expect(200);
    await relay();

    const onlyTypes = await readFeed(http, {
      limit: 2,
      query: { types: 'sales_order.deleted,sales_order.created', sales_order_id: id },
    });
    expect(onlyTypes.items.map((event) => event.type)).toEqual(['sales_order.created', 'sales_order.deleted']);
    const everything = await readFeed(http, { limit: 3 });
    expect(everything.items.every((event, index, all) => index === 0 || event.id !== all[index - 1]!.id)).toBe(true);
    expect(everything.items.filter((event) => event.sales_order_id === id)).toHaveLength(3);
    // Caught up: the cursor returns nothing more until something changes.
    const caughtUp = await http.get('/events').query({ after: everything.cursor }).expect(200);
    expect(caughtUp.body.data).toEqual({ items: [], next_cursor: everything.cursor, has_more: false });

    const refused = async (query: Record<string, string>, path: string) => {
      const response = await http.get('/events').query(query).expect(400);
      expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    };
    await refused({ after: 'not-a-cursor' }, 'after');
    await refused({ after: Buffer.from('p-1').toString('base64url') }, 'after');
    await refused({ after: encodeEventCursor({ position: 1 }).slice(1) }, 'after');
    // Well formed, but past every position given out (the caught-up cursor above is the last): forged.
    const last = decodeEventCursor(everything.cursor)!.position;
    await refused({ after: encodeEventCursor({ position: last + 1_000 }) }, 'after');
    await refused({ after: encodeEventCursor({ position: 999_999_999_999_999 }) }, 'after');
    await refused({ types: 'sales_order.created,sales_order.shipped' }, 'types');
    await refused({ types: '' }, 'types');
    await refused({ limit: '0' }, 'limit');
    await refused({ limit: '501' }, 'limit');
    expect(decodeEventCursor(everything.cursor)?.position).toBeGreaterThan(0);
  });

  it('needs events.read', async () => {
    const token = async (permissions: string[]) =>
      `Bearer ${await signJwt({ subject: 'reader', payload: { permissions } })}`;
    const api = request(suite.server.api);
    const denied = await api
      .get('/events')
      .set('Authorization', await token(['sales_orders.read']))
      .expect(403);
    expect(denied.body.error.details[0]).toMatchObject({ code: 'missing_permission' });
    expect(denied.body.error.message).toContain('events.read');
    await api
      .get('/events')
      .set('Authorization', await token(['events.read']))
      .expect(200);
    await api.get('/events').expect(401);
  });
});

describe('the feed under concurrent writers', () => {
  const suite = useServerWithFixtures();

  it('a reader paging while many connections write sees every committed event exactly once, in commit order', async () => {
    const { http } = suite.server;
    const ids: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      ids.push((await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data.sales_order_id);
    }
    const seen: SalesOrderEvent[] = [];
    let cursor: string | undefined;
    let writing = true;
    const reader = (async () => {
      // Pages of 3 while the writers run, then until caught up once they are done.
      for (;;) {
        const done = !writing;
        const page = await readFeed(http, { after: cursor, limit: 3 });
        seen.push(...page.items);
        cursor = page.cursor;
        if (done) return;
      }
    })();
    // 8 writers at once, each creating and updating orders: commits interleave at random.
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        for (let round = 0; round < 6; round += 1) {
          const id = ids[(writer + round) % ids.length]!;
          const created = await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201);
          await http
            .put(`/sales-orders/${created.body.data.sales_order_id}`)
            .send({ remarks: `w${writer}` })
            .expect(200);
          // Updates of shared orders queue on the order's row lock.
          await http
            .put(`/sales-orders/${id}`)
            .send({ remarks: `w${writer} r${round}` })
            .expect(200);
        }
      }),
    );
    await suite.server.events.relay.runOnce();
    writing = false;
    await reader;

    const all = await suite.server.database.prisma.$queryRaw<{ id: string; position: bigint | null }[]>`
      SELECT e.id::text, p.position FROM events e LEFT JOIN event_positions p ON p.event_seq = e.seq ORDER BY p.position`;
    expect(all.every((row) => row.position !== null)).toBe(true);
    // Exactly once each, and every one of them.
    expect(seen.map((event) => event.id)).toEqual(all.map((row) => row.id));
    // Per order, versions in order and without a gap.
    const versions = new Map<number, number[]>();
    for (const event of seen)
      versions.set(event.sales_order_id, [...(versions.get(event.sales_order_id) ?? []), event.version]);
    for (const [id, list] of versions) expect(list, `order ${id}`).toEqual(list.map((_, index) => index + 1));
    expect(seen.length).toBe(6 + 8 * 6 * 3);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'an event whose transaction commits after later-numbered ones is not skipped (needs TEST_DATABASE_URL)',
    async () => {
      const { http, database } = suite.server;
      const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
        .sales_order_id as number;
      await suite.server.events.relay.runOnce();
      const start = (await readFeed(http)).cursor;

      // A change whose event is inserted now, in a transaction that commits only at the end.
      let commit!: () => void;
      const held = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let inserted!: () => void;
      const eventInserted = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      const late = database.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`UPDATE sales_orders SET version = version + 1, remarks = 'late' WHERE id = ${id}`;
        await recordOrderEvent(tx, id, 'sales_order.updated');
        inserted();
        await held;
      });
      await eventInserted;
      const [lateRow] = await database.prisma.$queryRaw<{ seq: bigint }[]>`SELECT max(seq) AS seq FROM events`;

      // Later changes commit first, and the reader reads past them.
      const others: number[] = [];
      for (let index = 0; index < 3; index += 1) {
        others.push(
          (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data.sales_order_id,
        );
      }
      await suite.server.events.relay.runOnce();
      const first = await readFeed(http, { after: start });
      expect(first.items.map((event) => event.sales_order_id)).toEqual(others);
      const [laterRow] = await database.prisma.$queryRaw<{ seq: bigint }[]>`
        SELECT min(seq) AS seq FROM events WHERE subject_type = 'sales_order' AND subject_id = ANY(${others})`;
      // The held event was inserted (numbered) before the ones already read.
      expect(lateRow!.seq < laterRow!.seq).toBe(true);

      commit();
      await late;
      await suite.server.events.relay.runOnce();
      const second = await readFeed(http, { after: first.cursor });
      expect(second.items.map((event) => [event.sales_order_id, event.version, event.data.remarks])).toEqual([
        [id, 2, 'late'],
      ]);
    },
  );
});

describe('retention', () => {
  const suite = useServerWithFixtures({ EVENT_RETENTION_DAYS: '30' });

  it('purges events past retention, with their deliveries, in bounded batches; recent ones stay', async () => {
    const { prisma } = suite.server.database;
    const { http } = suite.server;
    const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;
    await suite.server.events.relay.runOnce();
    const data = (await http.get(`/sales-orders/${id}`).expect(200)).body.data;
    // 1,250 events of 40 days ago, as old changes left them, then positioned by the relay.
    await prisma.$executeRaw`
      WITH event AS (
        INSERT INTO events (type, subject_type, subject_id, version, occurred_at, data)
        SELECT 'sales_order.updated', 'sales_order', ${id}::int, n + 1, now() - interval '40 days', ${JSON.stringify(data)}::json
        FROM generate_series(1, 1250) n
        RETURNING seq)
      INSERT INTO event_queue (event_seq) SELECT seq FROM event`;
    // Older than all of those by insertion, but within retention: stays.
    await prisma.$executeRaw`UPDATE events SET occurred_at = now() - interval '29 days' WHERE subject_id = ${id} AND version = 1`;
    await suite.server.events.relay.runOnce();
    const endpoint = await prisma.webhookEndpoint.create({
      data: { url: 'https://127.0.0.1:9/in', secret: 'whsec_AAAA', enabled: false, disabledReason: 'manual' },
    });
    await prisma.$executeRaw`
      INSERT INTO webhook_deliveries (endpoint_id, event_seq, event_position, subject_type, subject_id, status)
      SELECT ${endpoint.id}::int, event_seq, position, 'sales_order', sales_order_id, 'succeeded' FROM event_positions`;

    const batches = await suite.server.events.purge!.runOnce();
    // Every batch of the 500 oldest events holds the recent one: 499 go each time, then the rest.
    expect(batches).toEqual([499, 499, 252]);
    const left = await prisma.$queryRaw<{ version: number; occurred_at: Date }[]>`
      SELECT version, occurred_at FROM events WHERE subject_id = ${id} ORDER BY seq`;
    expect(left.map((row) => row.version)).toEqual([1]);
    const [deliveries] = await prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_deliveries`;
    expect(deliveries!.n).toBe(1);
    expect(await suite.server.events.purge!.runOnce()).toEqual([]);
    // Still read by the feed, as before.
    const feed = await readFeed(http, { query: { sales_order_id: id } });
    expect(feed.items.map((event) => event.version)).toEqual([1]);
    expect(feed.items[0]!.sales_order_id).toBe(id);
    expect(TEST_SUBJECT).toBe(feed.items[0]!.data.created_by);
  });
});
