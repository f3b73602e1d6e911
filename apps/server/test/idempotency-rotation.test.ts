import { randomUUID } from 'node:crypto';

import { Permission } from '@sales-order/contract';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApiKey } from './support/credentials.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The Idempotency-Key space of an API key is its rotation family: a retry sent with the
 * successor's secret after a rotation replays the first answer instead of making the order again.
 */

describe('Idempotency-Keys across a key rotation', () => {
  const suite = useServerWithFixtures();
  const prisma = () => suite.server.database.prisma;
  const PERMISSIONS = [Permission.create, Permission.read];

  const postAs = (key: string, path: string, idempotencyKey: string | undefined, body: object) => {
    const call = request(suite.server.api).post(path).set('Authorization', `ApiKey ${key}`);
    return (idempotencyKey === undefined ? call : call.set('Idempotency-Key', idempotencyKey)).send(body);
  };
  /** Rotates over HTTP as the suite's `*` caller, the current key working on beside its successor. */
  const rotate = async (id: number) => {
    const response = await suite.server.http.post(`/api-keys/${id}/rotate`).send({ expire_current_in_seconds: 600 });
    expect(response.status).toBe(201);
    return response.body.data as { id: number; secret: string };
  };
  const ordersWithRemarks = (remarks: string) => prisma().salesOrder.count({ where: { remarks } });

  it('a retry with the successor, and its successor, replays the first order; another key with the same Idempotency-Key makes its own', async () => {
    const first = await createApiKey(prisma(), PERMISSIONS, { name: 'erp' });
    const idempotencyKey = randomUUID();
    const remarks = `rotation ${idempotencyKey}`;
    const body = orderBody(suite.fixtures, { remarks });

    const created = await postAs(first.key, '/sales-orders', idempotencyKey, body);
    expect(created.status).toBe(201);
    const successor = await rotate(first.summary.id);
    const retried = await postAs(successor.secret, '/sales-orders', idempotencyKey, body);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.body).toEqual(created.body);
    const third = await rotate(successor.id);
    const again = await postAs(third.secret, '/sales-orders', idempotencyKey, body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(created.body);
    // The original, still in its grace, shares the space with its successors.
    expect((await postAs(first.key, '/sales-orders', idempotencyKey, body)).body).toEqual(created.body);
    expect(await ordersWithRemarks(remarks)).toBe(1);

    // Another request under the key is refused in the family's space, whichever key sends it.
    const other = await postAs(third.secret, '/sales-orders', idempotencyKey, { ...body, remarks: 'other' });
    expect(other.status).toBe(422);
    expect(other.body.error.details[0].code).toBe('idempotency_key_reused');

    // A key of another family with the same Idempotency-Key is another caller: its own order.
    const stranger = await createApiKey(prisma(), PERMISSIONS, { name: 'other erp' });
    const own = await postAs(stranger.key, '/sales-orders', idempotencyKey, body);
    expect(own.status).toBe(201);
    expect(own.headers['idempotent-replayed']).toBeUndefined();
    expect(own.body.data.sales_order_id).not.toBe(created.body.data.sales_order_id);
    expect(await ordersWithRemarks(remarks)).toBe(2);
  });

  it("a bulk create's item keys replay across a rotation too", async () => {
    const first = await createApiKey(prisma(), PERMISSIONS, { name: 'bulk erp' });
    const itemKey = randomUUID();
    const remarks = `bulk rotation ${itemKey}`;
    const body = { orders: [{ ...orderBody(suite.fixtures, { remarks }), idempotency_key: itemKey }] };
    const created = await postAs(first.key, '/sales-orders/bulk', undefined, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const successor = await rotate(first.summary.id);
    const retried = await postAs(successor.secret, '/sales-orders/bulk', undefined, body);
    expect(retried.body.data.results[0].order.sales_order_id).toBe(created.body.data.results[0].order.sales_order_id);
    expect(await ordersWithRemarks(remarks)).toBe(1);
  });
});
