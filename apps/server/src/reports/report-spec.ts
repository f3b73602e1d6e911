import type { SalesOrderStatus, SalesReportFilters } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { TransactionPort } from '../db/transactions.js';
import { orderFilterOf } from '../orders/list-orders.js';
import type { SalesReportSpec } from './store/sales-report-store.js';

/** What the report use cases are given: the database and the report settings. */
export interface ReportDeps {
  transactions: TransactionPort;
  /** REPORT_STATEMENT_TIMEOUT_MS */
  statementTimeoutMs: number;
  /** REPORT_CSV_MAX_ROWS */
  csvMaxRows: number;
}

/** Without `status`, a report counts what is live: cancelled orders only when asked for. */
const REPORTED_STATUSES: SalesOrderStatus[] = ['draft', 'confirmed', 'closed'];

/**
 * The store's report of a request: the order list's own filter in the caller's scope (the same
 * function the list uses, so a report adds up what the list shows), the grouping, the metrics and
 * the order of the rows.
 */
export const reportSpecOf = (access: AccessContext, query: SalesReportFilters): SalesReportSpec => ({
  filter: orderFilterOf(access, { ...query, status: query.status ?? REPORTED_STATUSES }),
  groupBy: query.group_by,
  metrics: query.metrics,
  dateBasis: query.date_basis,
  sort: query.sort,
});
