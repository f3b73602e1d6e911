import { Permission, requiredPermissions, salesOrdersContract } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createApiKey, createSession } from './support/credentials.js';
import { createFixtures, type Fixtures, orderBody } from './support/fixtures.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

const ALLOWED_ORIGIN = 'https://erp.example.com';

type Call = {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  body?: object;
};

type RouteCase = {
  /** Every permission the route needs. */
  permissions: Permission[];
  /** What the use case answers once let through. */
  status: number;
  /** Builds the request; may create what the route needs (an order to update or delete). */
  call(): Promise<Call>;
};

/** Sends a call with the given headers through a fresh, credential-free client. */
const send = (server: TestServer, { method, path, body }: Call, headers: Record<string, string>) => {
  const pending = request(server.api)[method](path).set(headers);
  return body === undefined ? pending : pending.send(body);
};

type Method = {
  name: string;
  /** Headers that authenticate a caller holding exactly `permissions`. */
  headers(permissions: string[], subject: string): Promise<Record<string, string>>;
};

describe('authentication and permissions on every route', () => {
  let server: TestServer;
  let fixtures: Fixtures;
  let routes: Record<keyof typeof salesOrdersContract, RouteCase>;
  let methods: Method[];

  const newOrderId = async (overrides: Record<string, unknown> = {}) =>
    (await server.http.post('/sales-orders').send(orderBody(fixtures, overrides)).expect(201)).body.data
      .sales_order_id as number;

  beforeAll(async () => {
    server = await startTestServer({ ALLOWED_ORIGINS: ALLOWED_ORIGIN });
    fixtures = await createFixtures(server.database.prisma);
    const { dhaka } = fixtures.locations;
    routes = {
      getMaxNumber: {
        permissions: [Permission.read],
        status: 200,
        call: async () => ({
          method: 'get',
          path: `/sales-orders/max-number?year_id=${fixtures.years.currentYear.id}&location_id=${dhaka.id}`,
        }),
      },
      validateLicence: {
        permissions: [Permission.read],
        status: 200,
        call: async () => ({
          method: 'post',
          path: '/sales-orders/validate-licence',
          body: { sales_order_details: [{ product_id: fixtures.products.otherProduct.id, quantity: 1 }] },
        }),
      },
      calculateTotals: {
        permissions: [Permission.read],
        status: 200,
        call: async () => ({
          method: 'post',
          path: '/sales-orders/calculate-totals',
          body: { details: [{ quantity: 2, rate: 3 }] },
        }),
      },
      getDropdownOptions: {
        permissions: [Permission.read],
        status: 200,
        call: async () => ({ method: 'get', path: '/sales-orders/dropdown-options/customers' }),
      },
      listSalesOrders: {
        permissions: [Permission.read],
        status: 200,
        call: async () => ({
          method: 'get',
          path: `/sales-orders?customer_id=${fixtures.customers.customer.id}&limit=5`,
        }),
      },
      createSalesOrder: {
        permissions: [Permission.create],
        status: 201,
        call: async () => ({ method: 'post', path: '/sales-orders', body: orderBody(fixtures) }),
      },
      bulkCreateSalesOrders: {
        permissions: [Permission.create],
        status: 201,
        call: async () => ({
          method: 'post',
          path: '/sales-orders/bulk',
          body: { orders: [orderBody(fixtures), orderBody(fixtures)] },
        }),
      },
      getSalesOrder: {
        permissions: [Permission.read],
        status: 200,
        call: async () => ({ method: 'get', path: `/sales-orders/${await newOrderId()}` }),
      },
      getSalesOrderHistory: {
        permissions: [Permission.read],
        status: 200,
        call: async () => ({ method: 'get', path: `/sales-orders/${await newOrderId()}/history` }),
      },
      updateSalesOrder: {
        permissions: [Permission.update, Permission.read],
        status: 200,
        call: async () => ({
          method: 'put',
          path: `/sales-orders/${await newOrderId()}`,
          body: { remarks: 'changed' },
        }),
      },
      deleteSalesOrder: {
        permissions: [Permission.delete, Permission.read],
        status: 200,
        call: async () => ({ method: 'delete', path: `/sales-orders/${await newOrderId()}` }),
      },
      confirmSalesOrder: {
        permissions: [Permission.confirm, Permission.read],
        status: 200,
        call: async () => ({
          method: 'post',
          // An order without licence warnings: acknowledging them needs licences.override too
          // (field-permissions.test.ts).
          path: `/sales-orders/${await newOrderId({ details: [{ product_id: fixtures.products.otherProduct.id, quantity: 1, rate: 5 }], other_charges: [] })}/confirm`,
          body: {},
        }),
      },
      cancelSalesOrder: {
        permissions: [Permission.cancel, Permission.read],
        status: 200,
        call: async () => ({
          method: 'post',
          path: `/sales-orders/${await newOrderId()}/cancel`,
          body: { reason: 'wrong customer' },
        }),
      },
      closeSalesOrder: {
        permissions: [Permission.close, Permission.read],
        status: 200,
        call: async () => {
          const id = await newOrderId();
          await server.http.post(`/sales-orders/${id}/confirm`).send({ acknowledge_warnings: true }).expect(200);
          return { method: 'post', path: `/sales-orders/${id}/close` };
        },
      },
      amendSalesOrder: {
        permissions: [Permission.create, Permission.read],
        status: 201,
        call: async () => {
          const id = await newOrderId();
          await server.http.post(`/sales-orders/${id}/cancel`).send({ reason: 'to amend' }).expect(200);
          return { method: 'post', path: `/sales-orders/${id}/amend` };
        },
      },
    };
    const { prisma } = server.database;
    methods = [
      {
        name: 'JWT',
        headers: async (permissions, subject) => ({
          Authorization: `Bearer ${await signJwt({ subject, payload: { permissions } })}`,
        }),
      },
      {
        name: 'API key',
        headers: async (permissions) => ({ Authorization: `ApiKey ${(await createApiKey(prisma, permissions)).key}` }),
      },
      {
        name: 'session cookie',
        // The service's own origin, as the host's pages on the same host send it.
        headers: async (permissions, userId) => ({
          Cookie: (await createSession(prisma, { permissions, userId })).cookie,
          Origin: server.origin,
        }),
      },
    ];
  });
  afterAll(() => server?.close());

  it('has a case for every route of the contract, with the permissions its metadata declares', () => {
    expect(Object.keys(routes).sort()).toEqual(Object.keys(salesOrdersContract).sort());
    for (const [name, route] of Object.entries(salesOrdersContract)) {
      expect(routes[name as keyof typeof routes].permissions, name).toEqual(requiredPermissions(route.metadata));
    }
  });

  it('answers 401 with WWW-Authenticate and the envelope on every route without credentials', async () => {
    for (const [name, route] of Object.entries(routes)) {
      const response = await send(server, await route.call(), {});
      expect(response.status, name).toBe(401);
      expect(response.headers['www-authenticate'], name).toMatch(/^Bearer realm="sales-order-service", ApiKey realm=/);
      expect(response.body, name).toEqual({
        success: false,
        error: {
          message: 'Authentication required',
          code: 401,
          details: [{ path: '', message: 'Authentication required', code: 'missing_credentials' }],
        },
      });
    }
  });

  it('lets each method through on every route with exactly the permission the route needs', async () => {
    for (const method of methods) {
      for (const [name, route] of Object.entries(routes)) {
        const response = await send(server, await route.call(), await method.headers(route.permissions, 'subject-a'));
        const label = `${method.name} ${name}: ${JSON.stringify(response.body)}`;
        expect(response.status, label).toBe(route.status);
        expect(response.body.success).toBe(true);
      }
    }
  });

  it('answers 403 on every route to each method holding every other permission but one it needs', async () => {
    for (const method of methods) {
      for (const [name, route] of Object.entries(routes)) {
        for (const needed of route.permissions) {
          const others = Object.values(Permission).filter(
            (permission) => permission !== needed && permission !== Permission.all,
          );
          const response = await send(server, await route.call(), await method.headers(others, 'subject-b'));
          expect(response.status, `${method.name} ${name} without ${needed}`).toBe(403);
          expect(response.body.error).toEqual({
            message: `This needs the permission ${needed}`,
            code: 403,
            details: [{ path: '', message: `This needs the permission ${needed}`, code: 'missing_permission' }],
          });
        }
      }
    }
  });

  it('tells a writer without read nothing it could not read: the same 403 for an order that exists or not, whatever If-Match or body it sends', async () => {
    const id = await newOrderId();
    const writer = {
      Authorization: `Bearer ${await signJwt({
        payload: { permissions: [Permission.create, Permission.update, Permission.delete, Permission.confirm] },
      })}`,
    };
    const answers = [];
    for (const target of [id, 987654]) {
      // A stale If-Match would be a 412 naming the current version; a total that does not add up
      // a 422 giving the computed one; a confirm of a confirmed order a 409 naming its status.
      answers.push(
        await request(server.api)
          .put(`/sales-orders/${target}`)
          .set(writer)
          .set('If-Match', '"99"')
          .send({ remarks: 'x' }),
        await request(server.api)
          .put(`/sales-orders/${target}`)
          .set(writer)
          .send({ details: [{ product_id: fixtures.products.otherProduct.id, quantity: 1, rate: 5 }], grand_total: 1 }),
        await request(server.api).delete(`/sales-orders/${target}`).set(writer),
        await request(server.api).post(`/sales-orders/${target}/confirm`).set(writer).send({}),
      );
    }
    const message = 'This needs the permission sales_orders.read';
    for (const response of answers) {
      expect(response.status, response.text).toBe(403);
      expect(response.body.error).toEqual({
        message,
        code: 403,
        details: [{ path: '', message, code: 'missing_permission' }],
      });
      expect(response.headers.etag).toBeUndefined();
    }
    // Nothing was changed by the refused calls.
    const order = (await server.http.get(`/sales-orders/${id}`).expect(200)).body.data;
    expect(order).toMatchObject({ version: 1, status: 'draft' });
    // Creating needs no read: what a create answers is the order the caller sent.
    const created = await request(server.api).post('/sales-orders').set(writer).send(orderBody(fixtures));
    expect(created.status).toBe(201);
  });

  it('names every permission a caller lacks, in one 403', async () => {
    const token = await signJwt({ payload: { permissions: [Permission.create] } });
    const response = await request(server.api)
      .put(`/sales-orders/${await newOrderId()}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ remarks: 'x' });
    expect(response.status).toBe(403);
    expect(response.body.error.message).toBe('This needs the permissions sales_orders.update and sales_orders.read');
  });

  it('accepts the OAuth scope claim as well as a permissions array', async () => {
    const token = await signJwt({ payload: { scope: 'openid sales_orders.read' } });
    const response = await request(server.api)
      .post('/sales-orders/calculate-totals')
      .set('Authorization', `Bearer ${token}`)
      .send({ details: [{ quantity: 1, rate: 2 }] });
    expect(response.status).toBe(200);
    const writer = await request(server.api)
      .post('/sales-orders')
      .set('Authorization', `Bearer ${token}`)
      .send(orderBody(fixtures));
    expect(writer.status).toBe(403);
  });

  it('refuses a caller without the permission before looking at the body (403, not 400)', async () => {
    const token = await signJwt({ payload: { permissions: [Permission.read] } });
    const broken = await request(server.api)
      .post('/sales-orders')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send('{"customer_id": ');
    expect(broken.status).toBe(403);
    const invalid = await request(server.api)
      .post('/sales-orders')
      .set('Authorization', `Bearer ${token}`)
      .send({ customer_id: 'x' });
    expect(invalid.status).toBe(403);
  });

  it('tells an anonymous caller nothing about orders or routes: the same 401 for all', async () => {
    const existing = await newOrderId();
    const answers = await Promise.all(
      [`/sales-orders/${existing}`, '/sales-orders/987654', '/sales-orders/not-a-number', '/no-such-route'].map(
        (path) => request(server.api).get(path),
      ),
    );
    const malformed = await request(server.api).post('/sales-orders').set('Content-Type', 'application/json').send('{');
    for (const response of [...answers, malformed]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual(answers[0]!.body);
    }
    // The same paths authenticated give their real answers.
    expect((await server.http.get(`/sales-orders/${existing}`)).status).toBe(200);
    expect((await server.http.get('/sales-orders/987654')).status).toBe(404);
    expect((await server.http.get('/no-such-route')).status).toBe(404);
  });

  it('hides whether an order exists from a caller without the permission: 403 before 404', async () => {
    const reader = { Authorization: `Bearer ${await signJwt({ payload: { permissions: [Permission.read] } })}` };
    const missing = await request(server.api).delete('/sales-orders/987654').set(reader);
    const existing = await request(server.api)
      .delete(`/sales-orders/${await newOrderId()}`)
      .set(reader);
    expect(missing.status).toBe(403);
    expect(existing.status).toBe(403);
    expect(missing.body).toEqual(existing.body);
  });

  it('answers 401 to an unknown Authorization scheme and to a malformed header', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', '', 'ApiKey']) {
      const response = await request(server.api)
        .get('/sales-orders/dropdown-options/ports')
        .set('Authorization', authorization);
      expect(response.status, JSON.stringify(authorization)).toBe(401);
      expect(response.headers['www-authenticate']).toBeDefined();
      expect(response.body.success).toBe(false);
    }
  });

  it('keeps health checks and the OpenAPI document paths open', async () => {
    expect((await request(server.origin).get('/healthz')).status).toBe(200);
    expect((await request(server.origin).get('/readyz')).status).toBe(200);
    // Another issue serves these; whatever they answer, it is not a demand for credentials.
    for (const path of ['/openapi.json', '/docs', '/docs/index.html']) {
      expect((await request(server.api).get(path)).status, path).not.toBe(401);
    }
    expect((await request(server.api).post('/openapi.json')).status).toBe(401);
  });

  it('records the authenticated subject of each method as created_by, updated_by and deleted_by', async () => {
    const { prisma } = server.database;
    const subjects: Record<string, string> = {};
    for (const method of methods) {
      const subject = `audit-${method.name.replace(/\W/g, '-')}`;
      const headers = await method.headers([Permission.all], subject);
      const created = await send(server, { method: 'post', path: '/sales-orders', body: orderBody(fixtures) }, headers);
      expect(created.status).toBe(201);
      const id = created.body.data.sales_order_id as number;
      const read = await send(server, { method: 'get', path: `/sales-orders/${id}` }, headers);
      expect(read.body.data.created_by).toEqual(
        method.name === 'API key' ? expect.stringMatching(/^api_key:sok_[a-z2-7]{8}$/) : subject,
      );
      subjects[method.name] = read.body.data.created_by;

      // Another caller changes and deletes it: each column names who did what.
      const other = await method.headers([Permission.all], `${subject}-2`);
      expect(
        (await send(server, { method: 'put', path: `/sales-orders/${id}`, body: { remarks: 'x' } }, other)).status,
      ).toBe(200);
      const afterUpdate = await prisma.salesOrder.findUniqueOrThrow({ where: { id } });
      expect(afterUpdate.createdBy).toBe(subjects[method.name]);
      expect(afterUpdate.updatedBy).not.toBe(afterUpdate.createdBy);
      expect(afterUpdate.updatedBy).toEqual(
        method.name === 'API key' ? expect.stringMatching(/^api_key:/) : `${subject}-2`,
      );
      expect((await send(server, { method: 'delete', path: `/sales-orders/${id}` }, other)).status).toBe(200);
      const afterDelete = await prisma.salesOrder.findUniqueOrThrow({ where: { id } });
      expect(afterDelete.deletedBy).toBe(afterUpdate.updatedBy);
      expect(afterDelete.deletedAt).not.toBeNull();
    }
  });
});
