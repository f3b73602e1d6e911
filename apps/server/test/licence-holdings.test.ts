import { beforeAll, describe, expect, it } from 'vitest';

import { licenceHoldingsRepository } from '../src/licences/licence-holdings-repository.js';
import { Decimal, toDecimal } from '../src/shared/money.js';
import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * What each licence holds is a running total (migration 20261207041248_licence_holdings): the
 * triggers on the order lines append every change of what a line holds, a fold moves them into
 * one total per product and day, and confirm and validate-licence read the totals. These tests
 * recount the totals from the lines with the rule written out again here, in TypeScript, exact
 * decimals: a trigger that misses a kind of write, a rule that keeps a closed order's full
 * quantity, or a float anywhere shows as a day whose total differs from its lines.
 */

/** The rule, independently of the SQL one: what a line holds of its product's licence. */
interface StoredLine {
  product_id: number;
  order_date: string | null;
  consumes_quota: boolean;
  quantity: string;
  delivered_quantity: string;
  returned_quantity: string;
  short_closed_quantity: string;
}
const heldBy = (line: StoredLine): Decimal =>
  line.consumes_quota
    ? Decimal.max(
        toDecimal(line.quantity).minus(line.short_closed_quantity),
        toDecimal(line.delivered_quantity).minus(line.returned_quantity),
      )
    : toDecimal(0);

/** A test's pseudo-random numbers from a seed (mulberry32), so that a failing sequence can be replayed. */
const randomFrom = (seed: number) => {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    below: (count: number) => Math.floor(next() * count),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
};

