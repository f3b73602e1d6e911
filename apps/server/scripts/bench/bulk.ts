/**
 * POST /sales-orders/bulk: the create row's order 100 times a call, BENCH_BULK_CONNECTIONS calls
 * at once and one at a time, read as orders per second against the 5-line create; then one bulk
 * call alone against one create alone.
 */
import { createBody } from './bodies.js';
import { seconds } from './options.js';
import type { Row, Scenario } from './rows.js';

/** Orders in each bulk create of the bulk row (the default BULK_MAX_ORDERS). */
export const BULK_ORDERS = 100;
/** The create row's order 100 times in one bulk call: one series, server numbering. */
const bulkBody = { orders: Array.from({ length: BULK_ORDERS }, () => createBody) };
/**
 * Bulk calls in flight at once (BENCH_BULK_CONNECTIONS): each holds its series' counter from its
 * insert statement to its commit, so calls of one series take turns; 4 calls are 400 orders in
 * flight, more than the create row's 32.
 */
export const bulkConnections = Number(process.env.BENCH_BULK_CONNECTIONS ?? 4);
const bulkRow = (calls: number) =>
  `POST bulk (${BULK_ORDERS} orders of 5 lines, server numbering, one series, ${calls} connection${calls === 1 ? '' : 's'})`;
export const BULK_ROW = bulkRow(bulkConnections);
/**
 * One caller's bulk calls one after another: an import is one such stream (its chunks follow
 * each other in one series), so its rate is also read against this row's.
 */
export const BULK_ONE_ROW = bulkRow(1);

export const bulkScenarios = (origin: string): Scenario[] => [
  {
    // Orders per second through bulk calls, beside the single create of this run.
    name: BULK_ROW,
    against: 'bulk',
    method: 'POST',
    url: `${origin}/api/sales-orders/bulk`,
    body: bulkBody,
    connections: bulkConnections,
  },
  ...(bulkConnections === 1
    ? []
    : [
        {
          name: BULK_ONE_ROW,
          against: 'bulk' as const,
          method: 'POST' as const,
          url: `${origin}/api/sales-orders/bulk`,
          body: bulkBody,
          connections: 1,
        },
      ]),
];

/** A bulk row's orders created per second: its answered calls that succeeded, each of BULK_ORDERS orders. */
export const ordersPerSecond = (row: Row) => Math.round(((row.answered - row.failed) * BULK_ORDERS) / seconds);

export type AloneLatencies = Record<'create' | 'bulk', { p50: number; p90: number }>;

/** One request at a time, nothing else running: a bulk of 100's latency against one create's. */
export const bulkAlone = async (
  origin: string,
  setupCall: (url: string, expected: number, body?: unknown) => Promise<unknown>,
): Promise<AloneLatencies> => {
  const alone = async (url: string, body: unknown, expected: number) => {
    const times: number[] = [];
    for (let index = 0; index < 30; index += 1) {
      const started = performance.now();
      await setupCall(url, expected, body);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { p50: times[Math.floor(times.length / 2)]!, p90: times[Math.floor(times.length * 0.9)]! };
  };
  const create = await alone(`${origin}/api/sales-orders`, createBody, 201);
  const bulk = await alone(`${origin}/api/sales-orders/bulk`, bulkBody, 201);
  return { create, bulk };
};

export const describeAlone = ({ create, bulk }: AloneLatencies) => {
  const ms = (value: number) => value.toFixed(1);
  return (
    `one at a time (30 each, nothing else running): a create p50 ${ms(create.p50)} ms (p90 ${ms(create.p90)}), ` +
    `a bulk of ${BULK_ORDERS} p50 ${ms(bulk.p50)} ms (p90 ${ms(bulk.p90)}): ${(bulk.p50 / create.p50).toFixed(1)} x a create's ` +
    `latency for ${BULK_ORDERS} x its orders`
  );
};

/** The import row's rate against the bulk rows' (target: at least 1 x), when both ran. */
export const importAgainstBulk = (rows: Row[]): string | undefined => {
  const importRow = rows.find((row) => row.scenario.startsWith('import: '));
  const bulkRows = rows.filter((row) => row.scenario === BULK_ROW || row.scenario === BULK_ONE_ROW);
  if (!importRow || bulkRows.length === 0) return undefined;
  return (
    `import against bulk calls (target: at least 1 x): ` +
    bulkRows
      .map(
        (row) =>
          `${(importRow.rps / Math.max(1, ordersPerSecond(row))).toFixed(2)} x the bulk rate with ` +
          `${row.scenario === BULK_ONE_ROW ? 'one call at a time' : `${bulkConnections} calls at once`} (${ordersPerSecond(row)} orders/s)`,
      )
      .join(', ')
  );
};
