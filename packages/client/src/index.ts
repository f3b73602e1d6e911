import { versionEntityTag } from '@sales-order/contract';
import { Webhook, WebhookVerificationError as LibraryVerificationError } from 'standardwebhooks';

import { eventMethods } from './events.js';
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
import {
  clientContext,
  definedOnly,
  errorOf,
  type SalesOrderClientOptions,
  send,
  sleep,
  unwrap,
  withRetries,
} from './transport.js';

export {
  SalesOrderApiError,
  SalesOrderConflictError,
  SalesOrderNetworkError,
  SalesOrderPreconditionFailedError,
  SalesOrderPreconditionRequiredError,
  SalesOrderUnprocessableError,
} from './errors.js';
export type { EventFeed, EventOf, EventPageOf, ListEventsOptions } from './events.js';
// Every data type of the contract, as plain TypeScript.
export type * from './generated/contract-types.js';
export type { SalesOrderClientAuth, SalesOrderClientOptions, SalesOrderRetryOptions } from './transport.js';
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
  RequestCode,
  SALES_ORDER_STATUSES,
  SchemaIssueCode,
  ServiceCode,
  ValidationCode,
  WebhookCode,
  WriteSafetyCode,
} from '@sales-order/contract';

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
 * A client for the sales order service: one typed method per route. Each resolves with the
 * `data` of the success envelope and rejects with a SalesOrderApiError (a subclass for 409,
 * 412 and 428) or, when no response arrived, a SalesOrderNetworkError.
 */
export const createSalesOrderClient = (options: SalesOrderClientOptions) => {
  const context = clientContext(options);
  const { baseUrl, client } = context;
  const listSalesOrders = (filters: ListSalesOrdersQuery = {}) =>
    unwrap<SalesOrderPage>(client.listSalesOrders({ query: definedOnly(filters) }));
  const getImport = (id: number) => unwrap<Import>(client.getImport({ params: { id } }));
  const listApiKeys = (query: ListApiKeysQuery = {}) =>
    unwrap<ApiKeyPage>(client.listApiKeys({ query: definedOnly(query) }));

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
    ...eventMethods(context),
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
