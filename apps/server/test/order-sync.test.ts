import { createSalesOrderClient, type SalesOrderClient, type SalesOrderListItem } from '@sales-order/client';
import { describe, expect, it } from 'vitest';

import type { Prisma } from '../src/generated/prisma/client.js';
import { eventually } from './support/eventually.js';
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

  /**
   * Runs `write` while `hold` keeps a lock it needs: once `write` waits for it, a later create
   * commits and both mirrors move past it; then lets it finish. Holding a lock takes a second
   * connection, which the embedded database (one) lacks.
   */
  const lateWrite = async (hold: (tx: Prisma.TransactionClient) => Promise<unknown>, write: () => Promise<number>) => {
    const { prisma } = suite.server.database;
    let release = () => {};
    let locked = (_holder: number) => {};
    const isLocked = new Promise<number>((resolve) => (locked = resolve));
    const blocker = prisma.$transaction(
      async (tx) => {
        await hold(tx);
        const [holder] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
        locked(holder!.pid);
        await new Promise<void>((resolve) => (release = resolve));
      },
      { timeout: 30_000 },
    );
    const holder = await isLocked;
    const late = write();
    // Queued behind this lock (a backend blocked by the holder's) before the later create
    // commits: not any lock wait, which a background job's advisory lock can be.
    await eventually(async () => {
      const [row] = await prisma.$queryRaw<{ waiting: number }[]>`
        SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE ${holder}::int = ANY(pg_blocking_pids(pid))`;
      return row!.waiting > 0;
    }, 60_000);
    // The list's updated_at (and so a cursor) is whole seconds: the later create is stamped in a
    // later second than the waiting write, whose stamp was taken before it began to wait.
    const [clock] = await prisma.$queryRaw<{ queued: Date }[]>`SELECT clock_timestamp() AS queued`;
    await eventually(async () => {
      const [row] = await prisma.$queryRaw<{ later: boolean }[]>`
        SELECT date_trunc('second', clock_timestamp()) > date_trunc('second', ${clock!.queued}::timestamptz) AS later`;
      return row!.later;
    }, 60_000);
    await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201);
    return {
      late,
      finish: async () => {
        release();
        await blocker;
        return late;
      },
    };
  };

  const mirrorClient = async () =>
    createSalesOrderClient({
      baseUrl: suite.server.api,
      auth: {
        type: 'bearer',
        token: await signJwt({ subject: 'mirror', payload: { permissions: ['*'] }, expiresIn: '1h' }),
      },
    });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "a write that waits for the order's row lock is stamped after the wait: even a mirror without margin catches it (needs TEST_DATABASE_URL)",
    async () => {
      const { prisma } = suite.server.database;
      const client = await mirrorClient();
      const http = suite.server.http;
      const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
        .sales_order_id as number;
      const mirror = newMirror();
      const withoutMargin = newMirror();
      await syncOnce(client, mirror, 5);
      await syncOnce(client, withoutMargin, 0);

      // Another writer holds the order; the update queues behind it while a later write commits.
      const { finish } = await lateWrite(
        (tx) => tx.$queryRaw`SELECT id FROM sales_orders WHERE id = ${id} FOR UPDATE`,
        () =>
          http
            .put(`/sales-orders/${id}`)
            .send({ remarks: 'committed late' })
            .then((response) => response.status),
      );
      await syncOnce(client, mirror, 5);
      await syncOnce(client, withoutMargin, 0);
      expect(await finish()).toBe(200);

      await syncOnce(client, mirror, 5);
      await syncOnce(client, withoutMargin, 0);
      const stored = await prisma.salesOrder.findUniqueOrThrow({ where: { id }, select: { version: true } });
      expect(stored.version).toBe(2);
      expect(mirror.rows.get(id)!.version).toBe(2);
      // Stamped when the lock was had, not when the transaction began: after the other write.
      expect(withoutMargin.rows.get(id)!.version).toBe(2);
    },
  );

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'a write held between its stamp and its commit is caught thanks to the margin; without it the write is lost (needs TEST_DATABASE_URL)',
    async () => {
      const { prisma } = suite.server.database;
      const client = await mirrorClient();
      const http = suite.server.http;
      // A product of its own, which the host is editing (its row locked) when the update's new
      // line refers to it: the update has stamped the order and waits to insert the line.
      const [product] = await prisma.$queryRaw<{ id: number }[]>`
        INSERT INTO products (code, name) VALUES ('SYNC-LATE', 'Late Line Product') RETURNING id`;
      const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
        .sales_order_id as number;
      const mirror = newMirror();
      const withoutMargin = newMirror();
      await syncOnce(client, mirror, 5);
      await syncOnce(client, withoutMargin, 0);

      const { finish } = await lateWrite(
        (tx) => tx.$queryRaw`SELECT id FROM products WHERE id = ${product!.id} FOR UPDATE`,
        () =>
          http
            .put(`/sales-orders/${id}`)
            .send({ details: [{ product_id: product!.id, quantity: 1, rate: 1 }] })
            .then((response) => response.status),
      );
      await syncOnce(client, mirror, 5);
      await syncOnce(client, withoutMargin, 0);
      expect(await finish()).toBe(200);

      await syncOnce(client, mirror, 5);
      await syncOnce(client, withoutMargin, 0);
      expect(mirror.rows.get(id)!.version).toBe(2);
      // Without the margin the late commit is lost for good.
      expect(withoutMargin.rows.get(id)!.version).toBe(1);
    },
  );
});
