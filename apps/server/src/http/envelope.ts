import {
  ERROR_CODE_MAX_LENGTH,
  ERROR_MESSAGE_MAX_LENGTH,
  ERROR_PATH_MAX_LENGTH,
  type ErrorDetail,
  type ErrorEnvelope,
  MAX_ERROR_DETAILS,
} from '@sales-order/contract';
import type { Express, Response } from 'express';

import { JsonText } from '../shared/json-text.js';

/** `{ success: true, data, message? }` */
export const success = <T>(data: T, message?: string) =>
  message === undefined ? { success: true as const, data } : { success: true as const, data, message };

/**
 * The success envelope around JSON text rendered by a statement (shared/json-text.ts), as the
 * envelope's own text: `res.json` sends it as it is (sendRenderedJsonAsIs), so the rendered data
 * is neither parsed nor serialised again. Typed as the envelope of `T`, which is what it writes, so
 * that a route returns it where ts-rest expects that body (ts-rest validates no response here,
 * as for every other route: the contract tests parse the answers).
 */
export const successRendered = <T>(data: JsonText<T>, message?: string) =>
  new JsonText(
    `{"success":true,"data":${data.text}${message === undefined ? '' : `,"message":${JSON.stringify(message)}`}}`,
  ) as unknown as ReturnType<typeof success<T>>;

/**
 * Makes `res.json` of `app` send a JsonText's text as it is (content type and length as for any
 * JSON answer); any other body goes to Express's own `res.json`. Without it a JsonText would still
 * be written right (its toJSON), at the cost of a parse.
 */
export const sendRenderedJsonAsIs = (app: Express): void => {
  const json = app.response.json;
  app.response.json = function sendJson(this: Response, body?: unknown) {
    if (!(body instanceof JsonText)) return json.call(this, body);
    if (!this.get('Content-Type')) this.set('Content-Type', 'application/json');
    return this.send(body.text);
  };
};

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
