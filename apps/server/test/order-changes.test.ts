import { Permission } from '@sales-order/contract';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';

import { Decimal, toDecimal } from '../src/shared/money.js';
import { recordDelivery, recordReturn } from './support/deliveries.js';
import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * Change requests on confirmed orders (docs/decisions/change-requests.md): open previews and
 * changes nothing; apply changes the lines in place, in one transaction, against the order as it
 * then stands; the delivered quantities and the licence hold their rules whatever the interleaving.
 * Deliveries are written in SQL as a delivery writes them (support/deliveries.ts).
 */

interface Line {
  id: number;
  line_no: number;
  product_id: number;
  quantity: string;
  rate: string;
  amount: string;
  delivered_quantity: string;
  returned_quantity: string;
}

describe('change requests on confirmed orders', () => {
  const suite = useServerWithFixtures();
  const http = () => suite.server.http;
  const prisma = () => suite.server.database.prisma;

  /** A confirmed order of the lines given (product, quantity, rate); its id. */
  const confirmed = async (
    details: { product_id: number; quantity: number; rate: number; packsize_id?: number }[],
    overrides: Record<string, unknown> = {},
  ): Promise<number> => {
    const response = await http()
      .post('/sales-orders')
      .send(
        orderBody(suite.fixtures, {
          details,
          other_charges: [{ description: 'Carriage', amount: 100 }],
          status: 'confirmed',
          acknowledge_warnings: true,
          ...overrides,
        }),
      )
      .expect(201);
    return response.body.data.sales_order_id as number;
  };
  const linesOf = (orderId: number) =>
    prisma().$queryRaw<Line[]>`
      SELECT id, line_no, product_id, quantity::text, rate::text, amount::text, delivered_quantity::text,
        returned_quantity::text
      FROM sales_order_details WHERE sales_order_id = ${orderId} ORDER BY line_no`;
  const read = async (id: number) => (await http().get(`/sales-orders/${id}`).expect(200)).body.data;
  const open = (id: number, body: object) => http().post(`/sales-orders/${id}/changes`).send(body);
  const apply = (id: number, changeId: number, body: object = {}) =>
    http().post(`/sales-orders/${id}/changes/${changeId}/apply`).send(body);
  const deliver = (orderId: number, detailId: number, quantity: string) =>
    recordDelivery(prisma(), { orderId, date: ORDER_DATE, lines: [{ detailId, quantity }] });
  const urea = () => suite.fixtures.products.otherProduct.id;

  describe('open', () => {
    it('previews the order after the change, the difference per line and the totals, and changes nothing', async () => {
      const id = await confirmed([
        { product_id: urea(), quantity: 10, rate: 100 },
        { product_id: urea(), quantity: 2, rate: 50 },
        { product_id: urea(), quantity: 1, rate: 1 },
      ]);
      const [first, second, third] = await linesOf(id);
      const before = await read(id);
      const response = await open(id, {
        reason: 'Customer wants more',
        details: [
          { sales_order_detail_id: first!.id, quantity: 12.5 },
          { sales_order_detail_id: second!.id, rate: 3.3333, quantity: 3.333 },
          { sales_order_detail_id: third!.id, remove: true },
          { product_id: urea(), quantity: 0.001, rate: 9999.9999, remarks: 'new' },
        ],
      });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      const change = response.body.data;
      expect(change).toMatchObject({ status: 'open', reason: 'Customer wants more', base_version: before.version });
      expect(change.applied_version).toBeNull();
      // 12.5 x 100 = 1250; 3.333 x 3.3333 = 11.1098889 -> 11.11; 0.001 x 9999.9999 = 9.9999999 -> 10.00.
      expect(change.order.details).toEqual([
        expect.objectContaining({ sales_order_detail_id: first!.id, quantity: 12.5, rate: 100, amount: 1250 }),
        expect.objectContaining({ sales_order_detail_id: second!.id, quantity: 3.333, rate: 3.3333, amount: 11.11 }),
        expect.objectContaining({ sales_order_detail_id: null, quantity: 0.001, amount: 10, remarks: 'new' }),
      ]);
      expect(change.order).toMatchObject({ subtotal: 1271.11, other_charges_total: 100, grand_total: 1371.11 });
      expect(change.totals_before).toEqual({ subtotal: 1101, other_charges_total: 100, grand_total: 1201 });
      expect(change.differences.map((d: { kind: string }) => d.kind)).toEqual([
        'changed',
        'changed',
        'removed',
        'added',
      ]);
      expect(change.differences[0]).toMatchObject({ quantity_before: 10, quantity_after: 12.5, delivered_quantity: 0 });
      expect(change.licence).toEqual({ validation_message: '', has_warnings: false, warnings: [] });
      // The order is as it was, and stays confirmed.
      expect(await read(id)).toEqual(before);
    });

    it('allows one open change per order (409 change_already_open); discard ends it; list shows them newest first', async () => {
      const id = await confirmed([{ product_id: urea(), quantity: 10, rate: 1 }]);
      const [line] = await linesOf(id);
      const first = await open(id, { reason: 'one', details: [{ sales_order_detail_id: line!.id, quantity: 11 }] });
      expect(first.status).toBe(201);
      const second = await open(id, { reason: 'two', details: [{ sales_order_detail_id: line!.id, quantity: 12 }] });
      expect(second.status).toBe(409);
      expect(second.body.error.details[0].code).toBe('change_already_open');
      const discarded = await http()
        .post(`/sales-orders/${id}/changes/${first.body.data.change_id}/discard`)
        .expect(200);
      expect(discarded.body.data).toMatchObject({ status: 'discarded', ended_by: 'test-harness' });
      const again = await http().post(`/sales-orders/${id}/changes/${first.body.data.change_id}/discard`).expect(409);
      expect(again.body.error.details[0].code).toBe('change_not_open');
      const third = await open(id, { reason: 'three', details: [{ sales_order_detail_id: line!.id, quantity: 13 }] });
      expect(third.status).toBe(201);
      const list = await http().get(`/sales-orders/${id}/changes`).expect(200);
      expect(list.body.data.changes.map((c: { reason: string; status: string }) => [c.reason, c.status])).toEqual([
        ['three', 'open'],
        ['one', 'discarded'],
      ]);
      // The order never moved: created confirmed, it is at version 2.
      expect((await read(id)).version).toBe(2);
    });

    it('refuses a quantity below the net delivered quantity, saying it; exactly that quantity is fine', async () => {
      const id = await confirmed([{ product_id: urea(), quantity: 10, rate: 1 }]);
      const [line] = await linesOf(id);
      const { lineIds } = await deliver(id, line!.id, '6');
      await recordReturn(prisma(), {
        deliveryId: (
          await prisma().$queryRaw<{ id: number }[]>`
          SELECT delivery_id AS id FROM delivery_lines WHERE id = ${lineIds[0]!}`
        )[0]!.id,
        date: ORDER_DATE,
        lines: [{ deliveryLineId: lineIds[0]!, quantity: '1' }],
      });
      // 6 delivered, 1 back: 5 net. 4.999 is below by a thousandth (a float comparison could miss it).
      const below = await open(id, { reason: 'less', details: [{ sales_order_detail_id: line!.id, quantity: 4.999 }] });
      expect(below.status).toBe(422);
      expect(below.body.error.details).toEqual([
        expect.objectContaining({ path: 'details.0.quantity', code: 'quantity_below_delivered' }),
      ]);
      expect(below.body.error.details[0].message).toContain('below the 5 delivered');
      const exact = await open(id, { reason: 'less', details: [{ sales_order_detail_id: line!.id, quantity: 5 }] });
      expect(exact.status, JSON.stringify(exact.body)).toBe(201);
      expect(exact.body.data.differences[0]).toMatchObject({ quantity_after: 5, delivered_quantity: 5 });
    });

    it('keeps a line with deliveries: no removal, no other product or pack size (line_has_deliveries)', async () => {
      const { product, otherProduct } = suite.fixtures.products;
      const { packsize } = suite.fixtures.packsizes;
      const id = await confirmed([
        { product_id: product.id, packsize_id: packsize.id, quantity: 10, rate: 1 },
        { product_id: urea(), quantity: 3, rate: 1 },
      ]);
      const [delivered, untouched] = await linesOf(id);
      await deliver(id, delivered!.id, '1');
      for (const [change, path] of [
        [{ remove: true }, 'details.0.remove'],
        [{ product_id: otherProduct.id, packsize_id: null }, 'details.0.product_id'],
        [{ packsize_id: null }, 'details.0.packsize_id'],
      ] as const) {
        const response = await open(id, {
          reason: 'x',
          details: [{ sales_order_detail_id: delivered!.id, ...change }],
        });
        expect(response.status, JSON.stringify(change)).toBe(422);
        expect(response.body.error.details).toEqual([expect.objectContaining({ path, code: 'line_has_deliveries' })]);
      }
      // A line without deliveries goes.
      const removed = await open(id, {
        reason: 'x',
        details: [{ sales_order_detail_id: untouched!.id, remove: true }],
      });
      expect(removed.status, JSON.stringify(removed.body)).toBe(201);
    });

    it('validates only the lines it names: a product deactivated since does not block a change elsewhere', async () => {
      const own = await createLicensedProduct(prisma(), { requiresLicence: false });
      const id = await confirmed([
        { product_id: own.id, quantity: 1, rate: 1 },
        { product_id: urea(), quantity: 1, rate: 1 },
      ]);
      const [, other] = await linesOf(id);
      await prisma().$executeRaw`UPDATE products SET active = false WHERE id = ${own.id}`;
      const response = await open(id, { reason: 'x', details: [{ sales_order_detail_id: other!.id, quantity: 2 }] });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      // A new line of it is a changed row: refused.
      const added = await http()
        .post(`/sales-orders/${await confirmed([{ product_id: urea(), quantity: 1, rate: 1 }])}/changes`)
        .send({ reason: 'x', details: [{ product_id: own.id, quantity: 1, rate: 1 }] });
      expect(added.status).toBe(422);
      expect(added.body.error.details[0]).toMatchObject({ path: 'details.0.product_id', code: 'unknown_product' });
    });

    it('refuses what is not a change of this confirmed order', async () => {
      const id = await confirmed([{ product_id: urea(), quantity: 1, rate: 1 }]);
      const [line] = await linesOf(id);
      const other = await confirmed([{ product_id: urea(), quantity: 1, rate: 1 }]);
      const [otherLine] = await linesOf(other);
      const foreign = await open(id, { reason: 'x', details: [{ sales_order_detail_id: otherLine!.id, quantity: 2 }] });
      expect(foreign.status).toBe(422);
      expect(foreign.body.error.details[0].code).toBe('unknown_order_line');
      const same = await open(id, { reason: 'x', details: [{ sales_order_detail_id: line!.id, quantity: 1 }] });
      expect(same.status).toBe(422);
      expect(same.body.error.details[0].code).toBe('empty_change');
      const incomplete = await open(id, { reason: 'x', details: [{ product_id: urea(), quantity: 1 }] });
      expect(incomplete.status).toBe(422);
      expect(incomplete.body.error.details).toEqual([
        expect.objectContaining({ path: 'details.0.rate', code: 'new_line_incomplete' }),
      ]);
      const emptied = await open(id, { reason: 'x', details: [{ sales_order_detail_id: line!.id, remove: true }] });
      expect(emptied.status).toBe(422);
      expect(emptied.body.error.details[0]).toMatchObject({ path: 'details', code: 'line_count_out_of_range' });
      const draft = (await http().post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
        .sales_order_id as number;
      const [draftLine] = await linesOf(draft);
      const notConfirmed = await open(draft, {
        reason: 'x',
        details: [{ sales_order_detail_id: draftLine!.id, quantity: 2 }],
      });
      expect(notConfirmed.status).toBe(409);
      expect(notConfirmed.body.error.details[0]).toMatchObject({
        code: 'order_not_changeable',
        current_status: 'draft',
      });
      // If-Match as for PUT: a stale version is 412.
      const stale = await http()
        .post(`/sales-orders/${id}/changes`)
        .set('If-Match', '"7"')
        .send({ reason: 'x', details: [{ sales_order_detail_id: line!.id, quantity: 2 }] });
      expect(stale.status).toBe(412);
    });
  });

  describe('apply', () => {
    it('changes the lines in place with a new version, a history entry with the reason and the difference, and an event', async () => {
      const id = await confirmed([
        { product_id: urea(), quantity: 10, rate: 100 },
        { product_id: urea(), quantity: 2, rate: 50 },
        { product_id: urea(), quantity: 1, rate: 1 },
      ]);
      const [first, second, third] = await linesOf(id);
      await deliver(id, first!.id, '4');
      const opened = await open(id, {
        reason: 'Price agreed again',
        details: [
          { sales_order_detail_id: first!.id, quantity: 4 },
          { sales_order_detail_id: second!.id, remove: true },
          { product_id: urea(), quantity: 7, rate: 2 },
        ],
        other_charges: [{ description: 'Insurance', amount: 12.34 }],
        // Not fields of a change request: ignored, as unknown fields are.
        sales_order_no: 'X-1',
        sales_order_date: '2026-12-01',
        location_id: suite.fixtures.locations.chattogram.id,
      });
      expect(opened.status, JSON.stringify(opened.body)).toBe(201);
      const header = await read(id);
      const applied = await apply(id, opened.body.data.change_id);
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
      expect(applied.body.data).toMatchObject({ status: 'applied', applied_version: 3 });

      const order = await read(id);
      expect(order).toMatchObject({ version: 3, status: 'confirmed', subtotal: 415, other_charges_total: 12.34 });
      expect(order.grand_total).toBe(427.34);
      // Number, date and location stay what they were.
      expect([order.sales_order_no, order.sales_order_date, order.location_id]).toEqual([
        header.sales_order_no,
        header.sales_order_date,
        header.location_id,
      ]);
      const lines = await linesOf(id);
      // The delivered line keeps its id (its deliveries point to it) and its delivered quantity.
      expect(lines.map((line) => [line.id, line.line_no, line.quantity, line.delivered_quantity])).toEqual([
        [first!.id, 1, '4.000', '4.000'],
        [third!.id, 3, '1.000', '0.000'],
        [expect.any(Number), 4, '7.000', '0.000'],
      ]);

      const history = (await http().get(`/sales-orders/${id}/history`).expect(200)).body.data.entries;
      const entry = history.at(-1);
      expect(entry).toMatchObject({ version: 3, action: 'change', reason: 'Price agreed again' });
      expect(entry.changes.lines.changed).toEqual([
        {
          line_no: 1,
          changes: [
            { field: 'quantity', from: 10, to: 4 },
            { field: 'amount', from: 1000, to: 400 },
          ],
        },
      ]);
      expect(entry.changes.lines.removed).toEqual([expect.objectContaining({ line_no: 2, quantity: 2 })]);
      expect(entry.changes.lines.added).toEqual([expect.objectContaining({ line_no: 4, quantity: 7, amount: 14 })]);
      expect(entry.changes.totals_after).toEqual({ subtotal: 415, other_charges_total: 12.34, grand_total: 427.34 });

      const events = await prisma().$queryRaw<{ type: string; version: number; data: { grand_total: number } }[]>`
        SELECT type, version, data FROM events WHERE subject_type = 'sales_order' AND subject_id = ${id} ORDER BY seq`;
      expect(events.at(-1)).toMatchObject({ type: 'sales_order.changed', version: 3, data: { grand_total: 427.34 } });

      const again = await apply(id, opened.body.data.change_id);
      expect(again.status).toBe(409);
      expect(again.body.error.details[0].code).toBe('change_not_open');
    });

    it('re-checks a change against an order that moved on: 412 when it no longer holds, applied when it still does', async () => {
      const id = await confirmed([{ product_id: urea(), quantity: 10, rate: 1 }]);
      const [line] = await linesOf(id);
      const opened = await open(id, { reason: 'less', details: [{ sales_order_detail_id: line!.id, quantity: 4 }] });
      expect(opened.status).toBe(201);
      // A delivery of 6 since: 4 is below it now.
      await deliver(id, line!.id, '6');
      const refused = await apply(id, opened.body.data.change_id);
      expect(refused.status).toBe(412);
      expect(refused.body.error.details.map((d: { code: string }) => d.code)).toEqual([
        'change_no_longer_holds',
        'quantity_below_delivered',
      ]);
      expect((await linesOf(id))[0]!.quantity).toBe('10.000');
      await http().post(`/sales-orders/${id}/changes/${opened.body.data.change_id}/discard`).expect(200);

      // An edit of remarks since: the change still holds, and applies on the order as it now is.
      const kept = await open(id, { reason: 'more', details: [{ sales_order_detail_id: line!.id, quantity: 11 }] });
      await http().put(`/sales-orders/${id}`).send({ remarks: 'call first' }).expect(200);
      const applied = await apply(id, kept.body.data.change_id);
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
      const order = await read(id);
      // Created confirmed (2), remarks (3), the change (4).
      expect(order).toMatchObject({ version: 4, remarks: 'call first', subtotal: 11 });
    });
  });

  describe('licence: the increase only', () => {
    let product: { id: number };
    /** What confirmed orders hold of the product's licence, as validate-licence tells it. */
    const used = async (): Promise<string> => {
      const response = await http()
        .post('/sales-orders/validate-licence')
        .send({ sales_order_date: ORDER_DATE, sales_order_details: [{ product_id: product.id, quantity: 10_000_000 }] })
        .expect(200);
      return /, (\S+) on orders\)\.$/.exec(response.body.data.warnings[0].message)![1]!;
    };

    beforeAll(async () => {
      product = await createLicensedProduct(prisma(), {
        licences: [{ validFrom: '2026-07-01', validTo: '2027-06-30', quantity: '100' }],
      });
    });

    it('never warns nor takes quota for a rate-only change or a decrease; warns for an increase beyond what is left', async () => {
      const id = await confirmed([{ product_id: product.id, quantity: 60, rate: 1 }]);
      // Over the licence already (confirmed despite the warning): 105 of 100.
      await confirmed([{ product_id: product.id, quantity: 45, rate: 1 }]);
      const [line] = await linesOf(id);
      expect(await used()).toBe('105');

      // Nothing left, yet a rate change of the order, or a decrease, asks nothing more of the
      // licence: no warning (a check of the order's whole quantity would warn of both).
      const rate = await open(id, { reason: 'rate', details: [{ sales_order_detail_id: line!.id, rate: 2 }] });
      expect(rate.body.data.licence.has_warnings).toBe(false);
      expect((await apply(id, rate.body.data.change_id)).status).toBe(200);
      expect(await used()).toBe('105');

      const decrease = await open(id, {
        reason: 'less',
        details: [{ sales_order_detail_id: line!.id, quantity: 49.5 }],
      });
      expect(decrease.body.data.licence.has_warnings).toBe(false);
      expect((await apply(id, decrease.body.data.change_id)).status).toBe(200);
      // The running total follows the lines: 10.5 given back.
      expect(await used()).toBe('94.5');

      // 5.5 left: +5.5 fits exactly, +5.501 does not.
      const fits = await open(id, { reason: 'more', details: [{ sales_order_detail_id: line!.id, quantity: 55 }] });
      expect(fits.body.data.licence.has_warnings).toBe(false);
      await http().post(`/sales-orders/${id}/changes/${fits.body.data.change_id}/discard`).expect(200);
      const beyond = await open(id, {
        reason: 'more',
        details: [{ sales_order_detail_id: line!.id, quantity: 55.001 }],
      });
      expect(beyond.status).toBe(201);
      expect(beyond.body.data.licence.warnings).toEqual([
        expect.objectContaining({ product_id: product.id, code: 'quantity_exceeds_licence' }),
      ]);
      expect(beyond.body.data.licence.warnings[0].message).toContain('quantity 5.501 exceeds the 5.5 left');

      const refused = await apply(id, beyond.body.data.change_id);
      expect(refused.status).toBe(422);
      expect(refused.body.error.details[0]).toMatchObject({
        path: 'details.0.product_id',
        code: 'quantity_exceeds_licence',
      });
      // Acknowledging needs licences.override, as for confirm.
      const clerk = await signJwt({ payload: { permissions: [Permission.change, Permission.read] } });
      const forbidden = await request(suite.server.api)
        .post(`/sales-orders/${id}/changes/${beyond.body.data.change_id}/apply`)
        .set('Authorization', `Bearer ${clerk}`)
        .send({ acknowledge_warnings: true });
      expect(forbidden.status).toBe(403);
      const acknowledged = await apply(id, beyond.body.data.change_id, { acknowledge_warnings: true });
      expect(acknowledged.status, JSON.stringify(acknowledged.body)).toBe(200);
      expect(await used()).toBe('100.001');
      const history = (await http().get(`/sales-orders/${id}/history`).expect(200)).body.data.entries;
      expect(history.at(-1).acknowledged_warnings).toEqual([
        expect.objectContaining({ code: 'quantity_exceeds_licence' }),
      ]);
    });
  });

  describe('permissions and scope', () => {
    it('needs sales_orders.change with sales_orders.read; a caller limited to other locations finds no order', async () => {
      const id = await confirmed([{ product_id: urea(), quantity: 10, rate: 1 }]);
      const [line] = await linesOf(id);
      const body = { reason: 'x', details: [{ sales_order_detail_id: line!.id, quantity: 9 }] };
      const as = async (payload: Record<string, unknown>) =>
        request(suite.server.api)
          .post(`/sales-orders/${id}/changes`)
          .set('Authorization', `Bearer ${await signJwt({ payload })}`)
          .send(body);
      expect((await as({ permissions: [Permission.change] })).status).toBe(403);
      expect((await as({ permissions: [Permission.update, Permission.read] })).status).toBe(403);
      const { chattogram, dhaka } = suite.fixtures.locations;
      const elsewhere = await as({ permissions: [Permission.change, Permission.read], locations: [chattogram.code] });
      expect(elsewhere.status).toBe(404);
      const here = await as({ permissions: [Permission.change, Permission.read], locations: [dhaka.code] });
      expect(here.status, JSON.stringify(here.body)).toBe(201);
      const token = await signJwt({ payload: { permissions: ['*'], locations: [chattogram.code] } });
      for (const [method, path] of [
        ['get', `/sales-orders/${id}/changes`],
        ['post', `/sales-orders/${id}/changes/${here.body.data.change_id}/apply`],
        ['post', `/sales-orders/${id}/changes/${here.body.data.change_id}/discard`],
      ] as const) {
        const response = await request(suite.server.api)[method](path).set('Authorization', `Bearer ${token}`);
        expect(response.status, path).toBe(404);
      }
    });
  });

  describe('concurrency', () => {
    it('two applies of the same change: one 200, one 409, one new version', async () => {
      const id = await confirmed([{ product_id: urea(), quantity: 10, rate: 1 }]);
      const [line] = await linesOf(id);
      const opened = await open(id, { reason: 'x', details: [{ sales_order_detail_id: line!.id, quantity: 12 }] });
      const answers = await Promise.all([apply(id, opened.body.data.change_id), apply(id, opened.body.data.change_id)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      expect((await read(id)).version).toBe(3);
    });

    it('with Idempotency-Key, applies sent at once apply once and every answer is that apply', async () => {
      const id = await confirmed([{ product_id: urea(), quantity: 10, rate: 1 }]);
      const [line] = await linesOf(id);
      const opened = await http()
        .post(`/sales-orders/${id}/changes`)
        .set('Idempotency-Key', `open-${id}`)
        .send({ reason: 'x', details: [{ sales_order_detail_id: line!.id, quantity: 12 }] })
        .expect(201);
      const retriedOpen = await http()
        .post(`/sales-orders/${id}/changes`)
        .set('Idempotency-Key', `open-${id}`)
        .send({ reason: 'x', details: [{ sales_order_detail_id: line!.id, quantity: 12 }] });
      expect(retriedOpen.status).toBe(201);
      expect(retriedOpen.headers['idempotent-replayed']).toBe('true');
      expect(retriedOpen.body.data.change_id).toBe(opened.body.data.change_id);
      const applyOnce = () =>
        http()
          .post(`/sales-orders/${id}/changes/${opened.body.data.change_id}/apply`)
          .set('Idempotency-Key', `apply-${id}`)
          .send({});
      const answers = await Promise.all([applyOnce(), applyOnce(), applyOnce()]);
      // The first holds the key; the others wait for it (or, still running, answer 409 to retry).
      const applied = answers.filter((answer) => answer.status === 200);
      expect(applied.length).toBeGreaterThanOrEqual(1);
      for (const answer of applied) expect(answer.body.data).toMatchObject({ status: 'applied', applied_version: 3 });
      expect((await applyOnce()).body.data).toMatchObject({ status: 'applied', applied_version: 3 });
      expect((await read(id)).version).toBe(3);
      const reused = await http()
        .post(`/sales-orders/${id}/changes/${opened.body.data.change_id}/apply`)
        .set('Idempotency-Key', `apply-${id}`)
        .send({ acknowledge_warnings: true });
      expect(reused.status).toBe(422);
      expect(reused.body.error.details[0].code).toBe('idempotency_key_reused');
    });

    /**
     * A delivery as the deliveries routes make it: the order's row lock (`orderFirst`), then its
     * lines' in id order, then what is pending of the line checked, then the delivered quantity.
     * Refused (rolled back) when the line has less pending than the delivery. Without the order
     * lock, only the apply's own lock of the lines keeps the two apart.
     */
    const deliverChecked = (orderId: number, detailId: number, quantity: string, orderFirst: boolean) =>
      prisma().$transaction(async (tx) => {
        if (orderFirst) await tx.$queryRaw`SELECT id FROM sales_orders WHERE id = ${orderId} FOR UPDATE`;
        const lines = await tx.$queryRaw<{ id: number; pending: string }[]>`
          SELECT id, (quantity - (delivered_quantity - returned_quantity))::text AS pending
          FROM sales_order_details WHERE sales_order_id = ${orderId} ORDER BY id FOR UPDATE`;
        const pending = lines.find((line) => line.id === detailId)!.pending;
        if (toDecimal(pending).lessThan(quantity)) throw new Error(`only ${pending} pending`);
        await tx.$executeRaw`
          UPDATE sales_order_details SET delivered_quantity = delivered_quantity + ${quantity}::numeric WHERE id = ${detailId}`;
        return 'delivered';
      });

    it('an apply lowering a line and a delivery at once never leave the line below its delivered quantity', async () => {
      const outcomes: string[] = [];
      for (let round = 0; round < 12; round += 1) {
        const id = await confirmed([{ product_id: urea(), quantity: 10, rate: 1 }]);
        const [line] = await linesOf(id);
        const opened = await open(id, { reason: 'x', details: [{ sales_order_detail_id: line!.id, quantity: 4 }] });
        expect(opened.status).toBe(201);
        const [applied, delivered] = await Promise.all([
          apply(id, opened.body.data.change_id),
          deliverChecked(id, line!.id, '6', round % 2 === 0).catch((error: Error) => error.message),
        ]);
        // Exactly one wins: the apply (the delivery then finds 4 pending) or the delivery (the apply's re-check refuses).
        expect([applied.status, delivered === 'delivered'], JSON.stringify(applied.body)).toSatisfy(
          ([status, wasDelivered]: [number, boolean]) => (status === 200) !== wasDelivered,
        );
        if (applied.status !== 200) expect(applied.status).toBe(412);
        const [after] = await linesOf(id);
        expect(
          toDecimal(after!.quantity).gte(new Decimal(after!.delivered_quantity).minus(after!.returned_quantity)),
        ).toBe(true);
        outcomes.push(applied.status === 200 ? 'apply' : 'delivery');
      }
      expect(outcomes).toHaveLength(12);
    });
  });
});

describe('change requests under REQUIRE_IF_MATCH', () => {
  const suite = useServerWithFixtures({ REQUIRE_IF_MATCH: 'true' });

  it('an open needs If-Match (428 without), as PUT does; apply and discard go by the change', async () => {
    const http = suite.server.http;
    const created = await http
      .post('/sales-orders')
      .send(
        orderBody(suite.fixtures, {
          details: [{ product_id: suite.fixtures.products.otherProduct.id, quantity: 10, rate: 1 }],
          status: 'confirmed',
        }),
      )
      .expect(201);
    const order = (await http.get(`/sales-orders/${created.body.data.sales_order_id}`).expect(200)).body.data;
    const body = {
      reason: 'x',
      details: [{ sales_order_detail_id: order.details[0].sales_order_detail_id, quantity: 9 }],
    };
    const without = await http.post(`/sales-orders/${order.sales_order_id}/changes`).send(body);
    expect(without.status).toBe(428);
    const opened = await http
      .post(`/sales-orders/${order.sales_order_id}/changes`)
      .set('If-Match', `"${order.version}"`)
      .send(body);
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    await http
      .post(`/sales-orders/${order.sales_order_id}/changes/${opened.body.data.change_id}/apply`)
      .send({})
      .expect(200);
  });
});
