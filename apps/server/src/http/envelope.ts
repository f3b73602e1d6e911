import {
  ERROR_CODE_MAX_LENGTH,
  ERROR_MESSAGE_MAX_LENGTH,
  ERROR_PATH_MAX_LENGTH,
  type ErrorDetail,
  type ErrorEnvelope,
  MAX_ERROR_DETAILS,
} from '@sales-order/contract';

/** `{ success: true, data, message? }` */
export const success = <T>(data: T, message?: string) =>
  message === undefined ? { success: true as const, data } : { success: true as const, data, message };

/** Cuts a text to `max` characters (an ellipsis marks the cut), never inside a surrogate pair. */
const clip = (text: string, max: number): string => {
  if (text.length <= max) return text;
  const kept = text.slice(0, max - 1);
  return `${/[\uD800-\uDBFF]$/.test(kept) ? kept.slice(0, -1) : kept}…`;
};

/**
 * `{ success: false, error: { message, code, details } }`; `code` is the HTTP status. Messages
 * can quote the request, so texts and the list are held to the bounds the contract documents.
 */
export const failure = (status: number, message: string, details: ErrorDetail[] = []): ErrorEnvelope => ({
  success: false,
  error: {
    message: clip(message, ERROR_MESSAGE_MAX_LENGTH),
    code: status,
    details: details.slice(0, MAX_ERROR_DETAILS).map((detail) => ({
      ...detail,
      path: clip(detail.path, ERROR_PATH_MAX_LENGTH),
      message: clip(detail.message, ERROR_MESSAGE_MAX_LENGTH),
      code: clip(detail.code, ERROR_CODE_MAX_LENGTH),
    })),
  },
});
