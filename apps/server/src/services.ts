import type { PrismaClient } from './generated/prisma/client.js';
import { type IdempotencyOptions, createIdempotencyService } from './idempotency/idempotency-service.js';
import { createDropdownService } from './master-data/dropdown-service.js';
import { createLicenceService } from './licences/licence-service.js';
import { calculateTotals } from './orders/order-pricing.js';
import { createSalesOrderService } from './orders/sales-order-service.js';

/** Every use case, wired to one database. */
export const createServices = (prisma: PrismaClient, { idempotency }: { idempotency: IdempotencyOptions }) => ({
  orders: createSalesOrderService(prisma),
  idempotency: createIdempotencyService(prisma, idempotency),
  licences: createLicenceService(prisma),
  dropdowns: createDropdownService(prisma),
  totals: { calculate: calculateTotals },
});

export type Services = ReturnType<typeof createServices>;
