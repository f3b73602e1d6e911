import type { ApiContract } from '@sales-order/contract';

import { type Fixtures, importLine, ORDER_DATE, orderBody } from './fixtures.js';

/**
 * One valid request per route of the contract, for the tests that walk every route (the location
 * scope walk): path parameters, query and body that the route accepts, about the records named
 * in `WalkIds`. The map is keyed by the contract's route names, so a route added to the contract
 * does not type-check until it has its example here; a walk that answers 400 to a route's own
 * example fails, so an example cannot be a placeholder that the route bounces before it reaches
 * any data.
 */

/** The records a walk's requests are about (all of one location, made by another caller). */
export interface WalkIds {
  fixtures: Fixtures;
  location: number;
  order: number;
  /** A detail line of `order`. */
  orderLine: number;
  /** A recorded delivery of `order` and one of its lines. */
  delivery: number;
  deliveryLine: number;
  /** A webhook endpoint, an import and an API key of another caller. */
  endpoint: number;
  importId: number;
  apiKey: number;
}

export interface RouteExample {
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  body?: unknown;
  /** The body's media type when it is not JSON (a file). */
  contentType?: string;
}

export type RouteExamples = { [Route in keyof ApiContract]: RouteExample };

export const routeExamples = (ids: WalkIds): RouteExamples => {
  const { fixtures } = ids;
  const order = { params: { id: ids.order } };
  const line = { product_id: fixtures.products.product.id, quantity: 2 };
  return {
    getMaxNumber: { query: { location_id: String(ids.location), year_id: String(fixtures.years.currentYear.id) } },
    validateLicence: { body: { sales_order_id: ids.order, sales_order_date: ORDER_DATE, sales_order_details: [line] } },
    calculateTotals: { body: { details: [{ ...line, rate: 10 }] } },
    getDropdownOptions: { params: { type: 'locations' } },
    listSalesOrders: { query: { location_id: String(ids.location), include_total: 'true', include_deleted: 'true' } },
    createSalesOrder: { body: orderBody(fixtures, { location_id: ids.location }) },
    bulkCreateSalesOrders: { body: { orders: [orderBody(fixtures, { location_id: ids.location })] } },
    getSalesOrder: order,
    getSalesOrderHistory: order,
    updateSalesOrder: { ...order, body: { remarks: 'walked' } },
    deleteSalesOrder: order,
    confirmSalesOrder: { ...order, body: { acknowledge_warnings: true } },
    cancelSalesOrder: { ...order, body: { reason: 'walked' } },
    closeSalesOrder: order,
    amendSalesOrder: order,
    openChange: {
      ...order,
      body: { reason: 'walked', details: [{ sales_order_detail_id: ids.orderLine, quantity: 3 }] },
    },
    listChanges: order,
    // A change of the order: the order's scope is checked before the change is looked up.
    applyChange: { params: { id: ids.order, change_id: 1 }, body: { acknowledge_warnings: true } },
    discardChange: { params: { id: ids.order, change_id: 1 } },
    listEvents: { query: { limit: '100' } },
    createWebhookEndpoint: { body: { url: 'http://127.0.0.1:9/walk' } },
    listWebhookEndpoints: {},
    getWebhookEndpoint: { params: { id: ids.endpoint } },
    updateWebhookEndpoint: { params: { id: ids.endpoint }, body: { description: 'walked' } },
    deleteWebhookEndpoint: { params: { id: ids.endpoint } },
    rotateWebhookSecret: { params: { id: ids.endpoint } },
    listWebhookDeliveries: { params: { id: ids.endpoint } },
    replayWebhookEvents: { params: { id: ids.endpoint }, body: { since: '2026-01-01 00:00:00' } },
    pingWebhookEndpoint: { params: { id: ids.endpoint } },
    startImport: { contentType: 'application/x-ndjson', body: `${importLine(fixtures, 'walk-1')}\n` },
    listImports: {},
    getImport: { params: { id: ids.importId } },
    getImportResults: { params: { id: ids.importId } },
    cancelImport: { params: { id: ids.importId } },
    createApiKey: { body: { name: 'walked', permissions: ['sales_orders.read'] } },
    listApiKeys: {},
    getApiKey: { params: { id: ids.apiKey } },
    updateApiKey: { params: { id: ids.apiKey }, body: { name: 'walked' } },
    rotateApiKey: { params: { id: ids.apiKey }, body: {} },
    revokeApiKey: { params: { id: ids.apiKey }, body: {} },
    listApiKeyHistory: { params: { id: ids.apiKey } },
    getSalesReport: {
      query: {
        group_by: 'location,customer',
        location_id: String(ids.location),
        status: 'draft,confirmed,closed,cancelled',
        include_deleted: 'true',
      },
    },
    recordDelivery: {
      ...order,
      body: { delivery_date: ORDER_DATE, lines: [{ sales_order_detail_id: ids.orderLine, quantity: 1 }] },
    },
    listOrderDeliveries: order,
    listDeliveries: { query: { location_id: String(ids.location), q: 'DN', status: 'recorded' } },
    getDelivery: { params: { id: ids.delivery } },
    cancelDelivery: { params: { id: ids.delivery }, body: { reason: 'walked' } },
    recordReturn: {
      params: { id: ids.delivery },
      body: { return_date: ORDER_DATE, reason: 'walked', lines: [{ delivery_line_id: ids.deliveryLine, quantity: 1 }] },
    },
  };
};
