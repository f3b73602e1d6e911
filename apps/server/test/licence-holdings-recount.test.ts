import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type LicenceHoldingsJobs, startLicenceHoldingsJobs } from '../src/licences/licence-holdings-jobs.js';
import { createLogger } from '../src/observability/logger.js';
import { createMetrics } from '../src/observability/metrics.js';
import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { captureLog } from './support/log-capture.js';
import { useServerWithFixtures } from './support/test-server.js';

/** pino's numeric level of `error`. */
const ERROR_LEVEL = 50;

/**
 * The licence holdings' periodic jobs (licences/licence-holdings-jobs.ts) on a real database:
 * the fold moves the appended changes into per-day totals without changing any licence's use,
 * and the recount reports a day whose total differs from its lines (an error log line naming
 * the days and the gauge `licence_holdings_drift_days`), and nothing when none does, folded or
 * not. The drift is made the ways it could happen: a total written by hand, a change appended
 * for a day without lines, and a line written with the triggers switched off.
 */
describe('licence holdings: the fold and the recount that reports drift', () => {
  const suite = useServerWithFixtures();
  const prisma = () => suite.server.database.prisma;
  const log = captureLog();
  const metrics = createMetrics();
  let jobs: LicenceHoldingsJobs;
  let product: { id: number };
  let orderId: number;

  beforeAll(async () => {
    product = await createLicensedProduct(prisma(), {
      licences: [{ validFrom: '2026-07-01', validTo: '2026-12-31', quantity: '1000' }],
    });
    // Runs only when the test asks (runOnce): the schedule is an hour away.
    jobs = startLicenceHoldingsJobs(prisma(), {
      foldIntervalSeconds: 3600,
      recountIntervalSeconds: 3600,
      logger: createLogger('info', log.stream),
      metrics,
    });
    for (const [index, quantity] of [10.5, 0.25, 3].entries()) {
      const response = await suite.server.http
        .post('/sales-orders')
        .send(
          orderBody(suite.fixtures, {
            sales_order_date: index === 2 ? '2026-12-01' : ORDER_DATE,
            details: [{ product_id: product.id, quantity, rate: 1 }],
            other_charges: [],
            status: 'confirmed',
            acknowledge_warnings: true,
          }),
        )
        .expect(201);
      orderId = response.body.data.sales_order_id;
    }
  });
  afterAll(() => jobs.stop());

  const gauge = async () => /^licence_holdings_drift_days (\d+)$/m.exec(await metrics.registry!.metrics())?.[1];
  const used = async (): Promise<string> => {
    const response = await suite.server.http
      .post('/sales-orders/validate-licence')
      .send({ sales_order_date: ORDER_DATE, sales_order_details: [{ product_id: product.id, quantity: 5000 }] })
      .expect(200);
    return /, (\S+) on orders\)\.$/.exec((response.body.data.warnings as { message: string }[])[0]!.message)![1]!;
  };
  const errors = (mark: number) => log.since(mark).filter((entry) => entry.level >= ERROR_LEVEL);

  it('finds no drift before or after the fold, and the fold changes no licence use', async () => {
    const mark = log.entries.length;
    const changes = async () =>
      (await prisma().$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM licence_holding_changes`)[0]!
        .count;
    expect(await changes()).toBeGreaterThan(0);
    expect(await jobs.recount.runOnce()).toEqual({ drifted: 0, sample: [] });
    expect(await used()).toBe('13.75');

    expect(await jobs.fold.runOnce()).toBeGreaterThanOrEqual(3);
    expect(await changes()).toBe(0);
    expect(await used()).toBe('13.75');
    const totals = await prisma().$queryRaw<{ order_date: string; held: string }[]>`
      SELECT to_char(order_date, 'YYYY-MM-DD') AS order_date, held_quantity::text AS held
      FROM licence_holdings WHERE product_id = ${product.id} ORDER BY order_date`;
    expect(totals).toEqual([
      { order_date: ORDER_DATE, held: '10.750' },
      { order_date: '2026-12-01', held: '3.000' },
    ]);
    expect(await jobs.recount.runOnce()).toEqual({ drifted: 0, sample: [] });
    expect(errors(mark)).toEqual([]);
    expect(await gauge()).toBe('0');
  });

  it('reports each day that differs, by a thousandth or by a whole change, in the log and the gauge', async () => {
    const mark = log.entries.length;
    await prisma().$executeRaw`
      UPDATE licence_holdings SET held_quantity = held_quantity + 0.001
      WHERE product_id = ${product.id} AND order_date = ${ORDER_DATE}::date`;
    await prisma().$executeRaw`
      INSERT INTO licence_holding_changes (product_id, order_date, quantity) VALUES (${product.id}, '2026-09-09', 5)`;
    // A host statement with the triggers switched off: the line changes, its total does not.
    await prisma().$transaction([
      prisma().$executeRaw`SET LOCAL session_replication_role = replica`,
      prisma().$executeRaw`UPDATE sales_order_details SET quantity = quantity + 2 WHERE sales_order_id = ${orderId}`,
    ]);

    const expected = [
      { productId: product.id, orderDate: ORDER_DATE, counted: '10.750', recorded: '10.751' },
      { productId: product.id, orderDate: '2026-09-09', counted: '0', recorded: '5.000' },
      { productId: product.id, orderDate: '2026-12-01', counted: '5.000', recorded: '3.000' },
    ].sort((a, b) => a.orderDate.localeCompare(b.orderDate));
    expect(await jobs.recount.runOnce()).toEqual({ drifted: 3, sample: expected });
    const [entry, ...more] = errors(mark);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ driftedDays: 3, sample: expected });
    expect(entry!.msg).toContain('SELECT licence_holdings_rebuild()');
    expect(await gauge()).toBe('3');
  });

  it('the rebuild recounts every total from the lines, and the next recount reports none', async () => {
    const mark = log.entries.length;
    await prisma().$executeRaw`SELECT licence_holdings_rebuild()`;
    expect(await jobs.recount.runOnce()).toEqual({ drifted: 0, sample: [] });
    expect(await used()).toBe('15.75');
    expect(errors(mark)).toEqual([]);
    expect(await gauge()).toBe('0');
  });
});
