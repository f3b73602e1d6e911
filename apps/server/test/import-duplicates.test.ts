import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { type Fixtures, ORDER_DATE } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * A second file reusing the order_refs of an earlier one: those orders are not made again
 * (duplicate_order_ref, per caller) unless the upload says allow_duplicates=true; and an upload
 * sent again with its Idempotency-Key starts no second import.
 */
const HEADER = 'order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate,customer_reference';

const fileOf = (f: Fixtures, refs: string[], reference: string) =>
  `${[
    HEADER,
    ...refs.map((ref) =>
      [
        ref,
        f.customers.customer.id,
        f.locations.dhaka.id,
        ORDER_DATE,
        f.products.otherProduct.id,
        2,
        100,
        reference,
      ].join(','),
    ),
  ].join('\n')}\n`;

describe('imports: duplicate order refs and Idempotency-Key', () => {
  const suite = useServerWithFixtures({ IMPORT_CHUNK_SIZE: '2' });
  const importer = () =>
    signJwt({ subject: 'importer', payload: { permissions: ['sales_orders.import', 'sales_orders.create'] } });

  const upload = (token: string, body: string, { key, query = '' }: { key?: string; query?: string } = {}) => {
    const call = request(suite.server.api)
      .post(`/imports${query}`)
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'text/csv');
    return (key === undefined ? call : call.set('Idempotency-Key', key)).send(body);
  };

  const finished = async (token: string, id: number) => {
    let last: { state: string; orders_created: number; orders_failed: number } | undefined;
    await eventually(async () => {
      last = (await request(suite.server.api).get(`/imports/${id}`).set('Authorization', `Bearer ${token}`)).body.data;
      return last?.state !== 'queued' && last?.state !== 'running';
    }, 60_000);
    return last!;
  };

  const resultsOf = async (token: string, id: number) => {
    const response = await request(suite.server.api)
      .get(`/imports/${id}/results`)
      .set('Authorization', `Bearer ${token}`)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => done(null, text));
      });
    return (response.body as string)
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as {
            order_ref: string;
            status: string;
            order_number: string | null;
            errors: { path: string; code: string; message: string }[];
          },
      );
  };

  const ordersWith = (reference: string) =>
    suite.server.database.prisma.salesOrder.count({ where: { customerReference: reference } });

  it("skips an order_ref that made an order in the caller's earlier import, naming that order; allow_duplicates imports it", async () => {
    const f = suite.fixtures;
    const token = await importer();
    const first = await upload(token, fileOf(f, ['dup-1', 'dup-2'], 'dup-a')).expect(202);
    expect(await finished(token, first.body.data.import_id)).toMatchObject({ state: 'completed', orders_created: 2 });
    const made = await resultsOf(token, first.body.data.import_id);

    // The second file repeats both refs and adds one: only the new one is made.
    const second = await upload(token, fileOf(f, ['dup-1', 'dup-3', 'dup-2'], 'dup-b')).expect(202);
    expect(await finished(token, second.body.data.import_id)).toMatchObject({
      state: 'completed',
      orders_created: 1,
      orders_failed: 2,
    });
    const results = await resultsOf(token, second.body.data.import_id);
    expect(results.map(({ order_ref, status }) => [order_ref, status])).toEqual([
      ['dup-1', 'failed'],
      ['dup-3', 'created'],
      ['dup-2', 'failed'],
    ]);
    expect(results[0]!.errors).toEqual([
      {
        path: 'order_ref',
        code: 'duplicate_order_ref',
        message: `line 2: order_ref "dup-1" already made order ${made[0]!.order_number} in import ${first.body.data.import_id}; send allow_duplicates=true to import it again`,
      },
    ]);
    expect(await ordersWith('dup-b')).toBe(1);

    // Asked for, the same refs are made again.
    const allowed = await upload(token, fileOf(f, ['dup-1', 'dup-2'], 'dup-c'), {
      query: '?allow_duplicates=true',
    }).expect(202);
    expect(await finished(token, allowed.body.data.import_id)).toMatchObject({ state: 'completed', orders_created: 2 });
    expect(await ordersWith('dup-c')).toBe(2);
  });

  it("is per caller: another caller's earlier import does not make a ref a duplicate", async () => {
    const f = suite.fixtures;
    const token = await importer();
    const first = await upload(token, fileOf(f, ['own-1'], 'own-a')).expect(202);
    await finished(token, first.body.data.import_id);
    const other = await signJwt({
      subject: 'another-importer',
      payload: { permissions: ['sales_orders.import', 'sales_orders.create'] },
    });
    const theirs = await upload(other, fileOf(f, ['own-1'], 'own-b')).expect(202);
    expect(await finished(other, theirs.body.data.import_id)).toMatchObject({ orders_created: 1, orders_failed: 0 });
  });

  it('an upload sent again with its Idempotency-Key, even five at once, starts one import; another file under the key is refused', async () => {
    const f = suite.fixtures;
    const token = await importer();
    const file = fileOf(f, ['key-1', 'key-2', 'key-3'], 'key-a');
    const before = await suite.server.database.prisma.import.count();
    const answers = await Promise.all(Array.from({ length: 5 }, () => upload(token, file, { key: 'upload-1' })));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202]);
    const ids = new Set(answers.map((answer) => answer.body.data.import_id as number));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === 'true')).toHaveLength(4);
    expect(await suite.server.database.prisma.import.count()).toBe(before + 1);
    const [id] = [...ids];
    expect(await finished(token, id!)).toMatchObject({ orders_created: 3 });

    // A retry after it finished answers the import as it is now.
    const retry = await upload(token, file, { key: 'upload-1' }).expect(202);
    expect(retry.body.data).toMatchObject({ import_id: id, state: 'completed', orders_created: 3 });
    expect(await ordersWith('key-a')).toBe(3);

    // The same key with another file, or other options, is another request.
    const other = await upload(token, fileOf(f, ['key-9'], 'key-b'), { key: 'upload-1' }).expect(422);
    expect(other.body.error.details[0].code).toBe('idempotency_key_reused');
    await upload(token, file, { key: 'upload-1', query: '?allow_duplicates=true' }).expect(422);
    expect(await ordersWith('key-b')).toBe(0);
  });
});
