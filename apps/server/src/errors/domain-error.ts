import type { AccessCode, AuthenticationCode, ErrorDetail } from '@sales-order/contract';

/**
 * The errors a use case can end in. Services throw them; only the HTTP layer knows which
 * status each kind becomes (http/error-handler.ts).
 */
export type DomainErrorKind =
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'unprocessable'
  /** The order's status does not allow the change; or an Idempotency-Key's first request is still running. */
  | 'conflict'
  /** Write safety: the order is no longer at the version the caller expects. */
  | 'precondition_failed'
  /** Write safety: the service requires the caller to name the version it expects. */
  | 'precondition_required'
  /** What the request names is no longer kept (a feed cursor past retention). */
  | 'gone'
  /** The request does not hold up against what the service issued (a feed cursor it never gave out): 400. */
  | 'invalid_request';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** When set, the caller may retry after this many seconds (Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** No credentials, or credentials that do not hold up; `code` names the reason for the caller. */
export const unauthenticated = (message: string, code: AuthenticationCode) =>
  new DomainError('unauthenticated', message, [{ path: '', message, code }]);

/** The caller is known but may not do this. */
export const forbidden = (message: string, code: AccessCode) =>
  new DomainError('forbidden', message, [{ path: '', message, code }]);

export const notFound = (message: string) => new DomainError('not_found', message);

/** The request was well-formed, but the data says no; `details` name each offending input. */
export const unprocessable = (details: ErrorDetail[], message = 'Validation failed') =>
  new DomainError('unprocessable', message, details);

/** The order's status does not allow this (the lifecycle's 409); `details` say which field or transition. */
export const stateConflict = (message: string, details: ErrorDetail[]) => new DomainError('conflict', message, details);