describe('licence holdings: the running total of what each licence holds', () => {
  const suite = useServerWithFixtures();
  const prisma = () => suite.server.database.prisma;
  /** Window: the second half of 2026. ORDER_DATE (2026-11-15) is inside it, 2027-01-10 outside. */
  const WINDOW = { validFrom: '2026-07-01', validTo: '2026-12-31' };
  let limited: { id: number };
  let other: { id: number };

  beforeAll(async () => {
    limited = await createLicensedProduct(prisma(), { licences: [{ ...WINDOW, quantity: '150' }] });
    other = await createLicensedProduct(prisma(), { licences: [{ ...WINDOW, quantity: '1000000' }] });
  });

  /** Every product's day as the lines hold it, and as the running total says: they must agree. */
  const dayKey = (productId: number, orderDate: string) => `${productId} ${orderDate}`;
  const countedFromLines = async (): Promise<Map<string, Decimal>> => {
    const lines = await prisma().$queryRaw<StoredLine[]>`
      SELECT product_id, to_char(order_date, 'YYYY-MM-DD') AS order_date, consumes_quota, quantity::text,
             delivered_quantity::text, returned_quantity::text, short_closed_quantity::text
      FROM sales_order_details`;
    const counted = new Map<string, Decimal>();
    for (const line of lines) {
      if (line.order_date === null) continue;
      const key = dayKey(line.product_id, line.order_date);
      counted.set(key, (counted.get(key) ?? toDecimal(0)).plus(heldBy(line)));
    }
    return counted;
  };
  const recordedInTotals = async (): Promise<Map<string, Decimal>> => {
    const rows = await prisma().$queryRaw<{ product_id: number; order_date: string; held: string }[]>`
      SELECT product_id, to_char(order_date, 'YYYY-MM-DD') AS order_date, held_quantity::text AS held FROM licence_holdings
      UNION ALL
      SELECT product_id, to_char(order_date, 'YYYY-MM-DD'), quantity::text FROM licence_holding_changes`;
    const recorded = new Map<string, Decimal>();
    for (const row of rows) {
      const key = dayKey(row.product_id, row.order_date);
      recorded.set(key, (recorded.get(key) ?? toDecimal(0)).plus(row.held));
    }
    return recorded;
  };
  /** The days whose total differs from their lines, as text (empty when none). */
  const drift = async (): Promise<string[]> => {
    const [counted, recorded] = await Promise.all([countedFromLines(), recordedInTotals()]);
    const keys = new Set([...counted.keys(), ...recorded.keys()]);
    return [...keys]
      .filter((key) => !(counted.get(key) ?? toDecimal(0)).equals(recorded.get(key) ?? toDecimal(0)))
      .map((key) => `${key}: lines ${counted.get(key)?.toFixed() ?? 0}, total ${recorded.get(key)?.toFixed() ?? 0}`);
  };

  /** What other orders hold of the product's licence, as validate-licence reports it. */
  const used = async (productId: number, extra: Record<string, unknown> = {}): Promise<string> => {
    const response = await suite.server.http
      .post('/sales-orders/validate-licence')
      .send({
        sales_order_date: ORDER_DATE,
        sales_order_details: [{ product_id: productId, quantity: 10_000_000 }],
        ...extra,
      })
      .expect(200);
    const [warning] = response.body.data.warnings as { code: string; message: string }[];
    expect(warning?.code).toBe('quantity_exceeds_licence');
    return /, (\S+) on orders\)\.$/.exec(warning!.message)![1]!;
  };

  const create = async (
    details: { product_id: number; quantity: number | string }[],
    { date = ORDER_DATE, confirmed = false } = {},
  ): Promise<number> => {
    const response = await suite.server.http
      .post('/sales-orders')
      .send(
        orderBody(suite.fixtures, {
          sales_order_date: date,
          details: details.map((line) => ({ ...line, quantity: Number(line.quantity), rate: 1 })),
          other_charges: [],
          ...(confirmed ? { status: 'confirmed', acknowledge_warnings: true } : {}),
        }),
      )
      .expect(201);
    return response.body.data.sales_order_id;
  };
  const confirm = (id: number) =>
    suite.server.http.post(`/sales-orders/${id}/confirm`).send({ acknowledge_warnings: true }).expect(200);
  const lineOf = async (orderId: number): Promise<number> => {
    const [line] = await prisma().$queryRaw<{ id: number }[]>`
      SELECT id FROM sales_order_details WHERE sales_order_id = ${orderId} ORDER BY line_no LIMIT 1`;
    return line!.id;
  };

  // A delivery's writes to the line as the deliveries routes make them, in SQL until they land.
  const deliver = (lineId: number, quantity: string) =>
    prisma().$executeRaw`
      UPDATE sales_order_details SET delivered_quantity = delivered_quantity + ${quantity}::numeric WHERE id = ${lineId}`;
  /** A return: on a closed order, what came back is short-closed too (it is not pending again). */
  const giveBack = (lineId: number, quantity: string) =>
    prisma().$executeRaw`
      UPDATE sales_order_details d
      SET returned_quantity = d.returned_quantity + ${quantity}::numeric,
          short_closed_quantity = d.short_closed_quantity
            + CASE WHEN o.status = 'closed' THEN ${quantity}::numeric ELSE 0 END
      FROM sales_orders o WHERE o.id = d.sales_order_id AND d.id = ${lineId}`;
  /** A close: the order closed, and what is pending on each line short-closed. */
  const close = async (orderId: number) => {
    await suite.server.http.post(`/sales-orders/${orderId}/close`).expect(200);
    await prisma().$executeRaw`
      UPDATE sales_order_details
      SET short_closed_quantity = GREATEST(quantity - (delivered_quantity - returned_quantity), 0)
      WHERE sales_order_id = ${orderId}`;
  };

  it('a confirmed order holds the larger of ordered and net delivered; closed, only its net delivered; a return on it gives back', async () => {
    const id = await create([{ product_id: limited.id, quantity: 100 }], { confirmed: true });
    const line = await lineOf(id);
    expect(await used(limited.id)).toBe('100');
    // Half delivered: still the 100 ordered.
    await deliver(line, '60');
    expect(await used(limited.id)).toBe('100');
    // A return on a confirmed order: pending again, still held.
    await giveBack(line, '5');
    expect(await used(limited.id)).toBe('100');
    await deliver(line, '5');
    // Delivered past the order (a tolerance): what left the depot.
    await deliver(line, '42.5');
    expect(await used(limited.id)).toBe('102.5');
    await deliver(line, '-42.5');
    expect(await used(limited.id)).toBe('100');
    // Closed: the 40 never delivered go back to the licence.
    await close(id);
    expect(await used(limited.id)).toBe('60');
    // 5 come back on the closed order: they go back too.
    await giveBack(line, '5');
    expect(await used(limited.id)).toBe('55');
    // The order itself is left out when it is the one being edited.
    expect(await used(limited.id, { sales_order_id: id })).toBe('0');
    expect(await drift()).toEqual([]);
  });

  it('confirm counts by the same rule: the quantity a close gave back can be confirmed on another order', async () => {
    // 55 held by the closed order above: 95 of the 150 left.
    const draft = await create([{ product_id: limited.id, quantity: 95.001 }]);
    const refused = await suite.server.http.post(`/sales-orders/${draft}/confirm`).send({}).expect(422);
    expect(refused.body.error.details[0].message).toContain('exceeds the 95 left');
    await suite.server.http
      .put(`/sales-orders/${draft}`)
      .send({ details: [{ product_id: limited.id, quantity: 95, rate: 1 }] })
      .expect(200);
    await suite.server.http.post(`/sales-orders/${draft}/confirm`).send({}).expect(200);
    expect(await used(limited.id)).toBe('150');
    await suite.server.http.post(`/sales-orders/${draft}/cancel`).send({ reason: 'test' }).expect(200);
    expect(await used(limited.id)).toBe('55');
  });

  it('lines deleted by the host, or with their order, give back what they held', async () => {
    const id = await create(
      [
        { product_id: other.id, quantity: 7 },
        { product_id: other.id, quantity: 0.125 },
      ],
      { confirmed: true },
    );
    const before = toDecimal(await used(other.id));
    await prisma().$executeRaw`DELETE FROM sales_order_details WHERE sales_order_id = ${id} AND line_no = 2`;
    expect(toDecimal(await used(other.id)).equals(before.minus(0.125))).toBe(true);
    await prisma().$executeRaw`DELETE FROM sales_order_history WHERE sales_order_id = ${id}`;
    await prisma().$executeRaw`DELETE FROM sales_orders WHERE id = ${id}`;
    expect(toDecimal(await used(other.id)).equals(before.minus(7.125))).toBe(true);
    expect(await drift()).toEqual([]);
  });

  it('many confirms of one product at once lose no change, with deliveries and folds running beside them', async () => {
    const drafts = await Promise.all(
      Array.from({ length: 24 }, (_, index) => create([{ product_id: other.id, quantity: `1.00${index % 10}` }])),
    );
    const delivering = await create([{ product_id: other.id, quantity: 50 }], { confirmed: true });
    const deliveringLine = await lineOf(delivering);
    const before = toDecimal(await used(other.id));
    await Promise.all([
      ...drafts.map((id) => confirm(id)),
      ...Array.from({ length: 12 }, () => deliver(deliveringLine, '5.001')),
      ...Array.from({ length: 6 }, () => licenceHoldingsRepository.fold(prisma(), 2)),
    ]);
    const confirmed = drafts.reduce((sum, _id, index) => sum.plus(`1.00${index % 10}`), toDecimal(0));
    // 12 x 5.001 delivered against 50 ordered: 60.012 left the depot, 10.012 more than ordered.
    expect(await used(other.id)).toBe(before.plus(confirmed).plus('10.012').toFixed());
    expect(await drift()).toEqual([]);
  });

  it('stays equal to what the lines hold through random sequences of every kind of change', async () => {
    const random = randomFrom(45);
    const products = [limited.id, other.id, suite.fixtures.products.otherProduct.id];
    const dates = [ORDER_DATE, '2026-12-31', '2026-08-01', '2027-01-10'];
    /** Three decimals, never a float sum: e.g. 12.345, 0.007. */
    const quantity = () =>
      `${random.below(30)}.${String(random.below(1000)).padStart(3, '0')}`.replace(/^0\.000$/, '0.001');
    const lines = () =>
      Array.from({ length: 1 + random.below(3) }, () => ({ product_id: random.pick(products), quantity: quantity() }));
    const ordersIn = async (statuses: string[]) =>
      (
        await prisma().$queryRaw<{ id: number }[]>`
          SELECT id FROM sales_orders WHERE status = ANY (${statuses}::text[]) AND deleted_at IS NULL ORDER BY id`
      ).map((row) => row.id);
    const linesIn = async (statuses: string[]) =>
      prisma().$queryRaw<{ id: number; delivered: string; net: string; quantity: string }[]>`
        SELECT d.id, d.delivered_quantity::text AS delivered, (d.delivered_quantity - d.returned_quantity)::text AS net,
               d.quantity::text
        FROM sales_order_details d JOIN sales_orders o ON o.id = d.sales_order_id
        WHERE o.status = ANY (${statuses}::text[]) AND o.deleted_at IS NULL ORDER BY d.id`;
    const steps: Record<string, () => Promise<unknown>> = {
      createDraft: () => create(lines(), { date: random.pick(dates) }),
      createConfirmed: () => create(lines(), { date: random.pick(dates), confirmed: true }),
      confirm: async () => {
        const drafts = await ordersIn(['draft']);
        if (drafts.length > 0) await confirm(random.pick(drafts));
      },
      updateDraft: async () => {
        const drafts = await ordersIn(['draft']);
        if (drafts.length === 0) return;
        await suite.server.http
          .put(`/sales-orders/${random.pick(drafts)}`)
          .send({
            sales_order_date: random.pick(dates),
            details: lines().map((line) => ({ ...line, quantity: Number(line.quantity), rate: 1 })),
          })
          .expect(200);
      },
      deleteDraft: async () => {
        const drafts = await ordersIn(['draft']);
        if (drafts.length > 0) await suite.server.http.delete(`/sales-orders/${random.pick(drafts)}`).expect(200);
      },
      cancel: async () => {
        // An order with goods delivered cannot be cancelled (its deliveries are cancelled first).
        const delivered = new Set(
          (
            await prisma().$queryRaw<{ id: number }[]>`
              SELECT DISTINCT sales_order_id AS id FROM sales_order_details WHERE delivered_quantity > returned_quantity`
          ).map((row) => row.id),
        );
        const open = (await ordersIn(['draft', 'confirmed'])).filter((id) => !delivered.has(id));
        if (open.length === 0) return;
        await suite.server.http
          .post(`/sales-orders/${random.pick(open)}/cancel`)
          .send({ reason: 'random' })
          .expect(200);
      },
      close: async () => {
        const confirmed = await ordersIn(['confirmed']);
        if (confirmed.length > 0) await close(random.pick(confirmed));
      },
      deliver: async () => {
        const open = await linesIn(['confirmed']);
        if (open.length === 0) return;
        const line = random.pick(open);
        // Up to what is pending, or past it now and then (a tolerance).
        const most = toDecimal(line.quantity)
          .minus(line.net)
          .plus(random.below(4) === 0 ? 2 : 0);
        const amount = Decimal.min(most, quantity());
        if (amount.greaterThan(0)) await deliver(line.id, amount.toFixed());
      },
      cancelDelivery: async () => {
        const delivered = (await linesIn(['confirmed'])).filter((line) => toDecimal(line.net).greaterThan(0));
        if (delivered.length === 0) return;
        const line = random.pick(delivered);
        await deliver(line.id, Decimal.min(line.net, quantity()).negated().toFixed());
      },
      giveBack: async () => {
        const delivered = (await linesIn(['confirmed', 'closed'])).filter((line) => toDecimal(line.net).greaterThan(0));
        if (delivered.length === 0) return;
        const line = random.pick(delivered);
        const amount = Decimal.min(line.net, quantity());
        if (amount.greaterThan(0)) await giveBack(line.id, amount.toFixed());
      },
      moveDate: async () => {
        const held = await ordersIn(['confirmed', 'closed']);
        if (held.length === 0) return;
        await prisma().$executeRaw`
          UPDATE sales_orders SET sales_order_date = ${random.pick(dates)}::date WHERE id = ${random.pick(held)}`;
      },
      deleteLine: async () => {
        const held = await linesIn(['confirmed', 'closed']);
        if (held.length > 0)
          await prisma().$executeRaw`DELETE FROM sales_order_details WHERE id = ${random.pick(held).id}`;
      },
      fold: () => licenceHoldingsRepository.fold(prisma(), 1 + random.below(4)),
    };
    const names = Object.keys(steps);
    const done: string[] = [];
    for (let step = 0; step < 160; step += 1) {
      const name = random.pick(names);
      await steps[name]!();
      done.push(name);
      const days = await drift();
      if (days.length > 0) throw new Error(`drift after ${done.join(', ')}:\n${days.join('\n')}`);
    }
    // Every kind of change was made, more than once.
    for (const name of names) expect(done.filter((each) => each === name).length, name).toBeGreaterThan(1);

    // What validate-licence reads is what the lines hold in the window.
    const counted = await countedFromLines();
    const inWindow = [...counted]
      .filter(([key]) => {
        const [productId, date] = key.split(' ');
        return Number(productId) === limited.id && date! >= WINDOW.validFrom && date! <= WINDOW.validTo;
      })
      .reduce((sum, [, held]) => sum.plus(held), toDecimal(0));
    expect(await used(limited.id)).toBe(inWindow.toFixed());
    // And the service's own recount agrees, folded or not.
    expect(await licenceHoldingsRepository.recount(prisma(), { chunk: 7, sample: 5, timeoutMs: 60_000 })).toEqual({
      drifted: 0,
      sample: [],
    });
    while ((await licenceHoldingsRepository.fold(prisma(), 1000)) > 0);
    expect(await drift()).toEqual([]);
  });
});
