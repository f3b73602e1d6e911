import type { ErrorDetail } from '@sales-order/contract';

/**
 * The errors a use case can end in. Services throw them; only the HTTP layer knows which
 * status each kind becomes (http/error-handler.ts).
 */
export type DomainErrorKind = 'not_found' | 'unprocessable';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (message: string) => new DomainError('not_found', message);

/** The request was well-formed, but the data says no; `details` name each offending input. */
export const unprocessable = (details: ErrorDetail[], message = 'Validation failed') =>
  new DomainError('unprocessable', message, details);
