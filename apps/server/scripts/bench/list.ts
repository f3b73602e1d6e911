/**
 * GET /sales-orders: the first page, the same by a scoped caller, a later page, a filter with
 * another sort, a search and the sync feed (on BENCH_LIST_ORDERS loaded orders on a server).
 */
import { FLOOR, PG_FLOOR, SCENARIO, type Scenario, SCOPED } from './rows.js';

export const listScenarios = (origin: string, scopedHeaders: Record<string, string>): Scenario[] => [
  {
    name: SCENARIO.list,
    against: 'hello',
    floor: FLOOR.list,
    pgFloor: PG_FLOOR.list,
    method: 'GET',
    url: `${origin}/api/sales-orders?limit=50`,
  },
  {
    name: SCOPED.list,
    against: 'unscoped',
    unscoped: SCENARIO.list,
    method: 'GET',
    url: `${origin}/api/sales-orders?limit=50`,
    headers: scopedHeaders,
  },
  {
    name: 'GET list, a later page',
    against: 'hello',
    method: 'GET',
    // The cursor after (2025-06-01, id 100000) in the default sort.
    url: `${origin}/api/sales-orders?limit=50&cursor=${Buffer.from(JSON.stringify({ s: '-sales_order_date', k: '2025-06-01', i: 100_000 })).toString('base64url')}`,
  },
  {
    name: 'GET list, customer by grand total',
    against: 'hello',
    method: 'GET',
    url: `${origin}/api/sales-orders?limit=50&customer_id=12&sort=-grand_total`,
  },
  { name: 'GET list, q=a1b2', against: 'hello', method: 'GET', url: `${origin}/api/sales-orders?limit=50&q=a1b2` },
  {
    name: 'GET list, sync feed',
    against: 'hello',
    method: 'GET',
    url: `${origin}/api/sales-orders?limit=50&updated_since=2026-01-20T00:00:00Z&include_deleted=true&sort=updated_at`,
  },
];
