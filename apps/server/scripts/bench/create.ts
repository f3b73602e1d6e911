/** POST order: the create row (5 lines, server numbering, one series) and the same with 500 lines. */
import { create500Body, createBody } from './bodies.js';
import { CREATE_ROW, type Scenario } from './rows.js';

export const createScenario = (origin: string): Scenario => ({
  name: CREATE_ROW,
  against: 'pgbench',
  method: 'POST',
  url: `${origin}/api/sales-orders`,
  body: createBody,
});

export const create500Scenario = (origin: string): Scenario => ({
  name: 'POST order (500 lines)',
  against: 'create',
  method: 'POST',
  url: `${origin}/api/sales-orders`,
  body: create500Body,
});
