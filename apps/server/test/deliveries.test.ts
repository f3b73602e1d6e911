import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApiKey } from './support/credentials.js';
import { eventually } from './support/eventually.js';
import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

type Line = { sales_order_detail_id: number; quantity: number };

/**
 * Deliveries through the real HTTP stack: recording against a confirmed order's lines (exact
 * quantities, every row of a request counted, under concurrency), cancelling, returns, what the
 * order shows, and how a close and a cancel of the order treat what was delivered.
 */
describe('deliveries', () => {
  const suite = useServerWithFixtures();
  const http = () => suite.server.http;
  const prisma = () => suite.server.database.prisma;

  /** A confirmed order at Dhaka (its lines: 10 of the product, 2.5 of the other), or `details` given. */
  const confirmedOrder = async (overrides: Record<string, unknown> = {}) => {
    const created = await http()
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { status: 'confirmed', acknowledge_warnings: true, ...overrides }))
      .expect(201);
    return read(created.body.data.sales_order_id as number);
  };
  const read = async (id: number) => (await http().get(`/sales-orders/${id}`).expect(200)).body.data;
  const deliver = (orderId: number, lines: Line[], extra: Record<string, unknown> = {}) =>
    http()
      .post(`/sales-orders/${orderId}/deliveries`)
      .send({ delivery_date: ORDER_DATE, lines, ...extra });
  const lineOf = (order: { details: { sales_order_detail_id: number }[] }, index = 0) =>
    order.details[index]!.sales_order_detail_id;

  it('records a delivery: numbered in its series, the order shows it as a new version with a history entry', async () => {
    const order = await confirmedOrder();
    const before = await http().get(`/sales-orders/${order.sales_order_id}`).expect(200);
    const response = await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 4 }], {
      reference: 'CHALLAN-77',
      remarks: 'Truck 12',
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const delivery = response.body.data;
    expect(delivery).toMatchObject({
      sales_order_id: order.sales_order_id,
      location_id: suite.fixtures.locations.dhaka.id,
      delivery_date: ORDER_DATE,
      reference: 'CHALLAN-77',
      remarks: 'Truck 12',
      status: 'recorded',
      cancellation_reason: null,
      lines: [
        {
          sales_order_detail_id: lineOf(order),
          product_id: suite.fixtures.products.product.id,
          quantity: 4,
          returned_quantity: 0,
        },
      ],
    });
    expect(delivery.delivery_no).toMatch(/^DHK-DN-2026-\d{5}$/);
    expect(response.headers.location).toBe(`/api/deliveries/${delivery.delivery_id}`);
    expect((await http().get(`/deliveries/${delivery.delivery_id}`).expect(200)).body.data).toEqual(delivery);

    const after = await http().get(`/sales-orders/${order.sales_order_id}`).expect(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.body.data).toMatchObject({ version: order.version + 1, delivery_status: 'partly_delivered' });
    expect(after.body.data.details[0]).toMatchObject({
      quantity: 10,
      delivered_quantity: 4,
      returned_quantity: 0,
      pending_quantity: 6,
      short_closed_quantity: 0,
    });
    expect(after.body.data.details[1]).toMatchObject({ delivered_quantity: 0, pending_quantity: 2.5 });
    const history = (await http().get(`/sales-orders/${order.sales_order_id}/history`).expect(200)).body.data.entries;
    expect(history.at(-1)).toMatchObject({
      version: order.version + 1,
      action: 'deliver',
      changes: {
        fields: [
          { field: 'delivery_no', from: null, to: delivery.delivery_no },
          { field: 'delivery_status', from: 'not_delivered', to: 'partly_delivered' },
        ],
        lines: { changed: [{ line_no: 1, changes: [{ field: 'delivered_quantity', from: 0, to: 4 }] }] },
      },
    });
    // The rest delivered: every line's pending is 0.
    await deliver(order.sales_order_id, [
      { sales_order_detail_id: lineOf(order), quantity: 6 },
      { sales_order_detail_id: lineOf(order, 1), quantity: 2.5 },
    ]).expect(201);
    expect((await read(order.sales_order_id)).delivery_status).toBe('delivered');
    // The list filters and sorts by it.
    const listed = await http()
      .get('/sales-orders')
      .query({ delivery_status: 'delivered', sort: 'delivery_status' })
      .expect(200);
    expect(listed.body.data.items.map((item: { sales_order_id: number }) => item.sales_order_id)).toContain(
      order.sales_order_id,
    );
    expect(
      listed.body.data.items.every((item: { delivery_status: string }) => item.delivery_status === 'delivered'),
    ).toBe(true);
  });

  it('100 deliveries of 1 at once against a line of 10: exactly 10 recorded, 90 refused, 10 delivered', async () => {
    const order = await confirmedOrder();
    const line = lineOf(order);
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => deliver(order.sales_order_id, [{ sales_order_detail_id: line, quantity: 1 }])),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 422)).toHaveLength(90);
    for (const refused of responses.filter((response) => response.status === 422)) {
      expect(refused.body.error.details).toEqual([
        expect.objectContaining({ path: 'lines.0.quantity', code: 'over_delivery' }),
      ]);
    }
    const after = await read(order.sales_order_id);
    expect(after.details[0]).toMatchObject({ delivered_quantity: 10, pending_quantity: 0 });
    expect(after.version).toBe(order.version + 10);
    // Numbers of one series never repeat.
    const numbers = responses.filter((r) => r.status === 201).map((r) => r.body.data.delivery_no as string);
    expect(new Set(numbers).size).toBe(10);
    const [row] = await prisma().$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count FROM deliveries WHERE sales_order_id = ${order.sales_order_id}`;
    expect(row!.count).toBe(10);
  });

  it('is exact: 10.001 against 10 at 0 % is refused, saying the most the line can take; 10 is not', async () => {
    const order = await confirmedOrder();
    const refused = await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 10.001 }]);
    expect(refused.status).toBe(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ path: 'lines.0.quantity', code: 'over_delivery' }),
    ]);
    expect(refused.body.error.details[0].message).toContain('at most 10 more');
    await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 9.999 }]).expect(201);
    const rest = await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 0.002 }]);
    expect(rest.body.error.details[0].message).toContain('at most 0.001 more');
    await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 0.001 }]).expect(201);
  });

  it('counts every row of a request: two rows of 6 against a line of 10 are 12, and nothing is written', async () => {
    const order = await confirmedOrder();
    const line = lineOf(order);
    const refused = await deliver(order.sales_order_id, [
      { sales_order_detail_id: line, quantity: 6 },
      { sales_order_detail_id: line, quantity: 6 },
    ]);
    expect(refused.status).toBe(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ path: 'lines.1.quantity', code: 'over_delivery' }),
    ]);
    expect(refused.body.error.details[0].message).toContain('at most 4 more');
    const after = await read(order.sales_order_id);
    expect(after).toEqual(order);
  });

  it('refuses a line of another order (422 unknown_order_line) and an order that is not confirmed (409)', async () => {
    const order = await confirmedOrder();
    const other = await confirmedOrder();
    const unknown = await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(other), quantity: 1 }]);
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([
      expect.objectContaining({ path: 'lines.0.sales_order_detail_id', code: 'unknown_order_line' }),
    ]);
    const draft = (await http().post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data;
    const draftLine = (await read(draft.sales_order_id)).details[0].sales_order_detail_id;
    const notConfirmed = await deliver(draft.sales_order_id, [{ sales_order_detail_id: draftLine, quantity: 1 }]);
    expect(notConfirmed.status).toBe(409);
    expect(notConfirmed.body.error.details).toEqual([
      expect.objectContaining({ code: 'order_not_deliverable', current_status: 'draft' }),
    ]);
    // Dates: not before the order date, not after today.
    const early = await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 1 }], {
      delivery_date: '2026-11-14',
    });
    expect(early.status).toBe(422);
    expect(early.body.error.details[0]).toMatchObject({ path: 'delivery_date' });
    const late = await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 1 }], {
      delivery_date: '2099-01-01',
    });
    expect(late.status).toBe(422);
    expect(late.body.error.details[0]).toMatchObject({ path: 'delivery_date', code: 'date_out_of_range' });
    expect(await read(order.sales_order_id)).toEqual(order);
  });

  it('cancels a delivery once: its quantity is pending again; a second cancel is 409 and changes nothing', async () => {
    const order = await confirmedOrder();
    const delivery = (await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 3 }])).body
      .data;
    const cancelled = await http()
      .post(`/deliveries/${delivery.delivery_id}/cancel`)
      .send({ reason: 'Truck turned back' })
      .expect(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', cancellation_reason: 'Truck turned back' });
    const after = await read(order.sales_order_id);
    expect(after).toMatchObject({ delivery_status: 'not_delivered', version: order.version + 2 });
    expect(after.details[0]).toMatchObject({ delivered_quantity: 0, pending_quantity: 10 });
    const again = await http().post(`/deliveries/${delivery.delivery_id}/cancel`).send({ reason: 'again' });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual([expect.objectContaining({ code: 'invalid_transition' })]);
    expect(await read(order.sales_order_id)).toEqual(after);
  });

  it('records returns against the delivery line they left on: pending again, never more than delivered', async () => {
    const order = await confirmedOrder();
    const first = (await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 5 }])).body
      .data;
    const second = (await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 2 }])).body
      .data;
    const returnOf = (id: number, lines: { delivery_line_id: number; quantity: number }[]) =>
      http().post(`/deliveries/${id}/returns`).send({ return_date: ORDER_DATE, reason: 'Damaged', lines });
    // A line of another delivery (of the same order line) is not this delivery's.
    const wrong = await returnOf(first.delivery_id, [
      { delivery_line_id: second.lines[0].delivery_line_id, quantity: 1 },
    ]);
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.details).toEqual([
      expect.objectContaining({ path: 'lines.0.delivery_line_id', code: 'unknown_delivery_line' }),
    ]);
    const line = first.lines[0].delivery_line_id;
    const returned = await returnOf(first.delivery_id, [{ delivery_line_id: line, quantity: 1.5 }]);
    expect(returned.status, JSON.stringify(returned.body)).toBe(201);
    expect(returned.body.data.lines[0]).toMatchObject({ quantity: 5, returned_quantity: 1.5 });
    const [back] = await prisma().$queryRaw<{ return_date: string; reason: string; lines: unknown }[]>`
      SELECT to_char(r.return_date, 'YYYY-MM-DD') AS return_date, r.reason,
        (SELECT json_agg(json_build_object('delivery_line_id', l.delivery_line_id, 'quantity', l.quantity::text))
         FROM delivery_return_lines l WHERE l.return_id = r.id) AS lines
      FROM delivery_returns r WHERE r.delivery_id = ${first.delivery_id}`;
    expect(back).toEqual({
      return_date: ORDER_DATE,
      reason: 'Damaged',
      lines: [{ delivery_line_id: line, quantity: '1.500' }],
    });
    const after = await read(order.sales_order_id);
    expect(after.details[0]).toMatchObject({ delivered_quantity: 7, returned_quantity: 1.5, pending_quantity: 4.5 });
    // Two rows of 2 against the 3.5 left: the second row is refused, nothing written.
    const over = await returnOf(first.delivery_id, [
      { delivery_line_id: line, quantity: 2 },
      { delivery_line_id: line, quantity: 2 },
    ]);
    expect(over.status).toBe(422);
    expect(over.body.error.details).toEqual([
      expect.objectContaining({ path: 'lines.1.quantity', code: 'return_exceeds_delivered' }),
    ]);
    expect(await read(order.sales_order_id)).toEqual(after);
    // A delivery with returns cannot be cancelled.
    const cancel = await http().post(`/deliveries/${first.delivery_id}/cancel`).send({ reason: 'no' });
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.details).toEqual([expect.objectContaining({ code: 'delivery_has_returns' })]);
    // What came back can be delivered again.
    await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 4.5 }]).expect(201);
  });

  it('close short-closes what is pending; a cancel of an order with deliveries is 409 order_has_deliveries', async () => {
    const order = await confirmedOrder();
    const delivery = (await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 4 }])).body
      .data;
    const cancel = await http().post(`/sales-orders/${order.sales_order_id}/cancel`).send({ reason: 'no' });
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.details).toEqual([expect.objectContaining({ code: 'order_has_deliveries' })]);
    const closed = (await http().post(`/sales-orders/${order.sales_order_id}/close`).expect(200)).body.data;
    expect(closed.details[0]).toMatchObject({ delivered_quantity: 4, short_closed_quantity: 6, pending_quantity: 0 });
    expect(closed.details[1]).toMatchObject({ delivered_quantity: 0, short_closed_quantity: 2.5, pending_quantity: 0 });
    expect(closed).toMatchObject({ status: 'closed', delivery_status: 'delivered' });
    // A closed order takes no deliveries, and its deliveries are not cancelled; a return is short-closed.
    const more = await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 1 }]);
    expect(more.status).toBe(409);
    expect(more.body.error.details[0]).toMatchObject({ code: 'order_not_deliverable', current_status: 'closed' });
    await http()
      .post(`/deliveries/${delivery.delivery_id}/returns`)
      .send({
        return_date: ORDER_DATE,
        reason: 'Leaking',
        lines: [{ delivery_line_id: delivery.lines[0].delivery_line_id, quantity: 1 }],
      })
      .expect(201);
    expect((await read(order.sales_order_id)).details[0]).toMatchObject({
      delivered_quantity: 4,
      returned_quantity: 1,
      short_closed_quantity: 7,
      pending_quantity: 0,
    });
  });

  it('a limited licence counts what was delivered: a closed order holds only its net delivered quantity', async () => {
    const product = await createLicensedProduct(prisma(), {
      licences: [{ validFrom: '2026-01-01', validTo: '2027-12-31', quantity: '100' }],
    });
    const order = await confirmedOrder({ details: [{ product_id: product.id, quantity: 10, rate: 5 }] });
    const validate = async (quantity: number) =>
      (
        await http()
          .post('/sales-orders/validate-licence')
          .send({ sales_order_date: ORDER_DATE, sales_order_details: [{ product_id: product.id, quantity }] })
          .expect(200)
      ).body.data.warnings.map((warning: { code: string }) => warning.code);
    // Confirmed: the order holds its 10 (the larger of ordered and delivered).
    expect(await validate(90)).toEqual([]);
    expect(await validate(91)).toContain('quantity_exceeds_licence');
    const delivery = (await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 4 }])).body
      .data;
    expect(await validate(91)).toContain('quantity_exceeds_licence');
    await http().post(`/sales-orders/${order.sales_order_id}/close`).expect(200);
    // Closed: only the 4 delivered.
    expect(await validate(96)).toEqual([]);
    expect(await validate(97)).toContain('quantity_exceeds_licence');
    await http()
      .post(`/deliveries/${delivery.delivery_id}/returns`)
      .send({
        return_date: ORDER_DATE,
        reason: 'Back',
        lines: [{ delivery_line_id: delivery.lines[0].delivery_line_id, quantity: 1 }],
      })
      .expect(201);
    expect(await validate(97)).toEqual([]);
    expect(await validate(98)).toContain('quantity_exceeds_licence');
  });

  it('a delivery and a close at once: one after the other, delivered and short-closed add up to the order', async () => {
    for (let round = 0; round < 3; round += 1) {
      const order = await confirmedOrder();
      const [delivered, closed] = await Promise.all([
        deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 3 }]),
        http().post(`/sales-orders/${order.sales_order_id}/close`),
      ]);
      expect(closed.status).toBe(200);
      expect([201, 409]).toContain(delivered.status);
      const after = await read(order.sales_order_id);
      const line = after.details[0];
      expect(line.delivered_quantity).toBe(delivered.status === 201 ? 3 : 0);
      expect(line.delivered_quantity + line.short_closed_quantity).toBe(10);
      expect(line.pending_quantity).toBe(0);
    }
  });

  it('a return and a cancel of one delivery at once: exactly one of them happens', async () => {
    for (let round = 0; round < 3; round += 1) {
      const order = await confirmedOrder();
      const delivery = (await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 5 }]))
        .body.data;
      const [returned, cancelled] = await Promise.all([
        http()
          .post(`/deliveries/${delivery.delivery_id}/returns`)
          .send({
            return_date: ORDER_DATE,
            reason: 'x',
            lines: [{ delivery_line_id: delivery.lines[0].delivery_line_id, quantity: 2 }],
          }),
        http().post(`/deliveries/${delivery.delivery_id}/cancel`).send({ reason: 'y' }),
      ]);
      const winners = [returned.status, cancelled.status].filter((status) => status < 300);
      expect(winners, `${returned.status} ${cancelled.status}`).toHaveLength(1);
      const line = (await read(order.sales_order_id)).details[0];
      if (returned.status === 201) {
        expect(cancelled.body.error.details[0].code).toBe('delivery_has_returns');
        expect(line).toMatchObject({ delivered_quantity: 5, returned_quantity: 2, pending_quantity: 7 });
      } else {
        expect(returned.status).toBe(409);
        expect(line).toMatchObject({ delivered_quantity: 0, returned_quantity: 0, pending_quantity: 10 });
      }
    }
  });

  it("honours Idempotency-Key and If-Match (the order's ETag)", async () => {
    const order = await confirmedOrder();
    const body = { delivery_date: ORDER_DATE, lines: [{ sales_order_detail_id: lineOf(order), quantity: 1 }] };
    const url = `/sales-orders/${order.sales_order_id}/deliveries`;
    const first = await http().post(url).set('Idempotency-Key', 'dn-1').send(body).expect(201);
    const replay = await http().post(url).set('Idempotency-Key', 'dn-1').send(body).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
    expect((await read(order.sales_order_id)).details[0].delivered_quantity).toBe(1);
    const stale = await http().post(url).set('If-Match', `"${order.version}"`).send(body);
    expect(stale.status).toBe(412);
    const { etag } = (await http().get(`/sales-orders/${order.sales_order_id}`)).headers;
    await http().post(url).set('If-Match', etag!).send(body).expect(201);
  });

  it('needs deliveries.write with sales_orders.read to write, sales_orders.read to read', async () => {
    const order = await confirmedOrder();
    const body = { delivery_date: ORDER_DATE, lines: [{ sales_order_detail_id: lineOf(order), quantity: 1 }] };
    const reader = await createApiKey(prisma(), ['sales_orders.read']);
    const writerOnly = await createApiKey(prisma(), ['deliveries.write']);
    const writer = await createApiKey(prisma(), ['deliveries.write', 'sales_orders.read']);
    const post = (key: string) =>
      request(suite.server.api)
        .post(`/sales-orders/${order.sales_order_id}/deliveries`)
        .set('Authorization', `ApiKey ${key}`)
        .send(body);
    expect((await post(reader.key)).status).toBe(403);
    expect((await post(writerOnly.key)).status).toBe(403);
    const created = await post(writer.key);
    expect(created.status).toBe(201);
    await request(suite.server.api)
      .get(`/deliveries/${created.body.data.delivery_id}`)
      .set('Authorization', `ApiKey ${reader.key}`)
      .expect(200);
  });

  it('lists deliveries a keyset page at a time, with filters; an order lists its own', async () => {
    const order = await confirmedOrder();
    for (const reference of ['GP-ALPHA-1', 'GP-ALPHA-2', 'GP-BETA-3']) {
      await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 1 }], {
        reference,
      }).expect(201);
    }
    const own = (await http().get(`/sales-orders/${order.sales_order_id}/deliveries`).expect(200)).body.data.items;
    expect(own.map((each: { reference: string }) => each.reference)).toEqual(['GP-ALPHA-1', 'GP-ALPHA-2', 'GP-BETA-3']);
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = (
        await http()
          .get('/deliveries')
          .query({ sales_order_id: order.sales_order_id, limit: 2, ...(cursor ? { cursor } : {}) })
          .expect(200)
      ).body.data;
      seen.push(...page.items.map((item: { delivery_id: number }) => item.delivery_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(own.map((each: { delivery_id: number }) => each.delivery_id).reverse());
    const searched = (await http().get('/deliveries').query({ q: 'alpha', sales_order_id: order.sales_order_id })).body
      .data.items;
    expect(searched.map((each: { reference: string }) => each.reference).sort()).toEqual(['GP-ALPHA-1', 'GP-ALPHA-2']);
    const byCustomer = (
      await http().get('/deliveries').query({ customer_id: suite.fixtures.customers.otherCustomer.id, limit: 200 })
    ).body.data.items;
    expect(
      byCustomer.filter((each: { sales_order_id: number }) => each.sales_order_id === order.sales_order_id),
    ).toEqual([]);
  });

  it("writes delivery.recorded, .returned and .cancelled in the feed with the order's new version and status", async () => {
    const order = await confirmedOrder();
    const delivery = (await deliver(order.sales_order_id, [{ sales_order_detail_id: lineOf(order), quantity: 2 }])).body
      .data;
    await http().post(`/deliveries/${delivery.delivery_id}/cancel`).send({ reason: 'x' }).expect(200);
    let items: { type: string; delivery_id?: number; version?: number; data: Record<string, unknown> }[] = [];
    await eventually(async () => {
      const page = await http().get('/events').query({ types: 'delivery.recorded,delivery.cancelled', limit: 500 });
      items = page.body.data.items.filter(
        (item: { delivery_id?: number }) => item.delivery_id === delivery.delivery_id,
      );
      return items.length === 2;
    }, 30_000);
    expect(items.map((item) => [item.type, item.version])).toEqual([
      ['delivery.recorded', order.version + 1],
      ['delivery.cancelled', order.version + 2],
    ]);
    expect(items[0]!.data).toMatchObject({
      sales_order_id: order.sales_order_id,
      delivery_status: 'partly_delivered',
      delivery: { delivery_id: delivery.delivery_id, status: 'recorded' },
    });
    expect(items[1]!.data).toMatchObject({ delivery_status: 'not_delivered', delivery: { status: 'cancelled' } });
  });
  it("a caller limited to Dhaka sees and changes none of Chattogram's deliveries: 404, lists, feed", async () => {
    const dhaka = await confirmedOrder();
    const ctg = await confirmedOrder({ location_id: suite.fixtures.locations.chattogram.id });
    const ours = (await deliver(dhaka.sales_order_id, [{ sales_order_detail_id: lineOf(dhaka), quantity: 1 }])).body
      .data;
    const theirs = (await deliver(ctg.sales_order_id, [{ sales_order_detail_id: lineOf(ctg), quantity: 1 }])).body.data;
    const token = await signJwt({
      payload: { permissions: ['*'], locations: [suite.fixtures.locations.dhaka.code] },
      subject: 'dhaka-clerk',
    });
    const as = (call: request.Test) => call.set('Authorization', `Bearer ${token}`);
    const api = () => request(suite.server.api);
    await as(api().get(`/deliveries/${ours.delivery_id}`)).expect(200);
    await as(api().get(`/deliveries/${theirs.delivery_id}`)).expect(404);
    await as(api().get(`/sales-orders/${ctg.sales_order_id}/deliveries`)).expect(404);
    await as(api().post(`/deliveries/${theirs.delivery_id}/cancel`).send({ reason: 'x' })).expect(404);
    const line = theirs.lines[0].delivery_line_id;
    await as(
      api()
        .post(`/deliveries/${theirs.delivery_id}/returns`)
        .send({ return_date: ORDER_DATE, reason: 'x', lines: [{ delivery_line_id: line, quantity: 1 }] }),
    ).expect(404);
    const listed = (await as(api().get('/deliveries').query({ limit: 200 })).expect(200)).body.data.items;
    const ids = listed.map((each: { delivery_id: number }) => each.delivery_id);
    expect(ids).toContain(ours.delivery_id);
    expect(ids).not.toContain(theirs.delivery_id);
    await eventually(async () => {
      const unscoped = (await http().get('/events').query({ types: 'delivery.recorded', limit: 500 })).body.data.items;
      return unscoped.some((item: { delivery_id: number }) => item.delivery_id === theirs.delivery_id);
    }, 30_000);
    const feed = (
      await as(api().get('/events').query({ types: 'delivery.recorded', limit: 500 })).expect(200)
    ).body.data.items.map((item: { delivery_id: number }) => item.delivery_id);
    expect(feed).toContain(ours.delivery_id);
    expect(feed).not.toContain(theirs.delivery_id);
    expect((await read(ctg.sales_order_id)).details[0].delivered_quantity).toBe(1);
  });
});
