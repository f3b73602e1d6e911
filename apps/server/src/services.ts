import type { ListEventsFilters, SalesReportFilters } from '@sales-order/contract';

import { createApiKeyManagement } from './api-keys/api-key-management.js';
import type { AccessContext } from './auth/access-context.js';
import { createChangeUseCases } from './changes/change-use-cases.js';
import type { TransactionPort } from './db/transactions.js';
import { createDeliveryUseCases } from './deliveries/delivery-use-cases.js';
import type { EventProcessing } from './events/event-processing.js';
import { listEvents } from './events/feed.js';
import { createWebhookDeliveries } from './events/webhook-deliveries.js';
import { createWebhookEndpoints } from './events/webhook-endpoints.js';
import { createIdempotencyService } from './idempotency/idempotency-service.js';
import type { BulkQuota } from './imports/import-pace.js';
import { type ImportQueue, startImportQueue } from './imports/import-queue.js';
import { createImportUseCases } from './imports/import-use-cases.js';
import { createUploadTurns } from './imports/upload-turns.js';
import type { Foreground } from './jobs/foreground.js';
import type { JobQueue } from './jobs/job-queue.js';
import { createLicenceService } from './licences/licence-service.js';
import { createDropdownService } from './master-data/dropdown-service.js';
import { calculateTotals } from './orders/order-pricing.js';
import { createOrderUseCases } from './orders/order-use-cases.js';
import { getSalesReport } from './reports/sales-report.js';
import { getSalesReportCsv } from './reports/sales-report-csv.js';
import { todayIn } from './shared/calendar.js';
import type { AppConfig } from './startup/config.js';

/** How long one import job goes on with chunk after chunk (docs/decisions/imports.md). */
const IMPORT_JOB_SECONDS = 30;

/**
 * Every use case, wired to one database; "today" is where the business is. The imports' queue
 * starts here too, on the process's job queue `jobs` (its worker runs in every process);
 * `reportFailure` hears of a chunk that failed (it runs again) or a queue that could not start.
 */
export const createServices = (
  transactions: TransactionPort,
  {
    businessTimeZone,
    overDeliveryTolerancePercent,
    orderNumberMaxAhead,
    idempotency: idempotencyOptions,
    masterDataCacheTtlMs,
    webhooks,
    imports: importOptions,
    reports: reportOptions,
  }: Pick<
    AppConfig,
    | 'businessTimeZone'
    | 'overDeliveryTolerancePercent'
    | 'orderNumberMaxAhead'
    | 'idempotency'
    | 'masterDataCacheTtlMs'
    | 'webhooks'
    | 'imports'
    | 'reports'
  >,
  { queue, sender, resolve }: Pick<EventProcessing, 'queue' | 'sender' | 'resolve'>,
  jobs: JobQueue,
  foreground: Foreground,
  reportFailure: (message: string) => (error: unknown) => void = () => () => {},
  {
    credentials = { forgetKey: () => {} },
    bulkQuota,
  }: {
    /** This process's credential cache, told of a key the API ended (api-keys/api-key-management.ts). */
    credentials?: { forgetKey(id: number): void };
    /** The bulk-order windows an import's chunks count against (imports/import-pace.ts). */
    bulkQuota?: BulkQuota;
  } = {},
) => {
  const idempotency = createIdempotencyService(transactions.db, idempotencyOptions);
  const orders = createOrderUseCases({ transactions, orderNumberMaxAhead: BigInt(orderNumberMaxAhead), idempotency });
  const imports = createImportUseCases({
    transactions,
    orders,
    queue: () => importQueue,
    maxOrders: importOptions.maxOrders,
    chunkSize: importOptions.chunkSize,
    // A job's chunks end well before the job would be taken for a dead process's (its expiry).
    jobSeconds: Math.min(IMPORT_JOB_SECONDS, importOptions.chunkTimeoutSeconds / 4),
    foreground,
    bulkQuota,
    idempotency,
    uploadTurns: createUploadTurns(importOptions.uploadsConcurrent),
    uploadStatementWaitMs: importOptions.uploadStatementWaitMs,
  });
  const importQueue: Promise<ImportQueue> = startImportQueue(jobs, {
    chunkTimeoutSeconds: importOptions.chunkTimeoutSeconds,
    runChunk: imports.runChunk,
    reportFailure: reportFailure('import chunk failed; it runs again'),
  });
  importQueue.catch(reportFailure('the import queue did not start'));
  const reportDeps = {
    transactions,
    statementTimeoutMs: reportOptions.statementTimeoutMs,
    csvMaxRows: reportOptions.csvMaxRows,
  };
  return {
    orders,
    deliveries: createDeliveryUseCases({
      transactions,
      tolerancePercent: overDeliveryTolerancePercent,
      today: () => todayIn(businessTimeZone),
    }),
    changes: createChangeUseCases({ transactions, orderNumberMaxAhead: BigInt(orderNumberMaxAhead) }),
    idempotency,
    imports,
    licences: createLicenceService(transactions.db, () => todayIn(businessTimeZone)),
    dropdowns: createDropdownService(transactions.db, { cacheTtlMs: masterDataCacheTtlMs }),
    totals: { calculate: calculateTotals },
    events: {
      list: (access: AccessContext, query: ListEventsFilters) => listEvents(transactions.db, access, query),
    },
    webhookEndpoints: createWebhookEndpoints({
      transactions,
      queue,
      resolve,
      allowHttp: webhooks.allowHttp,
      allowPrivateNetworks: webhooks.allowPrivateNetworks,
    }),
    webhookDeliveries: createWebhookDeliveries({ transactions, queue, sender }),
    apiKeys: createApiKeyManagement({ transactions, keyEnded: (id) => credentials.forgetKey(id) }),
    reports: {
      salesReport: (access: AccessContext, query: SalesReportFilters) => getSalesReport(reportDeps, access, query),
      salesReportCsv: (access: AccessContext, query: SalesReportFilters) =>
        getSalesReportCsv(reportDeps, access, query),
    },
  };
};

export type Services = ReturnType<typeof createServices>;
