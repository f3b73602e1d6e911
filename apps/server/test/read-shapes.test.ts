import {
  ListSalesOrdersQuerySchema,
  ListSortSchema,
  SalesOrderPageSchema,
  SalesOrderSchema,
  successEnvelope,
} from '@sales-order/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';

import { systemScope } from '../src/auth/scope.js';
import type { Prisma } from '../src/generated/prisma/client.js';
import { pageQuery } from '../src/orders/store/order-list-store.js';
import { liveOrderQuery } from '../src/orders/store/order-read-store.js';
import { formatDateTime } from '../src/shared/calendar.js';
import { ORDER_DATE, orderBody, PREVIOUS_YEAR_DATE } from './support/fixtures.js';
import { withOwnConnection } from './support/postgres-server.js';
import { deepStrict } from './support/strict-schema.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The answers PostgreSQL renders and the service passes through unparsed (GET order, the list
 * page and the sync feed, the events' payloads: orders/store/order-read-shape.ts) against the
 * contract, the only source of truth for their shape: each is parsed with the contract's schema
 * made strict at every depth (an unknown or renamed key fails, as does a missing one, a decimal
 * written as a string, a timestamp in another format), and its text must be exactly what
 * `JSON.stringify` writes for the parsed value (no trailing zeros, no spaces, keys in the
 * schema's order), which the entity tag relies on. The list runs every filter and every sort the
 * contract's query schema declares, walked from the schema so that a filter added later fails
 * here until it has an example.
 *
 * On a PostgreSQL server the database's default TimeZone is far from UTC, and the statements run
 * again on a connection in that zone must render the same text.
 */
const ZONE = 'Pacific/Kiritimati';
const onServer = Boolean(process.env.TEST_DATABASE_URL);

const OrderAnswer = deepStrict(successEnvelope(SalesOrderSchema));
const PageAnswer = deepStrict(successEnvelope(SalesOrderPageSchema));
const EventData = deepStrict(SalesOrderSchema);

/** Parses `text` with `schema` and checks it is the canonical JSON of the parsed value. */
const parseCanonical = <T extends z.ZodTypeAny>(schema: T, text: string, label: string): z.output<T> => {
  const parsed = schema.safeParse(JSON.parse(text));
  expect(parsed.success ? [] : parsed.error.issues, label).toEqual([]);
  expect(JSON.stringify(parsed.data), label).toBe(text);
  return parsed.data as z.output<T>;
};

describe('read shapes rendered by PostgreSQL, strictly against the contract', () => {
  const suite = useServerWithFixtures({}, onServer ? { databaseTimeZone: ZONE } : {});
  const http = () => suite.server.http;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    const { prisma } = suite.server.database;
    const { fixtures } = suite;
    const officer = await prisma.fieldOfficer.create({ data: { code: 'FO-RS', name: 'Sharmin "Shammi" Sultana' } });
    const port = await prisma.port.create({ data: { code: 'PT-RS', name: 'Mongla \\ Khulna' } });
    const create = async (body: Record<string, unknown>) =>
      (await http().post('/sales-orders').send(orderBody(fixtures, body)).expect(201)).body.data
        .sales_order_id as number;
    const unlicensed = [{ product_id: fixtures.products.otherProduct.id, quantity: 3, rate: 12.25 }];
    // Every optional field set, text that needs escaping in JSON, decimals with and without
    // fractions, a packsize and a line without one.
    ids.full = await create({
      remarks: 'Deliver before Friday: "gate 2" \\ back door\n\tঢাকা 🚚',
      field_officer_id: officer.id,
      port_id: port.id,
      customer_reference: 'PO/77 "A"',
      delivery_date: '2026-12-01',
      other_charges: [
        { description: 'Carriage', amount: 350 },
        { description: 'Discount', amount: -0.5 },
      ],
    });
    // Nothing optional: nulls, no charges, another customer, location and year.
    ids.bare = await create({
      customer_id: fixtures.customers.otherCustomer.id,
      location_id: fixtures.locations.chattogram.id,
      sales_order_date: PREVIOUS_YEAR_DATE,
      remarks: null,
      details: [{ product_id: fixtures.products.otherProduct.id, quantity: 0.001, rate: 0.0001 }],
      other_charges: [],
    });
    ids.freeForm = await create({ sales_order_no: 'PO-77/A', details: unlicensed });
    ids.confirmed = await create({ details: unlicensed });
    await http().post(`/sales-orders/${ids.confirmed}/confirm`).send({}).expect(200);
    ids.closed = await create({ details: unlicensed });
    await http().post(`/sales-orders/${ids.closed}/confirm`).send({}).expect(200);
    await http().post(`/sales-orders/${ids.closed}/close`).expect(200);
    ids.cancelled = await create({ details: unlicensed });
    await http()
      .post(`/sales-orders/${ids.cancelled}/cancel`)
      .send({ reason: 'Customer changed "the" grade' })
      .expect(200);
    ids.amendment = (await http().post(`/sales-orders/${ids.cancelled}/amend`).expect(201)).body.data.sales_order_id;
    ids.deleted = await create({ details: unlicensed });
    await http().put(`/sales-orders/${ids.deleted}`).send({ remarks: 'updated once' }).expect(200);
    await http().delete(`/sales-orders/${ids.deleted}`).expect(200);
  });

  it('makes every object strict, at any depth (the check below is not blind)', () => {
    const order = { ...orderSample(), details: [{ ...orderSample().details[0]!, extra: 1 }] };
    expect(EventData.safeParse(orderSample()).success).toBe(true);
    expect(EventData.safeParse(order).success).toBe(false);
    expect(EventData.safeParse({ ...orderSample(), subtotal: '12.50' }).success).toBe(false);
    expect(SalesOrderSchema.safeParse(order).success).toBe(true);
  });

  it('GET order: the envelope of the read shape, canonical, with the stored instants in UTC', async () => {
    const { prisma } = suite.server.database;
    for (const [name, id] of Object.entries(ids).filter(([name]) => name !== 'deleted')) {
      const response = await http().get(`/sales-orders/${id}`).expect(200);
      const order = parseCanonical(OrderAnswer, response.text, name).data;
      const [stored] = await prisma.$queryRaw<{ created_at: Date; updated_at: Date; status_changed_at: Date }[]>`
        SELECT created_at, updated_at, status_changed_at FROM sales_orders WHERE id = ${id}`;
      expect([order.created_at, order.updated_at, order.status_changed_at], name).toEqual([
        formatDateTime(stored!.created_at),
        formatDateTime(stored!.updated_at),
        formatDateTime(stored!.status_changed_at),
      ]);
    }
    const full = (await http().get(`/sales-orders/${ids.full}`)).body.data;
    expect(full).toMatchObject({
      field_officer_name: 'Sharmin "Shammi" Sultana',
      port_name: 'Mongla \\ Khulna',
      delivery_date: '2026-12-01',
      sales_order_date: ORDER_DATE,
    });
    expect(full.other_charges.map((charge: { amount: number }) => charge.amount)).toEqual([350, -0.5]);
  });

  it('every filter and every sort of the list: the envelope of the page, canonical; items as GET reads them', async () => {
    const { fixtures } = suite;
    const query = ListSalesOrdersQuerySchema._def.schema.shape;
    const sorts = ListSortSchema.options;
    /** Values of each query parameter, each of which must select at least one order. */
    const examples: Record<keyof typeof query, string[]> = {
      customer_id: [String(fixtures.customers.customer.id), String(fixtures.customers.otherCustomer.id)],
      location_id: [String(fixtures.locations.chattogram.id)],
      year_id: [String(fixtures.years.previousYear.id)],
      date_from: [ORDER_DATE],
      date_to: [PREVIOUS_YEAR_DATE],
      number: ['po-77/a'],
      number_prefix: ['PO-77'],
      q: ['friday', 'po/77 "a"'],
      product_id: [String(fixtures.products.product.id)],
      min_total: ['1000.50'],
      max_total: ['1'],
      updated_since: ['2000-01-01T00:00:00Z'],
      status: ['draft', 'confirmed', 'closed', 'cancelled', 'confirmed,closed'],
      include_deleted: ['true'],
      delivery_status: ['not_delivered', 'not_delivered,delivered'],
      sort: [...sorts],
      limit: ['1', '200'],
      cursor: ['(the first page of one)'],
      include_total: ['true'],
    };
    const missing = Object.keys(query).filter((key) => !(key in examples));
    expect(missing, 'a query parameter of the list without an example here').toEqual([]);

    const read = new Map<number, Record<string, unknown>>();
    for (const id of Object.values(ids).filter((id) => id !== ids.deleted)) {
      read.set(id, (await http().get(`/sales-orders/${id}`)).body.data);
    }
    let pages = 0;
    for (const [key, values] of Object.entries(examples)) {
      for (const value of values) {
        for (const sort of key === 'sort' ? [value] : sorts) {
          let params: Record<string, string> = { sort, [key]: value };
          if (key === 'cursor') {
            const first = await http().get('/sales-orders').query({ sort, limit: 1 }).expect(200);
            params = { sort, limit: '1', cursor: first.body.data.next_cursor as string };
          }
          const label = JSON.stringify(params);
          const response = await http().get('/sales-orders').query(params);
          expect(response.status, `${label}: ${response.text}`).toBe(200);
          const page = parseCanonical(PageAnswer, response.text, label).data;
          expect(page.items.length, `${label} selects nothing`).toBeGreaterThan(0);
          if (key === 'include_deleted')
            expect(
              page.items.some((item) => item.deleted_at !== null),
              label,
            ).toBe(true);
          if (params.limit === '1') expect(page.next_cursor, label).not.toBeNull();
          for (const item of page.items) {
            const order = read.get(item.sales_order_id);
            if (!order) continue;
            const shared = Object.fromEntries(
              Object.keys(item)
                .filter((field) => field in order)
                .map((f) => [f, order[f]]),
            );
            expect(item, label).toMatchObject(shared);
            expect(item.line_count, label).toBe((order.details as unknown[]).length);
          }
          pages += 1;
        }
      }
    }
    expect(pages).toBeGreaterThan(100);
    // The remarks `q` found the order by are in its item, as written.
    const found = (await http().get('/sales-orders').query({ q: 'gate 2' }).expect(200)).body.data.items;
    expect(found.map((item: { remarks: string | null }) => item.remarks)).toEqual([
      'Deliver before Friday: "gate 2" \\ back door\n\tঢাকা 🚚',
    ]);
  });

  it("every event's payload: the read shape, canonical, as GET read it after the change", async () => {
    const { prisma } = suite.server.database;
    const events = await prisma.$queryRaw<{ type: string; data: string }[]>`
      SELECT type, data::text AS data FROM events WHERE type LIKE 'sales_order.%' ORDER BY seq`;
    expect(new Set(events.map((event) => event.type)).size).toBe(7);
    for (const event of events) parseCanonical(EventData, event.data, event.type);
    const last = events.filter((event) => JSON.parse(event.data).sales_order_id === ids.full).at(-1)!;
    const response = await http().get(`/sales-orders/${ids.full}`).expect(200);
    expect(response.text).toBe(`{"success":true,"data":${last.data}}`);
  });

  it.skipIf(!onServer)(`renders the same text on a connection whose TimeZone is ${ZONE}`, async () => {
    const { prisma } = suite.server.database;
    const answered = (await http().get(`/sales-orders/${ids.full}`).expect(200)).text;
    const page = (await http().get('/sales-orders').query({ include_deleted: true, sort: 'updated_at' }).expect(200))
      .body.data.items;
    await withOwnConnection(prisma, async (client) => {
      expect((await client.query('SHOW TimeZone')).rows[0].TimeZone).toBe(ZONE);
      const run = async (query: Prisma.Sql) => (await client.query(query.text, query.values)).rows[0];
      expect(`{"success":true,"data":${(await run(liveOrderQuery(ids.full!, systemScope))).json}}`).toBe(answered);
      const rendered = await run(pageQuery({ scope: systemScope, includeDeleted: true }, 'updated_at', undefined, 50));
      expect(rendered.items).toBe(JSON.stringify(page));
    });
  });
});

