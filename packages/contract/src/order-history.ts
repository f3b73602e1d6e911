import { z } from 'zod';

import { dateTime, documented, id, MAX_DETAIL_LINES, queryInteger } from './common.js';
import { LicenceWarningSchema } from './licence.js';
import { CANCELLATION_REASON_MAX_LENGTH } from './order-lifecycle.js';
import { ORDER_REMARKS_MAX_LENGTH, OtherChargeSchema, SalesOrderDetailSchema } from './sales-order.js';

/** Header fields an entry can name (every field of the read shape), and fields of one line. */
const HEADER_FIELDS_MAX = 20;
const ITEM_FIELDS_MAX = 10;
/** The audit columns' width: created_by, updated_by, deleted_by. */
const SUBJECT_MAX_LENGTH = 200;

/** GET /sales-orders/{id}/history: one entry per change of an order. */

export const HistoryActionSchema = z
  .enum([
    'create',
    'update',
    'delete',
    'confirm',
    'cancel',
    'close',
    'amend',
    'deliver',
    'cancel_delivery',
    'return',
    'change',
  ])
  .describe(
    'amend: the first entry of an order made by amending a cancelled one (amended_from_id names it). deliver, ' +
      'cancel_delivery, return: a delivery recorded, cancelled, or goods returned (`fields` names the delivery_no). ' +
      'change: a change request applied (`reason` holds its reason).',
  );

const changeValue = () => z.union([z.string().max(ORDER_REMARKS_MAX_LENGTH), z.number()]).nullable();

/** One changed field: of the header, or of a line or charge. */
export const FieldChangeSchema = z.object({
  field: z.string().max(64).describe('Field name as the read shape names it, e.g. "customer_id", "quantity".'),
  from: changeValue(),
  to: changeValue(),
});

const lineNo = () => z.number().int().min(1).max(MAX_DETAIL_LINES);

/** A detail line as history keeps it: its position and the fields of the read shape it stores. */
export const HistoryLineSchema = z
  .object({ line_no: lineNo().describe('1-based position of the line in the order.') })
  .merge(
    SalesOrderDetailSchema.pick({
      product_id: true,
      packsize_id: true,
      quantity: true,
      rate: true,
      amount: true,
      remarks: true,
    }),
  );

export const HistoryChargeSchema = z
  .object({ line_no: lineNo() })
  .merge(OtherChargeSchema.pick({ description: true, amount: true }));

const itemChanges = <T extends z.ZodTypeAny>(item: T) =>
  z.object({
    added: z.array(item).max(MAX_DETAIL_LINES),
    removed: z.array(item).max(MAX_DETAIL_LINES),
    changed: z
      .array(
        z.object({
          line_no: lineNo(),
          changes: z.array(FieldChangeSchema).max(ITEM_FIELDS_MAX),
        }),
      )
      .max(MAX_DETAIL_LINES),
  });

export const HistoryTotalsSchema = z.object({
  subtotal: z.number(),
  other_charges_total: z.number(),
  grand_total: z.number(),
});

/** What one change did; lines and charges are matched by line number. */
export const HistoryChangesSchema = z.object({
  fields: z
    .array(FieldChangeSchema)
    .max(HEADER_FIELDS_MAX)
    .describe('Header fields that changed (all set fields on create).'),
  lines: itemChanges(HistoryLineSchema),
  other_charges: itemChanges(HistoryChargeSchema),
  totals_before: HistoryTotalsSchema.nullable().describe('null on create.'),
  totals_after: HistoryTotalsSchema,
});

const HistoryEntrySchemaObject = z.object({
  version: id().describe('The order version this change produced.'),
  action: HistoryActionSchema,
  at: dateTime(),
  by: z.string().max(SUBJECT_MAX_LENGTH).nullable().describe('The authenticated subject that made the change.'),
  changes: HistoryChangesSchema,
  reason: z
    .string()
    .max(CANCELLATION_REASON_MAX_LENGTH)
    .optional()
    .describe("cancel: the reason given (also the order's cancellation_reason); change: the change request's reason."),
  acknowledged_warnings: z
    .array(LicenceWarningSchema)
    .max(MAX_DETAIL_LINES)
    .optional()
    .describe(
      'confirm (or create confirmed) with acknowledge_warnings: the licence warnings the caller confirmed despite; `by` ' +
        'is who overrode them (a holder of `licences.override`).',
    ),
});

