import type { ErrorDetail } from '@sales-order/contract';

/**
 * A value and the problems found while working it out. Checks return both, so a caller
 * gathers every problem of a request (the envelope names each offending field) without
 * handing lists around to be filled in.
 */
export interface Checked<T> {
  value: T;
  problems: ErrorDetail[];
}
