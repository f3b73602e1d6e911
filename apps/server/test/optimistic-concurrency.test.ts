import { describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { SERVICE_DEFAULT_DATABASE_TIMEOUTS, useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

describe('ETag, If-None-Match and If-Match on one order', () => {
  const suite = useServerWithFixtures(SERVICE_DEFAULT_DATABASE_TIMEOUTS);
  const http = () => suite.server.http;
  const createOrder = async () =>
    (await http().post('/sales-orders').send(orderBody(suite.fixtures))).body.data.sales_order_id as number;
  const read = async (id: number) => (await http().get(`/sales-orders/${id}`)).body.data;

  const etagOf = async (id: number) => (await http().get(`/sales-orders/${id}`)).headers.etag as string;

  it('GET answers ETag "<version>-<digest>"; the PUT response carries the new one, equal to the next GET\'s', async () => {
    const id = await createOrder();
    const fresh = await http().get(`/sales-orders/${id}`);
    expect(fresh.headers.etag).toMatch(/^"1-[A-Za-z0-9_-]{16}"$/);
    // The same representation, the same tag.
    expect(await etagOf(id)).toBe(fresh.headers.etag);

    const updated = await http().put(`/sales-orders/${id}`).send({ remarks: 'first edit' });

    expect(updated.status).toBe(200);
    expect(updated.headers.etag).toMatch(/^"2-[A-Za-z0-9_-]{16}"$/);
    expect(updated.body.data).toEqual({ sales_order_id: id, updated: true, version: 2 });
    expect(await etagOf(id)).toBe(updated.headers.etag);
  });

  it('If-None-Match with the current ETag (strong, weak, in a list or *): 304 without a body; a stale one: 200', async () => {
    const id = await createOrder();
    const first = await etagOf(id);
    await http().put(`/sales-orders/${id}`).send({ remarks: 'now at version 2' });
    const current = await etagOf(id);

    for (const condition of [current, `W/${current}`, `${first}, ${current}`, '*']) {
      const response = await http().get(`/sales-orders/${id}`).set('If-None-Match', condition);
      expect(response.status, condition).toBe(304);
      expect(response.headers.etag).toBe(current);
      expect(response.text ?? '').toBe('');
    }
    for (const stale of [first, '"2"']) {
      const response = await http().get(`/sales-orders/${id}`).set('If-None-Match', stale);
      expect(response.status, stale).toBe(200);
      expect(response.body.data.remarks).toBe('now at version 2');
    }
  });

  it('If-None-Match answers 304 to a fetch client, which adds Cache-Control: no-cache to a conditional request', async () => {
    const id = await createOrder();
    const current = await etagOf(id);
    // Node's fetch (undici), as the SDK and browsers send it.
    const response = await fetch(`${suite.server.api}/sales-orders/${id}`, {
      headers: {
        Authorization: `Bearer ${await signJwt({ payload: { permissions: ['*'] } })}`,
        'If-None-Match': current,
        'Cache-Control': 'no-cache',
      },
    });
    expect(response.status).toBe(304);
    expect(await response.text()).toBe('');
  });

  it('renaming the customer or a product changes the ETag: If-None-Match with the old one gets the new body', async () => {
    const id = await createOrder();
    const before = await http().get(`/sales-orders/${id}`);
    const { customer_id: customerId, details } = before.body.data as {
      customer_id: number;
      details: { product_id: number }[];
    };

    // The host renames the customer with SQL, as its own screens would: the order's version stays.
    await suite.server.database.prisma
      .$executeRaw`UPDATE customers SET name = name || ' (renamed)' WHERE id = ${customerId}`;
    const renamed = await http()
      .get(`/sales-orders/${id}`)
      .set('If-None-Match', before.headers.etag as string);
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.version).toBe(1);
    expect(renamed.body.data.customer_name).toMatch(/ \(renamed\)$/);
    expect(renamed.headers.etag).not.toBe(before.headers.etag);

    await suite.server.database.prisma
      .$executeRaw`UPDATE products SET name = name || ' v2' WHERE id = ${details[0]!.product_id}`;
    const productRenamed = await http()
      .get(`/sales-orders/${id}`)
      .set('If-None-Match', renamed.headers.etag as string);
    expect(productRenamed.status).toBe(200);
    expect(productRenamed.headers.etag).not.toBe(renamed.headers.etag);

    // If-Match compares what ETag says: the tag read before the rename no longer matches; the
    // bare version still does (it names the version alone).
    const stale = await http()
      .put(`/sales-orders/${id}`)
      .set('If-Match', before.headers.etag as string)
      .send({ remarks: 'from a screen read before the rename' });
    expect(stale.status).toBe(412);
    expect(stale.body.error.details[0]).toMatchObject({ code: 'version_mismatch', current_version: 1 });
    const current = await http()
      .put(`/sales-orders/${id}`)
      .set('If-Match', productRenamed.headers.etag as string)
      .send({ remarks: 'from a fresh screen' });
    expect(current.status).toBe(200);
    const byVersion = await http().put(`/sales-orders/${id}`).set('If-Match', '"2"').send({ remarks: 'by version' });
    expect(byVersion.status).toBe(200);
  });

  it('PUT with a stale If-Match: 412 with the current version in error.details, and the order unchanged', async () => {
    const id = await createOrder();
    await http().put(`/sales-orders/${id}`).send({ remarks: 'edit by someone else' });
    const before = await read(id);

    const response = await http()
      .put(`/sales-orders/${id}`)
      .set('If-Match', '"1"')
      .send({ remarks: 'lost update', other_charges: [] });

    expect(response.status).toBe(412);
    expect(response.body).toEqual({
      success: false,
      error: {
        message: 'The sales order has changed since it was read',
        code: 412,
        details: [
          {
            path: 'if-match',
            code: 'version_mismatch',
            current_version: 2,
            message: `sales order ${id} is at version 2, not 1`,
          },
        ],
      },
    });
    expect(await read(id)).toEqual(before);
  });

  it('PUT with the current If-Match, or *, succeeds; a weak tag never matches for If-Match', async () => {
    const id = await createOrder();

    const current = await http().put(`/sales-orders/${id}`).set('If-Match', '"1"').send({ remarks: 'at 1' });
    expect(current.status).toBe(200);
    expect(current.body.data.version).toBe(2);
    const listed = await http()
      .put(`/sales-orders/${id}`)
      .set('If-Match', `"7", ${current.headers.etag as string}`)
      .send({ remarks: 'at 2' });
    expect(listed.status).toBe(200);
    const weak = await http()
      .put(`/sales-orders/${id}`)
      .set('If-Match', `W/${listed.headers.etag as string}`)
      .send({ remarks: 'weak' });
    expect(weak.status).toBe(412);
    const any = await http().put(`/sales-orders/${id}`).set('If-Match', '*').send({ remarks: 'any version' });
    expect(any.status).toBe(200);
    expect(any.headers.etag).toMatch(/^"4-/);
    expect((await read(id)).remarks).toBe('any version');
  });

  it('DELETE with a stale If-Match: 412 and the order still there; with the current one: deleted', async () => {
    const id = await createOrder();
    await http().put(`/sales-orders/${id}`).send({ remarks: 'moved on' });

    const stale = await http().delete(`/sales-orders/${id}`).set('If-Match', '"1"');
    expect(stale.status).toBe(412);
    expect(stale.body.error.details[0]).toMatchObject({ code: 'version_mismatch', current_version: 2 });
    expect((await http().get(`/sales-orders/${id}`)).status).toBe(200);

    const current = await http().delete(`/sales-orders/${id}`).set('If-Match', '"2"');
    expect(current.status).toBe(200);
    expect((await http().get(`/sales-orders/${id}`)).status).toBe(404);
  });

  it('If-Match on a deleted or missing order: 404, not 412 (* included)', async () => {
    const id = await createOrder();
    await http().delete(`/sales-orders/${id}`);

    expect((await http().put(`/sales-orders/${id}`).set('If-Match', '"2"').send({ remarks: 'x' })).status).toBe(404);
    expect((await http().put(`/sales-orders/${id}`).set('If-Match', '*').send({ remarks: 'x' })).status).toBe(404);
    expect((await http().delete(`/sales-orders/${id}`).set('If-Match', '"2"')).status).toBe(404);
    expect((await http().delete('/sales-orders/999999').set('If-Match', '"1"')).status).toBe(404);
  });

  it('a malformed If-Match is a 400 naming the header, and changes nothing', async () => {
    const id = await createOrder();
    for (const value of ['1', '"1', 'W/1', '"1",,']) {
      const response = await http().put(`/sales-orders/${id}`).set('If-Match', value).send({ remarks: 'nope' });
      expect(response.status, value).toBe(400);
      expect(response.body.error.details).toEqual([
        { path: 'if-match', code: 'invalid_entity_tag', message: expect.any(String) },
      ]);
    }
    expect((await read(id)).version).toBe(1);
  });

  it("two concurrent PUTs with the same If-Match: one 200, one 412, and the order is the winner's", async () => {
    const id = await createOrder();

    const responses = await Promise.all(
      ['writer A', 'writer B'].map((remarks) =>
        http().put(`/sales-orders/${id}`).set('If-Match', '"1"').send({ remarks }),
      ),
    );

    expect(responses.map((response) => response.status).sort()).toEqual([200, 412]);
    const winner = responses.findIndex((response) => response.status === 200);
    const order = await read(id);
    expect(order.remarks).toBe(['writer A', 'writer B'][winner]);
    expect(order.version).toBe(2);
  });
});

describe('REQUIRE_IF_MATCH=true', () => {
  const suite = useServerWithFixtures({ ...SERVICE_DEFAULT_DATABASE_TIMEOUTS, REQUIRE_IF_MATCH: 'true' });

  it('PUT and DELETE without If-Match: 428 in the envelope, nothing changed; with it they work', async () => {
    const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures))).body.data.sales_order_id;

    const put = await suite.server.http.put(`/sales-orders/${id}`).send({ remarks: 'blind write' });
    const del = await suite.server.http.delete(`/sales-orders/${id}`);

    for (const response of [put, del]) {
      expect(response.status).toBe(428);
      expect(response.body).toEqual({
        success: false,
        error: {
          message: 'This service requires If-Match on updates and deletes',
          code: 428,
          details: [{ path: 'if-match', code: 'if_match_required', message: expect.any(String) }],
        },
      });
    }
    const order = (await suite.server.http.get(`/sales-orders/${id}`)).body.data;
    expect(order).toMatchObject({ version: 1, remarks: 'Deliver before Friday' });

    expect(
      (await suite.server.http.put(`/sales-orders/${id}`).set('If-Match', '"1"').send({ remarks: 'checked write' }))
        .status,
    ).toBe(200);
    expect((await suite.server.http.delete(`/sales-orders/${id}`).set('If-Match', '*')).status).toBe(200);
  });
});
