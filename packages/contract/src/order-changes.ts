import { initContract } from '@ts-rest/core';
import { z } from 'zod';

import {
  dateTime,
  id,
  idParam,
  MAX_DETAIL_LINES,
  MAX_ID,
  MAX_OTHER_CHARGES,
  plainObject,
  quantity,
  rate,
  requiredText,
  text,
} from './common.js';
import { successEnvelope } from './envelope.js';
import {
  CommonErrorResponses,
  describedError,
  NotFoundResponse,
  PreconditionFailedResponse,
  PreconditionRequiredResponse,
  UnprocessableResponse,
} from './errors.js';
import { LicenceValidationSchema } from './licence.js';
import { ConfirmSalesOrderBodySchema } from './order-lifecycle.js';
import { ACKNOWLEDGE_WARNINGS_PERMISSION, Permission } from './permissions.js';
import {
  LINE_REMARKS_MAX_LENGTH,
  NAME_MAX_LENGTH,
  OtherChargeInputSchema,
  SalesOrderIdParamsSchema,
} from './sales-order.js';
import { IdempotencyHeadersSchema, TransitionHeadersSchema } from './write-safety.js';

/**
 * Changing a confirmed order: a change request names the lines to change, add or remove, is
 * previewed when opened (the order as it would be, the difference per line and the licence
 * findings of that difference) and applied, or discarded, later. docs/decisions/change-requests.md.
 */

/** `error.details[].code` of a change request's refusals. */
export const ChangeCode = {
  /** 409: the order already has an open change (apply or discard it first). */
  changeAlreadyOpen: 'change_already_open',
  /** 409: the change was already applied or discarded. */
  changeNotOpen: 'change_not_open',
  /** 409: only a confirmed order takes a change request (`current_status` says what it is). */
  orderNotChangeable: 'order_not_changeable',
  /** 422: a line's quantity below what was delivered of it net of returns (the message says how much). */
  quantityBelowDelivered: 'quantity_below_delivered',
  /** 422: a line with deliveries cannot be removed or change its product or pack size. */
  lineHasDeliveries: 'line_has_deliveries',
  // A line id of another order, or one named twice, is 422 `unknown_order_line` (DeliveryCode's).
  /** 422: a new line (without `sales_order_detail_id`) lacks `product_id`, `quantity` or `rate`, or asks to be removed. */
  newLineIncomplete: 'new_line_incomplete',
  /** 422: the change would leave the order without lines, or with more than MAX_DETAIL_LINES. */
  lineCountOutOfRange: 'line_count_out_of_range',
  /** 422: the change changes nothing. */
  emptyChange: 'empty_change',
  /** 412: the order moved on since the change was opened, and the change no longer holds. */
  changeNoLongerHolds: 'change_no_longer_holds',
} as const;
export type ChangeCode = (typeof ChangeCode)[keyof typeof ChangeCode];

export const CHANGE_REASON_MAX_LENGTH = 500;

/** One line of a change request: with an id, a change of that line; without, a new line. */
export const ChangeLineInputSchema = plainObject({
  sales_order_detail_id: id().optional().describe('The line to change or remove; omit to add a line.'),
  product_id: id()
    .optional()
    .describe('Required for a new line (422 `new_line_incomplete` without it, as without quantity or rate).'),
  packsize_id: id().nullish().describe('Must belong to the product.'),
  quantity: quantity().optional().describe('Required for a new line; never below the net delivered quantity.'),
  rate: rate().optional().describe('Required for a new line.'),
  remarks: text(LINE_REMARKS_MAX_LENGTH).nullish(),
  remove: z.boolean().optional().describe('true (with sales_order_detail_id): remove the line.'),
});

export const OpenChangeBodySchema = z.object({
  reason: requiredText(CHANGE_REASON_MAX_LENGTH).describe('Why the order changes (kept in its history).'),
  details: z
    .array(ChangeLineInputSchema)
    .max(MAX_DETAIL_LINES)
    .optional()
    .describe('The lines that change; a field left out of a line stays as it is. Lines not named stay.'),
  other_charges: z
    .array(OtherChargeInputSchema)
    .max(MAX_OTHER_CHARGES)
    .optional()
    .describe('When sent, replaces the order’s other charges.'),
});

export const ApplyChangeBodySchema = ConfirmSalesOrderBodySchema;

export const ChangeParamsSchema = SalesOrderIdParamsSchema.extend({
  change_id: idParam().describe('Change request id.'),
});

/** A line of the order as the change would leave it. */
export const ChangeLineSchema = z.object({
  sales_order_detail_id: id().nullable().describe('null for a line the change adds.'),
  product_id: id(),
  packsize_id: id().nullable(),
  quantity: z.number(),
  rate: z.number(),
  amount: z.number(),
  remarks: z.string().max(LINE_REMARKS_MAX_LENGTH).nullable(),
});

/** What the change does to one line. */
export const ChangeDifferenceSchema = z.object({
  sales_order_detail_id: id().nullable().describe('null for a line the change adds.'),
  product_id: id(),
  kind: z.enum(['added', 'removed', 'changed']),
  quantity_before: z.number().nullable(),
  quantity_after: z.number().nullable(),
  rate_before: z.number().nullable(),
  rate_after: z.number().nullable(),
  amount_before: z.number().nullable(),
  amount_after: z.number().nullable(),
  delivered_quantity: z.number().describe('Delivered net of returns when the change was opened (0 for a new line).'),
});

const TotalsObject = z.object({ subtotal: z.number(), other_charges_total: z.number(), grand_total: z.number() });

