import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { TEST_SUBJECT } from './support/tokens.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('sales order create, read, update and delete through HTTP', () => {
  const suite = useServerWithFixtures();

  it('creates an order: 201, Location, message, number and exact total', async () => {
    const response = await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures));

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      success: true,
      message: 'Sales order created successfully',
      data: {
        sales_order_id: expect.any(Number),
        order_number: 'DHK-2026-00001',
        // 10 x 455.5 + 2.5 x 1200 + 350
        total_amount: 7905,
      },
    });
    expect(response.headers.location).toBe(`/api/sales-orders/${response.body.data.sales_order_id}`);
  });

  it('reads an order back field by field after create', async () => {
    const created = await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures));
    const id = created.body.data.sales_order_id;

    const response = await suite.server.http.get(`/sales-orders/${id}`);

    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    const order = response.body.data;
    expect(order.sales_order_id).toBe(id);
    expect(order.sales_order_no).toBe(created.body.data.order_number);
    expect(order.customer_id).toBe(suite.fixtures.customers.customer.id);
    expect(order.customer_name).toBe('Rahman Traders');
    expect(order.sales_order_date).toBe(ORDER_DATE);
    expect(order.location_id).toBe(suite.fixtures.locations.dhaka.id);
    expect(order.financial_year_id).toBe(suite.fixtures.years.currentYear.id);
    expect(order.subtotal).toBe(7555);
    expect(order.other_charges_total).toBe(350);
    expect(order.grand_total).toBe(7905);
    expect(order.remarks).toBe('Deliver before Friday');
    expect(order.version).toBe(1);
    expect(order.created_at).toMatch(TIMESTAMP);
    expect(order.updated_at).toMatch(TIMESTAMP);
    expect(order.created_by).toBe(TEST_SUBJECT);
    expect(order.updated_by).toBe(TEST_SUBJECT);
    // A create makes a draft, in that status since its creation; nothing else of the lifecycle is set.
    expect(order.status).toBe('draft');
    expect(order.status_changed_at).toBe(order.created_at);
    expect(order.cancellation_reason).toBeNull();
    expect(order.amended_from_id).toBeNull();
    expect(order.field_officer_id).toBeNull();
    expect(order.field_officer_name).toBeNull();
    expect(order.port_id).toBeNull();
    expect(order.port_name).toBeNull();
    expect(order.customer_reference).toBeNull();
    expect(order.delivery_date).toBeNull();
    expect(order.details).toEqual([
      {
        sales_order_detail_id: expect.any(Number),
        product_id: suite.fixtures.products.product.id,
        product_name: 'Cypermethrin 10 EC',
        packsize_id: suite.fixtures.packsizes.packsize.id,
        quantity: 10,
        rate: 455.5,
        amount: 4555,
        remarks: 'Cold chain',
        delivered_quantity: 0,
        returned_quantity: 0,
        pending_quantity: 10,
        short_closed_quantity: 0,
      },
      {
        sales_order_detail_id: expect.any(Number),
        product_id: suite.fixtures.products.otherProduct.id,
        product_name: 'Urea 46% N',
        packsize_id: null,
        quantity: 2.5,
        rate: 1200,
        amount: 3000,
        remarks: null,
        delivered_quantity: 0,
        returned_quantity: 0,
        pending_quantity: 2.5,
        short_closed_quantity: 0,
      },
    ]);
    expect(order.other_charges).toEqual([
      { other_charge_id: expect.any(Number), description: 'Carriage', amount: 350 },
    ]);
    expect(Object.keys(order).sort()).toEqual(
      [
        'sales_order_id',
        'sales_order_no',
        'customer_id',
        'customer_name',
        'sales_order_date',
        'location_id',
        'financial_year_id',
        'subtotal',
        'other_charges_total',
        'grand_total',
        'remarks',
        'details',
        'other_charges',
        'version',
        'created_at',
        'updated_at',
        'created_by',
        'updated_by',
        'status',
        'status_changed_at',
        'cancellation_reason',
        'amended_from_id',
        'field_officer_id',
        'field_officer_name',
        'port_id',
        'port_name',
        'customer_reference',
        'delivery_date',
        'delivery_status',
      ].sort(),
    );
  });

  it('updates an order: replaces lines and charges, recomputes totals, bumps the version', async () => {
    const created = await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures));
    const id = created.body.data.sales_order_id;

    const response = await suite.server.http.put(`/sales-orders/${id}`).send({
      customer_id: suite.fixtures.customers.otherCustomer.id,
      sales_order_date: '2026-12-01',
      remarks: null,
      details: [
        {
          product_id: suite.fixtures.products.otherProduct.id,
          packsize_id: suite.fixtures.packsizes.otherPacksize.id,
          quantity: 4,
          rate: 99.99,
        },
      ],
      other_charges: [
        { description: 'Loading', amount: 120.5 },
        { description: 'Discount', amount: -20 },
      ],
      grand_total: 500.46,
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      message: 'Sales order updated successfully',
      data: { sales_order_id: id, updated: true, version: 2 },
    });

    const order = (await suite.server.http.get(`/sales-orders/${id}`)).body.data;
    expect(order.sales_order_no).toBe(created.body.data.order_number);
    expect(order.customer_id).toBe(suite.fixtures.customers.otherCustomer.id);
    expect(order.customer_name).toBe('Karim Agro Centre');
    expect(order.sales_order_date).toBe('2026-12-01');
    expect(order.location_id).toBe(suite.fixtures.locations.dhaka.id);
    expect(order.remarks).toBeNull();
    expect(order.subtotal).toBe(399.96);
    expect(order.other_charges_total).toBe(100.5);
    expect(order.grand_total).toBe(500.46);
    expect(order.version).toBe(2);
    expect(order.details).toEqual([
      {
        sales_order_detail_id: expect.any(Number),
        product_id: suite.fixtures.products.otherProduct.id,
        product_name: 'Urea 46% N',
        packsize_id: suite.fixtures.packsizes.otherPacksize.id,
        quantity: 4,
        rate: 99.99,
        amount: 399.96,
        remarks: null,
        delivered_quantity: 0,
        returned_quantity: 0,
        pending_quantity: 4,
        short_closed_quantity: 0,
      },
    ]);
    expect(
      order.other_charges.map(({ description, amount }: { description: string; amount: number }) => ({
        description,
        amount,
      })),
    ).toEqual([
      { description: 'Loading', amount: 120.5 },
      { description: 'Discount', amount: -20 },
    ]);
  });

  it('keeps stored lines when an update sends only charges, and recomputes the grand total', async () => {
    const created = await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures));
    const id = created.body.data.sales_order_id;

    await suite.server.http.put(`/sales-orders/${id}`).send({ other_charges: [] }).expect(200);

    const order = (await suite.server.http.get(`/sales-orders/${id}`)).body.data;
    expect(order.details).toHaveLength(2);
    expect(order.subtotal).toBe(7555);
    expect(order.other_charges).toEqual([]);
    expect(order.other_charges_total).toBe(0);
    expect(order.grand_total).toBe(7555);
  });

  it('soft-deletes an order: 200, then 404 to read, update and delete; the row stays', async () => {
    const created = await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures));
    const id = created.body.data.sales_order_id;

    const response = await suite.server.http.delete(`/sales-orders/${id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      message: 'Sales order deleted successfully',
      data: { sales_order_id: id, deleted: true },
    });

    for (const call of [
      suite.server.http.get(`/sales-orders/${id}`),
      suite.server.http.put(`/sales-orders/${id}`).send({ remarks: 'too late' }),
      suite.server.http.delete(`/sales-orders/${id}`),
    ]) {
      const answer = await call;
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({
        success: false,
        error: { code: 404, message: `sales order ${id} not found`, details: [] },
      });
    }
    const row = await suite.server.database.prisma.salesOrder.findUniqueOrThrow({ where: { id } });
    expect(row.deletedAt).toBeInstanceOf(Date);
    expect(row.version).toBe(2);
  });

  it('answers max-number for a series with the next number', async () => {
    const response = await suite.server.http
      .get('/sales-orders/max-number')
      .query({ year_id: suite.fixtures.years.previousYear.id, location_id: suite.fixtures.locations.chattogram.id });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        max_sales_order_number: null,
        next_sales_order_number: 'CTG-2025-00001',
        year_id: suite.fixtures.years.previousYear.id,
        location_id: suite.fixtures.locations.chattogram.id,
      },
    });
  });

  it('calculates totals without storing anything', async () => {
    const before = await suite.server.database.prisma.salesOrder.count();
    const response = await suite.server.http.post('/sales-orders/calculate-totals').send({
      details: [
        { quantity: 2, rate: 10.25 },
        { quantity: 1, rate: 5 },
      ],
      other_charges: [{ amount: 3.5 }],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: { subtotal: 25.5, other_charges_total: 3.5, grand_total: 29 },
    });
    expect(await suite.server.database.prisma.salesOrder.count()).toBe(before);
  });

  it('serves health and readiness at the root', async () => {
    await request(suite.server.origin)
      .get('/healthz')
      .expect(200, { success: true, data: { status: 'ok' } });
    await request(suite.server.origin)
      .get('/readyz')
      .expect(200, { success: true, data: { status: 'ready' } });
  });
});
