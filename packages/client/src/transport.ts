import { apiContract, versionEntityTag, WriteSafetyCode } from '@sales-order/contract';
import { type ApiFetcher, initClient } from '@ts-rest/core';

import { ERROR_CLASS_OF_STATUS, isErrorBody, SalesOrderApiError, SalesOrderNetworkError } from './errors.js';
import type {
  ConditionalWriteOptions,
  SalesOrderClientAuth,
  SalesOrderClientOptions,
  SalesOrderRetryOptions,
  TransitionOptions,
} from './options.js';

/**
 * What every resource's methods are made of: one request with the client's credentials and
 * headers (`send`), the ts-rest client of the contract on top of it, and the results of its
 * calls unwrapped from the envelope, typed by the route's own 2xx responses (`unwrap`).
 */

/** The Authorization header of the client's credentials, if it sends one (a session's cookie goes by itself). */
export const authorizationHeader = async (auth: SalesOrderClientAuth | undefined): Promise<Record<string, string>> => {
  const authorization = await authorizationOf(auth);
  return authorization ? { authorization } : {};
};

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
export const send = async (
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

export interface RawResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

/** The typed error of a failed response: a subclass for 409, 412 and 428. */
export const errorOf = (response: RawResponse): SalesOrderApiError => {
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

/**
 * The `data` of a route's success envelope, as the contract declares the route's 2xx responses
 * (ts-rest's inference of the call's response): no result type is written by hand, so a method
 * cannot claim another route's result (src/results.check.ts holds each method to its route's).
 */
export type DataOf<R> = R extends { status: 200 | 201 | 202; body: infer B }
  ? B extends { data: infer D }
    ? D
    : never
  : never;

/** Returns `data` of a success envelope, or throws SalesOrderApiError. */
export const unwrap = async <R extends RawResponse>(call: Promise<R>): Promise<DataOf<R>> => {
  const response = await call;
  if (response.status >= 200 && response.status < 300) return (response.body as { data: DataOf<R> }).data;
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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `attempt` until it succeeds, fails for good, or the tries run out. Network errors and
 * the retryable statuses are tried again after exponential backoff with jitter, or after the
 * server's Retry-After when it gives one.
 */
export const withRetries = async <R extends RawResponse>(
  retry: SalesOrderRetryOptions | undefined,
  attempt: () => Promise<R>,
): Promise<DataOf<R>> => {
  const attempts = Math.max(1, retry?.attempts ?? 3);
  const baseDelayMs = retry?.baseDelayMs ?? 200;
  const maxDelayMs = retry?.maxDelayMs ?? 30_000;
  for (let tried = 1; ; tried += 1) {
    let failure: SalesOrderNetworkError | SalesOrderApiError;
    let serverDelay: number | undefined;
    try {
      const response = await attempt();
      if (response.status >= 200 && response.status < 300) return (response.body as { data: DataOf<R> }).data;
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

export const ifMatchHeader = (ifMatch: ConditionalWriteOptions['ifMatch']) => {
  if (ifMatch === undefined) return {};
  if (typeof ifMatch === 'number') return { 'if-match': versionEntityTag(ifMatch) };
  // `*`, or an ETag as the read's header carries it (quoted), or its bare value.
  return { 'if-match': ifMatch === '*' || ifMatch.startsWith('"') ? ifMatch : `"${ifMatch}"` };
};

/** A transition's headers: If-Match when given, and the Idempotency-Key its retries share. */
export const transitionHeaders = ({ ifMatch, idempotencyKey }: TransitionOptions, key: string) => ({
  ...ifMatchHeader(ifMatch),
  'idempotency-key': idempotencyKey ?? key,
});

/**
 * The members whose value is not undefined: under `exactOptionalPropertyTypes` a caller may pass
 * `{ after: undefined }` for "not given", which must not reach the query string as a value.
 */
export const definedOnly = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;

/** The ts-rest client of the contract, over `send`; what each resource's methods call. */
const contractClient = (options: SalesOrderClientOptions, baseUrl: string) =>
  initClient(apiContract, { baseUrl, baseHeaders: {}, api: fetcher(options), throwOnUnknownStatus: false });

/** What a resource's methods are made with: the options, the base URL, and the contract's client. */
export interface ClientContext {
  options: SalesOrderClientOptions;
  baseUrl: string;
  client: ReturnType<typeof contractClient>;
}

export const clientContext = (options: SalesOrderClientOptions): ClientContext => {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  return { options, baseUrl, client: contractClient(options, baseUrl) };
};
