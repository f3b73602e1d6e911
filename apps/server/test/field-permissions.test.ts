import { apiContract, type FieldPermission, Permission } from '@sales-order/contract';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApiKey } from './support/credentials.js';
import { orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * A body's field values ask for permissions of their own. Creating an order
 * confirmed is a confirm (`sales_orders.confirm`), and acknowledging licence warnings, on create
 * or on confirm, is an override (`licences.override`); the history entry names who overrode.
 */
describe('permissions asked for by field values', () => {
  const suite = useServerWithFixtures();
  const prisma = () => suite.server.database.prisma;

  const bearer = async (subject: string, permissions: string[]) => ({
    Authorization: `Bearer ${await signJwt({ subject, payload: { permissions } })}`,
  });

  /** A product of its own whose licence has 150 units. */
  const productWithQuota = async () =>
    createLicensedProduct(prisma(), {
      licences: [{ validFrom: '2026-07-01', validTo: '2026-12-31', quantity: '150' }],
    });
  const linesOf = (productId: number, quantity: number) => ({
    details: [{ product_id: productId, quantity, rate: 10 }],
    other_charges: [],
  });
  /** Units of a product held by confirmed and closed orders. */
  const held = async (productId: number) => {
    const [row] = await prisma().$queryRaw<[{ held: string }]>`
      SELECT coalesce(sum(d.quantity), 0)::text AS held FROM sales_order_details d
      JOIN sales_orders o ON o.id = d.sales_order_id
      WHERE d.product_id = ${productId} AND o.status IN ('confirmed', 'closed') AND o.deleted_at IS NULL`;
    return Number(row.held);
  };
  const refusal = (permissions: string) => ({
    message: `This needs the permission${permissions.includes(' and ') ? 's' : ''} ${permissions}`,
    code: 403,
    details: [
      {
        path: '',
        message: `This needs the permission${permissions.includes(' and ') ? 's' : ''} ${permissions}`,
        code: 'missing_permission',
      },
    ],
  });

  it('create with status confirmed needs sales_orders.confirm: a create-only caller gets 403 and nothing is created', async () => {
    const product = await productWithQuota();
    const before = await prisma().salesOrder.count();
    const clerk = await bearer('clerk', [Permission.create]);
    const response = await request(suite.server.api)
      .post('/sales-orders')
      .set(clerk)
      .send(orderBody(suite.fixtures, { status: 'confirmed', ...linesOf(product.id, 10) }));
    expect(response.status).toBe(403);
    expect(response.body.error).toEqual(refusal('sales_orders.confirm'));
    // Refused whatever else the body holds: the field's value is enough.
    const malformed = await request(suite.server.api).post('/sales-orders').set(clerk).send({ status: 'confirmed' });
    expect(malformed.status).toBe(403);
    expect(await prisma().salesOrder.count()).toBe(before);
    expect(await held(product.id)).toBe(0);

    // A draft is still the clerk's to create; an API key is judged the same way.
    await request(suite.server.api)
      .post('/sales-orders')
      .set(clerk)
      .send(orderBody(suite.fixtures, { status: 'draft', acknowledge_warnings: false, ...linesOf(product.id, 10) }))
      .expect(201);
    const { key } = await createApiKey(prisma(), [Permission.create]);
    const byKey = await request(suite.server.api)
      .post('/sales-orders')
      .set('Authorization', `ApiKey ${key}`)
      .send(orderBody(suite.fixtures, { status: 'confirmed', ...linesOf(product.id, 10) }));
    expect(byKey.status).toBe(403);
    expect(byKey.body.error).toEqual(refusal('sales_orders.confirm'));
  });

  it('acknowledging warnings on create needs licences.override: the quota stays at 150 without it', async () => {
    const product = await productWithQuota();
    await request(suite.server.api)
      .post('/sales-orders')
      .set(await bearer('supervisor', [Permission.create, Permission.confirm]))
      .send(orderBody(suite.fixtures, { status: 'confirmed', ...linesOf(product.id, 150) }))
      .expect(201);
    expect(await held(product.id)).toBe(150);

    const over = orderBody(suite.fixtures, {
      status: 'confirmed',
      acknowledge_warnings: true,
      ...linesOf(product.id, 460),
    });
    const withoutBoth = await request(suite.server.api)
      .post('/sales-orders')
      .set(await bearer('clerk', [Permission.create]))
      .send(over);
    expect(withoutBoth.status).toBe(403);
    expect(withoutBoth.body.error).toEqual(refusal('sales_orders.confirm and licences.override'));
    const withoutOverride = await request(suite.server.api)
      .post('/sales-orders')
      .set(await bearer('confirmer', [Permission.create, Permission.confirm]))
      .send(over);
    expect(withoutOverride.status).toBe(403);
    expect(withoutOverride.body.error).toEqual(refusal('licences.override'));
    expect(await held(product.id)).toBe(150);

    const overridden = await request(suite.server.api)
      .post('/sales-orders')
      .set(await bearer('supervisor', [Permission.create, Permission.confirm, Permission.licencesOverride]))
      .send(over)
      .expect(201);
    expect(await held(product.id)).toBe(610);
    const entries = (
      await suite.server.http.get(`/sales-orders/${overridden.body.data.sales_order_id}/history`).expect(200)
    ).body.data.entries;
    expect(entries.at(-1)).toMatchObject({
      action: 'confirm',
      by: 'supervisor',
      acknowledged_warnings: [expect.objectContaining({ product_id: product.id, code: 'quantity_exceeds_licence' })],
    });
  });

  it('acknowledging warnings on confirm needs licences.override; a confirm without warnings does not', async () => {
    const product = await productWithQuota();
    const create = async (quantity: number) =>
      (
        await suite.server.http
          .post('/sales-orders')
          .send(orderBody(suite.fixtures, linesOf(product.id, quantity)))
          .expect(201)
      ).body.data.sales_order_id as number;
    const confirmer = await bearer('confirmer', [Permission.confirm, Permission.read]);
    const first = await create(100);
    await request(suite.server.api).post(`/sales-orders/${first}/confirm`).set(confirmer).send({}).expect(200);

    const second = await create(100);
    const warned = await request(suite.server.api).post(`/sales-orders/${second}/confirm`).set(confirmer).send({});
    expect(warned.status).toBe(422);
    const acknowledged = await request(suite.server.api)
      .post(`/sales-orders/${second}/confirm`)
      .set(confirmer)
      .send({ acknowledge_warnings: true });
    expect(acknowledged.status).toBe(403);
    expect(acknowledged.body.error).toEqual(refusal('licences.override'));
    expect((await suite.server.http.get(`/sales-orders/${second}`).expect(200)).body.data.status).toBe('draft');
    expect(await held(product.id)).toBe(100);

    const { key, summary } = await createApiKey(prisma(), [
      Permission.confirm,
      Permission.read,
      Permission.licencesOverride,
    ]);
    await request(suite.server.api)
      .post(`/sales-orders/${second}/confirm`)
      .set('Authorization', `ApiKey ${key}`)
      .send({ acknowledge_warnings: true })
      .expect(200);
    expect(await held(product.id)).toBe(200);
    const entries = (await suite.server.http.get(`/sales-orders/${second}/history`).expect(200)).body.data.entries;
    expect(entries.at(-1)).toMatchObject({
      action: 'confirm',
      by: `api_key:${summary.prefix}`,
      acknowledged_warnings: [expect.objectContaining({ code: 'quantity_exceeds_licence' })],
    });
  });

  it('the contract declares which field values need which permission, and the OpenAPI document shows it', async () => {
    const declared = Object.fromEntries(
      Object.entries(apiContract as Record<string, { metadata?: object }>)
        .map(([name, route]) => [
          name,
          (route.metadata as { fieldPermissions?: FieldPermission[] } | undefined)?.fieldPermissions,
        ])
        .filter(([, rules]) => rules !== undefined),
    );
    expect(declared).toEqual({
      createSalesOrder: [
        { field: 'status', value: 'confirmed', permission: Permission.confirm },
        { field: 'acknowledge_warnings', value: true, permission: Permission.licencesOverride },
      ],
      bulkCreateSalesOrders: [
        { field: 'orders.*.status', value: 'confirmed', permission: Permission.confirm },
        { field: 'orders.*.acknowledge_warnings', value: true, permission: Permission.licencesOverride },
      ],
      confirmSalesOrder: [{ field: 'acknowledge_warnings', value: true, permission: Permission.licencesOverride }],
      applyChange: [{ field: 'acknowledge_warnings', value: true, permission: Permission.licencesOverride }],
    });
    const document = (await request(suite.server.api).get('/openapi.json').expect(200)).body;
    expect(document.paths['/sales-orders'].post['x-field-permissions']).toEqual(declared.createSalesOrder);
    expect(document.paths['/sales-orders/bulk'].post['x-field-permissions']).toEqual(declared.bulkCreateSalesOrders);
    expect(document.paths['/sales-orders/{id}/confirm'].post['x-field-permissions']).toEqual(
      declared.confirmSalesOrder,
    );
    expect(document.paths['/sales-orders/{id}/confirm'].post.description).toContain(
      '`acknowledge_warnings`: `true` also requires `licences.override`',
    );
  });
});
