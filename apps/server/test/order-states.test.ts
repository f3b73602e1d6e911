import { describe, expect, it } from 'vitest';

import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { useServerWithFixtures } from './support/test-server.js';

type Status = 'draft' | 'confirmed' | 'closed' | 'cancelled';
type Transition = 'confirm' | 'cancel' | 'close' | 'amend';

/** What each transition answers from each state (the lifecycle's table, docs/api.md). */
const EXPECTED: Record<Status, Record<Transition, number>> = {
  draft: { confirm: 200, cancel: 200, close: 409, amend: 409 },
  confirmed: { confirm: 409, cancel: 200, close: 200, amend: 409 },
  closed: { confirm: 409, cancel: 409, close: 409, amend: 409 },
  cancelled: { confirm: 409, cancel: 409, close: 409, amend: 201 },
};

const BODIES: Record<Transition, object | undefined> = {
  confirm: { acknowledge_warnings: true },
  cancel: { reason: 'Customer changed the grade' },
  close: undefined,
  amend: undefined,
};

describe('order lifecycle: states and transitions', () => {
  const suite = useServerWithFixtures();
  const http = () => suite.server.http;
  const prisma = () => suite.server.database.prisma;

  const create = async (overrides: Record<string, unknown> = {}) =>
    (await http().post('/sales-orders').send(orderBody(suite.fixtures, overrides)).expect(201)).body.data
      .sales_order_id as number;
  const transition = (id: number, name: Transition, body = BODIES[name]) => {
    const call = http().post(`/sales-orders/${id}/${name}`);
    return body === undefined ? call : call.send(body);
  };
  const read = async (id: number) => (await http().get(`/sales-orders/${id}`).expect(200)).body.data;

  /** An order brought to `status` through the API. */
  const orderIn = async (status: Status): Promise<number> => {
    const id = await create();
    if (status === 'confirmed' || status === 'closed') await transition(id, 'confirm').expect(200);
    if (status === 'closed') await transition(id, 'close').expect(200);
    if (status === 'cancelled') await transition(id, 'cancel').expect(200);
    return id;
  };

  describe('every transition from every state', () => {
    for (const status of ['draft', 'confirmed', 'closed', 'cancelled'] as const) {
      for (const name of ['confirm', 'cancel', 'close', 'amend'] as const) {
        const expected = EXPECTED[status][name];
        it(`${name} a ${status} order: ${expected}`, async () => {
          const id = await orderIn(status);
          const before = await read(id);
          const response = await transition(id, name);
          expect(response.status, JSON.stringify(response.body)).toBe(expected);
          if (expected === 409) {
            expect(response.body.error.details).toEqual([
              expect.objectContaining({ path: 'status', code: 'invalid_transition', current_status: status }),
            ]);
            // A refusal changes nothing, not even the version.
            expect(await read(id)).toEqual(before);
            return;
          }
          const answered = response.body.data;
          expect(response.headers.etag).toBe(
            (await http().get(`/sales-orders/${answered.sales_order_id}`)).headers.etag,
          );
          if (name === 'amend') {
            expect(response.headers.location).toBe(`/api/sales-orders/${answered.sales_order_id}`);
            expect(answered).toMatchObject({ status: 'draft', amended_from_id: id, version: 1 });
            expect(await read(id)).toEqual(before);
            return;
          }
          const target = { confirm: 'confirmed', cancel: 'cancelled', close: 'closed' }[name];
          expect(answered).toMatchObject({ sales_order_id: id, status: target, version: before.version + 1 });
          expect(answered.status_changed_at).toBe(answered.updated_at);
          expect(answered.cancellation_reason).toBe(name === 'cancel' ? 'Customer changed the grade' : null);
          expect(await read(id)).toEqual(answered);
        });
      }
    }

    it('a deleted order answers 404 to every transition', async () => {
      const id = await create();
      await http().delete(`/sales-orders/${id}`).expect(200);
      for (const name of ['confirm', 'cancel', 'close', 'amend'] as const) {
        expect((await transition(id, name)).status, name).toBe(404);
      }
      expect((await transition(999_999, 'confirm')).status).toBe(404);
    });

    it('cancel needs a reason of 1..500 characters (400 otherwise, nothing changed)', async () => {
      const id = await create();
      for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(501) }]) {
        const response = await transition(id, 'cancel', body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(response.body.error.details[0].path).toBe('reason');
      }
      expect((await read(id)).status).toBe('draft');
      expect((await transition(id, 'cancel', { reason: 'x'.repeat(500) })).status).toBe(200);
    });
  });

  describe('what a status locks', () => {
    const LOCKED_CHANGES: [string, () => Record<string, unknown>][] = [
      ['customer_id', () => ({ customer_id: suite.fixtures.customers.otherCustomer.id })],
      ['sales_order_date', () => ({ sales_order_date: '2026-11-16' })],
      ['location_id', () => ({ location_id: suite.fixtures.locations.chattogram.id })],
      ['sales_order_no', () => ({ sales_order_no: 'MANUAL-1' })],
      ['details', () => ({ details: [{ product_id: suite.fixtures.products.otherProduct.id, quantity: 1, rate: 1 }] })],
      ['other_charges', () => ({ other_charges: [] })],
    ];

    for (const [field, change] of LOCKED_CHANGES) {
      it(`a confirmed order refuses a change of ${field} with 409 order_not_editable, changing nothing`, async () => {
        const id = await orderIn('confirmed');
        const before = await read(id);
        const response = await http()
          .put(`/sales-orders/${id}`)
          .send({ ...change(), remarks: 'and remarks too' });
        expect(response.status).toBe(409);
        expect(response.body.error.details).toEqual([
          {
            path: field,
            message: `${field} cannot change: the order is confirmed`,
            code: 'order_not_editable',
            current_status: 'confirmed',
          },
        ]);
        expect(await read(id)).toEqual(before);
      });
    }

    it('a confirmed order takes remarks and the fulfilment fields, and a locked field sent back unchanged', async () => {
      const id = await orderIn('confirmed');
      const before = await read(id);
      const [officer] = await prisma().$queryRaw<{ id: number }[]>`
        INSERT INTO field_officers (code, name) VALUES ('FO-LC1', 'Nasrin Akter') RETURNING id`;
      const [port] = await prisma().$queryRaw<{ id: number }[]>`
        INSERT INTO ports (code, name) VALUES ('PT-LC1', 'Mongla') RETURNING id`;
      const response = await http()
        .put(`/sales-orders/${id}`)
        .send({
          remarks: 'Call the store keeper',
          field_officer_id: officer!.id,
          port_id: port!.id,
          customer_reference: 'PO-7781',
          delivery_date: '2026-11-30',
          // What the order holds already: a form saved whole is not a change.
          customer_id: before.customer_id,
          sales_order_date: before.sales_order_date,
          details: before.details.map(
            ({ product_id, packsize_id, quantity, rate, remarks }: Record<string, unknown>) => ({
              product_id,
              packsize_id,
              quantity,
              rate,
              remarks,
            }),
          ),
        });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(await read(id)).toMatchObject({
        status: 'confirmed',
        remarks: 'Call the store keeper',
        field_officer_id: officer!.id,
        field_officer_name: 'Nasrin Akter',
        port_id: port!.id,
        port_name: 'Mongla',
        customer_reference: 'PO-7781',
        delivery_date: '2026-11-30',
        details: before.details,
        version: before.version + 1,
      });
    });

    it('a closed order takes remarks only; a cancelled order takes nothing', async () => {
      const closed = await orderIn('closed');
      expect((await http().put(`/sales-orders/${closed}`).send({ remarks: 'delivered' })).status).toBe(200);
      const refused = await http().put(`/sales-orders/${closed}`).send({ customer_reference: 'PO-1' });
      expect(refused.status).toBe(409);
      expect(refused.body.error.details).toEqual([
        expect.objectContaining({ path: 'customer_reference', current_status: 'closed' }),
      ]);

      const cancelled = await orderIn('cancelled');
      const before = await read(cancelled);
      const response = await http().put(`/sales-orders/${cancelled}`).send({ remarks: before.remarks });
      expect(response.status).toBe(409);
      expect(response.body.error.details).toEqual([
        expect.objectContaining({ path: 'remarks', code: 'order_not_editable', current_status: 'cancelled' }),
      ]);
      expect(await read(cancelled)).toEqual(before);
    });

    it('DELETE: a draft is deleted; confirmed, closed and cancelled orders answer 409 order_not_deletable', async () => {
      expect((await http().delete(`/sales-orders/${await orderIn('draft')}`)).status).toBe(200);
      for (const status of ['confirmed', 'closed', 'cancelled'] as const) {
        const id = await orderIn(status);
        const response = await http().delete(`/sales-orders/${id}`);
        expect(response.status, status).toBe(409);
        expect(response.body.error.details).toEqual([
          expect.objectContaining({ code: 'order_not_deletable', current_status: status }),
        ]);
        if (status === 'confirmed') expect(response.body.error.details[0].message).toMatch(/cancel it instead/);
        expect((await read(id)).status).toBe(status);
      }
    });
  });

  describe('licence quota by state', () => {
    const LICENCE = { validFrom: '2026-07-01', validTo: '2026-12-31', quantity: '100' };
    const licensedProduct = () => createLicensedProduct(prisma(), { licences: [LICENCE] });
    const lineOf = (productId: number, quantity: number) => ({
      details: [{ product_id: productId, quantity, rate: 10 }],
      other_charges: [],
    });
    /** What validate-licence says a further 30 would do. */
    const warningsFor = async (productId: number, quantity: number) =>
      (
        await http()
          .post('/sales-orders/validate-licence')
          .send({ sales_order_date: ORDER_DATE, sales_order_details: [{ product_id: productId, quantity }] })
          .expect(200)
      ).body.data.warnings as { code: string }[];
    const warningsFor30 = (productId: number) => warningsFor(productId, 30);

    it('only confirmed and closed orders consume it: a draft and a cancelled order do not', async () => {
      const product = await licensedProduct();
      const id = await create(lineOf(product.id, 80));
      expect(await warningsFor30(product.id)).toEqual([]);

      await transition(id, 'confirm').expect(200);
      expect(await warningsFor30(product.id)).toEqual([expect.objectContaining({ code: 'quantity_exceeds_licence' })]);

      // A close short-closes what was not delivered: a closed order holds only its net delivered
      // quantity (here 60 of the 80): 30 more fit in the 100, 41 do not.
      const lineId = (await read(id)).details[0].sales_order_detail_id;
      await http()
        .post(`/sales-orders/${id}/deliveries`)
        .send({ delivery_date: ORDER_DATE, lines: [{ sales_order_detail_id: lineId, quantity: 60 }] })
        .expect(201);
      await transition(id, 'close').expect(200);
      expect(await warningsFor30(product.id)).toEqual([]);
      expect(await warningsFor(product.id, 41)).toEqual([
        expect.objectContaining({ code: 'quantity_exceeds_licence' }),
      ]);

      const other = await licensedProduct();
      const cancelled = await create(lineOf(other.id, 80));
      await transition(cancelled, 'confirm').expect(200);
      await transition(cancelled, 'cancel').expect(200);
      expect(await warningsFor30(other.id)).toEqual([]);
    });

    it('confirm refuses licence warnings with 422 and the warnings as details, unless acknowledged (then recorded)', async () => {
      const product = await licensedProduct();
      await transition(await create(lineOf(product.id, 90)), 'confirm').expect(200);
      const id = await create(lineOf(product.id, 20));

      const refused = await transition(id, 'confirm', {});
      expect(refused.status).toBe(422);
      expect(refused.body.error.details).toEqual([
        {
          path: 'details.0.product_id',
          code: 'quantity_exceeds_licence',
          message: expect.stringMatching(/quantity 20 exceeds the 10 left/),
        },
      ]);
      expect((await read(id)).status).toBe('draft');

      const confirmed = await transition(id, 'confirm', { acknowledge_warnings: true });
      expect(confirmed.status).toBe(200);
      const history = (await http().get(`/sales-orders/${id}/history`).expect(200)).body.data.entries;
      expect(history.at(-1)).toMatchObject({
        action: 'confirm',
        acknowledged_warnings: [expect.objectContaining({ product_id: product.id, code: 'quantity_exceeds_licence' })],
        changes: { fields: [{ field: 'status', from: 'draft', to: 'confirmed' }] },
      });
    });

    it('confirm refuses an order whose customer, location or product became inactive, or whose date left every year', async () => {
      const id = await create({ customer_id: suite.fixtures.customers.otherCustomer.id });
      await prisma()
        .$executeRaw`UPDATE customers SET active = false WHERE id = ${suite.fixtures.customers.otherCustomer.id}`;
      try {
        const response = await transition(id, 'confirm');
        expect(response.status).toBe(422);
        expect(response.body.error.details).toEqual([
          expect.objectContaining({ path: 'customer_id', code: 'unknown_customer' }),
        ]);
        expect((await read(id)).status).toBe('draft');
      } finally {
        await prisma()
          .$executeRaw`UPDATE customers SET active = true WHERE id = ${suite.fixtures.customers.otherCustomer.id}`;
      }
    });

    it('two confirms racing for the last units: exactly one wins, the other is refused, the quota is never exceeded', async () => {
      for (let round = 0; round < 5; round += 1) {
        const product = await licensedProduct();
        const first = await create(lineOf(product.id, 60));
        const second = await create(lineOf(product.id, 60));
        const answers = await Promise.all([transition(first, 'confirm', {}), transition(second, 'confirm', {})]);
        expect(answers.map((answer) => answer.status).sort(), `round ${round}`).toEqual([200, 422]);
        const [{ held }] = await prisma().$queryRaw<[{ held: string }]>`
          SELECT coalesce(sum(d.quantity), 0)::text AS held FROM sales_order_details d
          JOIN sales_orders o ON o.id = d.sales_order_id
          WHERE d.product_id = ${product.id} AND o.status IN ('confirmed', 'closed') AND o.deleted_at IS NULL`;
        expect(held).toBe('60.000');
      }
    });
  });

  describe('create with status confirmed', () => {
    it('creates and confirms in one transaction: two history entries, the order confirmed', async () => {
      const response = await http()
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { status: 'confirmed', acknowledge_warnings: true }))
        .expect(201);
      const id = response.body.data.sales_order_id;
      expect(await read(id)).toMatchObject({ status: 'confirmed', version: 2 });
      const entries = (await http().get(`/sales-orders/${id}/history`).expect(200)).body.data.entries;
      expect(entries.map((entry: { action: string; version: number }) => [entry.action, entry.version])).toEqual([
        ['create', 1],
        ['confirm', 2],
      ]);
    });

    it('a refused confirm creates nothing and consumes no number', async () => {
      const product = await createLicensedProduct(prisma(), {
        licences: [{ validFrom: '2026-07-01', validTo: '2026-12-31', quantity: '5' }],
      });
      const series = `year_id=${suite.fixtures.years.currentYear.id}&location_id=${suite.fixtures.locations.chattogram.id}`;
      const next = (await http().get(`/sales-orders/max-number?${series}`).expect(200)).body.data
        .next_sales_order_number;
      const before = await prisma().salesOrder.count();

      const refused = await http()
        .post('/sales-orders')
        .send(
          orderBody(suite.fixtures, {
            location_id: suite.fixtures.locations.chattogram.id,
            status: 'confirmed',
            details: [{ product_id: product.id, quantity: 6, rate: 1 }],
            other_charges: [],
          }),
        );
      expect(refused.status).toBe(422);
      expect(refused.body.error.details).toEqual([expect.objectContaining({ code: 'quantity_exceeds_licence' })]);

      const after = await prisma().salesOrder.count();
      expect(after).toBe(before);
      const created = await http()
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { location_id: suite.fixtures.locations.chattogram.id }))
        .expect(201);
      expect(created.body.data.order_number).toBe(next);
    });
  });

  describe('concurrency and write safety', () => {
    it('confirm and cancel at once with the same If-Match: exactly one wins, the other gets 412', async () => {
      for (let round = 0; round < 3; round += 1) {
        const id = await create();
        const etag = (await http().get(`/sales-orders/${id}`)).headers.etag as string;
        const answers = await Promise.all([
          transition(id, 'confirm').set('If-Match', etag),
          transition(id, 'cancel').set('If-Match', etag),
        ]);
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
        expect((await read(id)).version).toBe(2);
      }
    });

    it('two confirms at once: one 200, one 409 (repeating a done transition is not a silent success)', async () => {
      const id = await create();
      const answers = await Promise.all([transition(id, 'confirm'), transition(id, 'confirm')]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      const entries = (await http().get(`/sales-orders/${id}/history`).expect(200)).body.data.entries;
      expect(entries.filter((entry: { action: string }) => entry.action === 'confirm')).toHaveLength(1);
    });

    it('Idempotency-Key: a retried confirm replays its answer; the key on another order is refused', async () => {
      const id = await create();
      const first = await transition(id, 'confirm').set('Idempotency-Key', 'confirm-once-1');
      expect(first.status).toBe(200);
      const retry = await transition(id, 'confirm').set('Idempotency-Key', 'confirm-once-1');
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect((await read(id)).version).toBe(2);

      const other = await create();
      const reused = await transition(other, 'confirm').set('Idempotency-Key', 'confirm-once-1');
      expect(reused.status).toBe(422);
      expect(reused.body.error.details[0].code).toBe('idempotency_key_reused');
      expect((await read(other)).status).toBe('draft');
    });

    it('a stale If-Match on a transition: 412 with the current version, nothing changed', async () => {
      const id = await create();
      await http().put(`/sales-orders/${id}`).send({ remarks: 'moved on' }).expect(200);
      const response = await transition(id, 'close').set('If-Match', '"1"');
      expect(response.status).toBe(412);
      expect(response.body.error.details[0]).toMatchObject({ code: 'version_mismatch', current_version: 2 });
    });
  });

  describe('amend', () => {
    it('makes a new draft of a cancelled order: same contents, a new number, amended_from_id; once only', async () => {
      const id = await create({ customer_reference: 'PO-99', delivery_date: '2026-11-20' });
      await transition(id, 'cancel', { reason: 'wrong depot' }).expect(200);
      const source = await read(id);

      const response = await transition(id, 'amend');
      expect(response.status).toBe(201);
      const draft = response.body.data;
      expect(draft.sales_order_id).not.toBe(id);
      expect(draft.sales_order_no).not.toBe(source.sales_order_no);
      expect(draft.sales_order_no).toMatch(/^DHK-2026-\d{5}$/);
      const same = (order: Record<string, unknown>) => ({
        customer_id: order.customer_id,
        location_id: order.location_id,
        sales_order_date: order.sales_order_date,
        remarks: order.remarks,
        grand_total: order.grand_total,
        customer_reference: order.customer_reference,
        delivery_date: order.delivery_date,
        details: (order.details as Record<string, unknown>[]).map(({ sales_order_detail_id: _, ...line }) => line),
        other_charges: (order.other_charges as Record<string, unknown>[]).map(
          ({ other_charge_id: _, ...charge }) => charge,
        ),
      });
      expect(same(draft)).toEqual(same(source));
      expect(draft).toMatchObject({ status: 'draft', amended_from_id: id, cancellation_reason: null });

      const entries = (await http().get(`/sales-orders/${draft.sales_order_id}/history`).expect(200)).body.data.entries;
      expect(entries).toHaveLength(1);
      expect(entries[0].action).toBe('amend');
      expect(entries[0].changes.fields).toEqual(
        expect.arrayContaining([
          { field: 'sales_order_no', from: null, to: draft.sales_order_no },
          { field: 'amended_from_id', from: null, to: id },
        ]),
      );
      const again = await transition(id, 'amend');
      expect(again.status).toBe(409);
      expect(again.body.error.details[0].message).toContain(`amended into order ${draft.sales_order_id}`);
    });
  });

  describe('history, list and sync', () => {
    it('every transition is an entry with who, when and what: cancel carries its reason', async () => {
      const id = await create();
      await transition(id, 'confirm').expect(200);
      await transition(id, 'cancel', { reason: 'Customer closed the account' }).expect(200);
      const entries = (await http().get(`/sales-orders/${id}/history`).expect(200)).body.data.entries;
      expect(entries.map((entry: { action: string }) => entry.action)).toEqual(['create', 'confirm', 'cancel']);
      expect(entries[2]).toMatchObject({
        version: 3,
        by: expect.any(String),
        reason: 'Customer closed the account',
        changes: {
          fields: [
            { field: 'status', from: 'confirmed', to: 'cancelled' },
            { field: 'cancellation_reason', from: null, to: 'Customer closed the account' },
          ],
          lines: { added: [], removed: [], changed: [] },
        },
      });
      expect(entries[2].changes.totals_before).toEqual(entries[2].changes.totals_after);
      // Each change of one order is stamped after the one before it.
      const stamps = entries.map((entry: { at: string }) => entry.at);
      expect([...stamps].sort()).toEqual(stamps);
    });

    it("the list filters by status (one or more) and shows each order's status; a bad status is a 400", async () => {
      const customer = suite.fixtures.customers.otherCustomer.id;
      const ids = {
        draft: await create({ customer_id: customer }),
        confirmed: await create({ customer_id: customer }),
        cancelled: await create({ customer_id: customer }),
      };
      await transition(ids.confirmed, 'confirm').expect(200);
      await transition(ids.cancelled, 'cancel').expect(200);
      const listed = async (status: string) =>
        (await http().get(`/sales-orders?customer_id=${customer}&status=${status}&limit=200`).expect(200)).body.data
          .items as { sales_order_id: number; status: string }[];
      const confirmed = await listed('confirmed');
      expect(confirmed.map((item) => item.sales_order_id)).toContain(ids.confirmed);
      expect(new Set(confirmed.map((item) => item.status))).toEqual(new Set(['confirmed']));
      const either = await listed('draft,cancelled');
      expect(either.map((item) => item.sales_order_id)).toEqual(expect.arrayContaining([ids.draft, ids.cancelled]));
      expect(either.map((item) => item.sales_order_id)).not.toContain(ids.confirmed);
      expect(new Set(either.map((item) => item.status))).toEqual(new Set(['draft', 'cancelled']));
      for (const bad of ['open', 'draft,', 'DRAFT', '']) {
        expect((await http().get(`/sales-orders?status=${bad}`)).status, bad).toBe(400);
      }
    });

    it('a transition moves the order in the sync feed: updated_at and version change', async () => {
      const id = await create();
      const before = await read(id);
      await transition(id, 'confirm').expect(200);
      const since = encodeURIComponent(before.updated_at);
      const page = (
        await http()
          .get(`/sales-orders?updated_since=${since}&sort=updated_at&include_deleted=true&limit=200`)
          .expect(200)
      ).body.data.items as { sales_order_id: number; version: number; status: string; updated_at: string }[];
      const item = page.find((candidate) => candidate.sales_order_id === id);
      expect(item).toMatchObject({ version: 2, status: 'confirmed' });
      expect(item!.updated_at >= before.updated_at).toBe(true);
    });
  });
});
