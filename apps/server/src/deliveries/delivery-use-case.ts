import type { Delivery, ListDeliveriesQuerySchema } from '@sales-order/contract';
import type { z } from 'zod';

import type { AccessContext } from '../auth/access-context.js';
import type { TransactionPort } from '../db/transactions.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import type { Expected } from '../orders/order-preconditions.js';

/** What every delivery use case is given: the database, the tolerance, and today where the business is. */
export interface DeliveryDeps {
  transactions: TransactionPort;
  /** OVER_DELIVERY_TOLERANCE_PERCENT, as exact decimal text. */
  tolerancePercent: string;
  /** Today's calendar date in BUSINESS_TIME_ZONE. */
  today: () => Date;
}

/** Who writes, what it expects of the order (If-Match), and the Idempotency-Key's guard. */
export interface DeliveryWriteRequest {
  access: AccessContext;
  expected?: Expected;
  idempotency?: IdempotencyGuard<Delivery>;
}

/** GET /deliveries' query as the contract reads it (cursor decoded). */
export type ListDeliveriesFilters = z.output<typeof ListDeliveriesQuerySchema>;
