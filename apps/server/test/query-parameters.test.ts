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

describe('query numbers and dates: the strict rules of path ids and body dates', () => {
  const suite = useServerWithFixtures();

  it('refuses hex, exponents, signs, spaces, empty values and impossible days and times with 400 naming the parameter', async () => {
    const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;
    // Raw query strings: what a client writes, not what a library would encode.
    const cases: [string, string][] = [
      ['/sales-orders?min_total=0x10', 'min_total'],
      ['/sales-orders?min_total=', 'min_total'],
      ['/sales-orders?min_total=%2010', 'min_total'],
      ['/sales-orders?max_total=1e3', 'max_total'],
      ['/sales-orders?max_total=%2B5', 'max_total'],
      ['/sales-orders?limit=0x10', 'limit'],
      ['/sales-orders?limit=', 'limit'],
      ['/sales-orders?limit=%2010', 'limit'],
      ['/sales-orders?limit=1e1', 'limit'],
      ['/sales-orders?updated_since=2026-02-30T00:00:00Z', 'updated_since'],
      ['/sales-orders?updated_since=0000-01-01T00:00:00Z', 'updated_since'],
      ['/sales-orders?updated_since=2026-01-01%2024:00:00', 'updated_since'],
      ['/sales-orders?updated_since=2026-01-01T10:00:00%2B25:00', 'updated_since'],
      [`/sales-orders/${id}/history?limit=0x2`, 'limit'],
      ['/events?limit=%2B5', 'limit'],
      ['/sales-orders/dropdown-options/customers?limit=5.0', 'limit'],
      ['/webhook-endpoints/1/deliveries?limit=', 'limit'],
    ];
    const answers = [];
    for (const [url, parameter] of cases) {
      const response = await suite.server.http.get(url);
      answers.push({
        url,
        status: response.status,
        paths: response.body.error?.details?.map((d: { path: string }) => d.path),
      });
      void parameter;
    }
    expect(answers).toEqual(cases.map(([url, parameter]) => ({ url, status: 400, paths: [parameter] })));
  });

  it('still reads canonical numbers and real date-times', async () => {
    const ok = [
      '/sales-orders?min_total=-0.5&max_total=100000.25&limit=10',
      '/sales-orders?updated_since=2024-02-29T23:59:59Z',
      '/sales-orders?updated_since=2026-11-22%2004:00:00',
      '/sales-orders?updated_since=2026-11-22T04:00:00.123%2B05:30',
      '/events?limit=500',
    ];
    for (const url of ok) expect([url, (await suite.server.http.get(url)).status]).toEqual([url, 200]);
  });
});
