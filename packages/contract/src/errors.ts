import { ErrorEnvelopeSchema } from './envelope.js';

/** The spec's error codes; `error.code` always equals the HTTP status. */
export const ErrorCode = {
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  /** The request was not received in full within HTTP_REQUEST_TIMEOUT_MS (a trickled body). */
  requestTimeout: 408,
  /** Write safety (opt-in headers): a retry while the first request with its key still runs. */
  conflict: 409,
  /** Write safety: If-Match names a version the order is no longer at. */
  preconditionFailed: 412,
  unprocessable: 422,
  /** The feed cursor names events purged after EVENT_RETENTION_DAYS: resynchronise. */
  gone: 410,
  /** Write safety: the service requires If-Match on PUT and DELETE (REQUIRE_IF_MATCH). */
  preconditionRequired: 428,
  tooManyRequests: 429,
  internal: 500,
  /** The database did not answer in time (outage or overload), or lock contention; sent with `Retry-After`. */
  serviceUnavailable: 503,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * `error.details[].code` values raised when the data says no (422), so callers can react
 * to a reason without parsing messages. Shape errors (400) use zod's issue codes.
 */
export const ValidationCode = {
  unknownCustomer: 'unknown_customer',
  unknownLocation: 'unknown_location',
  unknownFinancialYear: 'unknown_financial_year',
  unknownProduct: 'unknown_product',
  unknownPacksize: 'unknown_packsize',
  packsizeNotOfProduct: 'packsize_not_of_product',
  dateOutsideFinancialYears: 'date_outside_financial_years',
  amountMismatch: 'amount_mismatch',
  grandTotalMismatch: 'grand_total_mismatch',
  negativeGrandTotal: 'negative_grand_total',
  amountOutOfRange: 'amount_out_of_range',
  duplicateOrderNumber: 'duplicate_order_number',
  orderNumberOutOfSeries: 'order_number_out_of_series',
  orderNumberTooFarAhead: 'order_number_too_far_ahead',
  orderNumberChange: 'order_number_change',
  locationChange: 'location_change',
  financialYearChange: 'financial_year_change',
  unknownFieldOfficer: 'unknown_field_officer',
  unknownPort: 'unknown_port',
  deliveryBeforeOrderDate: 'delivery_before_order_date',
} as const;

export type ValidationCode = (typeof ValidationCode)[keyof typeof ValidationCode];

export const describedError = (description: string) => ErrorEnvelopeSchema.describe(description);

/** Error responses every route can give. */
export const CommonErrorResponses = {
  400: describedError(
    'Bad request: the request does not fit the contract (malformed JSON, wrong types, missing fields, out-of-range values).',
  ),
  401: describedError('Unauthorized: authentication is missing or invalid.'),
  403: describedError('Forbidden: the caller lacks the permission this route needs.'),
  408: describedError(
    'Request timeout: the request was not received in full within HTTP_REQUEST_TIMEOUT_MS (`request_timeout`).',
  ),
  413: describedError(
    'Payload too large: the body is larger than BODY_LIMIT (`entity.too.large`), or its chunk extensions are too large ' +
      '(`chunk_extensions_too_large`).',
  ),
  415: describedError(
    'Unsupported media type: a Content-Encoding other than identity, gzip or deflate (`encoding.unsupported`), or a ' +
      'charset other than UTF-8 (`charset.unsupported`).',
  ),
  429: describedError('Too many requests: the per-client rate limit is exhausted.'),
  431: describedError('Request header fields too large: the headers pass 16 KiB (`headers_too_large`).'),
  500: describedError('Internal server error.'),
  503: describedError(
    'Service unavailable: the database did not answer in time (outage: `database_unavailable`), the request could not ' +
      'get a database connection before its deadline (load shed: `overloaded`), or another request held a lock this one ' +
      'needed for too long (contention: `busy`); retry after the `Retry-After` seconds.',
  ),
} as const;

export const NotFoundResponse = describedError('Not found: the sales order does not exist or is deleted.');
export const UnprocessableResponse = describedError(
  'Unprocessable entity: well-formed, but the data is refused (unknown references, totals that do not add up, duplicate number).',
);

/** 409 on an order route: a state conflict (lifecycle) or an Idempotency-Key still in progress. */
export const ConflictResponse = describedError(
  "Conflict: the order's status does not allow this (`details[].code` `invalid_transition`, `order_not_editable` or " +
    '`order_not_deletable`, with `current_status`), or a request with this Idempotency-Key is still being processed ' +
    '(`idempotency_request_in_progress`, with `Retry-After`).',
);

/** The write-safety responses (opt-in headers; see write-safety.ts). */
export const IdempotencyConflictResponse = describedError(
  'Conflict: a request with this Idempotency-Key is still being processed; retry after the `Retry-After` seconds.',
);
export const PreconditionFailedResponse = describedError(
  'Precondition failed: If-Match does not name the current version; `error.details[0].current_version` holds it (the order is unchanged).',
);
export const PreconditionRequiredResponse = describedError(
  'Precondition required: this service requires If-Match on PUT and DELETE (REQUIRE_IF_MATCH=true).',
);