/** A read shape that fits the contract, for the check of the strict schema itself. */
const orderSample = () => ({
  sales_order_id: 1,
  sales_order_no: 'DHK-2026-00001',
  customer_id: 1,
  customer_name: 'Rahman Traders',
  sales_order_date: '2026-11-15',
  location_id: 1,
  financial_year_id: 1,
  subtotal: 12.5,
  other_charges_total: 0,
  grand_total: 12.5,
  remarks: null,
  details: [
    {
      sales_order_detail_id: 1,
      product_id: 1,
      product_name: 'Urea',
      packsize_id: null,
      quantity: 1,
      rate: 12.5,
      amount: 12.5,
      remarks: null,
      delivered_quantity: 0,
      returned_quantity: 0,
      pending_quantity: 1,
      short_closed_quantity: 0,
    },
  ],
  other_charges: [],
  version: 1,
  created_at: '2026-11-15 10:00:00',
  updated_at: '2026-11-15 10:00:00',
  created_by: null,
  updated_by: null,
  status: 'draft',
  status_changed_at: '2026-11-15 10:00:00',
  cancellation_reason: null,
  amended_from_id: null,
  field_officer_id: null,
  field_officer_name: null,
  port_id: null,
  port_name: null,
  customer_reference: null,
  delivery_date: null,
  delivery_status: 'not_delivered',
});
