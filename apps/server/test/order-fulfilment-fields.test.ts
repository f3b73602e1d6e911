import { beforeAll, describe, expect, it } from 'vitest';

import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The fields a host's order form carries besides the interface's: field officer, port (active
 * master data, joined names on read), the customer's own reference (searchable) and the
 * delivery date (not before the order date). Optional on create and update; on read, list, sync
 * and in history.
 */
describe('field officer, port, customer reference and delivery date', () => {
  const suite = useServerWithFixtures();
  const http = () => suite.server.http;
  const ids = { officer: 0, inactiveOfficer: 0, port: 0, inactivePort: 0 };

  beforeAll(async () => {
    // Master rows written as the host writes them.
    const prisma = suite.server.database.prisma;
    const insertOfficer = async (code: string, name: string, active: boolean) =>
      (
        await prisma.$queryRaw<{ id: number }[]>`
          INSERT INTO field_officers (code, name, active) VALUES (${code}, ${name}, ${active}) RETURNING id`
      )[0]!.id;
    const insertPort = async (code: string, name: string, active: boolean) =>
      (
        await prisma.$queryRaw<{ id: number }[]>`
          INSERT INTO ports (code, name, active) VALUES (${code}, ${name}, ${active}) RETURNING id`
      )[0]!.id;
    ids.officer = await insertOfficer('FO-1', 'Sharmin Sultana', true);
    ids.inactiveOfficer = await insertOfficer('FO-2', 'Retired Officer', false);
    ids.port = await insertPort('PT-1', 'Chattogram Port', true);
    ids.inactivePort = await insertPort('PT-2', 'Closed Jetty', false);
  });

  const create = (overrides: Record<string, unknown>) =>
    http().post('/sales-orders').send(orderBody(suite.fixtures, overrides));

  it('are stored on create and read back with the joined names, on the list too', async () => {
    const created = await create({
      field_officer_id: ids.officer,
      port_id: ids.port,
      customer_reference: 'PO/2026/0417',
      delivery_date: '2026-11-20',
    });
    expect(created.status).toBe(201);
    const id = created.body.data.sales_order_id;
    const order = (await http().get(`/sales-orders/${id}`).expect(200)).body.data;
    expect(order).toMatchObject({
      field_officer_id: ids.officer,
      field_officer_name: 'Sharmin Sultana',
      port_id: ids.port,
      port_name: 'Chattogram Port',
      customer_reference: 'PO/2026/0417',
      delivery_date: '2026-11-20',
    });
    const listed = (await http().get('/sales-orders?q=po/2026/04').expect(200)).body.data.items;
    expect(listed).toEqual([
      expect.objectContaining({
        sales_order_id: id,
        field_officer_id: ids.officer,
        port_id: ids.port,
        customer_reference: 'PO/2026/0417',
        delivery_date: '2026-11-20',
      }),
    ]);
  });

  it('refuses an unknown or inactive field officer or port, and a delivery before the order date (422, every problem)', async () => {
    const response = await create({
      field_officer_id: ids.inactiveOfficer,
      port_id: 999_999,
      delivery_date: '2026-11-14',
    });
    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([
      {
        path: 'field_officer_id',
        message: `field officer ${ids.inactiveOfficer} is inactive`,
        code: 'unknown_field_officer',
      },
      { path: 'port_id', message: 'port 999999 does not exist', code: 'unknown_port' },
      {
        path: 'delivery_date',
        message: `the delivery date 2026-11-14 is before the order date ${ORDER_DATE}`,
        code: 'delivery_before_order_date',
      },
    ]);
    expect((await create({ port_id: ids.inactivePort })).body.error.details).toEqual([
      expect.objectContaining({ path: 'port_id', code: 'unknown_port' }),
    ]);
  });

  it('are updated and cleared by PUT, with history; a reference the order holds may have become inactive', async () => {
    const id = (await create({ field_officer_id: ids.officer }).expect(201)).body.data.sales_order_id;
    await suite.server.database.prisma.$executeRaw`UPDATE field_officers SET active = false WHERE id = ${ids.officer}`;
    try {
      // Sent back as it is: no check of its being active.
      await http()
        .put(`/sales-orders/${id}`)
        .send({
          field_officer_id: ids.officer,
          port_id: ids.port,
          customer_reference: 'PO-1',
          delivery_date: ORDER_DATE,
        })
        .expect(200);
      await http().put(`/sales-orders/${id}`).send({ field_officer_id: null, customer_reference: null }).expect(200);
    } finally {
      await suite.server.database.prisma.$executeRaw`UPDATE field_officers SET active = true WHERE id = ${ids.officer}`;
    }
    const order = (await http().get(`/sales-orders/${id}`).expect(200)).body.data;
    expect(order).toMatchObject({
      field_officer_id: null,
      field_officer_name: null,
      port_id: ids.port,
      customer_reference: null,
      delivery_date: ORDER_DATE,
    });
    const entries = (await http().get(`/sales-orders/${id}/history`).expect(200)).body.data.entries;
    expect(entries[0].changes.fields).toContainEqual({ field: 'field_officer_id', from: null, to: ids.officer });
    expect(entries[1].changes.fields).toEqual([
      { field: 'port_id', from: null, to: ids.port },
      { field: 'customer_reference', from: null, to: 'PO-1' },
      { field: 'delivery_date', from: null, to: ORDER_DATE },
    ]);
    expect(entries[2].changes.fields).toEqual([
      { field: 'field_officer_id', from: ids.officer, to: null },
      { field: 'customer_reference', from: 'PO-1', to: null },
    ]);
    // A new order date after the stored delivery date is refused too.
    const moved = await http().put(`/sales-orders/${id}`).send({ sales_order_date: '2026-11-16' });
    expect(moved.status).toBe(422);
    expect(moved.body.error.details).toEqual([expect.objectContaining({ code: 'delivery_before_order_date' })]);
  });

  it('refuses a customer reference over 100 characters or with control characters (400)', async () => {
    for (const reference of ['x'.repeat(101), 'PO\u0000']) {
      const response = await create({ customer_reference: reference });
      expect(response.status).toBe(400);
      expect(response.body.error.details[0].path).toBe('customer_reference');
    }
  });
});