type HistoryEntrySchemaObject = typeof HistoryEntrySchemaObject;
/** Named (an interface derived from the schema, not a shape written by hand) so that declarations refer to it rather than writing it out again at every route that answers it. */
export interface HistoryEntrySchema extends HistoryEntrySchemaObject {}
export const HistoryEntrySchema: HistoryEntrySchema = HistoryEntrySchemaObject;

/** Entries per page: at most this many (default 50), and at most HISTORY_PAGE_MAX_BYTES of changes. */
export const HISTORY_LIMIT_MAX = 200;
export const HISTORY_LIMIT_DEFAULT = 50;
/**
 * A page stops before the entry that would take its changes past this many bytes of JSON (one
 * entry is always given): a 500-line order rewritten 60 times is megabytes of history.
 */
export const HISTORY_PAGE_MAX_BYTES = 1_000_000;
export const HISTORY_CURSOR_MAX_LENGTH = 64;

// base64url of `{"v":<version>}`, with the platform's btoa/atob so the contract runs in browsers too.
const HISTORY_CURSOR = /^[A-Za-z0-9_-]{1,64}$/;

/** The cursor after the entry of `version`. */
export const encodeHistoryCursor = (version: number): string =>
  btoa(JSON.stringify({ v: version }))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** The version a `next_cursor` names, or undefined when the text is not one the service issued. */
export const decodeHistoryCursor = (value: string): number | undefined => {
  if (!HISTORY_CURSOR.test(value)) return undefined;
  try {
    const parsed = z
      .object({ v: id() })
      .strict()
      .safeParse(JSON.parse(atob(value.replace(/-/g, '+').replace(/_/g, '/'))));
    return parsed.success && encodeHistoryCursor(parsed.data.v) === value ? parsed.data.v : undefined;
  } catch {
    return undefined;
  }
};

export const SalesOrderHistoryQuerySchema = z.object({
  limit: queryInteger(1, HISTORY_LIMIT_MAX)
    .optional()
    .describe(
      `Entries per page, 1..${HISTORY_LIMIT_MAX}, default ${HISTORY_LIMIT_DEFAULT}; a page also stops before ` +
        `${HISTORY_PAGE_MAX_BYTES} bytes of changes (one entry always comes).`,
    ),
  cursor: documented(z.string().max(HISTORY_CURSOR_MAX_LENGTH), { pattern: HISTORY_CURSOR.source })
    .transform((value, ctx) => {
      const version = decodeHistoryCursor(value);
      if (version === undefined) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'is not a cursor this service issued' });
        return z.NEVER;
      }
      return version;
    })
    .optional()
    .describe('Opaque: the next_cursor of the previous page.'),
});
export type SalesOrderHistoryQuery = z.input<typeof SalesOrderHistoryQuerySchema>;

export const SalesOrderHistorySchema = z.object({
  sales_order_id: id(),
  entries: z.array(HistoryEntrySchema).max(HISTORY_LIMIT_MAX).describe('Oldest first.'),
  next_cursor: z
    .string()
    .max(HISTORY_CURSOR_MAX_LENGTH)
    .nullable()
    .describe('Pass as `cursor` for the next page; null on the last page.'),
});

export type HistoryAction = z.infer<typeof HistoryActionSchema>;
export type FieldChange = z.infer<typeof FieldChangeSchema>;
export type HistoryLine = z.infer<typeof HistoryLineSchema>;
export type HistoryCharge = z.infer<typeof HistoryChargeSchema>;
export type HistoryTotals = z.infer<typeof HistoryTotalsSchema>;
export type HistoryChanges = z.infer<typeof HistoryChangesSchema>;
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;
export type SalesOrderHistory = z.infer<typeof SalesOrderHistorySchema>;
