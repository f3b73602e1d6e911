import type { PrismaClient } from './generated/prisma/client.js';
import { createDropdownService } from './master-data/dropdown-service.js';
import { createLicenceService } from './licences/licence-service.js';
import { createOrderHistoryService } from './orders/order-history.js';
import { createOrderListService } from './orders/order-list-service.js';
import { calculateTotals } from './orders/order-pricing.js';
import { createSalesOrderService } from './orders/sales-order-service.js';

/** Every use case, wired to one database. */
export const createServices = (prisma: PrismaClient) => ({
  orders: createSalesOrderService(prisma),
  orderList: createOrderListService(prisma),
  orderHistory: createOrderHistoryService(prisma),
  licences: createLicenceService(prisma),
  dropdowns: createDropdownService(prisma),
  totals: { calculate: calculateTotals },
});

export type Services = ReturnType<typeof createServices>;
