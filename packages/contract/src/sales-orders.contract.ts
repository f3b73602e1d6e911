import { initContract } from '@ts-rest/core';

import { DropdownOptionsSchema, DropdownParamsSchema, DropdownQuerySchema } from './dropdown.js';
import { successEnvelope } from './envelope.js';
import {
  CommonErrorResponses,
  ConflictResponse,
  describedError,
  IdempotencyConflictResponse,
  NotFoundResponse,
  PreconditionFailedResponse,
  PreconditionRequiredResponse,
  UnprocessableResponse,
} from './errors.js';
import { LicenceValidationSchema, ValidateLicenceBodySchema } from './licence.js';
import { SalesOrderHistoryQuerySchema, SalesOrderHistorySchema } from './order-history.js';
import {
  CancelSalesOrderBodySchema,
  ConfirmSalesOrderBodySchema,
  SALES_ORDER_STATES_DESCRIPTION,
} from './order-lifecycle.js';
import { ListSalesOrdersQuerySchema, SalesOrderPageSchema } from './order-list.js';
import {
  ACKNOWLEDGE_WARNINGS_PERMISSION,
  type FieldPermission,
  itemFieldPermissions,
  Permission,
} from './permissions.js';
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
import { BulkCreatedEnvelopeSchema, BulkCreateSalesOrdersBodySchema } from './sales-order-bulk.js';
import { CalculateTotalsBodySchema, TotalsSchema } from './totals.js';
import {
  IdempotencyHeadersSchema,
  IfMatchHeadersSchema,
  IfNoneMatchHeadersSchema,
  TransitionHeadersSchema,
} from './write-safety.js';

const c = initContract();

/** What every transition answers besides its own success: the same refusals in the same words. */
const transitionRefusals = {
  404: NotFoundResponse,
  409: ConflictResponse,
  412: PreconditionFailedResponse,
  422: UnprocessableResponse,
  428: PreconditionRequiredResponse,
} as const;

/** What a create body's values ask for: creating it confirmed is a confirm; acknowledging warnings overrides licences. */
const CREATE_FIELD_PERMISSIONS: readonly FieldPermission[] = [
  { field: 'status', value: 'confirmed', permission: Permission.confirm },
  ACKNOWLEDGE_WARNINGS_PERMISSION,
];

