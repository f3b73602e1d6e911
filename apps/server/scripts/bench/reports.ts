/**
 * The sales report rows of `pnpm bench` (a PostgreSQL server only): on the bench's bulk-loaded
 * orders (BENCH_LIST_ORDERS, 200,000 by default) with four more lines each (1,000,000 lines in
 * all, a third delivered in full, a third in half, some returned), GET /reports/sales answered
 * by the service beside its floor: the same aggregate sent straight to PostgreSQL by `pg`, the
 * answer's rows only (no names, no page, no totals, no HTTP). One request at a time, for the
 * scenario's seconds, each side; the ratio is of the p50 latencies. Targets: grouped by location
 * and month with the default metrics within 2 x its floor, by product with pending_quantity
 * within 3 x.
 */
import pg from 'pg';

import { seconds, wanted } from './options.js';
import type { Run } from './run.js';
import { benchFetch } from './setup.js';

/** The live statuses a report counts when `status` is not given. */
const LIVE = `status IN ('draft', 'confirmed', 'closed')`;

export const REPORT_SCENARIOS = [
  {
    name: 'GET report by location and month (order_count, grand_total)',
    path: '/api/reports/sales?group_by=location,month&limit=1000',
    target: 2,
    floor: `SELECT location_id, date_trunc('month', sales_order_date::timestamp) AS month, count(*), sum(grand_total)
            FROM sales_orders WHERE deleted_at IS NULL AND ${LIVE} GROUP BY 1, 2`,
  },
  {
    name: 'GET report by product (pending_quantity)',
    path: '/api/reports/sales?group_by=product&metrics=pending_quantity&limit=1000',
    target: 3,
    floor: `SELECT d.product_id,
              sum(greatest(d.quantity - (d.delivered_quantity - d.returned_quantity) - d.short_closed_quantity, 0))
            FROM sales_order_details d JOIN sales_orders so ON so.id = d.sales_order_id
            WHERE so.deleted_at IS NULL AND so.${LIVE} GROUP BY 1`,
  },
] as const;

export interface ReportFigures {
  name: string;
  target: number;
  service: Timing;
  floor: Timing;
}

interface Timing {
  runs: number;
  p50: number;
  max: number;
}

const timingOf = (times: number[]): Timing => {
  times.sort((a, b) => a - b);
  return { runs: times.length, p50: times[Math.floor(times.length / 2)]!, max: times.at(-1)! };
};

/** Runs `once` one after another for `forSeconds` (at least 5 times): its latencies in ms. */
const repeat = async (forSeconds: number, once: () => Promise<void>): Promise<Timing> => {
  const times: number[] = [];
  const until = performance.now() + forSeconds * 1_000;
  while (times.length < 5 || performance.now() < until) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  return timingOf(times);
};

/**
 * Four more lines for each bulk-loaded order (products in turn), and delivery running totals as
 * deliveries and returns would have left them; then vacuumed and analysed, as the list's load is.
 */
const loadReportLines = async (url: string): Promise<number> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`
      INSERT INTO sales_order_details (sales_order_id, line_no, product_id, quantity, rate, amount)
      SELECT so.id, 1 + n, p.ids[1 + (so.id * 7 + n) % cardinality(p.ids)], 1 + (so.id + n) % 20, 10.5,
             (1 + (so.id + n) % 20) * 10.5
      FROM sales_orders so CROSS JOIN generate_series(1, 4) n
        CROSS JOIN (SELECT array_agg(id ORDER BY id) AS ids FROM products WHERE active) p
      WHERE so.sales_order_no LIKE 'BLK-%'`);
    await client.query(`
      UPDATE sales_order_details d SET
        delivered_quantity = CASE d.id % 3 WHEN 0 THEN d.quantity WHEN 1 THEN trunc(d.quantity / 2, 3) ELSE 0 END,
        returned_quantity = CASE WHEN d.id % 9 = 0 THEN least(1, d.quantity) ELSE 0 END
      FROM sales_orders so WHERE so.id = d.sales_order_id AND so.sales_order_no LIKE 'BLK-%'`);
    await client.query('VACUUM (ANALYZE)');
    const [{ lines }] = (
      await client.query<{ lines: number }>('SELECT count(*)::int AS lines FROM sales_order_details')
    ).rows as [{ lines: number }];
    return lines;
  } finally {
    await client.end();
  }
};

/** Each report scenario on the service and its floor on PostgreSQL, one request at a time. */
const benchReports = async ({
  origin,
  url,
  headers,
}: {
  origin: string;
  url: string;
  headers: Record<string, string>;
}): Promise<ReportFigures[]> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const figures: ReportFigures[] = [];
  try {
    for (const { name, path, target, floor } of REPORT_SCENARIOS.filter((scenario) => wanted(scenario.name))) {
      const call = async () => {
        const response = await benchFetch(`${origin}${path}`, { headers });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${text.slice(0, 300)}`);
      };
      // Warm both: the plans, the buffers.
      for (let index = 0; index < 3; index += 1) {
        await call();
        await client.query(floor);
      }
      const service = await repeat(seconds, call);
      const floorTiming = await repeat(seconds, async () => {
        await client.query(floor);
      });
      figures.push({ name, target, service, floor: floorTiming });
    }
  } finally {
    await client.end();
  }
  return figures;
};

/**
 * Last on a server with loaded orders: the report rows add four lines to every loaded order
 * (1,000,000 lines for 200,000 orders).
 */
export const runReports = async ({ standIn, env, target: { origin, headers } }: Run) => {
  const url = env.DATABASE_URL!;
  console.log('adding four lines to each loaded order for the report scenarios...');
  const lines = await loadReportLines(url);
  console.log(`${lines} order lines`);
  await standIn?.settle();
  return benchReports({ origin, url, headers });
};

/** The rows as the bench prints them beside the others. */
export const describeReports = (figures: ReportFigures[]): string[] =>
  figures.map(({ name, target, service, floor }) => {
    const ratio = service.p50 / floor.p50;
    const ms = (value: number) => value.toFixed(0);
    return (
      `${name}: p50 ${ms(service.p50)} ms (max ${ms(service.max)}, ${service.runs} runs) beside its floor, the same ` +
      `aggregate in PostgreSQL alone, p50 ${ms(floor.p50)} ms (max ${ms(floor.max)}): ${ratio.toFixed(2)} x ` +
      `(target <= ${target} x: ${ratio <= target ? 'met' : 'not met'})`
    );
  });
