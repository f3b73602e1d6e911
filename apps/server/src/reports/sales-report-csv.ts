import { GROUP_KEY_FIELDS, ReportCode, type ReportMetric, type SalesReportFilters } from '@sales-order/contract';
import { type CastingContext, stringify } from 'csv-stringify/sync';

import type { AccessContext } from '../auth/access-context.js';
import { unprocessable } from '../errors/domain-error.js';
import { type ReportDeps, reportSpecOf } from './report-spec.js';
import { type CsvRow, salesReportStore } from './store/sales-report-store.js';

/**
 * Cells as a spreadsheet reads them safely: RFC 4180 (CRLF between records, a cell with a comma,
 * quote or line break quoted, quotes doubled) and, for text (names, codes), a leading quote
 * before =, +, -, @, tab or carriage return (csv-stringify's escape_formulas: OWASP's CSV
 * injection advice), so opening the file runs nothing. Numbers are written exactly as they are,
 * a negative one included.
 */
const csvOf = (
  rows: Record<string, string | null>[],
  columns: string[],
  numbers: ReadonlySet<string>,
  header: boolean,
) =>
  stringify(rows, {
    header,
    columns,
    record_delimiter: 'windows',
    escape_formulas: true,
    cast: {
      string: (value: string, { column }: CastingContext) =>
        typeof column === 'string' && numbers.has(column) ? { value, escape_formulas: false } : value,
    },
  });

/**
 * Every row of a sales report as CSV, a batch of rows at a time: a header row, then the rows in
 * the request's order (no paging). More than REPORT_CSV_MAX_ROWS rows is 422 report_too_large,
 * known from the statement's first batch, before anything is written.
 */
export const getSalesReportCsv = async (
  { transactions, statementTimeoutMs, csvMaxRows }: ReportDeps,
  access: AccessContext,
  query: SalesReportFilters,
): Promise<AsyncIterable<string>> => {
  const batches = salesReportStore.rows(
    transactions.reader,
    reportSpecOf(access, query),
    csvMaxRows,
    statementTimeoutMs,
  );
  const first = await batches.next();
  const rows = first.done ? 0 : Number(first.value[0]?.row_count ?? 0);
  if (rows > csvMaxRows) {
    await batches.return();
    throw unprocessable(
      [
        {
          path: '',
          message: `the report has ${rows} rows, more than REPORT_CSV_MAX_ROWS (${csvMaxRows}): narrow the filters or group by fewer keys`,
          code: ReportCode.reportTooLarge,
        },
      ],
      'Report too large',
    );
  }
  const columns = [...query.group_by.flatMap((key) => GROUP_KEY_FIELDS[key]), ...query.metrics];
  const numbers = new Set<string>(query.metrics satisfies ReportMetric[]);
  const cells = (batch: CsvRow[]) => batch.map(({ row_count: _count, ...row }) => row as Record<string, string | null>);
  return (async function* () {
    yield csvOf([], columns, numbers, true);
    if (first.done) return;
    yield csvOf(cells(first.value), columns, numbers, false);
    for await (const batch of batches) yield csvOf(cells(batch), columns, numbers, false);
  })();
};
