import { initContract } from '@ts-rest/core';
import { z } from 'zod';

import {
  CALENDAR_DATE_PATTERN,
  calendarDate,
  dateTime,
  dateTimeInput,
  fromBase64Url,
  id,
  idParam,
  isCalendarDate,
  MAX_DETAIL_LINES,
  plainObject,
  quantity,
  queryInteger,
  requiredText,
  text,
  toBase64Url,
} from './common.js';
import { successEnvelope } from './envelope.js';
import {
  CommonErrorResponses,
  describedError,
  PreconditionFailedResponse,
  PreconditionRequiredResponse,
  UnprocessableResponse,
} from './errors.js';
import { Permission } from './permissions.js';
import { SalesOrderIdParamsSchema } from './sales-order.js';
import { TransitionHeadersSchema } from './write-safety.js';

/**
 * Deliveries: what left the depot against each line of a confirmed order, their cancellations
 * and the goods that came back (returns). A delivery belongs to its order's location.
 */

export const DELIVERY_RECORD_STATUSES = ['recorded', 'cancelled'] as const;
export const DeliveryRecordStatusSchema = z.enum(DELIVERY_RECORD_STATUSES);
export type DeliveryRecordStatus = z.infer<typeof DeliveryRecordStatusSchema>;

/** `error.details[].code` of the deliveries' refusals. */
export const DeliveryCode = {
  /** 409: only a confirmed order takes deliveries (`current_status` says what it is). */
  orderNotDeliverable: 'order_not_deliverable',
  /** 422: a line would get more, net of returns, than its ordered quantity and the tolerance allow. */
  overDelivery: 'over_delivery',
  /** 422: the line is not one of this order's. */
  unknownOrderLine: 'unknown_order_line',
  /** 422: the delivery line is not one of this delivery's. */
  unknownDeliveryLine: 'unknown_delivery_line',
  /** 422: a return of more than the delivery line's delivered less its earlier returns. */
  returnExceedsDelivered: 'return_exceeds_delivered',
  /** 409: a delivery with returns cannot be cancelled. */
  deliveryHasReturns: 'delivery_has_returns',
  /** 409: an order with goods delivered (net of returns) cannot be cancelled. */
  orderHasDeliveries: 'order_has_deliveries',
  /** 422: a delivery or return dated after today (the business's time zone) or before what it follows. */
  dateOutOfRange: 'date_out_of_range',
} as const;
export type DeliveryCode = (typeof DeliveryCode)[keyof typeof DeliveryCode];

export const DELIVERY_REFERENCE_MAX_LENGTH = 100;
export const DELIVERY_REMARKS_MAX_LENGTH = 2000;
export const DELIVERY_REASON_MAX_LENGTH = 500;
export const DELIVERY_NO_MAX_LENGTH = 50;

const storedDate = () => z.string().max(10).regex(new RegExp(CALENDAR_DATE_PATTERN)).describe('YYYY-MM-DD');

export const RecordDeliveryBodySchema = z.object({
  delivery_date: calendarDate().describe('Not before the order date, not after today in BUSINESS_TIME_ZONE.'),
  reference: text(DELIVERY_REFERENCE_MAX_LENGTH)
    .nullish()
    .describe("The host's challan or gate-pass number; searchable with `q`."),
  remarks: text(DELIVERY_REMARKS_MAX_LENGTH).nullish(),
  lines: z
    .array(plainObject({ sales_order_detail_id: id(), quantity: quantity() }))
    .min(1)
    .max(MAX_DETAIL_LINES)
    .describe('Rows against the order lines; rows of one line add up.'),
});

export const CancelDeliveryBodySchema = z.object({
  reason: requiredText(DELIVERY_REASON_MAX_LENGTH).describe('Why the delivery is taken back.'),
});

export const RecordReturnBodySchema = z.object({
  return_date: calendarDate().describe('Not before the delivery date, not after today in BUSINESS_TIME_ZONE.'),
  reason: requiredText(DELIVERY_REASON_MAX_LENGTH),
  lines: z
    .array(plainObject({ delivery_line_id: id(), quantity: quantity() }))
    .min(1)
    .max(MAX_DETAIL_LINES),
});

