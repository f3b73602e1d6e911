import type { AppConfig } from './config.js';
import type { TransactionPort } from './db/transactions.js';
import { createIdempotencyService } from './idempotency/idempotency-service.js';
import { createLicenceService } from './licences/licence-service.js';
import { createDropdownService } from './master-data/dropdown-service.js';
import { calculateTotals } from './orders/order-pricing.js';
import { createOrderUseCases } from './orders/order-use-cases.js';
import { todayIn } from './shared/calendar.js';

/** Every use case, wired to one database; "today" is where the business is. */
export const createServices = (
  transactions: TransactionPort,
  {
    businessTimeZone,
    orderNumberMaxAhead,
    idempotency,
    masterDataCacheTtlMs,
  }: Pick<AppConfig, 'businessTimeZone' | 'orderNumberMaxAhead' | 'idempotency' | 'masterDataCacheTtlMs'>,
) => ({
  orders: createOrderUseCases({ transactions, orderNumberMaxAhead: BigInt(orderNumberMaxAhead) }),
  idempotency: createIdempotencyService(transactions.db, idempotency),
  licences: createLicenceService(transactions.db, () => todayIn(businessTimeZone)),
  dropdowns: createDropdownService(transactions.db, { cacheTtlMs: masterDataCacheTtlMs }),
  totals: { calculate: calculateTotals },
});

export type Services = ReturnType<typeof createServices>;
