/** The single service's scenarios, in the order they run: one file a route or a family of rows. */
import { bulkScenarios } from './bulk.js';
import { calculateTotalsScenario } from './calculate-totals.js';
import { checkScenarios } from './checks.js';
import { confirmScenarios } from './confirm.js';
import { create500Scenario, createScenario } from './create.js';
import { deliveryScenarios } from './deliveries.js';
import { licenceScenarios } from './licence.js';
import { listScenarios } from './list.js';
import { middlewareScenario } from './middleware.js';
import { readScenarios } from './read.js';
import type { Scenario } from './rows.js';
import type { Target } from './target.js';
import { updateScenarios } from './update.js';
import { webhookScenario } from './webhooks.js';

export const scenariosOf = (target: Target, scopedHeaders: Record<string, string>): Scenario[] => [
  calculateTotalsScenario(target.origin),
  middlewareScenario(target.origin),
  ...readScenarios(target, scopedHeaders),
  ...checkScenarios(target.origin),
  ...listScenarios(target.origin, scopedHeaders),
  createScenario(target.origin),
  ...bulkScenarios(target.origin),
  webhookScenario(target.origin),
  ...confirmScenarios(target),
  ...deliveryScenarios(target),
  ...licenceScenarios(target),
  create500Scenario(target.origin),
  ...updateScenarios(target),
];
