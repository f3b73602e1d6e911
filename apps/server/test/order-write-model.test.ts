import type { CreateSalesOrderBody } from '@sales-order/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { counterAfterSuppliedNumber, settleCounter } from '../src/orders/numbering.js';
import { type PreparedOrder, prepareOrder } from '../src/orders/order-write-model.js';
import { orderWriteStore } from '../src/orders/store/order-write-store.js';
import { createFixtures, type Fixtures, orderBody } from './support/fixtures.js';
import { type QueryCountingServer, startQueryCountingServer } from './support/query-counting-server.js';

/**
 * The order's write model and its store writer, driven directly against PostgreSQL: a list of
 * prepared orders (what a bulk create writes; a single create is a list of one) is written by
 * one statement whatever its length, numbered in list order, with an event and a history entry
 * each, in list order. The routes' own behaviour is pinned by the HTTP tests (order-crud,
 * order-numbering, numbering-concurrency, order-history, events-feed, query-shape).
 */
describe('order write model: a list of orders', () => {
  let server: QueryCountingServer;
  let fixtures: Fixtures;
  const MAX_AHEAD = 10_000n;

  beforeAll(async () => {
    server = await startQueryCountingServer();
    fixtures = await createFixtures(server.database.prisma);
  });
  afterAll(() => server?.close());

  const db = () => server.database.prisma;

  /** A create prepared as the create use case prepares it (its references as the check finds them). */
  const prepared = (
    overrides: Partial<CreateSalesOrderBody> = {},
    location = fixtures.locations.dhaka,
  ): PreparedOrder => {
    const input = orderBody(fixtures, { location_id: location.id, ...overrides }) as CreateSalesOrderBody;
    const order = prepareOrder(
      input,
      {
        value: {
          location: { id: location.id, code: location.code },
          financialYear: { id: fixtures.years.currentYear.id, startDate: fixtures.years.currentYear.startDate },
        },
        problems: [],
      },
      { action: 'create', actor: 'bulk-test' },
    );
    expect(order.problems).toEqual([]);
    return order.value!;
  };

  const counterOf = async (locationId: number) =>
    (
      await db().$queryRaw<{ last_sequence: bigint }[]>`
        SELECT last_sequence FROM sales_order_counters
        WHERE location_id = ${locationId}::int AND financial_year_id = ${fixtures.years.currentYear.id}::int`
    ).map((row) => Number(row.last_sequence));

  it('writes 1 or 40 orders with the same one statement, numbered consecutively per series in list order', async () => {
    const { dhaka, chattogram } = fixtures.locations;
    const one = await server.queriesDuring(() => orderWriteStore.insertOrders(db(), [prepared()], MAX_AHEAD));
    const before = (await counterOf(dhaka.id))[0]!;

    const list = Array.from({ length: 40 }, (_, index) =>
      index % 4 === 3
        ? prepared({}, chattogram)
        : index === 5
          ? prepared({ sales_order_no: `PO-LIST-${Date.now()}` })
          : prepared({ remarks: `item ${index}` }),
    );
    let created: Awaited<ReturnType<typeof orderWriteStore.insertOrders>> = [];
    const forty = await server.queriesDuring(async () => {
      created = await orderWriteStore.insertOrders(db(), list, MAX_AHEAD);
    });
    expect(one).toHaveLength(1);
    expect(forty).toHaveLength(1);
    expect(forty[0]).toBe(one[0]);

    // Dhaka's server-numbered items take before+1, before+2, ... in list order; Chattogram's its own.
    const dhakaNumbers = created
      .filter((_, index) => index % 4 !== 3 && index !== 5)
      .map((order) => order.salesOrderNo);
    expect(dhakaNumbers).toEqual(
      dhakaNumbers.map((_, index) => `DHK-2026-${String(before + index + 1).padStart(5, '0')}`),
    );
    const chattogramNumbers = created.filter((_, index) => index % 4 === 3).map((order) => order.salesOrderNo);
    expect(chattogramNumbers[0]).toMatch(/^CTG-2026-\d{5}$/);
    expect(chattogramNumbers.map((number) => Number(number.slice(-5)))).toEqual(
      chattogramNumbers.map((_, index) => Number(chattogramNumbers[0]!.slice(-5)) + index),
    );
    expect(created[5]!.salesOrderNo).toMatch(/^PO-LIST-/);
    expect(created[5]!.counter).toBeNull();
    expect(await counterOf(dhaka.id)).toEqual([before + dhakaNumbers.length]);
    // Ids follow the list.
    expect(created.map((order) => order.id)).toEqual([...created.map((order) => order.id)].sort((a, b) => a - b));

    // Each reads back as written, with its history entry led by its number.
    const ids = created.map((order) => order.id);
    const rows = await db().$queryRaw<
      { id: number; remarks: string | null; line_count: number; entry: { fields: { field: string; to: unknown }[] } }[]
    >`
      SELECT o.id, o.remarks, o.line_count, h.changes AS entry
      FROM sales_orders o JOIN sales_order_history h ON h.sales_order_id = o.id AND h.action = 'create'
      WHERE o.id = ANY(${ids}::int[]) ORDER BY o.id`;
    expect(rows).toHaveLength(40);
    expect(rows[0]).toMatchObject({ remarks: 'item 0', line_count: 2 });
    expect(rows[0]!.entry.fields[0]).toEqual({ field: 'sales_order_no', from: null, to: created[0]!.salesOrderNo });

    // One sales_order.created event each, in list order.
    const events = await db().$queryRaw<{ sales_order_id: number; number: string }[]>`
      SELECT subject_id AS sales_order_id, data ->> 'sales_order_no' AS number FROM events
      WHERE subject_type = 'sales_order' AND subject_id = ANY(${ids}::int[]) AND type = 'sales_order.created'
      ORDER BY seq`;
    expect(events.map((event) => event.sales_order_id)).toEqual(ids);
    expect(events.map((event) => event.number)).toEqual(created.map((order) => order.salesOrderNo));
  });

  it('settles supplied series numbers among others in list order, as if each were created alone', async () => {
    const { dhaka } = fixtures.locations;
    const start = (await counterOf(dhaka.id))[0]!;
    const number = (sequence: number) => `DHK-2026-${String(sequence).padStart(5, '0')}`;
    const list = [
      prepared(),
      prepared({ sales_order_no: number(start + 5) }),
      prepared(),
      // Too far ahead of where the counter stands then: refused by its caller, the counter unmoved.
      prepared({ sales_order_no: number(start + 6 + 20_000) }),
      prepared(),
    ];
    const statements = await server.queriesDuring(() =>
      server.database.prisma
        .$transaction(async (tx) => {
          const created = await orderWriteStore.insertOrders(tx, list, MAX_AHEAD);
          expect(created.map((order) => order.salesOrderNo)).toEqual([
            number(start + 1),
            number(start + 5),
            number(start + 6),
            number(start + 6 + 20_000),
            number(start + 7),
          ]);
          const refused = created.map((order, index) => {
            const numbering = list[index]!.numbering!;
            return numbering.kind === 'supplied-series'
              ? counterAfterSuppliedNumber(order.counter!, numbering.sequence, MAX_AHEAD).value === null
              : false;
          });
          expect(refused).toEqual([false, false, false, true, false]);
          // The caller refuses the list (or the item): nothing of it stays.
          throw new Error('rolled back');
        })
        .catch((error: unknown) => {
          if (!(error instanceof Error && error.message === 'rolled back')) throw error;
        }),
    );
    // The counters locked and read, then the list: two statements, and the COMMIT or ROLLBACK.
    expect(statements.filter((sql) => !/^(BEGIN|COMMIT|ROLLBACK)/i.test(sql.trim()))).toHaveLength(2);
    expect(await counterOf(dhaka.id)).toEqual([start]);
  });

  it('settleCounter: next numbers and supplied ones in order, a number too far ahead leaving the counter', () => {
    expect(
      settleCounter(
        10n,
        [{ kind: 'next' }, { kind: 'supplied', sequence: 15n }, { kind: 'next' }, { kind: 'supplied', sequence: 12n }],
        100n,
      ),
    ).toEqual({ counters: [11n, 15n, 16n, 16n], last: 16n });
    expect(settleCounter(0n, [{ kind: 'supplied', sequence: 500n }, { kind: 'next' }], 100n)).toEqual({
      counters: [0n, 1n],
      last: 1n,
    });
  });
});
