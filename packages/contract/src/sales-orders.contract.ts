import { initContract } from '@ts-rest/core';

import { DropdownOptionsSchema, DropdownParamsSchema, DropdownQuerySchema } from './dropdown.js';
import { successEnvelope } from './envelope.js';
import {
  CommonErrorResponses,
  IdempotencyConflictResponse,
  NotFoundResponse,
  PreconditionFailedResponse,
  PreconditionRequiredResponse,
  UnprocessableResponse,
} from './errors.js';
import { LicenceValidationSchema, ValidateLicenceBodySchema } from './licence.js';
import { SalesOrderHistorySchema } from './order-history.js';
import { ListSalesOrdersQuerySchema, SalesOrderPageSchema } from './order-list.js';
import { Permission } from './permissions.js';
import {
  CreatedSalesOrderSchema,
  CreateSalesOrderBodySchema,
  DeletedSalesOrderSchema,
  MaxNumberQuerySchema,
  MaxNumberSchema,
  SalesOrderIdParamsSchema,
  SalesOrderSchema,
  UpdatedSalesOrderSchema,
  UpdateSalesOrderBodySchema,
} from './sales-order.js';
import { CalculateTotalsBodySchema, TotalsSchema } from './totals.js';
import { IdempotencyHeadersSchema, IfMatchHeadersSchema, IfNoneMatchHeadersSchema } from './write-safety.js';

const c = initContract();

/**
 * Every route of the service. Paths are relative to the base address (`BASE_PATH`, `/api` by
 * default). Static paths come before `/sales-orders/:id` so that they win the match.
 */
export const salesOrdersContract = c.router(
  {
    getMaxNumber: {
      method: 'GET',
      path: '/sales-orders/max-number',
      query: MaxNumberQuerySchema,
      responses: {
        200: successEnvelope(MaxNumberSchema),
        422: UnprocessableResponse,
      },
      summary: 'Highest order number of a (financial year, location) series',
      metadata: { permission: Permission.read } as const,
    },
    validateLicence: {
      method: 'POST',
      path: '/sales-orders/validate-licence',
      body: ValidateLicenceBodySchema,
      responses: {
        200: successEnvelope(LicenceValidationSchema),
        422: UnprocessableResponse,
      },
      summary: 'Check product licences for order lines',
      metadata: { permission: Permission.read } as const,
    },
    calculateTotals: {
      method: 'POST',
      path: '/sales-orders/calculate-totals',
      body: CalculateTotalsBodySchema,
      responses: {
        200: successEnvelope(TotalsSchema),
        422: UnprocessableResponse,
      },
      summary: 'Compute subtotal, other charges total and grand total',
      metadata: { permission: Permission.read } as const,
    },
    getDropdownOptions: {
      method: 'GET',
      path: '/sales-orders/dropdown-options/:type',
      pathParams: DropdownParamsSchema,
      query: DropdownQuerySchema,
      responses: {
        200: successEnvelope(DropdownOptionsSchema),
      },
      summary: 'HTML <option> list of active master records',
      metadata: { permission: Permission.read } as const,
    },
    listSalesOrders: {
      method: 'GET',
      path: '/sales-orders',
      query: ListSalesOrdersQuerySchema,
      responses: {
        200: successEnvelope(SalesOrderPageSchema),
      },
      summary: 'List and search orders, a keyset-paginated page at a time',
      description:
        'Filters combine with AND. Pages follow `next_cursor` (opaque; a cursor is bound to its sort and refused as 400 when ' +
        'altered). With `updated_since`, `include_deleted=true` and `sort=updated_at` it is the incremental-sync feed: see ' +
        'docs/api.md for the recipe.',
      metadata: { permission: Permission.read } as const,
    },
    createSalesOrder: {
      method: 'POST',
      path: '/sales-orders',
      headers: IdempotencyHeadersSchema,
      body: CreateSalesOrderBodySchema,
      responses: {
        201: successEnvelope(CreatedSalesOrderSchema),
        409: IdempotencyConflictResponse,
        422: UnprocessableResponse,
      },
      summary: 'Create a sales order with its detail lines and other charges',
      metadata: { permission: Permission.create } as const,
    },
    getSalesOrder: {
      method: 'GET',
      path: '/sales-orders/:id',
      pathParams: SalesOrderIdParamsSchema,
      headers: IfNoneMatchHeadersSchema,
      responses: {
        200: successEnvelope(SalesOrderSchema),
        304: c.noBody(),
        404: NotFoundResponse,
      },
      summary: 'Read one sales order',
      metadata: { permission: Permission.read } as const,
    },
    getSalesOrderHistory: {
      method: 'GET',
      path: '/sales-orders/:id/history',
      pathParams: SalesOrderIdParamsSchema,
      responses: {
        200: successEnvelope(SalesOrderHistorySchema),
        404: NotFoundResponse,
      },
      summary: 'Every create, update and delete of an order, oldest first; readable after the order is deleted',
      metadata: { permission: Permission.read } as const,
    },
    updateSalesOrder: {
      method: 'PUT',
      path: '/sales-orders/:id',
      pathParams: SalesOrderIdParamsSchema,
      headers: IfMatchHeadersSchema,
      body: UpdateSalesOrderBodySchema,
      responses: {
        200: successEnvelope(UpdatedSalesOrderSchema),
        404: NotFoundResponse,
        412: PreconditionFailedResponse,
        422: UnprocessableResponse,
        428: PreconditionRequiredResponse,
      },
      summary: 'Update a sales order; details and other_charges, when sent, replace the stored sets',
      metadata: { permission: Permission.update } as const,
    },
    deleteSalesOrder: {
      method: 'DELETE',
      path: '/sales-orders/:id',
      pathParams: SalesOrderIdParamsSchema,
      headers: IfMatchHeadersSchema,
      body: c.noBody(),
      responses: {
        200: successEnvelope(DeletedSalesOrderSchema),
        404: NotFoundResponse,
        412: PreconditionFailedResponse,
        428: PreconditionRequiredResponse,
      },
      summary: 'Soft-delete a sales order',
      metadata: { permission: Permission.delete } as const,
    },
  },
  {
    strictStatusCodes: true,
    commonResponses: CommonErrorResponses,
  },
);

export type SalesOrdersContract = typeof salesOrdersContract;