const TRANSITION_NOTES =
  `States: ${SALES_ORDER_STATES_DESCRIPTION} A transition not allowed from the current status, or already done, is ` +
  '409 `invalid_transition` with `current_status`. Honours If-Match (412 when stale) and Idempotency-Key (a retry ' +
  'gets the first answer). Of two transitions racing on one order, exactly one wins; the other gets 409 or 412.';

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
        404: describedError(
          "Not found: `location_id` lies outside the caller's locations (answered as a location that does not exist).",
        ),
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
      metadata: { permission: Permission.create, fieldPermissions: CREATE_FIELD_PERMISSIONS } as const,
    },
    bulkCreateSalesOrders: {
      method: 'POST',
      path: '/sales-orders/bulk',
      headers: IdempotencyHeadersSchema,
      body: BulkCreateSalesOrdersBodySchema,
      responses: {
        200: BulkCreatedEnvelopeSchema,
        201: BulkCreatedEnvelopeSchema,
        409: IdempotencyConflictResponse,
        422: UnprocessableResponse,
      },
      summary: 'Create many sales orders in one call, under one error policy',
      description:
        'Each of `orders` is a POST /sales-orders body (with an optional `idempotency_key` of its own), checked and ' +
        'created exactly as a single create would: numbering (orders of one series are numbered consecutively in input ' +
        "order; a number supplied twice fails the second), the caller's location scope, licence quota, history and one " +
        '`sales_order.created` event per order in input order. `error_policy` `reject_everything` (the default): all ' +
        'orders are created in one transaction or none is; 201 with every order, or 422 with the details of each ' +
        'failing order (paths `orders.{index}....`, and `index`). `reject_failed_rows`: each order stands alone; 200 ' +
        'with one result per order in input order and the counts. The Idempotency-Key header replays the whole answer. ' +
        'At most BULK_MAX_ORDERS orders (400 beyond); the call counts as one request against the per-client rate limit ' +
        'and its orders against BULK_ORDERS_PER_MINUTE per client (429 beyond).',
      metadata: {
        permission: Permission.create,
        fieldPermissions: itemFieldPermissions('orders', CREATE_FIELD_PERMISSIONS),
      } as const,
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
      query: SalesOrderHistoryQuerySchema,
      responses: {
        200: successEnvelope(SalesOrderHistorySchema),
        404: NotFoundResponse,
      },
      summary: 'Every change of an order, oldest first, a page at a time; readable after the order is deleted',
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
        409: ConflictResponse,
        412: PreconditionFailedResponse,
        422: UnprocessableResponse,
        428: PreconditionRequiredResponse,
      },
      summary: 'Update a sales order; details and other_charges, when sent, replace the stored sets',
      description:
        "What an order's status locks cannot change (409 `order_not_editable`, one detail per field): a confirmed order " +
        'takes only remarks, field officer, port, customer reference and delivery date; a closed one only remarks; a ' +
        'cancelled one nothing. A field sent with the value it holds is not a change.',
      metadata: { permission: Permission.update, readsOrder: true } as const,
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
        409: ConflictResponse,
        412: PreconditionFailedResponse,
        428: PreconditionRequiredResponse,
      },
      summary: 'Soft-delete a sales order',
      description:
        'Only a draft can be deleted; any other status answers 409 `order_not_deletable` (cancel it instead).',
      metadata: { permission: Permission.delete, readsOrder: true } as const,
    },
    confirmSalesOrder: {
      method: 'POST',
      path: '/sales-orders/:id/confirm',
      pathParams: SalesOrderIdParamsSchema,
      headers: TransitionHeadersSchema,
      body: ConfirmSalesOrderBodySchema,
      responses: { 200: successEnvelope(SalesOrderSchema), ...transitionRefusals },
      summary: 'Confirm a draft: it becomes the binding order',
      description:
        'Only when the customer, the location and every product are still active and the order date lies in an active ' +
        'financial year (422 otherwise). Licence warnings (as validate-licence gives them for the lines) refuse the ' +
        'confirm with 422 and the warnings in `details`, unless `acknowledge_warnings` is true (which needs ' +
        '`licences.override`), and the history entry records them and who confirmed despite them. Confirmed orders consume licence quota; two confirms racing for the last units cannot together exceed ' +
        `it. ${TRANSITION_NOTES}`,
      metadata: {
        permission: Permission.confirm,
        readsOrder: true,
        fieldPermissions: [ACKNOWLEDGE_WARNINGS_PERMISSION],
      } as const,
    },
    cancelSalesOrder: {
      method: 'POST',
      path: '/sales-orders/:id/cancel',
      pathParams: SalesOrderIdParamsSchema,
      headers: TransitionHeadersSchema,
      body: CancelSalesOrderBodySchema,
      responses: { 200: successEnvelope(SalesOrderSchema), ...transitionRefusals },
      summary: 'Cancel a draft or confirmed order, with a reason',
      description: `The order keeps its number and stays readable; its licence quota is released. ${TRANSITION_NOTES}`,
      metadata: { permission: Permission.cancel, readsOrder: true } as const,
    },
    closeSalesOrder: {
      method: 'POST',
      path: '/sales-orders/:id/close',
      pathParams: SalesOrderIdParamsSchema,
      headers: TransitionHeadersSchema,
      body: c.noBody(),
      responses: { 200: successEnvelope(SalesOrderSchema), ...transitionRefusals },
      summary: 'Close a confirmed order: fulfilled and done',
      description: `Read-only afterwards but for remarks; it cannot be cancelled. ${TRANSITION_NOTES}`,
      metadata: { permission: Permission.close, readsOrder: true } as const,
    },
    amendSalesOrder: {
      method: 'POST',
      path: '/sales-orders/:id/amend',
      pathParams: SalesOrderIdParamsSchema,
      headers: TransitionHeadersSchema,
      body: c.noBody(),
      responses: { 201: successEnvelope(SalesOrderSchema), ...transitionRefusals },
      summary: 'Amend a cancelled order into a new draft',
      description:
        'Only a cancelled order: creates a new draft with the same customer, location, date, lines, charges and ' +
        'fulfilment fields, a new number from its series and `amended_from_id` naming the cancelled one; 201 with ' +
        `Location. The cancelled order is unchanged. ${TRANSITION_NOTES}`,
      metadata: { permission: Permission.create, readsOrder: true } as const,
    },
  },
  {
    strictStatusCodes: true,
    commonResponses: CommonErrorResponses,
  },
);

export type SalesOrdersContract = typeof salesOrdersContract;