export const DeliveryIdParamsSchema = z.object({ id: idParam().describe('Delivery id.') });

export const DeliveryLineSchema = z.object({
  delivery_line_id: id(),
  sales_order_detail_id: id(),
  product_id: id(),
  quantity: z.number(),
  returned_quantity: z.number(),
});

const DeliverySchemaObject = z.object({
  delivery_id: id(),
  delivery_no: z.string().max(DELIVERY_NO_MAX_LENGTH).describe('{location code}-DN-{year}-{sequence}, per series.'),
  sales_order_id: id(),
  location_id: id(),
  delivery_date: storedDate(),
  reference: z.string().max(DELIVERY_REFERENCE_MAX_LENGTH).nullable(),
  remarks: z.string().max(DELIVERY_REMARKS_MAX_LENGTH).nullable(),
  status: DeliveryRecordStatusSchema,
  cancellation_reason: z.string().max(DELIVERY_REASON_MAX_LENGTH).nullable(),
  lines: z.array(DeliveryLineSchema).max(MAX_DETAIL_LINES),
  created_at: dateTime(),
  created_by: z.string().max(200).nullable(),
  updated_at: dateTime(),
});
type DeliverySchemaObject = typeof DeliverySchemaObject;
/** Named, like SalesOrderSchema. */
export interface DeliverySchema extends DeliverySchemaObject {}
export const DeliverySchema: DeliverySchema = DeliverySchemaObject;

export const DELIVERY_LIST_LIMIT_MAX = 200;
export const DELIVERY_LIST_LIMIT_DEFAULT = 50;

/** The keyset cursor of GET /deliveries: the last row's delivery date and id (newest first). */
const DeliveryCursorSchema = z.object({ k: calendarDate(), i: id() }).strict();
type DeliveryCursor = z.infer<typeof DeliveryCursorSchema>;
export const encodeDeliveryCursor = (cursor: DeliveryCursor): string => toBase64Url(JSON.stringify(cursor));
export const decodeDeliveryCursor = (value: string): DeliveryCursor | undefined => {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) return undefined;
  try {
    const parsed = DeliveryCursorSchema.safeParse(JSON.parse(fromBase64Url(value)));
    return parsed.success && isCalendarDate(parsed.data.k) ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

export const ListDeliveriesQuerySchema = z.object({
  location_id: idParam().optional(),
  sales_order_id: idParam().optional(),
  customer_id: idParam().optional(),
  status: DeliveryRecordStatusSchema.optional(),
  delivery_date_from: calendarDate().optional().describe('Delivery date on or after (inclusive).'),
  delivery_date_to: calendarDate().optional().describe('Delivery date on or before (inclusive).'),
  q: requiredText(100).optional().describe('Case-insensitive substring of the delivery number or the reference.'),
  updated_since: dateTimeInput().optional().describe('Deliveries changed at or after this instant.'),
  limit: queryInteger(1, DELIVERY_LIST_LIMIT_MAX)
    .default(DELIVERY_LIST_LIMIT_DEFAULT)
    .describe(`1..${DELIVERY_LIST_LIMIT_MAX}, default ${DELIVERY_LIST_LIMIT_DEFAULT}.`),
  cursor: z
    .string()
    .max(256)
    .transform((value, ctx) => {
      const cursor = decodeDeliveryCursor(value);
      if (!cursor) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'is not a cursor this service issued' });
        return z.NEVER;
      }
      return cursor;
    })
    .optional()
    .describe('Opaque: the next_cursor of the previous page, with the same filters.'),
});
export type ListDeliveriesQuery = z.input<typeof ListDeliveriesQuerySchema>;

export const DeliveryPageSchema = z.object({
  items: z.array(DeliverySchema).max(DELIVERY_LIST_LIMIT_MAX).describe('Newest delivery date first, then id.'),
  next_cursor: z.string().max(256).nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
});

export type RecordDeliveryBody = z.infer<typeof RecordDeliveryBodySchema>;
export type CancelDeliveryBody = z.infer<typeof CancelDeliveryBodySchema>;
export type RecordReturnBody = z.infer<typeof RecordReturnBodySchema>;
export type Delivery = z.infer<typeof DeliverySchema>;
export type DeliveryPage = z.infer<typeof DeliveryPageSchema>;

