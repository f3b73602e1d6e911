import { createSalesOrderClient, type SalesOrderClient, type SalesOrderListItem } from '@sales-order/client';
import { describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * The incremental-sync recipe of docs/api.md, run as a host would run it, through the SDK,
 * while other callers create, update and delete orders; the mirror must end identical to the
 * database. A second test shows why the recipe has a clock-skew margin: a transaction that
 * commits late carries an earlier updated_at, and a mirror without the margin loses it.
 */

interface Mirror {
  rows: Map<number, SalesOrderListItem>;
  /** The highest updated_at seen so far (the service's `YYYY-MM-DD HH:mm:ss`, UTC). */
  since: string | null;
}

const newMirror = (): Mirror => ({ rows: new Map(), since: null });

/** The margin docs/api.md recommends: the longest write transaction plus clock differences. */
const MARGIN_SECONDS = 120;

const minusSeconds = (dateTime: string, seconds: number) =>
  new Date(new Date(`${dateTime.replace(' ', 'T')}Z`).getTime() - seconds * 1000).toISOString();

/** One poll of the recipe: everything updated since (high-water mark - margin), kept by id + version. */
const syncOnce = async (client: SalesOrderClient, mirror: Mirror, marginSeconds: number) => {
  let high = mirror.since;
  for await (const order of client.salesOrders({
    include_deleted: true,
    sort: 'updated_at',
    limit: 7,
    ...(mirror.since === null ? {} : { updated_since: minusSeconds(mirror.since, marginSeconds) }),
  })) {
    const known = mirror.rows.get(order.sales_order_id);
    if (!known || known.version < order.version) mirror.rows.set(order.sales_order_id, order);
    if (high === null || order.updated_at > high) high = order.updated_at;
  }
  mirror.since = high;
};

/** A small deterministic generator, so a failing run can be replayed. */
const randomSequence = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};

describe('incremental sync (updated_since + include_deleted + sort=updated_at)', () => {
  const suite = useServerWithFixtures();

  it('mirrors every order through concurrent creates, updates and deletes, and ends identical to the database', async () => {
    const { prisma } = suite.server.database;
    const token = await signJwt({ subject: 'mirror', payload: { permissions: ['*'] }, expiresIn: '1h' });
    const client = createSalesOrderClient({ baseUrl: suite.server.api, auth: { type: 'bearer', token } });
    const http = suite.server.http;
    const { products } = suite.fixtures;
    const create = async (quantity: number) =>
      (
        await http
          .post('/sales-orders')
          .send(orderBody(suite.fixtures, { details: [{ product_id: products.product.id, quantity, rate: 1.5 }] }))
          .expect(201)
      ).body.data.sales_order_id as number;

    const live: number[] = [];
    for (let index = 1; index <= 10; index += 1) live.push(await create(index));

    const mirror = newMirror();
    await syncOnce(client, mirror, MARGIN_SECONDS);

    // Writers and the mirror run at the same time.
    let writing = true;
    const writer = async (seed: number) => {
      const random = randomSequence(seed);
      for (let step = 0; step < 20; step += 1) {
        const roll = random();
        const target = live[Math.floor(random() * live.length)];
        if (roll < 0.4 || target === undefined) {
          live.push(await create(1 + Math.floor(random() * 100)));
        } else if (roll < 0.85) {
          const response = await http.put(`/sales-orders/${target}`).send({ remarks: `step ${seed}.${step}` });
          expect([200, 404]).toContain(response.status);
        } else {
          const response = await http.delete(`/sales-orders/${target}`);
          expect([200, 404]).toContain(response.status);
          if (live.includes(target)) live.splice(live.indexOf(target), 1);
        }
      }
    };
    const polling = (async () => {
      let polls = 0;
      while (writing) {
        await syncOnce(client, mirror, MARGIN_SECONDS);
        polls += 1;
      }
      return polls;
    })();
    await Promise.all([writer(1), writer(2), writer(3)]);
    writing = false;
    expect(await polling).toBeGreaterThan(1);

    await syncOnce(client, mirror, MARGIN_SECONDS);

    const stored = await prisma.salesOrder.findMany({
      select: { id: true, version: true, deletedAt: true, remarks: true },
    });
    const everything = new Map<number, SalesOrderListItem>();
    for await (const order of client.salesOrders({ include_deleted: true, limit: 200 }))
      everything.set(order.sales_order_id, order);

    expect(stored.length).toBeGreaterThanOrEqual(25);
    expect(stored.some((order) => order.deletedAt !== null)).toBe(true);
    expect(new Map([...mirror.rows].sort(([a], [b]) => a - b))).toEqual(
      new Map([...everything].sort(([a], [b]) => a - b)),
    );
    expect(
      Object.fromEntries([...mirror.rows].map(([id, order]) => [id, [order.version, order.deleted_at !== null]])),
    ).toEqual(Object.fromEntries(stored.map((order) => [order.id, [order.version, order.deletedAt !== null]])));
  });

  // Holding a row lock takes a second connection, which the embedded database (one) lacks.
  // Here the late write lags by 1.5 s, so a 5 s margin shows the mechanism.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'catches a write that commits after later ones, thanks to the margin; without it the write is lost',
    async () => {
      const { prisma } = suite.server.database;
      const client = createSalesOrderClient({
        baseUrl: suite.server.api,
        auth: {
          type: 'bearer',
          token: await signJwt({ subject: 'mirror', payload: { permissions: ['*'] }, expiresIn: '1h' }),
        },
      });
      const http = suite.server.http;
      const create = async () =>
        (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
          .sales_order_id as number;
      const late = await create();
      const mirror = newMirror();
      const withoutMargin = newMirror();
      await syncOnce(client, mirror, 5);
      await syncOnce(client, withoutMargin, 0);

      // The update takes its updated_at, then waits for a row lock held elsewhere, while a later
      // write commits and both mirrors move past that timestamp.
      let release = () => {};
      let locked = () => {};
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const blocker = prisma.$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT id FROM sales_orders WHERE id = ${late} FOR UPDATE`;
          locked();
          await new Promise<void>((resolve) => (release = resolve));
        },
        { timeout: 30_000 },
      );
      await isLocked;
      const lateUpdate = http
        .put(`/sales-orders/${late}`)
        .send({ remarks: 'committed late' })
        .then((response) => response.status);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await create();
      await syncOnce(client, mirror, 5);
      await syncOnce(client, withoutMargin, 0);
      release();
      await blocker;
      expect(await lateUpdate).toBe(200);

      await syncOnce(client, mirror, 5);
      await syncOnce(client, withoutMargin, 0);
      const stored = await prisma.salesOrder.findUniqueOrThrow({ where: { id: late }, select: { version: true } });
      expect(mirror.rows.get(late)!.version).toBe(stored.version);
      expect(mirror.rows.get(late)!.version).toBe(2);
      // Without the margin the late commit is lost for good.
      expect(withoutMargin.rows.get(late)!.version).toBe(1);
    },
  );
});
