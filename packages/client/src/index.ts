import {
  type CalculateTotalsBody,
  type CreateSalesOrderBody,
  type CreatedSalesOrder,
  type DeletedSalesOrder,
  type DropdownOptions,
  type DropdownType,
  type ErrorDetail,
  type LicenceValidation,
  type ListSalesOrdersQuery,
  type MaxNumber,
  type MaxNumberQuery,
  type SalesOrder,
  type SalesOrderHistory,
  type SalesOrderListItem,
  type SalesOrderPage,
  type Totals,
  type UpdateSalesOrderBody,
  type UpdatedSalesOrder,
  type ValidateLicenceBody,
  salesOrdersContract,
} from '@sales-order/contract';
import { type ApiFetcher, initClient } from '@ts-rest/core';

export type {
  CalculateTotalsBody,
  CreateSalesOrderBody,
  CreatedSalesOrder,
  DeletedSalesOrder,
  DropdownOptions,
  DropdownType,
  ErrorDetail,
  LicenceValidation,
  ListSalesOrdersQuery,
  MaxNumber,
  MaxNumberQuery,
  SalesOrder,
  SalesOrderHistory,
  SalesOrderListItem,
  SalesOrderPage,
  Totals,
  UpdateSalesOrderBody,
  UpdatedSalesOrder,
  ValidateLicenceBody,
};
export type { FieldChange, HistoryCharge, HistoryChanges, HistoryEntry, HistoryLine, HistoryTotals, ListSort } from '@sales-order/contract';
export type { LicenceWarning, OtherCharge, OtherChargeInput, SalesOrderDetail, SalesOrderDetailInput } from '@sales-order/contract';
export { ErrorCode, LicenceWarningCode, ValidationCode, salesOrdersContract } from '@sales-order/contract';

/** How the client authenticates; the service accepts all three. */
export type SalesOrderClientAuth =
  /** `Authorization: Bearer <JWT>`; a function is called before every request (token refresh). */
  | { type: 'bearer'; token: string | (() => string | Promise<string>) }
  /** `Authorization: ApiKey <key>`. */
  | { type: 'apiKey'; key: string }
  /** The host ERP's session cookie, from a browser page: the request carries credentials. */
  | { type: 'session' };

export interface SalesOrderClientOptions {
  /** The service's base address including its base path, e.g. `https://erp.example.com/api`. */
  baseUrl: string;
  auth?: SalesOrderClientAuth;
  /** A fetch implementation (defaults to the global one): for tests, proxies, instrumentation. */
  fetch?: typeof fetch;
  /** Extra headers sent with every request, e.g. `X-Request-Id`. */
  headers?: Record<string, string>;
}

/** A failed call: the HTTP status and the error envelope's `code`, `message` and `details`. */
export class SalesOrderApiError extends Error {
  override readonly name = 'SalesOrderApiError';

