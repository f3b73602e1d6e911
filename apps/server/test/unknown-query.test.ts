import { apiContract } from '@sales-order/contract';
import { describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

type Route = { method: string; path: string };
const routes = Object.values(apiContract as unknown as Record<string, Route | Record<string, Route>>).flatMap(
  (entry) => ('method' in entry ? [entry as Route] : Object.values(entry)),
);

describe('unknown query parameters', () => {
  const suite = useServerWithFixtures();

  it('a misspelt filter is a 400 naming it, not a list of every order', async () => {
    await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201);
    const response = await suite.server.http.get('/sales-orders').query({ custmer_id: 5, limit: 2 });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([
      { path: 'custmer_id', code: 'unknown_query_parameter', message: expect.stringMatching(/customer_id/) },
    ]);
  });

  it('the history takes limit and cursor, and nothing else', async () => {
    const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;
    expect((await suite.server.http.get(`/sales-orders/${id}/history`).query({ limit: 2 })).status).toBe(200);
    const response = await suite.server.http.get(`/sales-orders/${id}/history`).query({ limt: 2 });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([expect.objectContaining({ path: 'limt' })]);
  });

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: an unknown parameter is a 400 naming it',
    async (_label, route) => {
      const path = route.path.replace(/:[a-z_]+/g, '1');
      const call = suite.server.http[route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](
        `${path}?not_a_parameter=1`,
      );
      const response = await (route.method === 'GET' || route.method === 'DELETE' ? call : call.send({}));
      expect(response.status).toBe(400);
      expect(response.body.error.details).toEqual([
        expect.objectContaining({ path: 'not_a_parameter', code: 'unknown_query_parameter' }),
      ]);
    },
  );
});
