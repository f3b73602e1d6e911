import { z } from 'zod';

import { MAX_ID } from './common.js';
import { SalesOrderStatusSchema } from './order-lifecycle.js';

/**
 * Bounds of the error envelope's texts and list. Messages may quote the request (a path, a
 * content type), so the server clips them to these lengths rather than echo any size back.
 */
export const ERROR_MESSAGE_MAX_LENGTH = 1000;
export const ERROR_PATH_MAX_LENGTH = 200;
export const ERROR_CODE_MAX_LENGTH = 64;
export const MAX_ERROR_DETAILS = 100;
/** A feed cursor (events.ts EVENT_CURSOR_MAX_LENGTH; not imported, events.ts imports this file). */
const OLDEST_CURSOR_MAX_LENGTH = 64;
/** Success messages are the server's own fixed sentences. */
export const SUCCESS_MESSAGE_MAX_LENGTH = 200;

/** The success envelope of every response: `{ success: true, data, message? }`. */
export const successEnvelope = <T extends z.ZodTypeAny>(data: T) =>
  z.object({
    success: z.literal(true),
    data,
    message: z.string().max(SUCCESS_MESSAGE_MAX_LENGTH).optional(),
  });

export const ErrorDetailSchema = z
  .object({
    path: z
      .string()
      .max(ERROR_PATH_MAX_LENGTH)
      .describe('Dotted path of the offending input, e.g. "details.0.quantity"; "" for the whole request.'),
    message: z.string().max(ERROR_MESSAGE_MAX_LENGTH),
    code: z
      .string()
      .max(ERROR_CODE_MAX_LENGTH)
      .describe('Machine-readable reason, e.g. "invalid_type", "unknown_product".'),
    current_version: z
      .number()
      .int()
      .positive()
      .max(MAX_ID)
      .optional()
      .describe('With code "version_mismatch" (412): the version the order is at now.'),
    oldest_cursor: z
      .string()
      .max(OLDEST_CURSOR_MAX_LENGTH)
      .optional()
      .describe(
        'With code "cursor_past_retention" (410): the feed cursor after which the oldest event kept comes; pass it as ' +
          '`after` once resynchronised.',
      ),
    index: z
      .number()
      .int()
      .min(0)
      .max(MAX_ID)
      .optional()
      .describe('With a bulk create (POST /sales-orders/bulk): the position in `orders` of the order this is about.'),
    current_status: SalesOrderStatusSchema.optional().describe(
      'With code "invalid_transition", "order_not_editable" or "order_not_deletable" (409): the order\'s status now.',
    ),
  })
  .describe('One problem with the request.');

const ErrorEnvelopeObject = z
  .object({
    success: z.literal(false),
    error: z.object({
      message: z.string().max(ERROR_MESSAGE_MAX_LENGTH),
      code: z.number().int().min(400).max(599).describe('Same as the HTTP status code.'),
      details: z
        .array(ErrorDetailSchema)
        .max(MAX_ERROR_DETAILS)
        .describe(`At most ${MAX_ERROR_DETAILS}, the first ones found.`),
    }),
  })
  .describe('Every failed request answers with this body.');

type ErrorEnvelopeObject = typeof ErrorEnvelopeObject;
/**
 * The envelope's schema type, given a name: every route answers it for some ten statuses, and a
 * type without a name is written out in full at each of them in the declarations (a third of
 * the SDK's .d.ts). An interface is referred to by name instead. Derived, not re-declared.
 */
export interface ErrorEnvelopeSchema extends ErrorEnvelopeObject {}
export const ErrorEnvelopeSchema: ErrorEnvelopeSchema = ErrorEnvelopeObject;

export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;
