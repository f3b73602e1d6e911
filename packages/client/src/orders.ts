import type {
  BulkCreatedSalesOrders,
  BulkCreateSalesOrdersBody,
  CalculateTotalsBody,
  CancelSalesOrderBody,
  ConfirmSalesOrderBody,
  CreatedSalesOrder,
  CreateSalesOrderBody,
  DeletedSalesOrder,
  DropdownOptions,
  DropdownType,
  HistoryEntry,
  LicenceValidation,
  ListSalesOrdersQuery,
  MaxNumber,
  MaxNumberQuery,
  SalesOrder,
  SalesOrderHistory,
  SalesOrderHistoryQuery,
  SalesOrderListItem,
  SalesOrderPage,
  Totals,
  UpdatedSalesOrder,
  UpdateSalesOrderBody,
  ValidateLicenceBody,
} from './generated/contract-types.js';
import type {
  BulkCreateSalesOrdersOptions,
  ConditionalWriteOptions,
  CreateSalesOrderOptions,
  TransitionOptions,
} from './options.js';
import { type ClientContext, definedOnly, ifMatchHeader, transitionHeaders, unwrap, withRetries } from './transport.js';

/** Sales orders: read, list, create (one or many), change, delete, the transitions, and the helpers of an order form. */
export const orderMethods = ({ client, options }: ClientContext) => {
  const listSalesOrders = (filters: ListSalesOrdersQuery = {}): Promise<SalesOrderPage> =>
    unwrap(client.listSalesOrders({ query: definedOnly(filters) }));
  return {
    /** GET /sales-orders: one page; pass its `next_cursor` as `cursor` (same filters and sort) for the next. */
    listSalesOrders,
    /**
     * Every order matching `filters`, page after page (`limit` sets the page size), for
     * `for await (const order of client.salesOrders({ customer_id: 12 }))`.
     */
    salesOrders: async function* (
      filters: Omit<ListSalesOrdersQuery, 'cursor'> = {},
    ): AsyncGenerator<SalesOrderListItem, void, undefined> {
      let cursor: string | undefined;
      do {
        const page = await listSalesOrders({ ...filters, ...(cursor === undefined ? {} : { cursor }) });
        yield* page.items;
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
    /**
     * GET /sales-orders/{id}/history: a page of its changes, oldest first (also of deleted
     * orders); pass `next_cursor` as `cursor` for the next page.
     */
    getSalesOrderHistory: (id: number, query: SalesOrderHistoryQuery = {}): Promise<SalesOrderHistory> =>
      unwrap(client.getSalesOrderHistory({ params: { id }, query: definedOnly(query) })),
    /** Every history entry of an order, page after page: `for await (const entry of client.salesOrderHistory(4))`. */
    salesOrderHistory: async function* (
      id: number,
      { limit }: { limit?: number | undefined } = {},
    ): AsyncGenerator<HistoryEntry, void, undefined> {
      let cursor: string | undefined;
      do {
        const page = await unwrap(
          client.getSalesOrderHistory({
            params: { id },
            query: { ...(limit === undefined ? {} : { limit }), ...(cursor === undefined ? {} : { cursor }) },
          }),
        );
        yield* page.entries;
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
    /**
     * POST /sales-orders, with an Idempotency-Key (a random UUID unless given): network errors,
     * 409, 429, 502, 503 and 504 are retried with the same key, so a retry never makes a second order.
     */
    createSalesOrder: (
      body: CreateSalesOrderBody,
      { idempotencyKey = globalThis.crypto.randomUUID() }: CreateSalesOrderOptions = {},
    ): Promise<CreatedSalesOrder> =>
      withRetries(options.retry, () =>
        client.createSalesOrder({ body, headers: { 'idempotency-key': idempotencyKey } }),
      ),
    /**
     * POST /sales-orders/bulk: many orders in one call (at most BULK_MAX_ORDERS, 100 by default).
     * `error_policy` `reject_everything` (the default) creates all or none: a refused order
     * rejects with SalesOrderUnprocessableError, each detail naming its order by `index` and its
     * path (`orders.3.details.0.product_id`); `reject_failed_rows` resolves with one result per
     * order, created or failed. Give each order an `idempotency_key` to re-send a partly failed
     * batch whole without duplicates. Network errors, 409, 429, 502, 503 and 504 are retried with
     * one Idempotency-Key for the call.
     */
    bulkCreateSalesOrders: (
      body: BulkCreateSalesOrdersBody,
      { idempotencyKey = globalThis.crypto.randomUUID() }: BulkCreateSalesOrdersOptions = {},
    ): Promise<BulkCreatedSalesOrders> =>
      withRetries(options.retry, () =>
        client.bulkCreateSalesOrders({ body, headers: { 'idempotency-key': idempotencyKey } }),
      ),
    /** GET /sales-orders/{id}; `version` is what `ifMatch` takes. */
    getSalesOrder: (id: number): Promise<SalesOrder> => unwrap(client.getSalesOrder({ params: { id } })),
    /**
     * PUT /sales-orders/{id}: `details` / `other_charges`, when sent, replace the stored sets.
     * With `ifMatch`, a stale version rejects with SalesOrderPreconditionFailedError.
     */
    updateSalesOrder: (
      id: number,
      body: UpdateSalesOrderBody,
      { ifMatch }: ConditionalWriteOptions = {},
    ): Promise<UpdatedSalesOrder> =>
      unwrap(client.updateSalesOrder({ params: { id }, body, headers: ifMatchHeader(ifMatch) })),
    /** DELETE /sales-orders/{id} (soft delete); `ifMatch` as for updates. */
    deleteSalesOrder: (id: number, { ifMatch }: ConditionalWriteOptions = {}): Promise<DeletedSalesOrder> =>
      unwrap(client.deleteSalesOrder({ params: { id }, headers: ifMatchHeader(ifMatch) })),
    /**
     * POST /sales-orders/{id}/confirm: draft -> confirmed. Licence warnings reject with
     * SalesOrderUnprocessableError (their codes in `details`) unless `acknowledge_warnings` is
     * true; a status that does not allow it rejects with SalesOrderConflictError. Retried like
     * `createSalesOrder`, with one Idempotency-Key.
     */
    confirmSalesOrder: (
      id: number,
      body: ConfirmSalesOrderBody = {},
      call: TransitionOptions = {},
    ): Promise<SalesOrder> => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries(options.retry, () => client.confirmSalesOrder({ params: { id }, body, headers }));
    },
    /** POST /sales-orders/{id}/cancel: draft or confirmed -> cancelled, with a reason (1..500 characters). */
    cancelSalesOrder: (id: number, body: CancelSalesOrderBody, call: TransitionOptions = {}): Promise<SalesOrder> => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries(options.retry, () => client.cancelSalesOrder({ params: { id }, body, headers }));
    },
    /** POST /sales-orders/{id}/close: confirmed -> closed (fulfilled). */
    closeSalesOrder: (id: number, call: TransitionOptions = {}): Promise<SalesOrder> => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries(options.retry, () => client.closeSalesOrder({ params: { id }, headers }));
    },
    /** POST /sales-orders/{id}/amend: a cancelled order -> a new draft (resolved), `amended_from_id` naming it. */
    amendSalesOrder: (id: number, call: TransitionOptions = {}): Promise<SalesOrder> => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries(options.retry, () => client.amendSalesOrder({ params: { id }, headers }));
    },
    /** GET /sales-orders/max-number */
    getMaxNumber: (query: MaxNumberQuery): Promise<MaxNumber> => unwrap(client.getMaxNumber({ query })),
    /** POST /sales-orders/calculate-totals */
    calculateTotals: (body: CalculateTotalsBody): Promise<Totals> => unwrap(client.calculateTotals({ body })),
    /** POST /sales-orders/validate-licence */
    validateLicence: (body: ValidateLicenceBody): Promise<LicenceValidation> =>
      unwrap(client.validateLicence({ body })),
    /**
     * GET /sales-orders/dropdown-options/{type}: at most `limit` options (server default 1000, at
     * most 5000) plus the selected one; `truncated` in the answer tells whether `q` (a
     * case-insensitive part of the name) is needed to reach the rest.
     */
    getDropdownOptions: (
      type: DropdownType,
      selectedId?: number,
      { q, limit }: { q?: string | undefined; limit?: number | undefined } = {},
    ): Promise<DropdownOptions> =>
      unwrap(
        client.getDropdownOptions({
          params: { type },
          query: {
            ...(selectedId === undefined ? {} : { selected_id: selectedId }),
            ...(q === undefined ? {} : { q }),
            ...(limit === undefined ? {} : { limit }),
          },
        }),
      ),
  };
};
