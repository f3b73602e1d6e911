/**
 * The licence check against a product's history, for `pnpm bench` (a PostgreSQL server only):
 * confirms of one-line drafts of a product with a limited licence, whose window already holds
 * 1,000 confirmed lines of it in one row and 1,000,000 in the other, loaded in SQL as a host's
 * bulk import would (the orders and lines as the service writes them: confirmed, with their
 * copies of the order's date and quota flag stated). Every confirm takes the product's quota
 * lock and reads what its licence holds under it, so the rows' rates are the rates of that
 * locked span: target, the 1,000,000-line row within 1.2 x the 1,000-line row's cost (its req/s
 * over this one's). Before the running totals (docs/decisions/licence-holdings-ledger.md) the
 * read under the lock summed the product's lines in the window.
 */
import pg from 'pg';

import { createBody, today } from './bodies.js';
import { seconds } from './options.js';
import type { Scenario } from './rows.js';

export const LICENCE_HISTORY_LINES = { small: 1_000, large: 1_000_000 } as const;
/** The 1,000,000-line row's cost over the 1,000-line row's, at most (the target). */
export const LICENCE_HISTORY_TARGET = 1.2;
export const licenceHistoryRow = (lines: number) =>
  `POST confirm (1 line of a limited product with ${lines.toLocaleString('en')} lines in its licence window)`;

/** Lines of each loaded order: the history is lines / 100 orders, spread over the window's year. */
const LINES_PER_ORDER = 100;
/** Orders loaded per statement, so that a progress line comes every so often on a slow machine. */
const ORDERS_PER_STATEMENT = 1_000;

const daysBefore = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/**
 * A product of its own with a licence of 10^12 units (never run out: no warning to acknowledge)
 * valid from 364 days before `today` to 400 days after, `lines` confirmed lines of it dated over
 * that year (LINES_PER_ORDER a order, quantity 1), then analysed. Returns the product's id.
 */
const loadLicenceHistory = async (
  url: string,
  { lines, today, customerId, locationId }: { lines: number; today: string; customerId: number; locationId: number },
): Promise<number> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tag = `LH${lines}-${Date.now().toString(36)}`;
    const {
      rows: [product],
    } = await client.query<{ id: number }>(
      `INSERT INTO products (code, name, requires_licence) VALUES ($1, $2, true) RETURNING id`,
      [tag, `Licence history ${tag}`],
    );
    await client.query(
      `INSERT INTO product_licences (product_id, licence_no, valid_from, valid_to, licensed_quantity)
       VALUES ($1, $2, $3::date, $4::date, 1000000000000)`,
      [product!.id, tag, daysBefore(today, 364), daysBefore(today, -400)],
    );
    const orders = Math.ceil(lines / LINES_PER_ORDER);
    for (let first = 1; first <= orders; first += ORDERS_PER_STATEMENT) {
      const last = Math.min(orders, first + ORDERS_PER_STATEMENT - 1);
      await client.query(
        `WITH placed AS (
           INSERT INTO sales_orders (sales_order_no, location_id, financial_year_id, customer_id, sales_order_date,
                                     subtotal, other_charges_total, grand_total, status)
           SELECT $1 || '-' || g, $2, fy.id, $3, day, $4, 0, $4, 'confirmed'
           FROM generate_series($5::int, $6::int) g,
                LATERAL (SELECT $7::date - (g % 365) AS day) d,
                LATERAL (SELECT id FROM financial_years WHERE day BETWEEN start_date AND end_date
                         ORDER BY start_date LIMIT 1) fy
           RETURNING id, sales_order_date)
         INSERT INTO sales_order_details (sales_order_id, line_no, product_id, quantity, rate, amount, order_date, consumes_quota)
         SELECT p.id, n, $8, 1, 1, 1, p.sales_order_date, true FROM placed p, generate_series(1, $4::int) n`,
        [tag, locationId, customerId, LINES_PER_ORDER, first, last, today, product!.id],
      );
      if (last < orders && (last / ORDERS_PER_STATEMENT) % 100 === 0) {
        console.log(`  ${(last * LINES_PER_ORDER).toLocaleString('en')} of ${lines.toLocaleString('en')} lines`);
      }
    }
    await client.query('ANALYZE sales_orders, sales_order_details, licence_holding_changes, licence_holdings');
    return product!.id;
  } finally {
    await client.end();
  }
};

/** `count` one-line drafts of `productId` dated `today` (quantity 1), written in SQL: their ids. */
const licenceDrafts = async (
  url: string,
  {
    productId,
    count,
    today,
    customerId,
    locationId,
  }: {
    productId: number;
    count: number;
    today: string;
    customerId: number;
    locationId: number;
  },
): Promise<number[]> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tag = `LHD${productId}-${Date.now().toString(36)}`;
    const { rows } = await client.query<{ id: number }>(
      `WITH placed AS (
         INSERT INTO sales_orders (sales_order_no, location_id, financial_year_id, customer_id, sales_order_date,
                                   subtotal, other_charges_total, grand_total)
         SELECT $1 || '-' || g, $2, (SELECT id FROM financial_years WHERE $4::date BETWEEN start_date AND end_date
                                     ORDER BY start_date LIMIT 1), $3, $4::date, 1, 0, 1
         FROM generate_series(1, $5::int) g
         RETURNING id), lined AS (
         INSERT INTO sales_order_details (sales_order_id, line_no, product_id, quantity, rate, amount, order_date, consumes_quota)
         SELECT id, 1, $6, 1, 1, 1, $4::date, false FROM placed)
       SELECT id FROM placed ORDER BY id`,
      [tag, locationId, customerId, today, count, productId],
    );
    return rows.map((row) => row.id);
  } finally {
    await client.end();
  }
};

/**
 * The licence history rows' requests on the database at `databaseUrl`: the product and its
 * `lines` loaded once per service, then one-line drafts of it to confirm, enough for the
 * scenario's time (confirms of one limited product take turns on its quota lock: far fewer than
 * 2,000 a second).
 */
export const historyConfirmationsOf = (databaseUrl: string | undefined) => {
  const histories = new Map<number, Promise<number>>();
  return async (lines: number) => {
    const where = { today, customerId: createBody.customer_id, locationId: createBody.location_id };
    let product = histories.get(lines);
    if (!product) {
      console.log(`loading ${lines.toLocaleString('en')} lines of a licensed product...`);
      product = loadLicenceHistory(databaseUrl!, { lines, ...where });
      histories.set(lines, product);
    }
    const drafts = await licenceDrafts(databaseUrl!, { productId: await product, count: seconds * 2_000, ...where });
    return { rotate: drafts.map((id) => ({ path: `/api/sales-orders/${id}/confirm`, body: {} })) };
  };
};

/**
 * A PostgreSQL server only: a million lines are the database's work, not the embedded one's.
 * The larger history first: writes are not warmed up, so it runs on the colder process.
 */
export const licenceScenarios = ({
  origin,
  databaseUrl,
  historyConfirmations,
}: {
  origin: string;
  databaseUrl: string | undefined;
  historyConfirmations: ReturnType<typeof historyConfirmationsOf>;
}): Scenario[] =>
  databaseUrl
    ? [LICENCE_HISTORY_LINES.large, LICENCE_HISTORY_LINES.small].map((lines): Scenario => ({
        name: licenceHistoryRow(lines),
        ...(lines === LICENCE_HISTORY_LINES.small
          ? { against: 'create-rate' }
          : { against: 'history', history: licenceHistoryRow(LICENCE_HISTORY_LINES.small) }),
        method: 'POST',
        url: origin,
        prepare: () => historyConfirmations(lines),
      }))
    : [];
