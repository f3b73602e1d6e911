import { describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * A PUT that sends back what it read must not be refused because the host has since
 * deactivated master data the order refers to; only references the update changes are checked.
 */
describe('update round trip', () => {
  const suite = useServerWithFixtures();
  const http = () => suite.server.http;
  const prisma = () => suite.server.database.prisma;

  /**
   * An order on master data of its own (customer, product, packsize, financial year), all
   * active when it is created; then the host deactivates every one of them, with SQL.
   */
  const orderOnMasterDataDeactivatedSince = async (tag: string) => {
    const customer = await prisma().customer.create({
      data: { code: `RT-C-${tag}`, name: `Round trip customer ${tag}` },
    });
    const product = await prisma().product.create({ data: { code: `RT-P-${tag}`, name: `Round trip product ${tag}` } });
    const packsize = await prisma().packsize.create({ data: { productId: product.id, name: '1 kg' } });
    const year = Number(tag) + 2030;
    const financialYear = await prisma().financialYear.create({
      data: { code: `FY${year}`, startDate: new Date(`${year}-07-01`), endDate: new Date(`${year + 1}-06-30`) },
    });
    const created = await http()
      .post('/sales-orders')
      .send(
        orderBody(suite.fixtures, {
          customer_id: customer.id,
          sales_order_date: `${year}-08-01`,
          details: [
            { product_id: product.id, packsize_id: packsize.id, quantity: 2, rate: 10 },
            { product_id: suite.fixtures.products.otherProduct.id, quantity: 1, rate: 5 },
          ],
          other_charges: [],
        }),
      )
      .expect(201);
    await prisma().$executeRaw`UPDATE customers SET active = false WHERE id = ${customer.id}`;
    await prisma().$executeRaw`UPDATE products SET active = false WHERE id = ${product.id}`;
    await prisma().$executeRaw`UPDATE packsizes SET active = false WHERE id = ${packsize.id}`;
    await prisma().$executeRaw`UPDATE financial_years SET active = false WHERE id = ${financialYear.id}`;
    const id: number = created.body.data.sales_order_id;
    const read = (await http().get(`/sales-orders/${id}`).expect(200)).body.data;
    return { id, read, customer, product, packsize, year };
  };

  /** The update body a form would send back: every field as read, lines without their ids. */
  const sentBack = (read: Record<string, unknown> & { details: Record<string, unknown>[] }) => ({
    customer_id: read.customer_id,
    sales_order_date: read.sales_order_date,
    location_id: read.location_id,
    sales_order_no: read.sales_order_no,
    remarks: read.remarks,
    grand_total: read.grand_total,
    details: read.details.map(({ product_id, packsize_id, quantity, rate, amount, remarks }) => ({
      product_id,
      packsize_id,
      quantity,
      rate,
      amount,
      remarks,
    })),
    other_charges: [],
  });

  const codesOf = (response: { status: number; body: { error: { details: { path: string; code: string }[] } } }) => ({
    status: response.status,
    details: response.body.error.details.map(({ path, code }) => ({ path, code })),
  });

  it('accepts what was read, with its customer, product, packsize and financial year inactive since', async () => {
    const { id, read } = await orderOnMasterDataDeactivatedSince('1');
    const body = sentBack(read);
    body.remarks = 'Edited after the host closed the year';
    body.details[0]!.quantity = 3;
    body.details[0]!.amount = 30;
    body.grand_total = 35;
    await http().put(`/sales-orders/${id}`).send(body).expect(200);

    const after = (await http().get(`/sales-orders/${id}`).expect(200)).body.data;
    expect(after).toMatchObject({
      remarks: 'Edited after the host closed the year',
      grand_total: 35,
      customer_id: read.customer_id,
    });
    expect(
      after.details.map((line: { product_id: number; packsize_id: number | null }) => [
        line.product_id,
        line.packsize_id,
      ]),
    ).toEqual(
      read.details.map((line: { product_id: number; packsize_id: number | null }) => [
        line.product_id,
        line.packsize_id,
      ]),
    );
  });

  it('still refuses references the update changes to something inactive', async () => {
    const { id, read, year } = await orderOnMasterDataDeactivatedSince('2');
    const { customers, products, packsizes } = suite.fixtures;

    const otherCustomer = await http()
      .put(`/sales-orders/${id}`)
      .send({ ...sentBack(read), customer_id: customers.inactiveCustomer.id });
    expect(codesOf(otherCustomer)).toEqual({
      status: 422,
      details: [{ path: 'customer_id', code: 'unknown_customer' }],
    });

    const newProduct = await http()
      .put(`/sales-orders/${id}`)
      .send({
        details: [...sentBack(read).details, { product_id: products.inactiveProduct.id, quantity: 1, rate: 1 }],
        grand_total: null,
      });
    expect(codesOf(newProduct)).toEqual({
      status: 422,
      details: [{ path: 'details.2.product_id', code: 'unknown_product' }],
    });

    const newPacksize = await http()
      .put(`/sales-orders/${id}`)
      .send({
        details: [
          { product_id: products.product.id, packsize_id: packsizes.inactivePacksize.id, quantity: 1, rate: 1 },
        ],
      });
    expect(codesOf(newPacksize)).toEqual({
      status: 422,
      details: [{ path: 'details.0.packsize_id', code: 'unknown_packsize' }],
    });

    const newDate = await http()
      .put(`/sales-orders/${id}`)
      .send({ sales_order_date: `${year}-09-01` });
    expect(codesOf(newDate)).toEqual({
      status: 422,
      details: [{ path: 'sales_order_date', code: 'date_outside_financial_years' }],
    });

    // A kept, inactive packsize is still checked against the product of its line.
    const packsizeOnOtherProduct = await http()
      .put(`/sales-orders/${id}`)
      .send({
        details: [
          {
            product_id: suite.fixtures.products.otherProduct.id,
            packsize_id: read.details[0].packsize_id,
            quantity: 1,
            rate: 1,
          },
        ],
      });
    expect(codesOf(packsizeOnOtherProduct)).toEqual({
      status: 422,
      details: [{ path: 'details.0.packsize_id', code: 'packsize_not_of_product' }],
    });

    expect((await http().get(`/sales-orders/${id}`).expect(200)).body.data).toEqual(read);
  });
});
