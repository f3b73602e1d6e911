import type { AppConfig } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';
import { createDropdownService } from './master-data/dropdown-service.js';
import { createLicenceService } from './licences/licence-service.js';
import { calculateTotals } from './orders/order-pricing.js';
import { createSalesOrderService } from './orders/sales-order-service.js';

/** Every use case, wired to one database. */
export const createServices = (prisma: PrismaClient, config: Pick<AppConfig, 'orderNumberMaxAhead'>) => ({
  orders: createSalesOrderService(prisma, { orderNumberMaxAhead: BigInt(config.orderNumberMaxAhead) }),
  licences: createLicenceService(prisma),
  dropdowns: createDropdownService(prisma),
  totals: { calculate: calculateTotals },
});

export type Services = ReturnType<typeof createServices>;
