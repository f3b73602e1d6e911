import { encodeReportCursor, type SalesReport, type SalesReportFilters } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { jsonObjectText, JsonText } from '../shared/json-text.js';
import { type ReportDeps, reportSpecOf } from './report-spec.js';
import { salesReportStore } from './store/sales-report-store.js';

/**
 * A page of a sales report: one statement, so the rows, the totals over every row and the
 * position of the next page come from one snapshot, and the cost does not grow with the pages of
 * orders behind it. The rows and totals come rendered by the statement and go to the answer as
 * its text (exact sums, never a float in between).
 */
export const getSalesReport = async (
  { transactions, statementTimeoutMs }: ReportDeps,
  access: AccessContext,
  query: SalesReportFilters,
): Promise<JsonText<SalesReport>> => {
  const page = await salesReportStore.page(
    transactions.reader,
    reportSpecOf(access, query),
    query.after,
    query.limit,
    statementTimeoutMs,
  );
  const next =
    page.more && page.last ? encodeReportCursor({ s: query.sort, g: query.group_by.join(','), v: page.last }) : null;
  return jsonObjectText<SalesReport>({
    rows: new JsonText(page.rows),
    totals: new JsonText(page.totals),
    next_cursor: next,
  });
};
