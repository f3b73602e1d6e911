/** The clerk's checks while an order is typed: validate-licence and max-number. */
import type { Scenario } from './rows.js';

export const checkScenarios = (origin: string): Scenario[] => [
  {
    name: 'POST validate-licence (3 products)',
    against: 'hello',
    method: 'POST',
    url: `${origin}/api/sales-orders/validate-licence`,
    body: {
      sales_order_details: [
        { product_id: 1, quantity: 5 },
        { product_id: 2, quantity: 1 },
        { product_id: 6, quantity: 3 },
      ],
    },
  },
  {
    name: 'GET max-number',
    against: 'hello',
    method: 'GET',
    url: `${origin}/api/sales-orders/max-number?year_id=3&location_id=1`,
  },
];
