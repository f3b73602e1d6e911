import { type ListSortKey, ListSortSchema, sortKeyOf } from '@sales-order/contract';
import { beforeAll, describe, expect, it } from 'vitest';

import { orderBody, PREVIOUS_YEAR_DATE } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

type Item = {
  sales_order_id: number;
  sales_order_no: string;
  customer_id: number;
  sales_order_date: string;
  created_at: string;
  updated_at: string;
  grand_total: number;
  line_count: number;
  version: number;
  delivery_status: string;
  deleted_at: string | null;
};

/**
 * GET /sales-orders through HTTP: every filter and sort, combinations, the keyset cursor (also
 * while other callers write), deleted orders and the optional total.
 */
describe('GET /sales-orders', () => {
  const suite = useServerWithFixtures();
  /** Every order this file creates, as the list should show it (read back once created). */
  let orders: Item[] = [];
  const ids = (items: { sales_order_id: number }[]) => items.map((item) => item.sales_order_id);
  const sortedIds = (items: { sales_order_id: number }[]) => ids(items).sort((a, b) => a - b);

  const list = async (query: Record<string, string | number | boolean>) => {
    const response = await suite.server.http.get('/sales-orders').query(query);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data as { items: Item[]; next_cursor: string | null; total?: number; total_capped?: boolean };
  };

  /** Follows next_cursor to the end; checks every page but the last is full. */
  const listAll = async (query: Record<string, string | number | boolean>, limit = 3) => {
    const items: Item[] = [];
    let cursor: string | null = null;
    do {
      const page = await list({ ...query, limit, ...(cursor ? { cursor } : {}) });
      if (page.next_cursor !== null) expect(page.items).toHaveLength(limit);
      items.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return items;
  };

  const create = async (overrides: Record<string, unknown>) =>
    (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures, overrides)).expect(201)).body.data
      .sales_order_id as number;

  let deletedId: number;

  beforeAll(async () => {
    const { customers, locations, products } = suite.fixtures;
    const line = (productId: number, quantity: number, rate: number) => ({ product_id: productId, quantity, rate });
    const specs: Record<string, unknown>[] = [
      {
        sales_order_date: '2026-07-01',
        remarks: 'Urgent: 100% prepaid',
        details: [line(products.product.id, 1, 100)],
        other_charges: [],
      },
      {
        sales_order_date: '2026-07-01',
        remarks: 'net_30 terms',
        details: [line(products.otherProduct.id, 2, 50)],
        other_charges: [],
      },
      {
        sales_order_date: '2026-08-15',
        remarks: 'path C:\\depot',
        customer_id: customers.otherCustomer.id,
        details: [line(products.otherProduct.id, 1, 250.5)],
        other_charges: [],
      },
      {
        sales_order_date: '2026-09-30',
        remarks: null,
        location_id: locations.chattogram.id,
        details: [line(products.product.id, 3, 100), line(products.otherProduct.id, 1, 1)],
        other_charges: [],
      },
      {
        sales_order_date: '2026-11-15',
        remarks: 'deliver to gate 4',
        customer_id: customers.otherCustomer.id,
        location_id: locations.chattogram.id,
        details: [line(products.product.id, 1, 100)],
        other_charges: [],
      },
      {
        sales_order_date: PREVIOUS_YEAR_DATE,
        remarks: 'old year',
        details: [line(products.otherProduct.id, 10, 10)],
        other_charges: [{ description: 'Freight', amount: 0.5 }],
      },
      {
        sales_order_date: '2026-12-31',
        sales_order_no: 'HOST_REF-7',
        remarks: 'host numbered',
        details: [line(products.product.id, 1, 0.01)],
        other_charges: [],
      },
      {
        sales_order_date: '2026-10-10',
        remarks: 'to be deleted',
        details: [line(products.product.id, 1, 100)],
        other_charges: [],
      },
    ];
    const created: number[] = [];
    for (const spec of specs) created.push(await create(spec));
    deletedId = created.at(-1)!;
    await suite.server.http.delete(`/sales-orders/${deletedId}`).expect(200);
    const listed = await listAll({ include_deleted: true }, 200);
    // In creation order, so that `orders[i]` is the order of `specs[i]`.
    orders = created.map((id) => listed.find((item) => item.sales_order_id === id)!);
    expect(orders.every(Boolean)).toBe(true);
  });

  const live = () => orders.filter((order) => order.deleted_at === null);

  it('answers a page of every live order with the documented item fields, newest order date first', async () => {
    const page = await list({});
    expect(page.next_cursor).toBeNull();
    expect(page).not.toHaveProperty('total');
    expect(sortedIds(page.items)).toEqual(sortedIds(live()));
    const first = page.items.find((item) => item.sales_order_no === 'HOST_REF-7')!;
    expect(first).toEqual({
      sales_order_id: expect.any(Number),
      sales_order_no: 'HOST_REF-7',
      customer_id: suite.fixtures.customers.customer.id,
      customer_name: 'Rahman Traders',
      sales_order_date: '2026-12-31',
      location_id: suite.fixtures.locations.dhaka.id,
      financial_year_id: suite.fixtures.years.currentYear.id,
      subtotal: 0.01,
      other_charges_total: 0,
      grand_total: 0.01,
      line_count: 1,
      version: 1,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      deleted_at: null,
      status: 'draft',
      status_changed_at: first.created_at,
      cancellation_reason: null,
      amended_from_id: null,
      field_officer_id: null,
      port_id: null,
      customer_reference: null,
      remarks: 'host numbered',
      delivery_date: null,
      delivery_status: 'not_delivered',
    });
    expect(page.items[0]!.sales_order_no).toBe('HOST_REF-7');
  });

  it('filters by each parameter alone', async () => {
    const { customers, locations, products, years } = suite.fixtures;
    const byOrder = (predicate: (order: Item, index: number) => boolean) =>
      sortedIds(orders.filter((order, index) => order.deleted_at === null && predicate(order, index)));
    const cases: [Record<string, string | number>, number[]][] = [
      [
        { customer_id: customers.otherCustomer.id },
        byOrder((order) => order.customer_id === customers.otherCustomer.id),
      ],
      [{ location_id: locations.chattogram.id }, byOrder((_, index) => index === 3 || index === 4)],
      [{ year_id: years.previousYear.id }, byOrder((order) => order.sales_order_date === PREVIOUS_YEAR_DATE)],
      [{ date_from: '2026-08-15' }, byOrder((order) => order.sales_order_date >= '2026-08-15')],
      [{ date_to: '2026-08-15' }, byOrder((order) => order.sales_order_date <= '2026-08-15')],
      [{ date_from: '2026-07-01', date_to: '2026-07-01' }, byOrder((order) => order.sales_order_date === '2026-07-01')],
      [{ number: 'host_ref-7' }, byOrder((order) => order.sales_order_no === 'HOST_REF-7')],
      [{ number_prefix: 'host_' }, byOrder((order) => order.sales_order_no === 'HOST_REF-7')],
      [{ number_prefix: 'dhk-2026' }, byOrder((order) => order.sales_order_no.startsWith('DHK-2026'))],
      [{ q: 'GATE' }, byOrder((_, index) => index === 4)],
      [{ q: 'karim agro' }, byOrder((order) => order.customer_id === customers.otherCustomer.id)],
      [{ q: 'ctg-2026' }, byOrder((order) => order.sales_order_no.startsWith('CTG-2026'))],
      [{ product_id: products.otherProduct.id }, byOrder((_, index) => [1, 2, 3, 5].includes(index))],
      [{ min_total: 100 }, byOrder((order) => order.grand_total >= 100)],
      [{ max_total: 100 }, byOrder((order) => order.grand_total <= 100)],
      [
        { min_total: 100.5, max_total: 250.5 },
        byOrder((order) => order.grand_total >= 100.5 && order.grand_total <= 250.5),
      ],
    ];
    for (const [query, expected] of cases) {
      expect(expected.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect(sortedIds((await list(query)).items), JSON.stringify(query)).toEqual(expected);
    }
    // "_" in a number is a literal underscore, not LIKE's any-character.
    expect((await list({ number: 'host_ref_7' })).items).toEqual([]);
    expect((await list({ number_prefix: 'dhk_2026' })).items).toEqual([]);
  });

  it('matches q literally: %, _ and \\ are not wildcards, case does not matter', async () => {
    const remarksOf = async (q: string) => sortedIds((await list({ q })).items);
    expect(await remarksOf('100%')).toEqual([orders[0]!.sales_order_id]);
    expect(await remarksOf('%')).toEqual([orders[0]!.sales_order_id]);
    expect(await remarksOf('NET_30')).toEqual([orders[1]!.sales_order_id]);
    // As a wildcard "_" would match the "%" of "100%".
    expect(await remarksOf('100_')).toEqual([]);
    expect(await remarksOf('_')).toEqual(sortedIds([orders[1]!, orders[6]!]));
    expect(await remarksOf('c:\\DEPOT')).toEqual([orders[2]!.sales_order_id]);
    expect(await remarksOf('\\')).toEqual([orders[2]!.sales_order_id]);
  });

  it('combines filters with AND', async () => {
    const { customers, locations, products } = suite.fixtures;
    expect(
      ids((await list({ customer_id: customers.otherCustomer.id, location_id: locations.chattogram.id })).items),
    ).toEqual([orders[4]!.sales_order_id]);
    expect(
      sortedIds((await list({ product_id: products.product.id, date_from: '2026-09-01', max_total: 200 })).items),
    ).toEqual(sortedIds([orders[4]!, orders[6]!]));
    expect(ids((await list({ q: 'terms', customer_id: customers.otherCustomer.id })).items)).toEqual([]);
    expect(sortedIds((await list({ number_prefix: 'DHK', min_total: 100, sort: 'grand_total' })).items)).toEqual(
      sortedIds(live().filter((order) => order.sales_order_no.startsWith('DHK') && order.grand_total >= 100)),
    );
  });

  it('sorts by each key with the id as tie-breaker, across pages of 3', async () => {
    const compare: Record<ListSortKey, (a: Item, b: Item) => number> = {
      sales_order_date: (a: Item, b: Item) => a.sales_order_date.localeCompare(b.sales_order_date),
      updated_at: (a: Item, b: Item) => a.updated_at.localeCompare(b.updated_at),
      grand_total: (a: Item, b: Item) => a.grand_total - b.grand_total,
      sales_order_no: (a: Item, b: Item) =>
        a.sales_order_no < b.sales_order_no ? -1 : a.sales_order_no > b.sales_order_no ? 1 : 0,
      delivery_status: (a: Item, b: Item) =>
        a.delivery_status < b.delivery_status ? -1 : a.delivery_status > b.delivery_status ? 1 : 0,
    };
    // Two orders share a date and three a grand total of 100: the id decides between them.
    for (const sort of ListSortSchema.options) {
      const key = sortKeyOf(sort);
      const sign = sort.startsWith('-') ? -1 : 1;
      const expected = [...live()].sort((a, b) => sign * (compare[key](a, b) || a.sales_order_id - b.sales_order_id));
      expect(ids(await listAll({ sort })), sort).toEqual(ids(expected));
    }
  });

  it('leaves deleted orders out unless include_deleted=true, which shows them with deleted_at', async () => {
    expect(ids((await list({})).items)).not.toContain(deletedId);
    expect(ids((await list({ include_deleted: 'false' })).items)).not.toContain(deletedId);
    const withDeleted = await list({ include_deleted: true });
    const deleted = withDeleted.items.find((item) => item.sales_order_id === deletedId)!;
    expect(deleted.deleted_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(deleted.version).toBe(2);
    expect(withDeleted.items.filter((item) => item.deleted_at !== null)).toHaveLength(1);
  });

  it('counts only when asked: include_total=true gives the total of the whole result, not of the page', async () => {
    const page = await list({ limit: 2, include_total: true });
    expect(page.items).toHaveLength(2);
    expect(page.total).toBe(live().length);
    expect(page.total_capped).toBe(false);
    expect((await list({ limit: 2, include_total: true, include_deleted: true })).total).toBe(orders.length);
  });

  it('filters by updated_since at the instant given (both date-time forms)', async () => {
    const before = await list({ sort: 'updated_at', include_deleted: true });
    const last = before.items.at(-1)!;
    const since = await list({ updated_since: last.updated_at, include_deleted: true });
    expect(ids(since.items)).toContain(last.sales_order_id);
    expect(since.items.every((item) => item.updated_at >= last.updated_at)).toBe(true);
    const iso = await list({ updated_since: `${last.updated_at.replace(' ', 'T')}+00:00`, include_deleted: true });
    expect(sortedIds(iso.items)).toEqual(sortedIds(since.items));
    expect((await list({ updated_since: '2999-01-01 00:00:00' })).items).toEqual([]);
  });

  it('refuses malformed parameters and tampered cursors with 400', async () => {
    const first = await list({ limit: 1 });
    const cursor = first.next_cursor!;
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad: Record<string, string | number>[] = [
      { limit: 0 },
      { limit: 201 },
      { limit: 'ten' },
      { sort: 'customer_id' },
      { cursor: 'not a cursor' },
      { cursor: `${cursor}x` },
      { cursor: forged({ ...decoded, k: "2026-01-01'; DROP TABLE sales_orders; --" }) },
      { cursor: forged({ ...decoded, i: -1 }) },
      // A cursor of another sort would skip or repeat rows: refused.
      { cursor, sort: 'grand_total' },
      { cursor: forged({ s: 'grand_total', k: '1e9', i: 1 }), sort: 'grand_total' },
      { date_from: '2026-02-30' },
      { min_total: 1.001 },
      { include_deleted: 'yes' },
      { updated_since: 'yesterday' },
      { customer_id: 0 },
      { q: '' },
    ];
    for (const query of bad) {
      const response = await suite.server.http.get('/sales-orders').query(query);
      expect([response.status, JSON.stringify(query)]).toEqual([400, JSON.stringify(query)]);
      expect(response.body.success).toBe(false);
    }
    expect(await list({ limit: 200 })).toBeTruthy();
  });

  it('refuses forged cursors the database would refuse (ids past int4, impossible timestamps, NUL) with 400, not 500', async () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cases: [Record<string, string>, string][] = [
      [{ cursor: forged({ s: '-sales_order_date', k: '2026-11-15', i: 2147483648 }) }, 'id past int4'],
      [{ cursor: forged({ s: '-sales_order_date', k: '2026-11-15', i: 1e300 }) }, 'id 1e300'],
      [{ cursor: forged({ s: '-sales_order_date', k: '2026-11-15', i: 0 }) }, 'id 0'],
      [{ cursor: forged({ s: '-updated_at', k: '2026-02-30T00:00:00.000Z', i: 1 }), sort: '-updated_at' }, 'Feb 30'],
      [{ cursor: forged({ s: '-updated_at', k: '0000-01-01T00:00:00.000Z', i: 1 }), sort: '-updated_at' }, 'year 0'],
      [{ cursor: forged({ s: '-updated_at', k: '2026-01-01T24:00:00.000Z', i: 1 }), sort: '-updated_at' }, 'hour 24'],
      [{ cursor: forged({ s: 'sales_order_no', k: 'DHK\u0000', i: 1 }), sort: 'sales_order_no' }, 'NUL in key'],
      [
        { cursor: forged({ s: 'grand_total', k: '9999999999999999.00', i: 1 }), sort: 'grand_total' },
        'total past the money range',
      ],
    ];
    const answers = [];
    for (const [query, label] of cases) {
      const response = await suite.server.http.get('/sales-orders').query(query);
      answers.push({ label, status: response.status, path: response.body.error?.details?.[0]?.path });
    }
    expect(answers).toEqual(cases.map(([, label]) => ({ label, status: 400, path: 'cursor' })));
  });

  it('keeps pages exact while others insert, update and delete between them (no row twice, none missing)', async () => {
    const { products } = suite.fixtures;
    // A batch of its own, all on one customer so other tests' rows do not interfere.
    const customer = await suite.server.database.prisma.customer.create({
      data: { code: 'C-CURSOR', name: 'Cursor Stability Ltd' },
    });
    const own = async (date: string) =>
      create({
        customer_id: customer.id,
        sales_order_date: date,
        details: [{ product_id: products.product.id, quantity: 1, rate: 5 }],
        other_charges: [],
      });
    const initial: number[] = [];
    for (let day = 1; day <= 20; day += 1) initial.push(await own(`2026-08-${String(day).padStart(2, '0')}`));

    const seen: number[] = [];
    const deleted = new Set<number>();
    const inserted: number[] = [];
    let cursor: string | null = null;
    let pageNo = 0;
    do {
      const page = await list({ customer_id: customer.id, limit: 4, ...(cursor ? { cursor } : {}) });
      if (page.next_cursor !== null) expect(page.items).toHaveLength(4);
      seen.push(...ids(page.items));
      cursor = page.next_cursor;
      pageNo += 1;
      // Between pages: an insert on each side of the cursor, an update, a delete of a row not yet read.
      const lastDate = page.items.at(-1)?.sales_order_date;
      if (cursor && lastDate) {
        inserted.push(await own('2026-08-31'), await own('2026-08-01'));
        const unread = initial.filter((id) => !seen.includes(id) && !deleted.has(id));
        await suite.server.http
          .put(`/sales-orders/${unread[0]}`)
          .send({ remarks: `touched on page ${pageNo}` })
          .expect(200);
        const victim = unread.at(-1)!;
        await suite.server.http.delete(`/sales-orders/${victim}`).expect(200);
        deleted.add(victim);
      }
    } while (cursor !== null);

    expect(new Set(seen).size).toBe(seen.length);
    // Every order that existed throughout and kept its sort key appeared exactly once.
    for (const id of initial.filter((id) => !deleted.has(id))) expect(seen).toContain(id);
    for (const id of deleted) expect(seen).not.toContain(id);
    // Inserted after the cursor passed their place (newer dates come first): never shown.
    const newer = inserted.filter((_, index) => index % 2 === 0);
    for (const id of newer) expect(seen).not.toContain(id);
  });
});
