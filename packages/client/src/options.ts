/** How the client authenticates, retries and which headers it sends: the options of `createSalesOrderClient` and of its calls. */

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
