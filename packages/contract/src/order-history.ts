import { z } from 'zod';
import { dateTime } from './common.js';

/** GET /sales-orders/{id}/history: one entry per create, update and delete of an order. */

export const HistoryActionSchema = z.enum(['create', 'update', 'delete']);

const changeValue = () => z.union([z.string(), z.number()]).nullable();

/** One changed field: of the header, or of a line or charge. */
export const FieldChangeSchema = z.object({
  field: z.string().describe('Field name as the read shape names it, e.g. "customer_id", "quantity".'),
  from: changeValue(),
  to: changeValue(),
});

export const HistoryLineSchema = z.object({
  line_no: z.number().int().describe('1-based position of the line in the order.'),
  product_id: z.number().int(),
  packsize_id: z.number().int().nullable(),
  quantity: z.number(),
  rate: z.number(),
  amount: z.number(),
  remarks: z.string().nullable(),
});

export const HistoryChargeSchema = z.object({
  line_no: z.number().int(),
  description: z.string(),
  amount: z.number(),
});

const itemChanges = <T extends z.ZodTypeAny>(item: T) =>
  z.object({
    added: z.array(item),
    removed: z.array(item),
    changed: z.array(z.object({ line_no: z.number().int(), changes: z.array(FieldChangeSchema) })),
  });

export const HistoryTotalsSchema = z.object({
  subtotal: z.number(),
  other_charges_total: z.number(),
  grand_total: z.number(),
});

/** What one change did; lines and charges are matched by line number. */
export const HistoryChangesSchema = z.object({
  fields: z.array(FieldChangeSchema).describe('Header fields that changed (all set fields on create).'),
  lines: itemChanges(HistoryLineSchema),
  other_charges: itemChanges(HistoryChargeSchema),
  totals_before: HistoryTotalsSchema.nullable().describe('null on create.'),
  totals_after: HistoryTotalsSchema,
});

export const HistoryEntrySchema = z.object({
  version: z.number().int().describe('The order version this change produced.'),
  action: HistoryActionSchema,
  at: dateTime(),
  by: z.string().nullable().describe('The authenticated subject that made the change.'),
  changes: HistoryChangesSchema,
});

export const SalesOrderHistorySchema = z.object({
  sales_order_id: z.number().int(),
  entries: z.array(HistoryEntrySchema).describe('Oldest first.'),
});

export type HistoryAction = z.infer<typeof HistoryActionSchema>;
export type FieldChange = z.infer<typeof FieldChangeSchema>;
export type HistoryLine = z.infer<typeof HistoryLineSchema>;
export type HistoryCharge = z.infer<typeof HistoryChargeSchema>;
export type HistoryTotals = z.infer<typeof HistoryTotalsSchema>;
export type HistoryChanges = z.infer<typeof HistoryChangesSchema>;
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;
export type SalesOrderHistory = z.infer<typeof SalesOrderHistorySchema>;
