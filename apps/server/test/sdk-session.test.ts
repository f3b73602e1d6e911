import { createSalesOrderClient } from '@sales-order/client';
import { describe, expect, it } from 'vitest';

import { createSession } from './support/credentials.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

const HOST_ORIGIN = 'https://erp.example.com';

/**
 * The SDK's browser mode: requests carry credentials so the host session cookie goes along.
 * Node's fetch keeps no cookies, so the fetch given here plays the browser: it adds the cookie
 * and the page's Origin, but only when the SDK asks for credentials.
 */
describe('SDK with the host session (browser mode)', () => {
  const suite = useServerWithFixtures({ ALLOWED_ORIGINS: HOST_ORIGIN });

  const browserFetch =
    (cookie: string, seen: RequestInit[]): typeof fetch =>
    (input, init = {}) => {
      seen.push(init);
      const headers = new Headers(init.headers);
      headers.set('origin', HOST_ORIGIN);
      if (init.credentials === 'include') headers.set('cookie', cookie);
      return fetch(input, { ...init, headers });
    };

  it('sends credentials, so a session-authenticated page can create and read orders', async () => {
    const { cookie, userId } = await createSession(suite.server.database.prisma, {
      permissions: ['sales_orders.read', 'sales_orders.create'],
    });
    const seen: RequestInit[] = [];
    const client = createSalesOrderClient({
      baseUrl: suite.server.api,
      auth: { type: 'session' },
      fetch: browserFetch(cookie, seen),
    });

    const created = await client.createSalesOrder(orderBody(suite.fixtures));
    const order = await client.getSalesOrder(created.sales_order_id);

    expect(order.created_by).toBe(userId);
    expect(seen.map((init) => init.credentials)).toEqual(['include', 'include']);
    expect(seen.every((init) => !new Headers(init.headers).has('authorization'))).toBe(true);
  });

  it('is refused without the session: the error carries 401 and the reason', async () => {
    const client = createSalesOrderClient({
      baseUrl: suite.server.api,
      auth: { type: 'session' },
      fetch: browserFetch('erp_session=unknown', []),
    });
    await expect(client.getSalesOrder(1)).rejects.toMatchObject({
      status: 401,
      code: 401,
      details: [expect.objectContaining({ code: 'invalid_session' })],
    });
  });
});
