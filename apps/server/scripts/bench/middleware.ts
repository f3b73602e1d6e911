/**
 * The production middleware: a request whose own work is nothing (the cached options of a
 * one-row master table, one option) through every middleware an API request passes (log,
 * security headers, CORS, rate limit, authentication, CSRF, permission, query and body checks,
 * the contract's validation, the envelope).
 */
import { SCENARIO, type Scenario } from './rows.js';

/** Target: the production middleware's CPU per request at most this, in µs (a cap, not a goal). */
const MIDDLEWARE_CPU_CAP_US = 200;

export const middlewareScenario = (origin: string): Scenario => ({
  name: SCENARIO.middleware,
  against: 'hello',
  cpuCap: MIDDLEWARE_CPU_CAP_US,
  method: 'GET',
  url: `${origin}/api/sales-orders/dropdown-options/ports?limit=1`,
});
