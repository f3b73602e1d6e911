import { loadavg } from 'node:os';

import { createBody, fiveLines, today } from './bodies.js';
import { load, measure } from './load.js';
import { peakRss } from './processes.js';
import { SCENARIO } from './rows.js';
import type { Run } from './run.js';
import { benchFetch } from './setup.js';

/**
 * The import rows of `pnpm bench`: a CSV of BENCH_IMPORT_ORDERS (default 10,000)
 * orders of the create row's five lines, in one series, sent to POST /imports on the one service
 * process; its orders per second from the upload to `completed` (the service's default chunk of
 * IMPORT_CHUNK_SIZE orders); and, while it runs, whatever `beside` measures (the bench: nothing
 * for the import alone, then GET order driven as its idle row is, whose p99 is read against the
 * idle row's: target within 2 x). The machine's load average is taken at the upload and at the end.
 */

export interface ImportFigures {
  orders: number;
  rows: number;
  megabytes: number;
  seconds: number;
  ordersPerSecond: number;
  created: number;
  failed: number;
  state: string;
  /** Whether the import was still running when `beside` ended: the measurement beside it was beside it all along. */
  besideWhileRunning: boolean;
  /**
   * Orders per second from the end of `beside` to the end of the import: its rate with nothing
   * else driving the service (null when it ended first). The headline rate includes the time
   * the GET load shared the service with it.
   */
  afterBesidePerSecond: number | null;
  /** os.loadavg()'s 1-minute figure at the upload and at the end. */
  load: [number, number];
}

type Line = { product_id: number; packsize_id?: number; quantity: number; rate: number };

/** The file: one row per line, the order columns on every row. */
export const importCsv = (
  orders: number,
  { customerId, locationId, date, lines }: { customerId: number; locationId: number; date: string; lines: Line[] },
): { csv: string; rows: number } => {
  const rows = ['order_ref,customer_id,location_id,sales_order_date,product_id,packsize_id,quantity,rate'];
  for (let order = 0; order < orders; order += 1)
    for (const line of lines)
      rows.push(
        [
          `bench-${order}`,
          customerId,
          locationId,
          date,
          line.product_id,
          line.packsize_id ?? '',
          line.quantity,
          line.rate,
        ].join(','),
      );
  return { csv: `${rows.join('\n')}\n`, rows: rows.length - 1 };
};

interface ImportReading {
  state: string;
  orders_total: number;
  orders_created: number;
  orders_failed: number;
}

const finished = (reading: ImportReading) => reading.state !== 'queued' && reading.state !== 'running';

/**
 * Uploads `csv`, waits until the import has made its first orders, runs `beside`, then follows
 * the import to its end (polling GET /imports/{id} every 200 ms, for at most `deadlineMs`).
 */
