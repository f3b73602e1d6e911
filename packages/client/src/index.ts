import { apiContract, versionEntityTag, WriteSafetyCode } from '@sales-order/contract';
import { type ApiFetcher, initClient } from '@ts-rest/core';
import { Webhook, WebhookVerificationError as LibraryVerificationError } from 'standardwebhooks';

import type {
  ApiKey,
  ApiKeyHistory,
  ApiKeyHistoryEntry,
  ApiKeyHistoryQuery,
  ApiKeyPage,
  BulkCreatedSalesOrders,
  BulkCreateSalesOrdersBody,
  CalculateTotalsBody,
  CancelSalesOrderBody,
  ConfirmSalesOrderBody,
  CreateApiKeyBody,
  CreatedApiKey,
  CreatedSalesOrder,
  CreatedWebhookEndpoint,
  CreateSalesOrderBody,
  CreateWebhookEndpointBody,
  DeletedSalesOrder,
  DeletedWebhookEndpoint,
  DropdownOptions,
  DropdownType,
  ErrorDetail,
  EventPage,
  EventType,
  FeedEvent,
  HistoryEntry,
  Import,
  ImportResult,
  LicenceValidation,
  ListApiKeysQuery,
  ListSalesOrdersQuery,
  ListWebhookDeliveriesQuery,
  MaxNumber,
  MaxNumberQuery,
  PingedWebhookEndpoint,
  ReplayedWebhookEvents,
  ReplayWebhookEventsBody,
  RevokeApiKeyBody,
  RotateApiKeyBody,
  RotatedWebhookSecret,
  SalesOrder,
  SalesOrderHistory,
  SalesOrderHistoryQuery,
  SalesOrderListItem,
  SalesOrderPage,
  SalesOrderStatus,
  SalesReport,
  SalesReportQuery,
  Totals,
  UpdatedSalesOrder,
  UpdateSalesOrderBody,
  UpdateWebhookEndpointBody,
  ValidateLicenceBody,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookPayload,
} from './generated/contract-types.js';
import { createReportsClient } from './reports.js';

export type {
  DefaultReportMetric,
  SalesReportKeyFields,
  SalesReportMetrics,
  SalesReportOptions,
  SalesReportPage,
  SalesReportRowOf,
} from './reports.js';

// Every data type of the contract, as plain TypeScript.
export type * from './generated/contract-types.js';
export {
  AccessCode,
  ApiKeyCode,
  AuthenticationCode,
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
  auth?: SalesOrderClientAuth | undefined;
  /** A fetch implementation (defaults to the global one): for tests, proxies, instrumentation. */
  fetch?: typeof fetch | undefined;
  /** Extra headers sent with every request, e.g. `X-Request-Id`. */
  headers?: Record<string, string> | undefined;
  /** How `createSalesOrder` retries (always with the same Idempotency-Key). */
  retry?: SalesOrderRetryOptions | undefined;
}

export interface SalesOrderRetryOptions {
  /** Tries in all, the first included; 1 switches retries off. Default 3. */
  attempts?: number | undefined;
  /** Delay before the first retry, doubled for each next one, with jitter. Default 200 ms. */
  baseDelayMs?: number | undefined;
  /** Longest wait before a retry; a `Retry-After` asking for longer ends the retries. Default 30 s. */
  maxDelayMs?: number | undefined;
}

/** Per-call options of `createSalesOrder`. */
export interface CreateSalesOrderOptions {
  /** The order's Idempotency-Key (1-255 printable ASCII); a random UUID when not given. */
  idempotencyKey?: string | undefined;
}

/** Per-call options of `bulkCreateSalesOrders`. */
export interface BulkCreateSalesOrdersOptions {
  /** The call's Idempotency-Key (1-255 printable ASCII), which replays the whole answer; a random UUID when not given. */
  idempotencyKey?: string | undefined;
}