  constructor(
    /** HTTP status of the response. */
    readonly status: number,
    /** `error.code` of the envelope (equal to the status). */
    readonly code: number,
    message: string,
    /** `error.details`: one entry per offending input, with its `path`. */
    readonly details: ErrorDetail[],
    /** `X-Request-Id` of the response, to quote when reporting a problem. */
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

interface ErrorBody {
  success: false;
  error: { message: string; code: number; details: ErrorDetail[] };
}

const isErrorBody = (body: unknown): body is ErrorBody =>
  typeof body === 'object' &&
  body !== null &&
  (body as { success?: unknown }).success === false &&
  typeof (body as { error?: { message?: unknown } }).error?.message === 'string';

const authorizationOf = async (auth: SalesOrderClientAuth | undefined): Promise<string | undefined> => {
  if (auth?.type === 'bearer') return `Bearer ${typeof auth.token === 'function' ? await auth.token() : auth.token}`;
  if (auth?.type === 'apiKey') return `ApiKey ${auth.key}`;
  return undefined;
};

const fetcher =
  ({ auth, fetch: fetchImpl, headers }: SalesOrderClientOptions): ApiFetcher =>
  async ({ path, method, headers: routeHeaders, body }) => {
    const send = fetchImpl ?? globalThis.fetch;
    const authorization = await authorizationOf(auth);
    const response = await send(path, {
      method,
      headers: { accept: 'application/json', ...headers, ...routeHeaders, ...(authorization ? { authorization } : {}) },
      body: body ?? undefined,
      credentials: auth?.type === 'session' ? 'include' : 'same-origin',
    });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
    return { status: response.status, body: parsed, headers: response.headers };
  };

/** Returns `data` of a success envelope, or throws SalesOrderApiError. */
const unwrap = async <T>(call: Promise<{ status: number; body: unknown; headers: Headers }>): Promise<T> => {
  const response = await call;
  if (response.status >= 200 && response.status < 300) return (response.body as { data: T }).data;
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (isErrorBody(response.body)) {
    const { message, code, details } = response.body.error;
    throw new SalesOrderApiError(response.status, code, message, details, requestId);
  }
  throw new SalesOrderApiError(response.status, response.status, `Unexpected response (HTTP ${response.status})`, [], requestId);
};

/**
 * A client for the sales order service: one typed method per route. Each resolves with the
 * `data` of the success envelope and rejects with a SalesOrderApiError.
 */
export const createSalesOrderClient = (options: SalesOrderClientOptions) => {
  const client = initClient(salesOrdersContract, {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    baseHeaders: {},
    api: fetcher(options),
    throwOnUnknownStatus: false,
  });
  const listSalesOrders = (filters: ListSalesOrdersQuery = {}) =>
    unwrap<SalesOrderPage>(client.listSalesOrders({ query: filters }));

  return {
    /** GET /sales-orders: one page; pass its `next_cursor` as `cursor` (same filters and sort) for the next. */
    listSalesOrders,
    /**
     * Every order matching `filters`, page after page (`limit` sets the page size), for
     * `for await (const order of client.salesOrders({ customer_id: 12 }))`.
     */
    salesOrders: async function* (filters: Omit<ListSalesOrdersQuery, 'cursor'> = {}): AsyncGenerator<SalesOrderListItem, void, undefined> {
      let cursor: string | undefined;
      do {
        const page = await listSalesOrders({ ...filters, ...(cursor === undefined ? {} : { cursor }) });
        yield* page.items;
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
    /** GET /sales-orders/{id}/history: every create, update and delete, oldest first (also of deleted orders). */
    getSalesOrderHistory: (id: number) => unwrap<SalesOrderHistory>(client.getSalesOrderHistory({ params: { id } })),
    /** POST /sales-orders */
    createSalesOrder: (body: CreateSalesOrderBody) => unwrap<CreatedSalesOrder>(client.createSalesOrder({ body })),
    /** GET /sales-orders/{id} */
    getSalesOrder: (id: number) => unwrap<SalesOrder>(client.getSalesOrder({ params: { id } })),
    /** PUT /sales-orders/{id}: `details` / `other_charges`, when sent, replace the stored sets. */
    updateSalesOrder: (id: number, body: UpdateSalesOrderBody) =>
      unwrap<UpdatedSalesOrder>(client.updateSalesOrder({ params: { id }, body })),
    /** DELETE /sales-orders/{id} (soft delete) */
    deleteSalesOrder: (id: number) => unwrap<DeletedSalesOrder>(client.deleteSalesOrder({ params: { id } })),
    /** GET /sales-orders/max-number */
    getMaxNumber: (query: MaxNumberQuery) => unwrap<MaxNumber>(client.getMaxNumber({ query })),
    /** POST /sales-orders/calculate-totals */
    calculateTotals: (body: CalculateTotalsBody) => unwrap<Totals>(client.calculateTotals({ body })),
    /** POST /sales-orders/validate-licence */
    validateLicence: (body: ValidateLicenceBody) => unwrap<LicenceValidation>(client.validateLicence({ body })),
    /** GET /sales-orders/dropdown-options/{type} */
    getDropdownOptions: (type: DropdownType, selectedId?: number) =>
      unwrap<DropdownOptions>(
        client.getDropdownOptions({ params: { type }, query: selectedId === undefined ? {} : { selected_id: selectedId } }),
      ),
  };
};

export type SalesOrderClient = ReturnType<typeof createSalesOrderClient>;
