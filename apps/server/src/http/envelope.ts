import type { ErrorDetail, ErrorEnvelope } from '@sales-order/contract';

/** `{ success: true, data, message? }` */
export const success = <T>(data: T, message?: string) =>
  message === undefined ? { success: true as const, data } : { success: true as const, data, message };

/** `{ success: false, error: { message, code, details } }`; `code` is the HTTP status. */
export const failure = (status: number, message: string, details: ErrorDetail[] = []): ErrorEnvelope => ({
  success: false,
  error: { message, code: status, details },
});
