import { SalesOrderNetworkError } from './errors.js';
import type { ReportGroupKey, ReportMetric, SalesReportQuery, SalesReportRow } from './generated/contract-types.js';
import type { SalesOrderClientOptions } from './options.js';
import { authorizationHeader, type ClientContext, errorOf, unwrap } from './transport.js';

/**
 * The SDK's sales reports (GET /reports/sales): a page with rows typed by the group keys and
 * metrics asked for, the pages one after another, and the CSV as a text stream. Composed into
 * the client by `createSalesOrderClient` (index.ts).
 */

/** What each group key adds to a row: its id and name, or its value. */
export interface SalesReportKeyFields {
  location: Required<Pick<SalesReportRow, 'location_id' | 'location_name'>>;
  customer: Required<Pick<SalesReportRow, 'customer_id' | 'customer_name'>>;
  product: Required<Pick<SalesReportRow, 'product_id' | 'product_name'>>;
  /** null: orders without a field officer. */
  field_officer: { field_officer_id: number | null; field_officer_name: string | null };
  /** null: orders without a port. */
  port: { port_id: number | null; port_name: string | null };
  status: Required<Pick<SalesReportRow, 'status'>>;
  delivery_status: Required<Pick<SalesReportRow, 'delivery_status'>>;
  financial_year: Required<Pick<SalesReportRow, 'financial_year_id' | 'financial_year_code'>>;
  /** `YYYY-MM`. */
  month: { month: string };
  /** `YYYY-MM-DD`. */
  day: { day: string };
}

type Intersection<U> = (U extends unknown ? (each: U) => void : never) extends (all: infer I) => void ? I : never;

/** The metrics asked for, each a number (counts are integers; sums exact to their decimals). */
export type SalesReportMetrics<M extends ReportMetric> = { [P in M]: number };

/** A row of a report grouped by `K` with metrics `M`: each key's fields and each metric, nothing else. */
export type SalesReportRowOf<K extends ReportGroupKey, M extends ReportMetric> = Intersection<SalesReportKeyFields[K]> &
  SalesReportMetrics<M>;

/** The metrics a report answers when none are asked for. */
export type DefaultReportMetric = 'order_count' | 'grand_total';

/** A page of a report grouped by `K` with metrics `M`: its rows, the totals over every row, the next page's cursor. */
export interface SalesReportPage<K extends ReportGroupKey, M extends ReportMetric> {
  rows: SalesReportRowOf<K, M>[];
  totals: SalesReportMetrics<M>;
  next_cursor: string | null;
}

/**
 * A report's query with the group keys and metrics as lists (typing the rows), and the rest as
 * GET /reports/sales takes it: `status` comma-separated, dates `YYYY-MM-DD`, `sort` a key or metric
 * asked for (`-grand_total`), `limit` 1..1000, `cursor` a page's `next_cursor`.
 */
export type SalesReportOptions<K extends ReportGroupKey, M extends ReportMetric> = Omit<
  SalesReportQuery,
  'group_by' | 'metrics' | 'format'
> & {
  group_by: readonly K[];
  metrics?: readonly M[] | undefined;
};

/** The query string's form of the options: lists comma-separated, undefined left out. */
const queryOf = ({
  group_by,
  metrics,
  ...rest
}: SalesReportOptions<ReportGroupKey, ReportMetric>): Record<string, string | number | boolean> => ({
  ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
  group_by: group_by.join(','),
  ...(metrics === undefined ? {} : { metrics: metrics.join(',') }),
});

/**
 * A GET whose answer is left unread for the caller to stream (a report's CSV), with the client's
 * credentials and headers; a failed answer rejects with the typed error, no answer with
 * SalesOrderNetworkError.
 */
const streamed = async (options: SalesOrderClientOptions, url: string, headers: Record<string, string>) => {
  const { auth, fetch: fetchImpl } = options;
  let response: Response;
  try {
    response = await (fetchImpl ?? globalThis.fetch)(url, {
      method: 'GET',
      headers: { ...options.headers, ...headers, ...(await authorizationHeader(auth)) },
      credentials: auth?.type === 'session' ? 'include' : 'same-origin',
    });
  } catch (error) {
    throw new SalesOrderNetworkError(`GET ${url} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (response.ok && response.body) return response.body;
  const text = await response.text();
  const json = /^application\/(?:[\w.-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '');
  throw errorOf({
    status: response.status,
    body: json && text !== '' ? (JSON.parse(text) as unknown) : text,
    headers: response.headers,
  });
};

/** Reports: a page with typed rows, the pages in turn, the CSV as a text stream. */
export const reportMethods = ({ client, options, baseUrl }: ClientContext) => {
  /**
   * GET /reports/sales: one page of the report, its rows typed by the group keys and metrics
   * asked for (`{ group_by: ['location', 'month'], metrics: ['order_count', 'grand_total'] }`);
   * `totals` are over every row, not only the page's. Quantities need `product` among the keys
   * (SalesOrderApiError 400 `quantity_needs_product` otherwise).
   */
  const salesReport = <K extends ReportGroupKey, M extends ReportMetric = DefaultReportMetric>(
    query: SalesReportOptions<K, M>,
  ): Promise<SalesReportPage<K, M>> =>
    unwrap(client.getSalesReport({ query: queryOf(query) as SalesReportQuery })) as Promise<SalesReportPage<K, M>>;

  return {
    salesReport,
    /**
     * Every page of a report, one after the other, for
     * `for await (const page of client.salesReportPages({ group_by: ['customer'] }))`.
     */
    salesReportPages: async function* <K extends ReportGroupKey, M extends ReportMetric = DefaultReportMetric>(
      options: Omit<SalesReportOptions<K, M>, 'cursor'>,
    ): AsyncGenerator<SalesReportPage<K, M>, void, undefined> {
      let cursor: string | undefined;
      do {
        const page = await salesReport<K, M>({ ...options, ...(cursor === undefined ? {} : { cursor }) });
        yield page;
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
    /**
     * The whole report as CSV (every row, no paging; a header row; cells that would start a
     * spreadsheet formula prefixed with `'`), as text chunks as they arrive
     * (`for await (const chunk of csv)`). More rows than
     * the service's REPORT_CSV_MAX_ROWS reject with SalesOrderApiError 422 `report_too_large`.
     */
    salesReportCsv: async <K extends ReportGroupKey, M extends ReportMetric = DefaultReportMetric>(
      query: Omit<SalesReportOptions<K, M>, 'cursor' | 'limit'>,
    ): Promise<AsyncIterable<string>> => {
      const search = new URLSearchParams(
        Object.entries(queryOf(query)).map(([name, value]): [string, string] => [name, String(value)]),
      );
      const body = await streamed(options, `${baseUrl}/reports/sales?${search.toString()}`, { accept: 'text/csv' });
      // Read through the stream's reader: not every runtime's ReadableStream is async-iterable.
      const reader = body.pipeThrough(new TextDecoderStream()).getReader();
      return (async function* () {
        try {
          for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) yield chunk.value;
        } finally {
          reader.releaseLock();
        }
      })();
    },
  };
};
