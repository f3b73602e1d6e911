import { apiKeyMethods } from './api-keys.js';
import { changeMethods } from './changes.js';
import { deliveryMethods } from './deliveries.js';
import { eventMethods } from './events.js';
import { importMethods } from './imports.js';
import type { SalesOrderClientOptions } from './options.js';
import { orderMethods } from './orders.js';
import { reportMethods } from './reports.js';
import { clientContext } from './transport.js';
import { webhookMethods } from './webhooks.js';

// Every data type of the contract, as plain TypeScript.
export * from './errors.js';
export type { EventFeed, EventOf, EventPageOf, ListEventsOptions } from './events.js';
export type * from './generated/contract-types.js';
export type { ImportFormat, StartImportOptions } from './imports.js';
export type * from './options.js';
export type {
  DefaultReportMetric,
  SalesReportKeyFields,
  SalesReportMetrics,
  SalesReportOptions,
  SalesReportPage,
  SalesReportRowOf,
} from './reports.js';
export { verifyWebhook, type WebhookEvent, type WebhookHeaders, WebhookVerificationError } from './webhooks.js';
export {
  AccessCode,
  ApiKeyCode,
  AuthenticationCode,
  ChangeCode,
  DeliveryCode,
  DETAIL_CODES,
  ErrorCode,
  EVENT_SUBJECTS,
  EVENT_TYPES,
  ImportCode,
  LicenceWarningCode,
  LifecycleCode,
  PING_EVENT_TYPE,
  ReportCode,
  RequestCode,
  SALES_ORDER_STATUSES,
  SchemaIssueCode,
  ServiceCode,
  ValidationCode,
  WebhookCode,
  WriteSafetyCode,
} from '@sales-order/contract';

/**
 * A client for the sales order service: one typed method per route, each resource's in a file
 * of its own. Each resolves with the `data` of the success envelope and rejects with a
 * SalesOrderApiError (a subclass for 409, 412 and 428) or, when no response arrived, a
 * SalesOrderNetworkError.
 */
export const createSalesOrderClient = (options: SalesOrderClientOptions) => {
  const context = clientContext(options);
  return {
    ...orderMethods(context),
    ...changeMethods(context),
    ...eventMethods(context),
    ...webhookMethods(context),
    ...importMethods(context),
    ...apiKeyMethods(context),
    ...reportMethods(context),
    ...deliveryMethods(context),
  };
};

export type SalesOrderClient = ReturnType<typeof createSalesOrderClient>;
