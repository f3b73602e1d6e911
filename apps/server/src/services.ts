import type { ListEventsFilters } from '@sales-order/contract';

import { createApiKeyManagement } from './api-keys/api-key-management.js';
import type { TransactionPort } from './db/transactions.js';
import type { EventProcessing } from './events/event-processing.js';
import { listEvents } from './events/feed.js';
import { createWebhookDeliveries } from './events/webhook-deliveries.js';
import { createWebhookEndpoints } from './events/webhook-endpoints.js';
import { createIdempotencyService } from './idempotency/idempotency-service.js';
import { createLicenceService } from './licences/licence-service.js';
import { createDropdownService } from './master-data/dropdown-service.js';
import { calculateTotals } from './orders/order-pricing.js';
import { createOrderUseCases } from './orders/order-use-cases.js';
import { todayIn } from './shared/calendar.js';
import type { AppConfig } from './startup/config.js';

/** Every use case, wired to one database; "today" is where the business is. */
export const createServices = (
  transactions: TransactionPort,
  {
    businessTimeZone,
    orderNumberMaxAhead,
    idempotency,
    masterDataCacheTtlMs,
    webhooks,
  }: Pick<AppConfig, 'businessTimeZone' | 'orderNumberMaxAhead' | 'idempotency' | 'masterDataCacheTtlMs' | 'webhooks'>,
  { queue, sender, resolve }: Pick<EventProcessing, 'queue' | 'sender' | 'resolve'>,
) => ({
  orders: createOrderUseCases({ transactions, orderNumberMaxAhead: BigInt(orderNumberMaxAhead) }),
  idempotency: createIdempotencyService(transactions.db, idempotency),
  licences: createLicenceService(transactions.db, () => todayIn(businessTimeZone)),
  dropdowns: createDropdownService(transactions.db, { cacheTtlMs: masterDataCacheTtlMs }),
  totals: { calculate: calculateTotals },
  events: { list: (query: ListEventsFilters) => listEvents(transactions.db, query) },
  webhookEndpoints: createWebhookEndpoints({
    transactions,
    queue,
    resolve,
    allowHttp: webhooks.allowHttp,
    allowPrivateNetworks: webhooks.allowPrivateNetworks,
  }),
  webhookDeliveries: createWebhookDeliveries({ transactions, queue, sender }),
  apiKeys: createApiKeyManagement({ transactions }),
});

export type Services = ReturnType<typeof createServices>;
