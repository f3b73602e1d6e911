// Type checks only (`pnpm typecheck`), never bundled: each method of the client resolves with
// exactly the data its route's 2xx responses carry, as the contract declares them. Assignable is
// not enough (an order's data would pass for Totals, whose fields it has): the types must be the
// same both ways. A route of the contract with no method fails here too.
import type { ApiContract } from '@sales-order/contract';
import type { ClientInferResponses } from '@ts-rest/core';

import type { DetailCode, ErrorDetail, SalesOrderApiError, SalesOrderClient } from './index.js';
import type { DataOf } from './transport.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** The data of a route's success envelope, as ts-rest infers it from the contract. */
type RouteData<K extends keyof ApiContract> = DataOf<ClientInferResponses<ApiContract[K]>>;
type Result<M extends keyof SalesOrderClient> = Awaited<ReturnType<SalesOrderClient[M]>>;
type ItemOf<M extends keyof SalesOrderClient> =
  ReturnType<SalesOrderClient[M]> extends AsyncGenerator<infer Item, unknown, undefined> ? Item : never;

/** The methods that resolve with one route's data, and that route. */
export const RESULT_ROUTES = {
  listSalesOrders: 'listSalesOrders',
  getSalesOrderHistory: 'getSalesOrderHistory',
  createSalesOrder: 'createSalesOrder',
  bulkCreateSalesOrders: 'bulkCreateSalesOrders',
  getSalesOrder: 'getSalesOrder',
  updateSalesOrder: 'updateSalesOrder',
  deleteSalesOrder: 'deleteSalesOrder',
  confirmSalesOrder: 'confirmSalesOrder',
  cancelSalesOrder: 'cancelSalesOrder',
  closeSalesOrder: 'closeSalesOrder',
  amendSalesOrder: 'amendSalesOrder',
  openChange: 'openChange',
  applyChange: 'applyChange',
  discardChange: 'discardChange',
  listChanges: 'listChanges',
  getMaxNumber: 'getMaxNumber',
  calculateTotals: 'calculateTotals',
  validateLicence: 'validateLicence',
  getDropdownOptions: 'getDropdownOptions',
  listEvents: 'listEvents',
  createWebhookEndpoint: 'createWebhookEndpoint',
  listWebhookEndpoints: 'listWebhookEndpoints',
  getWebhookEndpoint: 'getWebhookEndpoint',
  updateWebhookEndpoint: 'updateWebhookEndpoint',
  deleteWebhookEndpoint: 'deleteWebhookEndpoint',
  rotateWebhookSecret: 'rotateWebhookSecret',
  listWebhookDeliveries: 'listWebhookDeliveries',
  replayWebhookEvents: 'replayWebhookEvents',
  pingWebhookEndpoint: 'pingWebhookEndpoint',
  startImport: 'startImport',
  getImport: 'getImport',
  listImports: 'listImports',
  cancelImport: 'cancelImport',
  createApiKey: 'createApiKey',
  listApiKeys: 'listApiKeys',
  getApiKey: 'getApiKey',
  renameApiKey: 'updateApiKey',
  rotateApiKey: 'rotateApiKey',
  revokeApiKey: 'revokeApiKey',
  recordDelivery: 'recordDelivery',
  getDelivery: 'getDelivery',
  listOrderDeliveries: 'listOrderDeliveries',
  listDeliveries: 'listDeliveries',
  cancelDelivery: 'cancelDelivery',
  recordReturn: 'recordReturn',
} as const satisfies Partial<Record<keyof SalesOrderClient, keyof ApiContract>>;

/**
 * Routes whose data a method yields item by item (or returns as a file), rather than resolving with
 * it; and the report, whose rows a method types by the keys and metrics asked for (reports.ts).
 */
type IteratedRoutes = 'getImportResults' | 'listApiKeyHistory' | 'getSalesReport';

export const RESULTS_ARE_THE_ROUTES: {
  [M in keyof typeof RESULT_ROUTES]: Same<Result<M>, RouteData<(typeof RESULT_ROUTES)[M]>>;
} = {
  listSalesOrders: true,
  getSalesOrderHistory: true,
  createSalesOrder: true,
  bulkCreateSalesOrders: true,
  getSalesOrder: true,
  updateSalesOrder: true,
  deleteSalesOrder: true,
  confirmSalesOrder: true,
  cancelSalesOrder: true,
  closeSalesOrder: true,
  amendSalesOrder: true,
  openChange: true,
  applyChange: true,
  discardChange: true,
  listChanges: true,
  getMaxNumber: true,
  calculateTotals: true,
  validateLicence: true,
  getDropdownOptions: true,
  listEvents: true,
  createWebhookEndpoint: true,
  listWebhookEndpoints: true,
  getWebhookEndpoint: true,
  updateWebhookEndpoint: true,
  deleteWebhookEndpoint: true,
  rotateWebhookSecret: true,
  listWebhookDeliveries: true,
  replayWebhookEvents: true,
  pingWebhookEndpoint: true,
  startImport: true,
  getImport: true,
  listImports: true,
  cancelImport: true,
  createApiKey: true,
  listApiKeys: true,
  getApiKey: true,
  renameApiKey: true,
  rotateApiKey: true,
  revokeApiKey: true,
  recordDelivery: true,
  getDelivery: true,
  listOrderDeliveries: true,
  listDeliveries: true,
  cancelDelivery: true,
  recordReturn: true,
};

/** The iterators yield the items of their route's pages. */
export const ITEMS_ARE_THE_ROUTES: {
  salesOrders: Same<ItemOf<'salesOrders'>, RouteData<'listSalesOrders'>['items'][number]>;
  salesOrderHistory: Same<ItemOf<'salesOrderHistory'>, RouteData<'getSalesOrderHistory'>['entries'][number]>;
  apiKeys: Same<ItemOf<'apiKeys'>, RouteData<'listApiKeys'>['items'][number]>;
  apiKeyHistory: Same<ItemOf<'apiKeyHistory'>, RouteData<'listApiKeyHistory'>['items'][number]>;
  deliveries: Same<ItemOf<'deliveries'>, RouteData<'listDeliveries'>['items'][number]>;
} = { salesOrders: true, salesOrderHistory: true, apiKeys: true, apiKeyHistory: true, deliveries: true };

/** Every route of the contract has a method. */
export const EVERY_ROUTE_HAS_A_METHOD: Same<
  Exclude<keyof ApiContract, (typeof RESULT_ROUTES)[keyof typeof RESULT_ROUTES] | IteratedRoutes>,
  never
> = true;

/** The probe: a method claiming another route's result (an order's data as Totals) does not compile. */
// @ts-expect-error SalesOrder's data is assignable to Totals, but it is not Totals
export const A_WRONG_RESULT_FAILS: Same<Result<'getSalesOrder'>, RouteData<'calculateTotals'>> = true;

/** An error is asked for a detail code by the contract's union: a misspelt code does not compile. */
export const ASKS_BY_DETAIL_CODE: {
  hasCode: Same<Parameters<SalesOrderApiError['hasCode']>[0], DetailCode>;
  detailsWithCode: Same<Parameters<SalesOrderApiError['detailsWithCode']>[0], DetailCode>;
} = { hasCode: true, detailsWithCode: true };
export const askByCode = (error: SalesOrderApiError): ErrorDetail[] => [
  ...(error.hasCode('over_delivery') ? error.detailsWithCode('over_delivery') : []),
  // @ts-expect-error a misspelt code
  ...error.detailsWithCode('over_delivered'),
  // @ts-expect-error the constant's name, not its code
  ...(error.hasCode('overDelivery') ? error.details : []),
];