/** Per-call options of `updateSalesOrder`, `deleteSalesOrder` and the transitions. */
export interface ConditionalWriteOptions {
  /**
   * Write only while the order is as read: its `version` (the version compared), the ETag
   * header of the read (e.g. `"3-0a1B2c3D4e5F6g7H"`: the whole representation compared), or
   * `'*'`: any live order. Sent as If-Match.
   */
  ifMatch?: number | string | undefined;
}

/** Per-call options of the transitions (confirm, cancel, close, amend). */
export interface TransitionOptions extends ConditionalWriteOptions {
  /** The call's Idempotency-Key (1-255 printable ASCII); a random UUID when not given. */
  idempotencyKey?: string | undefined;
}

/** A failed call: the HTTP status and the error envelope's `code`, `message` and `details`. */
export class SalesOrderApiError extends Error {
  override readonly name: string = 'SalesOrderApiError';

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

/**
 * 409: the order's status does not allow the call (`details[].code` `invalid_transition`,
 * `order_not_editable`, `order_not_deletable`), or a request with the same Idempotency-Key is
 * still running (after the client's retries).
 */
export class SalesOrderConflictError extends SalesOrderApiError {
  override readonly name: string = 'SalesOrderConflictError';

  /** The order's status now, for a state conflict. */
  get currentStatus(): SalesOrderStatus | undefined {
    return this.details.find((detail) => detail.current_status !== undefined)?.current_status;
  }
}

/**
 * 422: well-formed, but the data says no (unknown references, totals that do not add up, a
 * confirm refused for licence warnings, ...): `details` name each problem and its `path`.
 */
export class SalesOrderUnprocessableError extends SalesOrderApiError {
  override readonly name: string = 'SalesOrderUnprocessableError';
}

/** 412: the order is no longer at the version given as `ifMatch`; nothing was changed. */
export class SalesOrderPreconditionFailedError extends SalesOrderApiError {
  override readonly name: string = 'SalesOrderPreconditionFailedError';

