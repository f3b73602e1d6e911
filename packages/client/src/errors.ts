import type { DetailCode, ErrorDetail, SalesOrderStatus } from './generated/contract-types.js';

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

  /**
   * Whether any of `details` has `code`, one of the contract's detail codes (`DetailCode`): a
   * misspelt code does not compile.
   */
  hasCode(code: DetailCode): boolean {
    return this.details.some((detail) => detail.code === code);
  }

  /** The details with `code`, in order: e.g. each `over_delivery` with the `path` of its line. */
  detailsWithCode(code: DetailCode): ErrorDetail[] {
    return this.details.filter((detail) => detail.code === code);
  }
}

/**
 * 409: the order's status does not allow the call (`details[].code` `invalid_transition`,
 * `order_not_editable`, `order_not_deletable`; for deliveries `order_not_deliverable`,
 * `delivery_has_returns`, `order_has_deliveries`), or a request with the same Idempotency-Key is
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

export const ERROR_CLASS_OF_STATUS: Record<number, typeof SalesOrderApiError> = {
  409: SalesOrderConflictError,
  412: SalesOrderPreconditionFailedError,
  422: SalesOrderUnprocessableError,
  428: SalesOrderPreconditionRequiredError,
};

export interface ErrorBody {
  success: false;
  error: { message: string; code: number; details: ErrorDetail[] };
}

export const isErrorBody = (body: unknown): body is ErrorBody =>
  typeof body === 'object' &&
  body !== null &&
  (body as { success?: unknown }).success === false &&
  typeof (body as { error?: { message?: unknown } }).error?.message === 'string';
