import { Permission, salesOrdersContract } from '@sales-order/contract';
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
  permission: Permission;
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

  const newOrderId = async () =>
    (await server.http.post('/sales-orders').send(orderBody(fixtures)).expect(201)).body.data.sales_order_id as number;

  beforeAll(async () => {
    server = await startTestServer({ ALLOWED_ORIGINS: ALLOWED_ORIGIN });
    fixtures = await createFixtures(server.database.prisma);
    const { dhaka } = fixtures.locations;
    routes = {
      getMaxNumber: {
        permission: Permission.read,
        status: 200,
        call: async () => ({
          method: 'get',
          path: `/sales-orders/max-number?year_id=${fixtures.years.currentYear.id}&location_id=${dhaka.id}`,
        }),
      },
      validateLicence: {
        permission: Permission.read,
        status: 200,
        call: async () => ({
          method: 'post',
          path: '/sales-orders/validate-licence',
          body: { sales_order_details: [{ product_id: fixtures.products.otherProduct.id, quantity: 1 }] },
        }),
      },
      calculateTotals: {
        permission: Permission.read,
        status: 200,
        call: async () => ({
          method: 'post',
          path: '/sales-orders/calculate-totals',
          body: { details: [{ quantity: 2, rate: 3 }] },
        }),
      },
      getDropdownOptions: {
        permission: Permission.read,
        status: 200,
        call: async () => ({ method: 'get', path: '/sales-orders/dropdown-options/customers' }),
      },
      listSalesOrders: {
        permission: Permission.read,
        status: 200,
        call: async () => ({
          method: 'get',
          path: `/sales-orders?customer_id=${fixtures.customers.customer.id}&limit=5`,
        }),
      },
      createSalesOrder: {
        permission: Permission.create,
        status: 201,
        call: async () => ({ method: 'post', path: '/sales-orders', body: orderBody(fixtures) }),
      },
      getSalesOrder: {
        permission: Permission.read,
        status: 200,
        call: async () => ({ method: 'get', path: `/sales-orders/${await newOrderId()}` }),
      },
      getSalesOrderHistory: {
        permission: Permission.read,
        status: 200,
        call: async () => ({ method: 'get', path: `/sales-orders/${await newOrderId()}/history` }),
      },
      updateSalesOrder: {
        permission: Permission.update,
        status: 200,
        call: async () => ({
          method: 'put',
          path: `/sales-orders/${await newOrderId()}`,
          body: { remarks: 'changed' },
        }),
      },
      deleteSalesOrder: {
        permission: Permission.delete,
        status: 200,
        call: async () => ({ method: 'delete', path: `/sales-orders/${await newOrderId()}` }),
      },
      confirmSalesOrder: {
        permission: Permission.confirm,
        status: 200,
        call: async () => ({
          method: 'post',
          path: `/sales-orders/${await newOrderId()}/confirm`,
          body: { acknowledge_warnings: true },
        }),
      },
      cancelSalesOrder: {
        permission: Permission.cancel,
        status: 200,
        call: async () => ({
          method: 'post',
          path: `/sales-orders/${await newOrderId()}/cancel`,
          body: { reason: 'wrong customer' },
        }),
      },
      closeSalesOrder: {
        permission: Permission.close,
        status: 200,
        call: async () => {
          const id = await newOrderId();
          await server.http.post(`/sales-orders/${id}/confirm`).send({ acknowledge_warnings: true }).expect(200);
          return { method: 'post', path: `/sales-orders/${id}/close` };
        },
      },
      amendSalesOrder: {
        permission: Permission.create,
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

  it('has a case for every route of the contract, with the permission its metadata declares', () => {
    expect(Object.keys(routes).sort()).toEqual(Object.keys(salesOrdersContract).sort());
    for (const [name, route] of Object.entries(salesOrdersContract)) {
      expect(routes[name as keyof typeof routes].permission, name).toBe(route.metadata.permission);
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
        const response = await send(server, await route.call(), await method.headers([route.permission], 'subject-a'));
        const label = `${method.name} ${name}: ${JSON.stringify(response.body)}`;
        expect(response.status, label).toBe(route.status);
        expect(response.body.success).toBe(true);
      }
    }
  });

  it('answers 403 on every route to each method holding every other permission but the one needed', async () => {
    for (const method of methods) {
      for (const [name, route] of Object.entries(routes)) {
        const others = Object.values(Permission).filter(
          (permission) => permission !== route.permission && permission !== Permission.all,
        );
        const response = await send(server, await route.call(), await method.headers(others, 'subject-b'));
        expect(response.status, `${method.name} ${name}`).toBe(403);
        expect(response.body.error).toEqual({
          message: `This needs the permission ${route.permission}`,
          code: 403,
          details: [{ path: '', message: `This needs the permission ${route.permission}`, code: 'missing_permission' }],
        });
      }
    }
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