const DeliveryNotFound = describedError("Not found: no such delivery (or order) in the caller's locations.");
const DeliveryConflict = describedError(
  'Conflict: `order_not_deliverable` (only a confirmed order takes deliveries, with `current_status`), ' +
    '`invalid_transition` (the delivery is already cancelled), `delivery_has_returns`, or a request with this ' +
    'Idempotency-Key still in progress.',
);
const writeRefusals = {
  404: DeliveryNotFound,
  409: DeliveryConflict,
  412: PreconditionFailedResponse,
  422: UnprocessableResponse,
  428: PreconditionRequiredResponse,
} as const;
const WRITE = { permission: Permission.deliveriesWrite, readsOrder: true, tag: 'Deliveries' } as const;
const READ = { permission: Permission.read, tag: 'Deliveries' } as const;

const c = initContract();

export const deliveriesContract = c.router(
  {
    recordDelivery: {
      method: 'POST',
      path: '/sales-orders/:id/deliveries',
      pathParams: SalesOrderIdParamsSchema,
      headers: TransitionHeadersSchema,
      body: RecordDeliveryBodySchema,
      responses: { 201: successEnvelope(DeliverySchema), ...writeRefusals },
      summary: 'Record a delivery against the lines of a confirmed order',
      description:
        'Each line takes at most its ordered quantity plus OVER_DELIVERY_TOLERANCE_PERCENT, net of returns and counting ' +
        'every row of the request (422 `over_delivery` at `lines.{n}.quantity`, saying how much that line can still ' +
        'take); a line of another order is 422 `unknown_order_line`. The order gets a new version and history entry. ' +
        "Honours If-Match (the order's ETag) and Idempotency-Key.",
      metadata: WRITE,
    },
    listOrderDeliveries: {
      method: 'GET',
      path: '/sales-orders/:id/deliveries',
      pathParams: SalesOrderIdParamsSchema,
      responses: {
        200: successEnvelope(z.object({ items: z.array(DeliverySchema).max(10_000) })),
        404: DeliveryNotFound,
      },
      summary: "An order's deliveries, oldest first",
      metadata: READ,
    },
    listDeliveries: {
      method: 'GET',
      path: '/deliveries',
      query: ListDeliveriesQuerySchema,
      responses: { 200: successEnvelope(DeliveryPageSchema) },
      summary: 'List deliveries, a keyset-paginated page at a time',
      metadata: READ,
    },
    getDelivery: {
      method: 'GET',
      path: '/deliveries/:id',
      pathParams: DeliveryIdParamsSchema,
      responses: { 200: successEnvelope(DeliverySchema), 404: DeliveryNotFound },
      summary: 'Read one delivery',
      metadata: READ,
    },
    cancelDelivery: {
      method: 'POST',
      path: '/deliveries/:id/cancel',
      pathParams: DeliveryIdParamsSchema,
      headers: TransitionHeadersSchema,
      body: CancelDeliveryBodySchema,
      responses: { 200: successEnvelope(DeliverySchema), ...writeRefusals },
      summary: 'Take a recorded delivery back while its order is confirmed',
      description:
        'A cancelled delivery is 409 `invalid_transition`; one with returns 409 `delivery_has_returns`. If-Match names ' +
        "the order's ETag.",
      metadata: WRITE,
    },
    recordReturn: {
      method: 'POST',
      path: '/deliveries/:id/returns',
      pathParams: DeliveryIdParamsSchema,
      headers: TransitionHeadersSchema,
      body: RecordReturnBodySchema,
      responses: { 201: successEnvelope(DeliverySchema), ...writeRefusals },
      summary: 'Record goods that came back against the lines of a delivery',
      description:
        "On a confirmed or closed order. At most a line's delivered less its earlier returns (422 " +
        '`return_exceeds_delivered`); on a confirmed order the returned quantity is pending again. Answers the delivery.',
      metadata: WRITE,
    },
  },
  { strictStatusCodes: true, commonResponses: CommonErrorResponses },
);
