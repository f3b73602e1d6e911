/**
 * Calls every route through a client nobody here wrote: openapi-fetch, typed by types that
 * openapi-typescript generated from the live /openapi.json into ./generated/schema.d.ts.
 * The conformance test type-checks this file against those types before running it, so the
 * `@ts-expect-error` lines prove the generated types refuse what the contract refuses.
 */
import createClient from 'openapi-fetch';

import { eventually } from '../support/eventually.js';
import type { paths } from './generated/schema.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Exchange {
  /** What the call was meant to show. */
  label: string;
  path: keyof paths;
  method: Method;
  status: number;
  body: unknown;
  /** The answer's media type when it is not JSON (import results). */
  mediaType?: string;
}

export interface ConformanceData {
  customerId: number;
  locationId: number;
  yearId: number;
  productId: number;
  packsizeId: number;
}

interface Outcome {
  data?: unknown;
  error?: unknown;
  response: Response;
}

export const callEveryRoute = async (baseUrl: string, token: string, ids: ConformanceData): Promise<Exchange[]> => {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
  const anonymous = createClient<paths>({ baseUrl });
  const exchanges: Exchange[] = [];
  const record = (label: string, path: keyof paths, method: Method, outcome: Outcome) => {
    const type = outcome.response.headers.get('content-type')?.split(';')[0];
    exchanges.push({
      label,
      path,
      method,
      status: outcome.response.status,
      body: outcome.data ?? outcome.error,
      ...(type && type !== 'application/json' ? { mediaType: type } : {}),
    });
    return outcome;
  };

  const orderBody = {
    customer_id: ids.customerId,
    sales_order_date: '2026-11-15',
    location_id: ids.locationId,
    remarks: 'conformance',
    details: [{ product_id: ids.productId, packsize_id: ids.packsizeId, quantity: 3, rate: 33.333 }],
    other_charges: [{ description: 'Carriage', amount: 150 }],
  };

  const created = record('create', '/sales-orders', 'post', await client.POST('/sales-orders', { body: orderBody }));
  const id = (created.data as { data: { sales_order_id: number } }).data.sales_order_id;
  record('read', '/sales-orders/{id}', 'get', await client.GET('/sales-orders/{id}', { params: { path: { id } } }));
  record(
    'update',
    '/sales-orders/{id}',
    'put',
    await client.PUT('/sales-orders/{id}', {
      params: { path: { id } },
      body: { remarks: 'changed', other_charges: [] },
    }),
  );
  record(
    'max-number',
    '/sales-orders/max-number',
    'get',
    await client.GET('/sales-orders/max-number', {
      params: { query: { year_id: ids.yearId, location_id: ids.locationId } },
    }),
  );
  record(
    'calculate-totals',
    '/sales-orders/calculate-totals',
    'post',
    await client.POST('/sales-orders/calculate-totals', {
      body: { details: [{ quantity: 3, rate: 33.333 }], other_charges: [{ amount: -0.5 }] },
    }),
  );
  record(
    'validate-licence',
    '/sales-orders/validate-licence',
    'post',
    await client.POST('/sales-orders/validate-licence', {
      body: { sales_order_details: [{ product_id: ids.productId, quantity: 1 }] },
    }),
  );
  for (const type of ['field-officers', 'products', 'locations', 'customers', 'ports'] as const) {
    record(
      `dropdown ${type}`,
      '/sales-orders/dropdown-options/{type}',
      'get',
      await client.GET('/sales-orders/dropdown-options/{type}', {
        params: { path: { type }, query: { selected_id: 1 } },
      }),
    );
  }
  record(
    'list',
    '/sales-orders',
    'get',
    await client.GET('/sales-orders', {
      params: { query: { customer_id: ids.customerId, sort: '-grand_total', limit: 10, include_total: true } },
    }),
  );
  record(
    'history',
    '/sales-orders/{id}/history',
    'get',
    await client.GET('/sales-orders/{id}/history', { params: { path: { id } } }),
  );
  // The lifecycle on a second order: confirm, close; a third: cancel, amend; then the refusals.
  const second = (
    record('create second', '/sales-orders', 'post', await client.POST('/sales-orders', { body: orderBody })).data as {
      data: { sales_order_id: number };
    }
  ).data.sales_order_id;
  record(
    'confirm',
    '/sales-orders/{id}/confirm',
    'post',
    await client.POST('/sales-orders/{id}/confirm', {
      params: { path: { id: second } },
      body: { acknowledge_warnings: true },
    }),
  );
  // A change request on the confirmed order: opened, listed, applied; then refusals.
  const secondLine = (
    (await client.GET('/sales-orders/{id}', { params: { path: { id: second } } })).data as {
      data: { details: { sales_order_detail_id: number }[] };
    }
  ).data.details[0]!.sales_order_detail_id;
  const changeBody = { reason: 'one more', details: [{ sales_order_detail_id: secondLine, quantity: 4 }] };
  const change = (
    record(
      'open change',
      '/sales-orders/{id}/changes',
      'post',
      await client.POST('/sales-orders/{id}/changes', { params: { path: { id: second } }, body: changeBody }),
    ).data as { data: { change_id: number } }
  ).data.change_id;
  record(
    'open a second change: 409',
    '/sales-orders/{id}/changes',
    'post',
    await client.POST('/sales-orders/{id}/changes', { params: { path: { id: second } }, body: changeBody }),
  );
  record(
    'list changes',
    '/sales-orders/{id}/changes',
    'get',
    await client.GET('/sales-orders/{id}/changes', { params: { path: { id: second } } }),
  );
  const changePath = { params: { path: { id: second, change_id: change } } };
  record(
    'apply change',
    '/sales-orders/{id}/changes/{change_id}/apply',
    'post',
    await client.POST('/sales-orders/{id}/changes/{change_id}/apply', {
      ...changePath,
      body: { acknowledge_warnings: true },
    }),
  );
  record(
    'discard an applied change: 409',
    '/sales-orders/{id}/changes/{change_id}/discard',
    'post',
    await client.POST('/sales-orders/{id}/changes/{change_id}/discard', changePath),
  );
  record(
    'close',
    '/sales-orders/{id}/close',
    'post',
    await client.POST('/sales-orders/{id}/close', { params: { path: { id: second } } }),
  );
  record(
    'cancel closed: 409',
    '/sales-orders/{id}/cancel',
    'post',
    await client.POST('/sales-orders/{id}/cancel', {
      params: { path: { id: second } },
      body: { reason: 'too late' },
    }),
  );
  record(
    'delete closed: 409',
    '/sales-orders/{id}',
    'delete',
    await client.DELETE('/sales-orders/{id}', { params: { path: { id: second } } }),
  );
  const third = (
    record('create third', '/sales-orders', 'post', await client.POST('/sales-orders', { body: orderBody })).data as {
      data: { sales_order_id: number };
    }
  ).data.sales_order_id;
  record(
    'confirm with warnings: 422',
    '/sales-orders/{id}/confirm',
    'post',
    await client.POST('/sales-orders/{id}/confirm', { params: { path: { id: third } }, body: {} }),
  );
  record(
    'cancel',
    '/sales-orders/{id}/cancel',
    'post',
    await client.POST('/sales-orders/{id}/cancel', {
      params: { path: { id: third } },
      body: { reason: 'wrong customer' },
    }),
  );
  record(
    'amend',
    '/sales-orders/{id}/amend',
    'post',
    await client.POST('/sales-orders/{id}/amend', { params: { path: { id: third } } }),
  );
  record(
    'amend again: 409',
    '/sales-orders/{id}/amend',
    'post',
    await client.POST('/sales-orders/{id}/amend', { params: { path: { id: third } } }),
  );
  record(
    'delete',
    '/sales-orders/{id}',
    'delete',
    await client.DELETE('/sales-orders/{id}', { params: { path: { id } } }),
  );

  // Errors, each route at least once.
  record(
    'read deleted: 404',
    '/sales-orders/{id}',
    'get',
    await client.GET('/sales-orders/{id}', { params: { path: { id } } }),
  );
  record(
    'update deleted: 404',
    '/sales-orders/{id}',
    'put',
    await client.PUT('/sales-orders/{id}', { params: { path: { id } }, body: { remarks: 'x' } }),
  );
  record(
    'delete deleted: 404',
    '/sales-orders/{id}',
    'delete',
    await client.DELETE('/sales-orders/{id}', { params: { path: { id } } }),
  );
  record(
    'list with a tampered cursor: 400',
    '/sales-orders',
    'get',
    await client.GET('/sales-orders', { params: { query: { cursor: 'eyJzIjoi', limit: 10 } } }),
  );
  record(
    'history of an unknown order: 404',
    '/sales-orders/{id}/history',
    'get',
    await client.GET('/sales-orders/{id}/history', { params: { path: { id: 2_147_483_647 } } }),
  );
  record(
    'create unknown customer: 422',
    '/sales-orders',
    'post',
    await client.POST('/sales-orders', { body: { ...orderBody, customer_id: 999_999 } }),
  );
  record(
    'bulk create',
    '/sales-orders/bulk',
    'post',
    await client.POST('/sales-orders/bulk', {
      body: { orders: [orderBody, { ...orderBody, idempotency_key: 'conf-1' }] },
    }),
  );
  record(
    'bulk create, failed rows',
    '/sales-orders/bulk',
    'post',
    await client.POST('/sales-orders/bulk', {
      body: { orders: [orderBody, { ...orderBody, customer_id: 999_999 }], error_policy: 'reject_failed_rows' },
    }),
  );
  record(
    'bulk create unknown customer: 422',
    '/sales-orders/bulk',
    'post',
    await client.POST('/sales-orders/bulk', { body: { orders: [{ ...orderBody, customer_id: 999_999 }] } }),
  );
  record(
    'create missing fields: 400',
    '/sales-orders',
    'post',
    // @ts-expect-error the generated types require customer_id, sales_order_date, location_id and details
    await client.POST('/sales-orders', { body: { remarks: 'no lines' } }),
  );
  record(
    'max-number unknown year: 422',
    '/sales-orders/max-number',
    'get',
    await client.GET('/sales-orders/max-number', {
      params: { query: { year_id: 999_999, location_id: ids.locationId } },
    }),
  );
  record(
    'calculate-totals out of range: 422',
    '/sales-orders/calculate-totals',
    'post',
    await client.POST('/sales-orders/calculate-totals', {
      body: { details: [{ quantity: 999_999_999, rate: 9_999_999_999 }] },
    }),
  );
  record(
    'calculate-totals wrong type: 400',
    '/sales-orders/calculate-totals',
    'post',
    // @ts-expect-error quantity is a number in the generated types
    await client.POST('/sales-orders/calculate-totals', { body: { details: [{ quantity: 'three', rate: 1 }] } }),
  );
  record(
    'validate-licence unknown product: 422',
    '/sales-orders/validate-licence',
    'post',
    await client.POST('/sales-orders/validate-licence', {
      body: { sales_order_details: [{ product_id: 999_999, quantity: 1 }] },
    }),
  );
  record(
    'dropdown unknown type: 400',
    '/sales-orders/dropdown-options/{type}',
    'get',
    // @ts-expect-error the generated types list the five dropdown types
    await client.GET('/sales-orders/dropdown-options/{type}', { params: { path: { type: 'vendors' } } }),
  );
  // Events and webhook endpoints. The endpoint's URL is a closed loopback port (the test server
  // allows http and private addresses): deliveries and the ping reach nothing off this machine.
  record(
    'events',
    '/events',
    'get',
    await client.GET('/events', { params: { query: { limit: 10, types: 'sales_order.created' } } }),
  );
  record(
    'events with a tampered cursor: 400',
    '/events',
    'get',
    await client.GET('/events', { params: { query: { after: 'cC0x' } } }),
  );
  const endpoint = record(
    'create webhook endpoint',
    '/webhook-endpoints',
    'post',
    await client.POST('/webhook-endpoints', {
      body: { url: 'http://127.0.0.1:9/webhooks', event_types: ['sales_order.created'], description: 'conformance' },
    }),
  );
  const endpointId = (endpoint.data as { data: { id: number } }).data.id;
  const endpointPath = { params: { path: { id: endpointId } } };
  record('list webhook endpoints', '/webhook-endpoints', 'get', await client.GET('/webhook-endpoints'));
  record(
    'read webhook endpoint',
    '/webhook-endpoints/{id}',
    'get',
    await client.GET('/webhook-endpoints/{id}', endpointPath),
  );
  record(
    'rotate webhook secret',
    '/webhook-endpoints/{id}/rotate-secret',
    'post',
    await client.POST('/webhook-endpoints/{id}/rotate-secret', endpointPath),
  );
  record(
    'ping webhook endpoint',
    '/webhook-endpoints/{id}/ping',
    'post',
    await client.POST('/webhook-endpoints/{id}/ping', endpointPath),
  );
  record(
    'replay',
    '/webhook-endpoints/{id}/replay',
    'post',
    await client.POST('/webhook-endpoints/{id}/replay', { ...endpointPath, body: { since: '2026-01-01 00:00:00' } }),
  );
  record(
    'deliveries',
    '/webhook-endpoints/{id}/deliveries',
    'get',
    await client.GET('/webhook-endpoints/{id}/deliveries', {
      params: { path: { id: endpointId }, query: { limit: 5 } },
    }),
  );
  record(
    'disable webhook endpoint',
    '/webhook-endpoints/{id}',
    'patch',
    await client.PATCH('/webhook-endpoints/{id}', { ...endpointPath, body: { enabled: false } }),
  );
  record(
    'replay while disabled: 409',
    '/webhook-endpoints/{id}/replay',
    'post',
    await client.POST('/webhook-endpoints/{id}/replay', { ...endpointPath, body: { since: '2026-01-01 00:00:00' } }),
  );
  record(
    'create webhook endpoint with a password in the URL: 400',
    '/webhook-endpoints',
    'post',
    await client.POST('/webhook-endpoints', { body: { url: 'http://user:secret@127.0.0.1:9/webhooks' } }),
  );
  record(
    'delete webhook endpoint',
    '/webhook-endpoints/{id}',
    'delete',
    await client.DELETE('/webhook-endpoints/{id}', endpointPath),
  );
  record(
    'read deleted webhook endpoint: 404',
    '/webhook-endpoints/{id}',
    'get',
    await client.GET('/webhook-endpoints/{id}', endpointPath),
  );
  const csv = `order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate
conformance-1,${ids.customerId},${ids.locationId},2026-11-15,${ids.productId},1,10
`;
  const started = record(
    'start import',
    '/imports',
    'post',
    await client.POST('/imports', {
      body: csv,
      bodySerializer: (body) => body as string,
      headers: { 'Content-Type': 'text/csv' },
    }),
  );
  const importPath = { params: { path: { id: (started.data as { data: { import_id: number } }).data.import_id } } };
  record('list imports', '/imports', 'get', await client.GET('/imports'));
  // Its one order made, so that the results hold a line.
  await eventually(
    async () => (await client.GET('/imports/{id}', importPath)).data?.data.state === 'completed',
    30_000,
  );
  record('read import', '/imports/{id}', 'get', await client.GET('/imports/{id}', importPath));
  record(
    'import results',
    '/imports/{id}/results',
    'get',
    await client.GET('/imports/{id}/results', { ...importPath, parseAs: 'text' }),
  );
  // It has completed: nothing is left to cancel (409 import_ended).
  record(
    'cancel an ended import: 409',
    '/imports/{id}/cancel',
    'post',
    await client.POST('/imports/{id}/cancel', importPath),
  );
  record(
    'read an unknown import: 404',
    '/imports/{id}',
    'get',
    await client.GET('/imports/{id}', { params: { path: { id: 2_000_000_000 } } }),
  );
  // API keys: the successor of a rotation, a rename, a revocation and each key's history.
  const apiKey = record(
    'create API key',
    '/api-keys',
    'post',
    await client.POST('/api-keys', { body: { name: 'conformance', permissions: ['sales_orders.read'] } }),
  );
  const apiKeyPath = { params: { path: { id: (apiKey.data as { data: { id: number } }).data.id } } };
  record('list API keys', '/api-keys', 'get', await client.GET('/api-keys', { params: { query: { limit: 5 } } }));
  record('read API key', '/api-keys/{id}', 'get', await client.GET('/api-keys/{id}', apiKeyPath));
  record(
    'rename API key',
    '/api-keys/{id}',
    'patch',
    await client.PATCH('/api-keys/{id}', { ...apiKeyPath, body: { name: 'conformance renamed' } }),
  );
  record(
    'rotate API key',
    '/api-keys/{id}/rotate',
    'post',
    await client.POST('/api-keys/{id}/rotate', { ...apiKeyPath, body: { expire_current_in_seconds: 60 } }),
  );
  record(
    'rotate API key again: 409',
    '/api-keys/{id}/rotate',
    'post',
    await client.POST('/api-keys/{id}/rotate', { ...apiKeyPath, body: { expire_current_in_seconds: 0 } }),
  );
  record('revoke API key', '/api-keys/{id}/revoke', 'post', await client.POST('/api-keys/{id}/revoke', apiKeyPath));
  record('API key history', '/api-keys/{id}/history', 'get', await client.GET('/api-keys/{id}/history', apiKeyPath));
  record(
    'read unknown API key: 404',
    '/api-keys/{id}',
    'get',
    await client.GET('/api-keys/{id}', { params: { path: { id: 999_999 } } }),
  );
  // Reports: a page, the same as CSV, and the unit rule's refusal.
  const reportQuery = { group_by: 'location,product', metrics: 'order_count,ordered_quantity,subtotal' };
  record(
    'sales report',
    '/reports/sales',
    'get',
    await client.GET('/reports/sales', { params: { query: reportQuery } }),
  );
  record(
    'sales report as CSV',
    '/reports/sales',
    'get',
    await client.GET('/reports/sales', { params: { query: { ...reportQuery, format: 'csv' } }, parseAs: 'text' }),
  );
  record(
    'sales report of quantities without product: 400',
    '/reports/sales',
    'get',
    await client.GET('/reports/sales', { params: { query: { group_by: 'location', metrics: 'ordered_quantity' } } }),
  );
  // Deliveries: of a confirmed order, an over-delivery refused, the reads, a return, a cancel it refuses.
  const toDeliver = record(
    'create confirmed',
    '/sales-orders',
    'post',
    await client.POST('/sales-orders', { body: { ...orderBody, status: 'confirmed', acknowledge_warnings: true } }),
  );
  const orderPath = {
    params: { path: { id: (toDeliver.data as { data: { sales_order_id: number } }).data.sales_order_id } },
  };
  const read = await client.GET('/sales-orders/{id}', orderPath);
  const orderLine = (read.data as { data: { details: { sales_order_detail_id: number }[] } }).data.details[0]!;
  const deliveryBody = (quantity: number) => ({
    delivery_date: '2026-11-15',
    reference: 'GP-1',
    lines: [{ sales_order_detail_id: orderLine.sales_order_detail_id, quantity }],
  });
  const delivered = record(
    'deliver',
    '/sales-orders/{id}/deliveries',
    'post',
    await client.POST('/sales-orders/{id}/deliveries', { ...orderPath, body: deliveryBody(2) }),
  );
  const delivery = (delivered.data as { data: { delivery_id: number; lines: { delivery_line_id: number }[] } }).data;
  const deliveryPath = { params: { path: { id: delivery.delivery_id } } };
  record(
    'over-deliver: 422',
    '/sales-orders/{id}/deliveries',
    'post',
    await client.POST('/sales-orders/{id}/deliveries', { ...orderPath, body: deliveryBody(2) }),
  );
  record(
    'deliveries of the order',
    '/sales-orders/{id}/deliveries',
    'get',
    await client.GET('/sales-orders/{id}/deliveries', orderPath),
  );
  record(
    'list deliveries',
    '/deliveries',
    'get',
    await client.GET('/deliveries', { params: { query: { q: 'GP-1', status: 'recorded' } } }),
  );
  record('read delivery', '/deliveries/{id}', 'get', await client.GET('/deliveries/{id}', deliveryPath));
  record(
    'return',
    '/deliveries/{id}/returns',
    'post',
    await client.POST('/deliveries/{id}/returns', {
      ...deliveryPath,
      body: {
        return_date: '2026-11-15',
        reason: 'damaged',
        lines: [{ delivery_line_id: delivery.lines[0]!.delivery_line_id, quantity: 1 }],
      },
    }),
  );
  record(
    'cancel a delivery with returns: 409',
    '/deliveries/{id}/cancel',
    'post',
    await client.POST('/deliveries/{id}/cancel', { ...deliveryPath, body: { reason: 'no' } }),
  );
  record(
    'read unknown delivery: 404',
    '/deliveries/{id}',
    'get',
    await client.GET('/deliveries/{id}', { params: { path: { id: 999_999 } } }),
  );
  record(
    'read without credentials: 401',
    '/sales-orders/{id}',
    'get',
    await anonymous.GET('/sales-orders/{id}', { params: { path: { id } } }),
  );
  record(
    'create without credentials: 401',
    '/sales-orders',
    'post',
    await anonymous.POST('/sales-orders', { body: orderBody }),
  );
  return exchanges;
};
