/** GET order: 5 lines, the same by a caller scoped to one location, and 500 lines. */
import { FLOOR, PG_FLOOR, SCENARIO, type Scenario, SCOPED } from './rows.js';

export const readScenarios = (
  { origin, orderId, largeOrderId }: { origin: string; orderId: number; largeOrderId: number },
  scopedHeaders: Record<string, string>,
): Scenario[] => [
  {
    name: SCENARIO.getOrder,
    against: 'hello',
    floor: FLOOR.getOrder,
    pgFloor: PG_FLOOR.getOrder,
    method: 'GET',
    url: `${origin}/api/sales-orders/${orderId}`,
  },
  {
    name: SCOPED.getOrder,
    against: 'unscoped',
    unscoped: SCENARIO.getOrder,
    method: 'GET',
    url: `${origin}/api/sales-orders/${orderId}`,
    headers: scopedHeaders,
  },
  {
    name: 'GET order (500 lines)',
    against: 'read',
    method: 'GET',
    url: `${origin}/api/sales-orders/${largeOrderId}`,
  },
];