  /** The version the order is at now: read it again, then decide. */
  get currentVersion(): number | undefined {
    return this.details.find((detail) => detail.current_version !== undefined)?.current_version;
  }
}

/** 428: the service requires `ifMatch` on updates and deletes. */
export class SalesOrderPreconditionRequiredError extends SalesOrderApiError {
  override readonly name: string = 'SalesOrderPreconditionRequiredError';
}

/** The service could not be reached, or the connection broke before a response arrived. */
export class SalesOrderNetworkError extends Error {
  override readonly name: string = 'SalesOrderNetworkError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

const ERROR_CLASS_OF_STATUS: Record<number, typeof SalesOrderApiError> = {
  409: SalesOrderConflictError,
  412: SalesOrderPreconditionFailedError,
  422: SalesOrderUnprocessableError,
  428: SalesOrderPreconditionRequiredError,
};

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
  (options: SalesOrderClientOptions): ApiFetcher =>
  (request) =>
    send(options, request);

/** One request with the client's credentials and headers: what every route's call comes down to. */
const send = async (
  { auth, fetch: fetchImpl, headers }: SalesOrderClientOptions,
  {
    path,
    method,
    headers: routeHeaders,
    body,
  }: { path: string; method: string; headers: Record<string, string>; body?: BodyInit | null },
): Promise<RawResponse> => {
  const send = fetchImpl ?? globalThis.fetch;
  const authorization = await authorizationOf(auth);
  let response: Response;
  let text: string;
  try {
    response = await send(path, {
      method,
      headers: {
        accept: 'application/json',
        ...headers,
        ...routeHeaders,
        ...(authorization ? { authorization } : {}),
      },
      body: body ?? undefined,
      credentials: auth?.type === 'session' ? 'include' : 'same-origin',
    });
    text = await response.text();
  } catch (error) {
    throw new SalesOrderNetworkError(
      `${method} ${path} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  let parsed: unknown = text;
  // JSON (or a +json type); not JSON Lines (application/x-ndjson), which is text of many values.
  if (/^application\/(?:[\w.-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '') && text !== '')
    parsed = JSON.parse(text);
  return { status: response.status, body: parsed, headers: response.headers };
};

interface RawResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

/**
 * A GET whose answer is left unread for the caller to stream (a report's CSV), with the client's
 * credentials and headers; a failed answer rejects with the typed error, no answer with SalesOrderNetworkError.
 */
const streamed = async (
  { auth, fetch: fetchImpl, headers }: SalesOrderClientOptions,
  url: string,
  routeHeaders: Record<string, string>,
): Promise<Response> => {
  const authorization = await authorizationOf(auth);
  let response: Response;
  try {
    response = await (fetchImpl ?? globalThis.fetch)(url, {
      method: 'GET',
      headers: { ...headers, ...routeHeaders, ...(authorization ? { authorization } : {}) },
      credentials: auth?.type === 'session' ? 'include' : 'same-origin',
    });
  } catch (error) {
    throw new SalesOrderNetworkError(`GET ${url} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (response.ok && response.body) return response;
  const text = await response.text();
  let body: unknown = text;
  if (/^application\/(?:[\w.-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '') && text !== '')
    body = JSON.parse(text);
  throw errorOf({ status: response.status, body, headers: response.headers });
};

/** The typed error of a failed response: a subclass for 409, 412 and 428. */
const errorOf = (response: RawResponse): SalesOrderApiError => {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const ErrorClass = ERROR_CLASS_OF_STATUS[response.status] ?? SalesOrderApiError;
  if (isErrorBody(response.body)) {
    const { message, code, details } = response.body.error;
    return new ErrorClass(response.status, code, message, details, requestId);
  }
  return new ErrorClass(
    response.status,
    response.status,
    `Unexpected response (HTTP ${response.status})`,
    [],
    requestId,
  );
};

/** Returns `data` of a success envelope, or throws SalesOrderApiError. */
const unwrap = async <T>(call: Promise<RawResponse>): Promise<T> => {
  const response = await call;
  if (response.status >= 200 && response.status < 300) return (response.body as { data: T }).data;
  throw errorOf(response);
};

/** Statuses worth another try of an idempotent request: rate limited, gateway and outage errors. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** A 409 is worth another try only while the first request with the key still runs; a state conflict is final. */
const isRetryable = (error: SalesOrderApiError) =>
  RETRYABLE_STATUSES.has(error.status) ||
  (error.status === 409 &&
    error.details.some((detail) => detail.code === WriteSafetyCode.idempotencyRequestInProgress));

/** Retry-After in milliseconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
const retryAfterMs = (headers: Headers): number | undefined => {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `attempt` until it succeeds, fails for good, or the tries run out. Network errors and
 * the retryable statuses are tried again after exponential backoff with jitter, or after the
 * server's Retry-After when it gives one.
 */
const withRetries = async <T>(
  retry: SalesOrderRetryOptions | undefined,
  attempt: () => Promise<RawResponse>,
): Promise<T> => {
  const attempts = Math.max(1, retry?.attempts ?? 3);
  const baseDelayMs = retry?.baseDelayMs ?? 200;
  const maxDelayMs = retry?.maxDelayMs ?? 30_000;
  for (let tried = 1; ; tried += 1) {
    let failure: SalesOrderNetworkError | SalesOrderApiError;
    let serverDelay: number | undefined;
    try {
      const response = await attempt();
      if (response.status >= 200 && response.status < 300) return (response.body as { data: T }).data;
      const refused = errorOf(response);
      if (!isRetryable(refused)) throw refused;
      failure = refused;
      serverDelay = retryAfterMs(response.headers);
    } catch (error) {
      if (!(error instanceof SalesOrderNetworkError)) throw error;
      failure = error;
    }
    const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (tried - 1)) * (0.5 + Math.random() / 2);
    const delay = serverDelay ?? backoff;
    if (tried >= attempts || delay > maxDelayMs) throw failure;
    await sleep(delay);
  }
};

const ifMatchHeader = (ifMatch: ConditionalWriteOptions['ifMatch']) => {
  if (ifMatch === undefined) return {};
  if (typeof ifMatch === 'number') return { 'if-match': versionEntityTag(ifMatch) };
  // `*`, or an ETag as the read's header carries it (quoted), or its bare value.
  return { 'if-match': ifMatch === '*' || ifMatch.startsWith('"') ? ifMatch : `"${ifMatch}"` };
};

/** A transition's headers: If-Match when given, and the Idempotency-Key its retries share. */
const transitionHeaders = ({ ifMatch, idempotencyKey }: TransitionOptions, key: string) => ({
  ...ifMatchHeader(ifMatch),
  'idempotency-key': idempotencyKey ?? key,
});

/**
 * The members whose value is not undefined: under `exactOptionalPropertyTypes` a caller may pass
 * `{ after: undefined }` for "not given", which must not reach the query string as a value.
 */
const definedOnly = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;

/**
 * A client for the sales order service: one typed method per route. Each resolves with the
 * `data` of the success envelope and rejects with a SalesOrderApiError (a subclass for 409,
 * 412 and 428) or, when no response arrived, a SalesOrderNetworkError.
 */
export const createSalesOrderClient = (options: SalesOrderClientOptions) => {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const client = initClient(apiContract, {
    baseUrl,
    baseHeaders: {},
    api: fetcher(options),
    throwOnUnknownStatus: false,
  });
  const listSalesOrders = (filters: ListSalesOrdersQuery = {}) =>
    unwrap<SalesOrderPage>(client.listSalesOrders({ query: definedOnly(filters) }));
  const getImport = (id: number) => unwrap<Import>(client.getImport({ params: { id } }));
  const listEvents = <T extends EventType = EventType>({ types, ...query }: ListEventsOptions<T> = {}): Promise<
    EventPageOf<T>
  > =>
    // The service answers only events of the types asked for: the page's items are of those.
    unwrap<EventPage>(
      client.listEvents({ query: definedOnly({ ...query, ...(types ? { types: types.join(',') } : {}) }) }),
    ) as Promise<EventPageOf<T>>;
  const listApiKeys = (query: ListApiKeysQuery = {}) =>
    unwrap<ApiKeyPage>(client.listApiKeys({ query: definedOnly(query) }));
  const reports = createReportsClient({
    getSalesReport: (query) =>
      unwrap<SalesReport>(client.getSalesReport({ query: query as unknown as SalesReportQuery })),
    stream: (path, query, headers) =>
      streamed(options, `${baseUrl}${path}?${new URLSearchParams(query).toString()}`, headers),
  });

  return {
    ...reports,
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
    getSalesOrderHistory: (id: number, query: SalesOrderHistoryQuery = {}) =>
      unwrap<SalesOrderHistory>(client.getSalesOrderHistory({ params: { id }, query: definedOnly(query) })),
    /** Every history entry of an order, page after page: `for await (const entry of client.salesOrderHistory(4))`. */
    salesOrderHistory: async function* (
      id: number,
      { limit }: { limit?: number | undefined } = {},
    ): AsyncGenerator<HistoryEntry, void, undefined> {
      let cursor: string | undefined;
      do {
        const page = await unwrap<SalesOrderHistory>(
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
    ) =>
      withRetries<CreatedSalesOrder>(options.retry, () =>
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
      withRetries<BulkCreatedSalesOrders>(options.retry, () =>
        client.bulkCreateSalesOrders({ body, headers: { 'idempotency-key': idempotencyKey } }),
      ),
    /** GET /sales-orders/{id}; `version` is what `ifMatch` takes. */
    getSalesOrder: (id: number) => unwrap<SalesOrder>(client.getSalesOrder({ params: { id } })),
    /**
     * PUT /sales-orders/{id}: `details` / `other_charges`, when sent, replace the stored sets.
     * With `ifMatch`, a stale version rejects with SalesOrderPreconditionFailedError.
     */
    updateSalesOrder: (id: number, body: UpdateSalesOrderBody, { ifMatch }: ConditionalWriteOptions = {}) =>
      unwrap<UpdatedSalesOrder>(client.updateSalesOrder({ params: { id }, body, headers: ifMatchHeader(ifMatch) })),
    /** DELETE /sales-orders/{id} (soft delete); `ifMatch` as for updates. */
    deleteSalesOrder: (id: number, { ifMatch }: ConditionalWriteOptions = {}) =>
      unwrap<DeletedSalesOrder>(client.deleteSalesOrder({ params: { id }, headers: ifMatchHeader(ifMatch) })),
    /**
     * POST /sales-orders/{id}/confirm: draft -> confirmed. Licence warnings reject with
     * SalesOrderUnprocessableError (their codes in `details`) unless `acknowledge_warnings` is
     * true; a status that does not allow it rejects with SalesOrderConflictError. Retried like
     * `createSalesOrder`, with one Idempotency-Key.
     */
    confirmSalesOrder: (id: number, body: ConfirmSalesOrderBody = {}, call: TransitionOptions = {}) => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries<SalesOrder>(options.retry, () => client.confirmSalesOrder({ params: { id }, body, headers }));
    },
    /** POST /sales-orders/{id}/cancel: draft or confirmed -> cancelled, with a reason (1..500 characters). */
    cancelSalesOrder: (id: number, body: CancelSalesOrderBody, call: TransitionOptions = {}) => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries<SalesOrder>(options.retry, () => client.cancelSalesOrder({ params: { id }, body, headers }));
    },
    /** POST /sales-orders/{id}/close: confirmed -> closed (fulfilled). */
    closeSalesOrder: (id: number, call: TransitionOptions = {}) => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries<SalesOrder>(options.retry, () => client.closeSalesOrder({ params: { id }, headers }));
    },
    /** POST /sales-orders/{id}/amend: a cancelled order -> a new draft (resolved), `amended_from_id` naming it. */
    amendSalesOrder: (id: number, call: TransitionOptions = {}) => {
      const headers = transitionHeaders(call, globalThis.crypto.randomUUID());
      return withRetries<SalesOrder>(options.retry, () => client.amendSalesOrder({ params: { id }, headers }));
    },
    /** GET /sales-orders/max-number */
    getMaxNumber: (query: MaxNumberQuery) => unwrap<MaxNumber>(client.getMaxNumber({ query })),
    /** POST /sales-orders/calculate-totals */
    calculateTotals: (body: CalculateTotalsBody) => unwrap<Totals>(client.calculateTotals({ body })),
    /** POST /sales-orders/validate-licence */
    validateLicence: (body: ValidateLicenceBody) => unwrap<LicenceValidation>(client.validateLicence({ body })),
    /**
     * GET /sales-orders/dropdown-options/{type}: at most `limit` options (server default 1000, at
     * most 5000) plus the selected one; `truncated` in the answer tells whether `q` (a
     * case-insensitive part of the name) is needed to reach the rest.
     */
    getDropdownOptions: (
      type: DropdownType,
      selectedId?: number,
      { q, limit }: { q?: string | undefined; limit?: number | undefined } = {},
    ) =>
      unwrap<DropdownOptions>(
        client.getDropdownOptions({
          params: { type },
          query: {
            ...(selectedId === undefined ? {} : { selected_id: selectedId }),
            ...(q === undefined ? {} : { q }),
            ...(limit === undefined ? {} : { limit }),
          },
        }),
      ),
    /**
     * GET /events: the events after `after` (a `next_cursor`; omitted, the oldest kept), in commit
     * order. Keep the page's `next_cursor` and call again with it: nothing committed is skipped.
     * Orders' events, for a caller holding api_keys.manage API keys' too, and the ends of the
     * caller's own imports (with sales_orders.import): narrow by `type`, or
     * ask for `types` (the items are then typed as those).
     */
    listEvents,
    /**
     * Every event after `after` until the feed is caught up, page after page, for
     * `for await (const event of feed)` where `feed = client.events({ after })`; then
     * `feed.cursor` is where to resume next time (also after a `break`: the cursor of the last
     * page read; events of that page after the one you stopped at come again). The generator's
     * return value is the same cursor.
     */
    events: <T extends EventType = EventType>(options: ListEventsOptions<T> = {}): EventFeed<EventOf<T>> => {
      let cursor = options.after;
      const pages = async function* (): AsyncGenerator<EventOf<T>, string, undefined> {
        for (;;) {
          const page = await listEvents<T>({ ...options, after: cursor });
          yield* page.items;
          cursor = page.next_cursor;
          if (!page.has_more) return cursor;
        }
      };
      return Object.defineProperty(pages(), 'cursor', { get: () => cursor, enumerable: true }) as EventFeed<EventOf<T>>;
    },
    /** POST /webhook-endpoints: the answer's `secret` is shown this once; keep it in the receiver. */
    createWebhookEndpoint: (body: CreateWebhookEndpointBody) =>
      unwrap<CreatedWebhookEndpoint>(client.createWebhookEndpoint({ body })),
    /** GET /webhook-endpoints */
    listWebhookEndpoints: () => unwrap<WebhookEndpointList>(client.listWebhookEndpoints()),
    /** GET /webhook-endpoints/{id}: a disabled endpoint says why in `disabled_reason`. */
    getWebhookEndpoint: (id: number) => unwrap<WebhookEndpoint>(client.getWebhookEndpoint({ params: { id } })),
    /** PATCH /webhook-endpoints/{id}: URL, event types, description; `enabled` disables or enables it. */
    updateWebhookEndpoint: (id: number, body: UpdateWebhookEndpointBody) =>
      unwrap<WebhookEndpoint>(client.updateWebhookEndpoint({ params: { id }, body })),
    /** DELETE /webhook-endpoints/{id} */
    deleteWebhookEndpoint: (id: number) =>
      unwrap<DeletedWebhookEndpoint>(client.deleteWebhookEndpoint({ params: { id } })),
    /** POST /webhook-endpoints/{id}/rotate-secret: the new secret; the old one still signs for 24 hours. */
    rotateWebhookSecret: (id: number) => unwrap<RotatedWebhookSecret>(client.rotateWebhookSecret({ params: { id } })),
    /** GET /webhook-endpoints/{id}/deliveries: newest first, with every attempt and the next retry. */
    listWebhookDeliveries: (id: number, query: ListWebhookDeliveriesQuery = {}) =>
      unwrap<WebhookDeliveryPage>(client.listWebhookDeliveries({ params: { id }, query: definedOnly(query) })),
    /** POST /webhook-endpoints/{id}/replay: `{ after: cursor }` or `{ since: '2026-11-24 08:00:00' }`. */
    replayWebhookEvents: (id: number, body: ReplayWebhookEventsBody) =>
      unwrap<ReplayedWebhookEvents>(client.replayWebhookEvents({ params: { id }, body })),
    /** POST /webhook-endpoints/{id}/ping: sends a signed test event now and says how the receiver answered. */
    pingWebhookEndpoint: (id: number) => unwrap<PingedWebhookEndpoint>(client.pingWebhookEndpoint({ params: { id } })),
    /**
     * POST /imports: sends the file as it is (`csv` as text/csv, `ndjson` as application/x-ndjson)
     * and resolves with the queued import; its orders are created in the background.
     */
    startImport: (file: string | Uint8Array<ArrayBuffer> | Blob, format: ImportFormat) =>
      unwrap<Import>(
        send(options, {
          path: `${baseUrl}/imports`,
          method: 'POST',
          headers: { 'content-type': IMPORT_CONTENT_TYPES[format] },
          body: file,
        }),
      ),
    /** GET /imports/{id}: state, counts, and while it runs an estimate of the seconds left. */
    getImport,
    /** GET /imports: the caller's last 100 imports, newest first. */
    listImports: () => unwrap<{ items: Import[] }>(client.listImports()),
    /** POST /imports/{id}/cancel: stops after the current chunk; the orders made stay. */
    cancelImport: (id: number) => unwrap<Import>(client.cancelImport({ params: { id } })),
    /** Every result of an import so far, in file order, for `for await (const result of client.importResults(id))`. */
    importResults: async function* (id: number): AsyncGenerator<ImportResult, void, undefined> {
      const response = await client.getImportResults({ params: { id } });
      if (response.status !== 200) throw errorOf(response);
      for (const line of String(response.body).split('\n'))
        if (line.trim() !== '') yield JSON.parse(line) as ImportResult;
    },
    /**
     * GET /imports/{id}/results as the file the service writes, to save as it is: JSON Lines
     * (`ndjson`, the default) or CSV (`csv`, sent with `Accept: text/csv`; cells that would start
     * a spreadsheet formula are escaped). Every result so far, in file order.
     */
    downloadImportResults: async (id: number, format: ImportFormat = 'ndjson'): Promise<string> => {
      const response = await send(options, {
        path: `${baseUrl}/imports/${encodeURIComponent(String(id))}/results`,
        method: 'GET',
        headers: { accept: IMPORT_CONTENT_TYPES[format] },
      });
      if (response.status !== 200) throw errorOf(response);
      return String(response.body);
    },
    /**
     * Resolves once the import has finished (completed, failed or cancelled), polling
     * GET /imports/{id} every `intervalMs` (1 s) and telling `onProgress` each reading.
     */
    waitForImport: async (
      id: number,
      { onProgress, intervalMs = 1_000 }: { onProgress?: (progress: Import) => void; intervalMs?: number } = {},
    ): Promise<Import> => {
      for (;;) {
        const progress = await getImport(id);
        onProgress?.(progress);
        if (progress.state !== 'queued' && progress.state !== 'running') return progress;
        await sleep(intervalMs);
      }
    },
    /**
     * POST /api-keys: the answer's `secret` is the key, shown this once. Its permissions (and
     * locations) must be held by the caller, which needs `api_keys.manage`.
     */
    createApiKey: (body: CreateApiKeyBody) => unwrap<CreatedApiKey>(client.createApiKey({ body })),
    /** GET /api-keys: one page, newest first; `next_cursor` is the next page's `cursor`. */
    listApiKeys,
    /** Every key the filters match, page after page: `for await (const key of client.apiKeys({ active: true }))`. */
    apiKeys: async function* (query: Omit<ListApiKeysQuery, 'cursor'> = {}): AsyncGenerator<ApiKey, void, undefined> {
      let cursor: number | undefined;
      do {
        const page = await listApiKeys({ ...query, ...(cursor === undefined ? {} : { cursor }) });
        yield* page.items;
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
    /** GET /api-keys/{id} */
    getApiKey: (id: number) => unwrap<ApiKey>(client.getApiKey({ params: { id } })),
    /** PATCH /api-keys/{id}: the name is all that changes. */
    renameApiKey: (id: number, name: string) => unwrap<ApiKey>(client.updateApiKey({ params: { id }, body: { name } })),
    /**
     * POST /api-keys/{id}/rotate: a successor with a new `secret` (shown this once); the current
     * key keeps working for `expire_current_in_seconds` (0..604800, default 0).
     */
    rotateApiKey: (id: number, body: RotateApiKeyBody = {}) =>
      unwrap<CreatedApiKey>(client.rotateApiKey({ params: { id }, body })),
    /**
     * POST /api-keys/{id}/revoke: now, or after `revoke_in_seconds`. Revoking the key the client
     * itself authenticates with needs `confirm_self: true`.
     */
    revokeApiKey: (id: number, body: RevokeApiKeyBody = {}) =>
      unwrap<ApiKey>(client.revokeApiKey({ params: { id }, body })),
    /** GET /api-keys/{id}/history: who created, renamed, rotated and revoked the key, oldest first. */
    apiKeyHistory: async function* (
      id: number,
      query: Omit<ApiKeyHistoryQuery, 'cursor'> = {},
    ): AsyncGenerator<ApiKeyHistoryEntry, void, undefined> {
      let cursor: number | undefined;
      do {
        const page = await unwrap<ApiKeyHistory>(
          client.listApiKeyHistory({
            params: { id },
            query: { ...query, ...(cursor === undefined ? {} : { cursor }) },
          }),
        );
        yield* page.items;
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
  };
};

/** The two file formats of an import and the media type each is sent as. */
export type ImportFormat = 'csv' | 'ndjson';
const IMPORT_CONTENT_TYPES: Record<ImportFormat, string> = { csv: 'text/csv', ndjson: 'application/x-ndjson' };

export type SalesOrderClient = ReturnType<typeof createSalesOrderClient>;

/**
 * The events of `client.events()`, for `for await`; `cursor` is the feed's `next_cursor` as far
 * as it has been read (the `after` given until the first page arrives).
 */
export type EventFeed<E extends FeedEvent = FeedEvent> = AsyncGenerator<E, string, undefined> & {
  readonly cursor: string | undefined;
};

/**
 * The events of these types: `SalesOrderEvent` for `sales_order.*` types, `ApiKeyEvent` for
 * `api_key.*`, `ImportEvent` for `import.*`; every kind (narrow by `type`) when no `types` are given.
 */
export type EventOf<T extends EventType> = Extract<FeedEvent, { type: T }>;

/** A page of the feed whose items are of these types. */
export type EventPageOf<T extends EventType> = Omit<EventPage, 'items'> & { items: EventOf<T>[] };

/** Options of `listEvents` and `events`: `types` as a list rather than the query's comma-separated text. */
export interface ListEventsOptions<T extends EventType = EventType> {
  /** A `next_cursor` of the feed. */
  after?: string | undefined;
  /** 1..500, default 100. */
  limit?: number | undefined;
  /** Only events of these types (the items are typed as them); omitted, every type the caller may read. */
  types?: T[] | undefined;
  sales_order_id?: number | undefined;
}

/** A verified webhook delivery: its payload, with `id` (the `webhook-id`, the event's id). */
export type WebhookEvent = WebhookPayload & { id: string };

/** Header values as Node (`req.headers`), fetch (`Headers`) or a plain object hand them over. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const plainHeaders = (headers: WebhookHeaders): Record<string, string> => {
  const entries: [string, string | string[] | undefined][] = [];
  if (typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => entries.push([name, value]));
  } else entries.push(...Object.entries(headers));
  return Object.fromEntries(
    entries.flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
};

/**
 * Checks a webhook delivery as Standard Webhooks says, with its reference library: the
 * `webhook-signature` (any of its signatures, so both secrets verify during a rotation) over the
 * exact body received, and a `webhook-timestamp` within 5 minutes of now (a replayed capture is
 * refused). Returns the typed event; throws WebhookVerificationError otherwise. Pass the raw
 * body (the bytes or text as received, before any JSON parsing) and the endpoint's `whsec_...` secret.
 * Deduplicate by `id` and order by `data.version`: delivery is at least once.
 */
export const verifyWebhook = (headers: WebhookHeaders, body: string | Uint8Array, secret: string): WebhookEvent => {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const plain = plainHeaders(headers);
  try {
    const payload = new Webhook(secret).verify(text, plain) as WebhookPayload;
    return { ...payload, id: plain['webhook-id']! };
  } catch (error) {
    if (error instanceof LibraryVerificationError) throw new WebhookVerificationError(error.message);
    throw error;
  }
};

/**
 * A delivery that does not verify: no or a wrong signature, a timestamp more than 5 minutes
 * away, missing headers. (The SDK's own class, so its types need none of the library's.)
 */
export class WebhookVerificationError extends Error {
  override readonly name: string = 'WebhookVerificationError';
}
