/** A row of the bench's table, the scenarios that make them, and the names other rows refer to. */
import type { Load } from './load.js';

/** The fixed stack's own rows (scripts/bench-floor.mjs), by name. */
export const FLOOR = {
  calculateTotals: 'floor: Express + ts-rest + contract, calculate-totals answer',
  getOrder: 'floor: Express + ts-rest + contract + one Prisma round trip, GET order answer',
  list: 'floor: Express + ts-rest + contract + one Prisma round trip, list page answer',
};
/**
 * The reads' floors of one `pg` round trip (scripts/bench-pg-floor.mjs): the service's own
 * statement, its text answered by a bare node:http server.
 */
export const PG_FLOOR = {
  getOrder: 'floor: node:http + one pg round trip of the read statement, its text',
  list: 'floor: node:http + one pg round trip of the page statement, its text',
};
/** The scenarios the floors stand under, by name (a floor runs when its scenario does). */
export const SCENARIO = {
  calculateTotals: 'POST calculate-totals',
  getOrder: 'GET order (5 lines)',
  list: 'GET list, page of 50 (newest first)',
  /**
   * A request whose own work is nothing (the cached options of a one-row master table, one
   * option): what the production middleware and the stack cost every request.
   */
  middleware: 'GET dropdown-options (cached, 1 option): the production middleware',
};
/** The same reads by a caller scoped to one location (the scope's cost; target <= 10 %). */
export const SCOPED = {
  getOrder: `${SCENARIO.getOrder}, caller scoped to one location`,
  list: `${SCENARIO.list}, caller scoped to one location`,
};
export const CREATE_ROW = 'POST order (5 lines, server numbering, one series)';

export interface Row {
  scenario: string;
  rps: number;
  /** Latencies of the requests; null for a row of another unit (the import's orders per second). */
  p50: number | null;
  p99: number | null;
  failed: number;
  /** Requests answered, whatever their status. */
  answered: number;
  /** failureNote: what the failed requests were, when any failed. */
  failures: string;
  rssMb: number | null;
  /** The serving process's CPU time per request, in µs; null for a cluster (its work is in the workers). */
  cpuUs: number | null;
  /** For a cluster: the largest worker's peak and the whole cluster's, instead of rssMb. */
  rssNote?: string;
  /** The floor row (FLOOR) this route is also read against: its req/s over the floor's. */
  floor?: string;
  /** The `pg` floor row (PG_FLOOR) this route is also read against. */
  pgFloor?: string;
  /** For a scoped caller's row: the unscoped caller's row of the same request. */
  unscoped?: string;
  /** For a read beside other work (the import): the same read's row on an otherwise idle service. */
  idle?: string;
  /** A target on the row's req/s over its floor's (`floor`), printed beside it. */
  floorTarget?: number;
  /** A cap on the row's CPU per request, in µs, printed beside it. */
  cpuCap?: number;
  /**
   * For the licence history's large row: the small row it is read against (its req/s over this
   * one's is the large history's cost, at most LICENCE_HISTORY_TARGET).
   */
  history?: string;
  /**
   * A bound on this row against another row run before it (`row`, by name): `cpu`, this row's
   * CPU per request over the other's; `cost`, the other's req/s over this one's; at most `at`.
   */
  bound?: { row: string; label: string; on: 'cpu' | 'cost'; at: number };
  /**
   * `read` / `create`: compared with the cost of the 5-line read / create (its req/s over this
   * one's); `create-rate`: this row's req/s over the 5-line create's (confirms against creates);
   * `bulk`: its orders per second over the 5-line create's, and its latency over the create's;
   * `bound`: both its cost and its CPU over `bound.row`'s.
   */
  against:
    | 'hello'
    | 'pgbench'
    | 'read'
    | 'create'
    | 'create-rate'
    | 'update'
    | 'metrics'
    | 'unscoped'
    | 'idle'
    | 'bulk'
    | 'history'
    | 'bound'
    | null;
}

export type Scenario = Load &
  Pick<Row, 'against' | 'floor' | 'pgFloor' | 'unscoped' | 'floorTarget' | 'cpuCap' | 'history' | 'bound'> & {
    name: string;
    webhook?: true;
    /** Work done right before the scenario, after those listed above it: what it sends. */
    prepare?: () => Promise<Partial<Load>>;
  };
