import type { AppConfig } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';
import { createIdempotencyService } from './idempotency/idempotency-service.js';
import { createLicenceService } from './licences/licence-service.js';
import { createDropdownService } from './master-data/dropdown-service.js';
import { createOrderHistoryService } from './orders/order-history.js';
import { createOrderListService } from './orders/order-list-service.js';
import { calculateTotals } from './orders/order-pricing.js';
import { createSalesOrderService } from './orders/sales-order-service.js';
import { todayIn } from './shared/calendar.js';

/** Every use case, wired to one database; "today" is where the business is. */
export const createServices = (
  prisma: PrismaClient,
  {
    businessTimeZone,
    orderNumberMaxAhead,
    idempotency,
    masterDataCacheTtlMs,
  }: Pick<AppConfig, 'businessTimeZone' | 'orderNumberMaxAhead' | 'idempotency' | 'masterDataCacheTtlMs'>,
) => ({
  orders: createSalesOrderService(prisma, { orderNumberMaxAhead: BigInt(orderNumberMaxAhead) }),
  orderList: createOrderListService(prisma),
  orderHistory: createOrderHistoryService(prisma),
  idempotency: createIdempotencyService(prisma, idempotency),
  licences: createLicenceService(prisma, () => todayIn(businessTimeZone)),
  dropdowns: createDropdownService(prisma, { cacheTtlMs: masterDataCacheTtlMs }),
  totals: { calculate: calculateTotals },
});

export type Services = ReturnType<typeof createServices>;