const ChangeSchemaObject = z.object({
  change_id: id(),
  sales_order_id: id(),
  location_id: id().describe("The order's location (a change belongs to its order's location)."),
  status: z.enum(['open', 'applied', 'discarded']),
  reason: z.string().max(CHANGE_REASON_MAX_LENGTH),
  base_version: z.number().int().positive().max(MAX_ID).describe('The order version the change was opened on.'),
  applied_version: z
    .number()
    .int()
    .positive()
    .max(MAX_ID)
    .nullable()
    .describe('The order version the apply made; null unless applied.'),
  created_at: dateTime(),
  created_by: z.string().max(NAME_MAX_LENGTH).nullable(),
  ended_at: dateTime().nullable().describe('When it was applied or discarded.'),
  ended_by: z.string().max(NAME_MAX_LENGTH).nullable(),
  order: z
    .object({
      details: z.array(ChangeLineSchema).max(MAX_DETAIL_LINES),
      other_charges: z.array(OtherChargeInputSchema).max(MAX_OTHER_CHARGES),
    })
    .merge(TotalsObject)
    .describe('The order as it would be after the change (as previewed when opened, or as applied).'),
  totals_before: TotalsObject,
  differences: z.array(ChangeDifferenceSchema).max(MAX_DETAIL_LINES * 2),
  licence: LicenceValidationSchema.describe(
    'The licence findings of the increase only: per product, what the change adds to what the order holds.',
  ),
});
type ChangeSchemaObject = typeof ChangeSchemaObject;
export interface ChangeSchema extends ChangeSchemaObject {}
export const ChangeSchema: ChangeSchema = ChangeSchemaObject;

export const ChangeListSchema = z.object({ changes: z.array(ChangeSchema).max(1000) });

export type ChangeLineInput = z.infer<typeof ChangeLineInputSchema>;
export type OpenChangeBody = z.infer<typeof OpenChangeBodySchema>;
export type ApplyChangeBody = z.infer<typeof ApplyChangeBodySchema>;
export type OrderChange = z.infer<typeof ChangeSchema>;
export type ChangeLine = z.infer<typeof ChangeLineSchema>;
export type ChangeDifference = z.infer<typeof ChangeDifferenceSchema>;
export type OrderChangeList = z.infer<typeof ChangeListSchema>;

const c = initContract();

const changeMetadata = { permission: Permission.change, readsOrder: true } as const;
const ChangeConflictResponse = describedError(
  'Conflict: the order already has an open change (`change_already_open`), the change is no longer open ' +
    '(`change_not_open`), or the order is not confirmed (`order_not_changeable`, with `current_status`).',
);

export const orderChangesContract = c.router(
  {
    openChange: {
      method: 'POST',
      path: '/sales-orders/:id/changes',
      pathParams: SalesOrderIdParamsSchema,
      headers: TransitionHeadersSchema,
      body: OpenChangeBodySchema,
      responses: {
        201: successEnvelope(ChangeSchema),
        404: NotFoundResponse,
        409: ChangeConflictResponse,
        412: PreconditionFailedResponse,
        422: UnprocessableResponse,
        428: PreconditionRequiredResponse,
      },
      summary: 'Open a change request on a confirmed order, previewed',
      description:
        'A line with `sales_order_detail_id` changes that line (fields left out stay), one without is added, and ' +
        '`remove: true` removes the named line; `other_charges`, when sent, replaces the set. Answers the change: the ' +
        'order as it would be, the difference per line and the licence findings of the increase. The order itself is ' +
        'not changed. At most one open change per order. A quantity never goes below the net delivered quantity ' +
        '(422 `quantity_below_delivered`); a line with deliveries keeps its product and pack size and is not removed ' +
        '(422 `line_has_deliveries`). Only the lines the change names are validated. With Idempotency-Key, a retry ' +
        'gets the first answer.',
      metadata: changeMetadata,
    },
    listChanges: {
      method: 'GET',
      path: '/sales-orders/:id/changes',
      pathParams: SalesOrderIdParamsSchema,
      responses: { 200: successEnvelope(ChangeListSchema), 404: NotFoundResponse },
      summary: "An order's change requests, newest first",
      metadata: changeMetadata,
    },
    applyChange: {
      method: 'POST',
      path: '/sales-orders/:id/changes/:change_id/apply',
      pathParams: ChangeParamsSchema,
      headers: IdempotencyHeadersSchema,
      body: ApplyChangeBodySchema,
      responses: {
        200: successEnvelope(ChangeSchema),
        404: NotFoundResponse,
        409: ChangeConflictResponse,
        412: PreconditionFailedResponse,
        422: UnprocessableResponse,
      },
      summary: 'Apply an open change: the order gets a new version',
      description:
        'In one transaction: the lines and charges change, the order gets a new version, a history entry (`change`, ' +
        'with the reason and the per-line difference) and a `sales_order.changed` event. An order that moved on since ' +
        'the change was opened (a delivery, an edit) is checked again: 412 `change_no_longer_holds` when the change no ' +
        'longer holds. Licence warnings of the increase refuse the apply with 422 unless `acknowledge_warnings` is ' +
        'true (which needs `licences.override`), as for confirm. With Idempotency-Key, a retry gets the first answer ' +
        '(without one, a retried apply finds the change applied: 409 `change_not_open`).',
      metadata: { ...changeMetadata, fieldPermissions: [ACKNOWLEDGE_WARNINGS_PERMISSION] },
    },
    discardChange: {
      method: 'POST',
      path: '/sales-orders/:id/changes/:change_id/discard',
      pathParams: ChangeParamsSchema,
      body: c.noBody(),
      responses: {
        200: successEnvelope(ChangeSchema),
        404: NotFoundResponse,
        409: ChangeConflictResponse,
      },
      summary: 'Discard an open change: the order stays as it is',
      metadata: changeMetadata,
    },
  },
  { strictStatusCodes: true, commonResponses: CommonErrorResponses },
);

export type OrderChangesContract = typeof orderChangesContract;
