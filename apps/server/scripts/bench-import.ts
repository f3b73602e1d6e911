import { loadavg } from 'node:os';

/**
 * The import rows of `pnpm bench`: a CSV of BENCH_IMPORT_ORDERS (default 10,000)
 * orders of the create row's five lines, in one series, sent to POST /imports on the one service
 * process; its orders per second from the upload to `completed` (the service's default chunk of
 * IMPORT_CHUNK_SIZE orders); and, while it runs, whatever `beside` measures (bench.ts: nothing
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

/**
 * fetch, with a failure that names its request and the socket's error: `fetch failed` alone
 * (ECONNRESET, twice in earlier runs, not reproduced since) does not say which call met it.
 * A GET (the progress reads) is sent once more when its kept-alive connection was reset: the
 * service may close an idle connection just as it is reused.
 */
export const benchFetch = async (url: string, init: RequestInit = {}): Promise<Response> => {
  const method = init.method ?? 'GET';
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fetch(url, init);
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      if (method === 'GET' && attempt === 1 && cause?.code === 'ECONNRESET') continue;
      throw new Error(
        `${method} ${url}: ${(error as Error).message} (${cause?.code ?? cause?.message ?? 'no cause'})`,
        {
          cause: error,
        },
      );
    }
  }
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
