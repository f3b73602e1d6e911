/** POST calculate-totals: the stack's and the middleware's cost beside a little arithmetic. */
import { totalsBody } from './bodies.js';
import { FLOOR, SCENARIO, type Scenario } from './rows.js';

/** Target: calculate-totals at least this share of its floor's req/s. */
const CALCULATE_TOTALS_FLOOR_TARGET = 0.6;

export const calculateTotalsScenario = (origin: string): Scenario => ({
  name: SCENARIO.calculateTotals,
  against: 'hello',
  method: 'POST',
  url: `${origin}/api/sales-orders/calculate-totals`,
  body: totalsBody,
  floor: FLOOR.calculateTotals,
  floorTarget: CALCULATE_TOTALS_FLOOR_TARGET,
});