export const importBeside = async <T>(
  { origin, headers, csv, rows }: { origin: string; headers: Record<string, string>; csv: string; rows: number },
  beside: () => Promise<T>,
  deadlineMs = 1_800_000,
): Promise<{ figures: ImportFigures; beside: T }> => {
  const loadAtStart = loadavg()[0]!;
  const started = performance.now();
  // The bench sends the same file again and again: its order_refs are duplicates on purpose.
  const upload = await benchFetch(`${origin}/api/imports?allow_duplicates=true`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'text/csv' },
    body: csv,
  });
  const queued = (await upload.json()) as { data?: ImportReading & { import_id: number } };
  if (upload.status !== 202 || !queued.data) throw new Error(`POST /imports answered ${upload.status}`);
  const id = queued.data.import_id;
  const read = async () => {
    const response = await benchFetch(`${origin}/api/imports/${id}`, { headers });
    return ((await response.json()) as { data: ImportReading }).data;
  };
  const until = async (done: (reading: ImportReading) => boolean) => {
    for (;;) {
      const reading = await read();
      if (done(reading)) return reading;
      if (performance.now() - started > deadlineMs)
        throw new Error(`the import did not finish within ${deadlineMs / 1000} s: ${JSON.stringify(reading)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  await until((reading) => finished(reading) || reading.orders_created + reading.orders_failed > 0);
  const besideResult = await beside();
  const besideEnded = performance.now();
  const atBesideEnd = await read();
  const besideWhileRunning = !finished(atBesideEnd);
  const end = await until(finished);
  const ended = performance.now();
  const seconds = (ended - started) / 1000;
  const doneAfterBeside =
    end.orders_created + end.orders_failed - atBesideEnd.orders_created - atBesideEnd.orders_failed;
  return {
    figures: {
      orders: end.orders_total,
      rows,
      megabytes: Buffer.byteLength(csv) / 1_048_576,
      seconds,
      ordersPerSecond: Math.round(end.orders_total / seconds),
      created: end.orders_created,
      failed: end.orders_failed,
      state: end.state,
      besideWhileRunning,
      afterBesidePerSecond: besideWhileRunning
        ? Math.round(doneAfterBeside / Math.max(0.001, (ended - besideEnded) / 1000))
        : null,
      load: [loadAtStart, loadavg()[0]!],
    },
    beside: besideResult,
  };
};

/** The two imports' line: the file alone (its rate), then the same file with GET order driven beside it. */
export const describeImport = (
  alone: ImportFigures,
  figures: ImportFigures,
  getP99: { beside: number; idle: number },
): string =>
  `import: ${alone.orders.toLocaleString('en-US')} orders (${alone.rows.toLocaleString('en-US')} rows, ` +
  `${alone.megabytes.toFixed(1)} MB) ${alone.state} in ${alone.seconds.toFixed(1)} s alone: ` +
  `${alone.ordersPerSecond} orders/s, ${alone.created} created, ${alone.failed} failed. ` +
  `The same file with GET order driven beside it: ${figures.state} in ${figures.seconds.toFixed(1)} s, ` +
  `${figures.ordersPerSecond} orders/s` +
  (figures.afterBesidePerSecond === null ? '' : ` (${figures.afterBesidePerSecond} once the GET load ended)`) +
  `, ${figures.created} created, ${figures.failed} failed; ` +
  `GET order p99 ${getP99.beside} ms beside it against ${getP99.idle} ms idle ` +
  `(${(getP99.beside / Math.max(1, getP99.idle)).toFixed(1)} x, target <= 2 x` +
  `${figures.besideWhileRunning ? '' : '; the import ended before the GET load did'}); ` +
  `load average ${figures.load[0].toFixed(1)} at the upload, ${figures.load[1].toFixed(1)} at the end`;

/**
 * A file of BENCH_IMPORT_ORDERS orders of the create row's lines in one series, imported alone,
 * then again with GET order driven as its idle row is while the import runs (target: p99 within
 * 2 x): the import's row and the read's beside it, and the line describing both.
 */
export const runImport = async ({ rows, standIn, service, target: { origin, headers, orderId } }: Run) => {
  const read = { method: 'GET' as const, url: `${origin}/api/sales-orders/${orderId}`, headers };
  if (!rows.some((row) => row.scenario === SCENARIO.getOrder)) {
    await standIn?.settle();
    rows.push({ scenario: SCENARIO.getOrder, ...(await measure(service.child.pid, read)), against: 'hello' });
  }
  const orders = Number(process.env.BENCH_IMPORT_ORDERS ?? 10_000);
  const file = importCsv(orders, {
    customerId: createBody.customer_id,
    locationId: createBody.location_id,
    date: today,
    lines: fiveLines,
  });
  // The import alone (its rate, read against the bulk rows), then the same file again with
  // GET order driven beside it: an import gives way to requests (docs/decisions/imports-give-way-to-requests.md), so its
  // rate beside them is not its rate.
  await standIn?.settle();
  const { figures: alone } = await importBeside({ origin, headers, ...file }, () => Promise.resolve());
  await standIn?.settle();
  const { figures, beside } = await importBeside({ origin, headers, ...file }, () =>
    peakRss(service.child.pid, () => load(read, service.child.pid)),
  );
  const failed = alone.failed + figures.failed;
  rows.push({
    scenario: `import: ${orders} five-line orders, one series, CSV (orders/s)`,
    rps: alone.ordersPerSecond,
    p50: null,
    p99: null,
    failed,
    answered: alone.orders + figures.orders,
    failures: failed > 0 ? `${failed} orders of the imports failed` : '',
    rssMb: null,
    cpuUs: null,
    against: 'create-rate',
  });
  rows.push({
    scenario: `${SCENARIO.getOrder} while the import runs`,
    ...beside.result,
    rssMb: beside.rssMb,
    against: 'idle',
    idle: SCENARIO.getOrder,
  });
  const idle = rows.find((row) => row.scenario === SCENARIO.getOrder)!;
  return describeImport(alone, figures, { beside: beside.result.p99, idle: idle.p99 ?? 0 });
};
