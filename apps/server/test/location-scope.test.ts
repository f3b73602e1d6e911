import { apiContract } from '@sales-order/contract';
import type { AppRoute } from '@ts-rest/core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createApiKey, createSession } from './support/credentials.js';
import { eventually } from './support/eventually.js';
import { createFixtures, type Fixtures, importLine, ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { routeExamples } from './support/route-examples.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { signJwt } from './support/tokens.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Location scope (docs/authentication.md, "Location scope"): a caller scoped to Dhaka, against
 * orders of Dhaka and Chattogram, learns nothing of Chattogram's through any route. The walk
 * goes over every route of the contract, so a route added later is walked without editing
 * this file: its path parameters are filled with Chattogram's ids, and whatever it answers must
 * not carry Chattogram's order (its number, its id as an order, its remarks marker).
 */

const MARKER = 'CTG-ONLY-MARKER-7731';

type Send = { method: string; path: string; query?: Record<string, string>; body?: unknown };

describe('location scope', () => {
  let server: TestServer;
  let fixtures: Fixtures;
  let receiver: WebhookReceiver;
  /** Orders of each location, made by an unscoped caller. */
  let dhakaOrder: { id: number; number: string };
  let ctgOrder: { id: number; number: string };
  let dhakaToken: string;

  const scopedHeaders = () => ({ authorization: `Bearer ${dhakaToken}` });

  const send = ({ method, path, query, body }: Send, headers: Record<string, string>) => {
    const call = (request(server.api) as unknown as Record<string, (path: string) => request.Test>)[
      method.toLowerCase()
    ]!(path)
      .set(headers)
      .query(query ?? {});
    return body === undefined ? call : call.send(body as object);
  };

  /** Another caller's (unscoped) leftovers must never show: the other location's marks. */
  const expectNothingOfChattogram = (text: string, label: string) => {
    expect(text, label).not.toContain(MARKER);
    expect(text, label).not.toContain(ctgOrder.number);
    expect(text, label).not.toMatch(new RegExp(`"sales_order_id":\\s*${ctgOrder.id}\\b`));
  };

  beforeAll(async () => {
    server = await startTestServer({
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms',
      // Longer than any wait below: a scope change that shows sooner came by the notification.
      AUTH_CACHE_TTL_MS: '300000',
    });
    fixtures = await createFixtures(server.database.prisma);
    const { dhaka, chattogram } = fixtures.locations;
    dhakaToken = await signJwt({ payload: { permissions: ['*'], locations: [dhaka.code] }, subject: 'dhaka-clerk' });

    // The scoped caller's receiver, registered before any order exists, so every event is offered to it.
    receiver = await startWebhookReceiver();
    await request(server.api)
      .post('/webhook-endpoints')
      .set(scopedHeaders())
      .send({ url: receiver.url })
      .expect(201)
      .expect(({ body }) => expect(body.data.locations).toEqual([dhaka.id]));

    const create = async (locationId: number, remarks: string) => {
      const created = await server.http
        .post('/sales-orders')
        .send(
          orderBody(fixtures, { location_id: locationId, remarks, status: 'confirmed', acknowledge_warnings: true }),
        )
        .expect(201);
      return { id: created.body.data.sales_order_id as number, number: created.body.data.order_number as string };
    };
    dhakaOrder = await create(dhaka.id, 'Dhaka order');
    ctgOrder = await create(chattogram.id, `Chattogram ${MARKER}`);
    // History and events of both: an update of each.
    for (const order of [dhakaOrder, ctgOrder]) {
      await server.http
        .put(`/sales-orders/${order.id}`)
        .send({ remarks: `${order.id === ctgOrder.id ? MARKER : 'x'} 2` });
    }
  }, 300_000);

  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  it("walks every route of the contract with its own example about Chattogram's records: nothing of Chattogram comes back", async () => {
    const { chattogram } = fixtures.locations;
    const orderLine = await server.database.prisma.salesOrderDetail.findFirstOrThrow({
      where: { salesOrderId: ctgOrder.id },
    });
    // Another caller's webhook endpoint, import and API key (every location: none lies inside Dhaka).
    // Their endpoint's URL is not the scoped caller's receiver, and their import makes no order
    // (an unknown customer), so that the tests after the walk see what they saw before it.
    const endpoint = await server.http.post('/webhook-endpoints').send({ url: 'http://127.0.0.1:9/other' }).expect(201);
    const unknownCustomer = { ...JSON.parse(importLine(fixtures, 'walk-ctg')), customer_id: 999_999 };
    const started = await server.http
      .post('/imports')
      .set('Content-Type', 'application/x-ndjson')
      .send(`${JSON.stringify(unknownCustomer)}\n`)
      .expect(202);
    const apiKey = await createApiKey(server.database.prisma, ['sales_orders.read'], { name: 'walk' });
    const delivered = await server.http
      .post(`/sales-orders/${ctgOrder.id}/deliveries`)
      .send({ delivery_date: ORDER_DATE, lines: [{ sales_order_detail_id: orderLine.id, quantity: 1 }] })
      .expect(201);
    const examples = routeExamples({
      delivery: delivered.body.data.delivery_id as number,
      deliveryLine: delivered.body.data.lines[0].delivery_line_id as number,
      fixtures,
      location: chattogram.id,
      order: ctgOrder.id,
      orderLine: orderLine.id,
      endpoint: endpoint.body.data.id as number,
      importId: started.body.data.import_id as number,
      apiKey: apiKey.summary.id,
    });
    const routes = Object.entries(apiContract) as [keyof typeof examples, AppRoute][];
    expect(routes.length).toBeGreaterThan(15);
    for (const [name, route] of routes) {
      const example = examples[name];
      const path = route.path.replace(/:(\w+)/g, (_match, param: string) => {
        const value = example.params?.[param];
        if (value === undefined) throw new Error(`${name}: its example names no ${param}`);
        return String(value);
      });
      const call = send({ method: route.method, path, query: example.query, body: example.body }, scopedHeaders());
      const response = await (example.contentType ? call.set('Content-Type', example.contentType) : call);
      const label = `${route.method} ${route.path} (${name})`;
      // 400 is a request bounced before it reached any data: the walk would prove nothing of it.
      expect(response.status, `${label}: its example must be a valid request`).not.toBe(400);
      expect(response.status, label).toBeLessThan(500);
      // Whatever a scoped caller is answered, the contract (and so the OpenAPI document) lists.
      expect(Object.keys(route.responses), `${label} answered ${response.status}`).toContain(String(response.status));
      expectNothingOfChattogram(JSON.stringify(response.body) + JSON.stringify(response.headers), label);
      // Any order route given Chattogram's id reads as a missing order: 404, never 403.
      if (route.path.startsWith('/sales-orders/:id') || route.path.startsWith('/deliveries/:id')) {
        expect(response.status, label).toBe(404);
      }
      // A report about Chattogram's location, asked by a caller limited to Dhaka: empty, never its totals.
      if (name === 'getSalesReport')
        expect(response.body.data, label).toEqual({
          rows: [],
          totals: { order_count: 0, grand_total: 0 },
          next_cursor: null,
        });
    }
  });

  it('answers an order of another location exactly as one that does not exist', async () => {
    const other = await request(server.api).get(`/sales-orders/${ctgOrder.id}`).set(scopedHeaders()).expect(404);
    const missing = await request(server.api).get('/sales-orders/99999999').set(scopedHeaders()).expect(404);
    const without = (body: { error: { message: string } }) => body.error.message.replace(/\d+/g, 'N');
    expect(without(other.body)).toBe(without(missing.body));
    await request(server.api).get(`/sales-orders/${dhakaOrder.id}`).set(scopedHeaders()).expect(200);
  });

  it('lists, counts, searches and syncs only in-scope orders; a cursor cannot widen it', async () => {
    const all = await server.http.get('/sales-orders').query({ include_total: 'true' });
    expect(all.status).toBe(200);
    expect(all.body.data.total).toBe(2);
    const scoped = await request(server.api)
      .get('/sales-orders')
      .query({ include_total: 'true', limit: '1', sort: 'sales_order_no' })
      .set(scopedHeaders())
      .expect(200);
    expect(scoped.body.data.total).toBe(1);
    expect(scoped.body.data.items.map((item: { sales_order_id: number }) => item.sales_order_id)).toEqual([
      dhakaOrder.id,
    ]);
    expect(scoped.body.data.next_cursor).toBeNull();
    // The unscoped caller's cursor, handed to the scoped one, pages only the scoped one's orders.
    const first = await server.http.get('/sales-orders').query({ limit: '1', sort: 'sales_order_no' }).expect(200);
    const next = await request(server.api)
      .get('/sales-orders')
      .query({ limit: '5', sort: 'sales_order_no', cursor: first.body.data.next_cursor })
      .set(scopedHeaders())
      .expect(200);
    expectNothingOfChattogram(JSON.stringify(next.body), 'cursor from another caller');
    const sync = await request(server.api)
      .get('/sales-orders')
      .query({ updated_since: '2000-01-01T00:00:00Z', include_deleted: 'true' })
      .set(scopedHeaders())
      .expect(200);
    expect(sync.body.data.items.map((item: { sales_order_id: number }) => item.sales_order_id)).toEqual([
      dhakaOrder.id,
    ]);
  });

  it('creates, updates and amends only into its own locations: 422 location_not_permitted', async () => {
    const refused = await request(server.api)
      .post('/sales-orders')
      .set(scopedHeaders())
      .send(orderBody(fixtures, { location_id: fixtures.locations.chattogram.id }))
      .expect(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ path: 'location_id', code: 'location_not_permitted' }),
    ]);
    // A location that does not exist answers the same: the scoped caller learns nothing of it.
    const missing = await request(server.api)
      .post('/sales-orders')
      .set(scopedHeaders())
      .send(orderBody(fixtures, { location_id: 999_999 }))
      .expect(422);
    expect(missing.body.error.details.map((detail: { code: string }) => detail.code)).toEqual([
      'location_not_permitted',
    ]);
    const draft = await request(server.api)
      .post('/sales-orders')
      .set(scopedHeaders())
      .send(orderBody(fixtures))
      .expect(201);
    const moved = await request(server.api)
      .put(`/sales-orders/${draft.body.data.sales_order_id}`)
      .set(scopedHeaders())
      .send({ location_id: fixtures.locations.chattogram.id })
      .expect(422);
    expect(moved.body.error.details.map((detail: { code: string }) => detail.code)).toContain('location_not_permitted');
  });

  it('offers only its own locations in the location dropdown; the other lists are unchanged', async () => {
    const scoped = await request(server.api)
      .get('/sales-orders/dropdown-options/locations')
      .set(scopedHeaders())
      .expect(200);
    expect(scoped.body.data.html).toContain('Dhaka');
    expect(scoped.body.data.html).not.toContain('Chattogram');
    const customers = await request(server.api).get('/sales-orders/dropdown-options/customers').set(scopedHeaders());
    const unscoped = await server.http.get('/sales-orders/dropdown-options/customers');
    expect(customers.body.data.html).toBe(unscoped.body.data.html);
  });

  it('does not leave out of a licence check an order it cannot see', async () => {
    // A product of its own with a limited licence, 8 of whose 10 a confirmed Chattogram order holds.
    const product = await createLicensedProduct(server.database.prisma, {
      licences: [{ validFrom: '2026-07-01', validTo: '2026-12-31', quantity: '10' }],
    });
    const held = await server.http
      .post('/sales-orders')
      .send(
        orderBody(fixtures, {
          location_id: fixtures.locations.chattogram.id,
          status: 'confirmed',
          remarks: MARKER,
          details: [{ product_id: product.id, quantity: 8, rate: 1 }],
          other_charges: [],
        }),
      )
      .expect(201);
    const heldId = held.body.data.sales_order_id as number;
    const details = [{ product_id: product.id, quantity: 5 }];
    const check = (extra: Record<string, unknown>) =>
      request(server.api)
        .post('/sales-orders/validate-licence')
        .set(scopedHeaders())
        .send({ sales_order_date: ORDER_DATE, sales_order_details: details, ...extra })
        .expect(200);
    // Naming the invisible order must not leave its 8 out: 5 of the 2 left is over the licence.
    const asked = await check({ sales_order_id: heldId });
    expect(asked.body.data.warnings.map((warning: { code: string }) => warning.code)).toEqual([
      'quantity_exceeds_licence',
    ]);
    expect(asked.body.data).toEqual((await check({})).body.data);
    // The warning counts the order's quantity but names nothing of it.
    expectNothingOfChattogram(JSON.stringify(asked.body), 'licence warning');
    expect(JSON.stringify(asked.body)).not.toContain(held.body.data.order_number as string);
    // An unscoped caller naming the order does leave it out: that is what the scoped one must not get.
    const unscoped = await server.http
      .post('/sales-orders/validate-licence')
      .send({ sales_order_date: ORDER_DATE, sales_order_details: details, sales_order_id: heldId })
      .expect(200);
    expect(unscoped.body.data.has_warnings).toBe(false);
  });

  it('reads only in-scope events in the feed, and its webhook receives only those', async () => {
    const feed = await request(server.api).get('/events').query({ limit: '500' }).set(scopedHeaders()).expect(200);
    const orderIds = new Set(feed.body.data.items.map((event: { sales_order_id: number }) => event.sales_order_id));
    expect(orderIds.has(dhakaOrder.id)).toBe(true);
    expect(orderIds.has(ctgOrder.id)).toBe(false);
    const everything = await server.http.get('/events').query({ limit: '500' }).expect(200);
    expect(
      everything.body.data.items.some((event: { sales_order_id: number }) => event.sales_order_id === ctgOrder.id),
    ).toBe(true);

    // Dhaka's two events (create, update) arrive; Chattogram's never do.
    await eventually(async () => receiver.received.length >= 2, 60_000);
    const lastCtgEvent = everything.body.data.items.filter(
      (event: { sales_order_id: number }) => event.sales_order_id === ctgOrder.id,
    ).length;
    expect(lastCtgEvent).toBeGreaterThan(0);
    const deliveries = await request(server.api).get('/webhook-endpoints').set(scopedHeaders()).expect(200);
    expect(deliveries.body.data.items.length).toBeGreaterThan(0);
    for (const received of receiver.received) expectNothingOfChattogram(received.body, 'webhook delivery');
  });

  it('takes its scope from an API key, a host session and a token, and refuses what cannot be a scope', async () => {
    const { dhaka, chattogram } = fixtures.locations;
    const key = await createApiKey(server.database.prisma, ['*']);
    // The key's locations as stored (ids); the change reaches the credential cache by its notification.
    await server.database.prisma
      .$executeRaw`UPDATE api_keys SET locations = ${[dhaka.id]}::int[] WHERE prefix = ${key.summary.prefix}`;
    const asKey = { authorization: `ApiKey ${key.key}` };
    await eventually(
      async () => (await request(server.api).get(`/sales-orders/${ctgOrder.id}`).set(asKey)).status === 404,
      60_000,
    );
    await request(server.api).get(`/sales-orders/${dhakaOrder.id}`).set(asKey).expect(200);

    const session = await createSession(server.database.prisma, { locations: [chattogram.code] });
    await request(server.api).get(`/sales-orders/${dhakaOrder.id}`).set({ cookie: session.cookie }).expect(404);
    await request(server.api).get(`/sales-orders/${ctgOrder.id}`).set({ cookie: session.cookie }).expect(200);

    // An empty list sees nothing, never everything.
    const nothing = await signJwt({ payload: { permissions: ['*'], locations: [] } });
    const list = await request(server.api)
      .get('/sales-orders')
      .query({ include_total: 'true' })
      .set({ authorization: `Bearer ${nothing}` });
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBe(0);

    const unknown = await signJwt({ payload: { permissions: ['*'], locations: ['NOPE'] } });
    const refused = await request(server.api)
      .get('/sales-orders')
      .set({ authorization: `Bearer ${unknown}` })
      .expect(401);
    expect(refused.body.error.details[0].code).toBe('invalid_locations');
    // A code PostgreSQL cannot even compare (a NUL, a lone surrogate): 401 as well, never a 500.
    for (const code of [`${dhaka.code}\u0000`, `${dhaka.code}\ud800`]) {
      const unstorable = await signJwt({ payload: { permissions: ['*'], locations: [code] } });
      for (const path of ['/sales-orders', '/events', '/webhook-endpoints']) {
        const answer = await request(server.api)
          .get(path)
          .set({ authorization: `Bearer ${unstorable}` });
        expect(answer.status, `${JSON.stringify(code)} ${path}`).toBe(401);
        expect(answer.body.error.details[0].code).toBe('invalid_locations');
      }
    }
    const malformed = await signJwt({ payload: { permissions: ['*'], locations: 'DHK' } });
    await request(server.api)
      .get('/sales-orders')
      .set({ authorization: `Bearer ${malformed}` })
      .expect(401);
    // By id works as by code.
    const byId = await signJwt({ payload: { permissions: ['*'], locations: [dhaka.id] } });
    await request(server.api)
      .get(`/sales-orders/${dhakaOrder.id}`)
      .set({ authorization: `Bearer ${byId}` })
      .expect(200);
  });

  it("a host rewriting a session's locations takes effect at once (NOTIFY), not after the cache time", async () => {
    const { dhaka, chattogram } = fixtures.locations;
    const session = await createSession(server.database.prisma, { locations: [dhaka.code] });
    await request(server.api).get(`/sales-orders/${dhakaOrder.id}`).set({ cookie: session.cookie }).expect(200);
    const started = Date.now();
    await server.database.prisma.$executeRaw`
      UPDATE sessions SET locations = ARRAY[${chattogram.code}]::text[] WHERE user_id = ${session.userId}`;
    const took = await eventually(
      async () =>
        (await request(server.api).get(`/sales-orders/${dhakaOrder.id}`).set({ cookie: session.cookie })).status ===
        404,
      60_000,
    );
    // The cache keeps a session for AUTH_CACHE_TTL_MS (300 s here): only the notification explains this.
    expect(took).toBeLessThan(30_000);
    expect(Date.now() - started).toBeLessThan(300_000);
    await request(server.api).get(`/sales-orders/${ctgOrder.id}`).set({ cookie: session.cookie }).expect(200);
  });
});

describe('location scope that fails closed (JWT_REQUIRE_LOCATIONS=true)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ JWT_REQUIRE_LOCATIONS: 'true' });
  }, 300_000);
  afterAll(async () => server?.close());

  it('refuses a token without a locations claim with 401 locations_required', async () => {
    const token = await signJwt({ payload: { permissions: ['*'] } });
    const refused = await request(server.api)
      .get('/sales-orders')
      .set({ authorization: `Bearer ${token}` })
      .expect(401);
    expect(refused.body.error.details[0].code).toBe('locations_required');
  });
});
