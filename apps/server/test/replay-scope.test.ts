import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { importLine, orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * A stored answer is given again only to a caller that may read it now: a JWT subject that made
 * a Chattogram order under an Idempotency-Key, presenting the same key later with a Dhaka-only
 * token, gets 422 idempotency_key_reused (never the order's id, number or total), for a single
 * create, a transition, a bulk create's per-order keys and its request key alike; and an import
 * it started at Chattogram answers 404 for its results. The same subject with its wide token
 * still gets every replay.
 */
describe('replays and results are checked against the caller’s scope now', () => {
  const suite = useServerWithFixtures();
  const api = () => request(suite.server.api);
  const SUBJECT = 'replay-jo';
  const tokens = async () => {
    const { dhaka, chattogram } = suite.fixtures.locations;
    const sign = async (locations: string[]) =>
      `Bearer ${await signJwt({ subject: SUBJECT, payload: { permissions: ['*'], locations } })}`;
    return { wide: await sign([dhaka.code, chattogram.code]), dhakaOnly: await sign([dhaka.code]) };
  };
  /** Whether a response's text shows anything of an order: its id (as an order), number or total. */
  const expectNothingOf = (
    text: string,
    order: { sales_order_id: number; order_number: string; total_amount: string },
  ) => {
    expect(text).not.toContain(order.order_number);
    expect(text).not.toContain(order.total_amount);
    expect(text).not.toMatch(new RegExp(`"sales_order_id":\\s*${order.sales_order_id}\\b`));
  };
  const expectKeyReused = (response: request.Response) => {
    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([expect.objectContaining({ code: 'idempotency_key_reused' })]);
  };

  it('a single create and a transition: 422 to the narrowed token, the stored answer to the wide one', async () => {
    const { wide, dhakaOnly } = await tokens();
    // Without a licensed product, so that it can be confirmed.
    const body = orderBody(suite.fixtures, {
      location_id: suite.fixtures.locations.chattogram.id,
      details: [{ product_id: suite.fixtures.products.otherProduct.id, quantity: 2.5, rate: 1200 }],
    });
    const create = (authorization: string) =>
      api().post('/sales-orders').set({ Authorization: authorization, 'Idempotency-Key': 'replay-scope-1' }).send(body);
    const created = await create(wide).expect(201);
    const order = created.body.data;

    const narrowed = await create(dhakaOnly);
    expectKeyReused(narrowed);
    expectNothingOf(narrowed.text, order);
    const again = await create(wide).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(order);

    const confirm = (authorization: string) =>
      api()
        .post(`/sales-orders/${order.sales_order_id}/confirm`)
        .set({ Authorization: authorization, 'Idempotency-Key': 'replay-scope-confirm' })
        .send({});
    await confirm(wide).expect(200);
    const confirmedNarrowed = await confirm(dhakaOnly);
    expectKeyReused(confirmedNarrowed);
    expectNothingOf(confirmedNarrowed.text, order);
    await confirm(wide).expect(200);
  });

  it("a bulk create: each order's key and the request's key answer only within the scope now", async () => {
    const { wide, dhakaOnly } = await tokens();
    const { dhaka, chattogram } = suite.fixtures.locations;
    const body = {
      error_policy: 'reject_failed_rows',
      orders: [
        {
          // Another total than Dhaka's order, so that the answers can be told apart by it.
          ...orderBody(suite.fixtures, {
            location_id: chattogram.id,
            other_charges: [{ description: 'Ferry', amount: 777 }],
          }),
          idempotency_key: 'replay-bulk-ctg',
        },
        { ...orderBody(suite.fixtures, { location_id: dhaka.id }), idempotency_key: 'replay-bulk-dhk' },
      ],
    };
    const bulk = (authorization: string, key?: string) =>
      api()
        .post('/sales-orders/bulk')
        .set({ Authorization: authorization, ...(key ? { 'Idempotency-Key': key } : {}) })
        .send(body);
    const first = (await bulk(wide, 'replay-bulk-request').expect(200)).body.data;
    expect(first).toMatchObject({ created: 2, failed: 0 });
    const [ctgOrder, dhkOrder] = first.results.map((result: { order: unknown }) => result.order);

    // Per-order keys, without a request key: Dhaka's order is replayed, Chattogram's is refused.
    const perOrder = await bulk(dhakaOnly).expect(200);
    expect(perOrder.body.data).toMatchObject({ created: 1, failed: 1 });
    expect(perOrder.body.data.results[0]).toMatchObject({
      status: 'failed',
      error: {
        details: [expect.objectContaining({ code: 'idempotency_key_reused', path: 'orders.0.idempotency_key' })],
      },
    });
    expect(perOrder.body.data.results[1]).toEqual({ index: 1, status: 'created', order: dhkOrder });
    expectNothingOf(perOrder.text, ctgOrder);

    // The request's key: its answer names the Chattogram order.
    const whole = await bulk(dhakaOnly, 'replay-bulk-request');
    expectKeyReused(whole);
    expectNothingOf(whole.text, ctgOrder);
    const replayed = await bulk(wide, 'replay-bulk-request').expect(200);
    expect(replayed.body.data).toEqual(first);
  });

  it("an import's results: 404 to the narrowed token, the results to the wide one", async () => {
    const { wide, dhakaOnly } = await tokens();
    const started = await api()
      .post('/imports')
      .set({ Authorization: wide, 'Content-Type': 'application/x-ndjson' })
      .send(importLine(suite.fixtures, 'replay-scope-import'))
      .expect(202);
    const id = started.body.data.import_id as number;
    await eventually(
      async () =>
        (await api().get(`/imports/${id}`).set({ Authorization: wide }).expect(200)).body.data.state === 'completed',
      60_000,
    );
    const results = await api().get(`/imports/${id}/results`).set({ Authorization: wide }).buffer(true).expect(200);
    expect(results.text).toContain('replay-scope-import');

    const narrowed = await api().get(`/imports/${id}/results`).set({ Authorization: dhakaOnly }).buffer(true);
    expect(narrowed.status).toBe(404);
    expect(narrowed.text).not.toContain('replay-scope-import');
  });
});
