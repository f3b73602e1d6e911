import { z } from 'zod';

import {
  CALENDAR_DATE_PATTERN,
  calendarDate,
  claimedMoney,
  dateTime,
  documented,
  id,
  idParam,
  MAX_DETAIL_LINES,
  MAX_ID,
  MAX_OTHER_CHARGES,
  money,
  ORDER_NUMBER_MAX_LENGTH,
  orderNumber,
  plainObject,
  quantity,
  rate,
  requiredText,
  SchemaIssueCode,
  text,
} from './common.js';
import { CANCELLATION_REASON_MAX_LENGTH, SalesOrderStatusSchema } from './order-lifecycle.js';

/** Text lengths of the stored columns (apps/server/prisma/schema.prisma), the same for input and output. */
export const ORDER_REMARKS_MAX_LENGTH = 2000;
export const LINE_REMARKS_MAX_LENGTH = 1000;
export const CHARGE_DESCRIPTION_MAX_LENGTH = 200;
/** Names of master records and of the users who wrote an order. */
export const NAME_MAX_LENGTH = 200;
/** The customer's own purchase order number. */
export const CUSTOMER_REFERENCE_MAX_LENGTH = 100;

/** A detail line as sent on create and update: up to 500 of them (plainObject). */
export const SalesOrderDetailInputSchema = plainObject({
  product_id: id(),
  packsize_id: id().nullish().describe('Must belong to the product.'),
  quantity: quantity(),
  rate: rate(),
  amount: claimedMoney()
    .nullish()
    .describe(
      'Optional; the server computes quantity x rate rounded half-up to 2 places and refuses a value more than 0.01 away.',
    ),
  remarks: text(LINE_REMARKS_MAX_LENGTH).nullish(),
});

export const OtherChargeInputSchema = z.object({
  description: requiredText(CHARGE_DESCRIPTION_MAX_LENGTH),
  amount: money(),
});

const detailsInput = () => z.array(SalesOrderDetailInputSchema).min(1).max(MAX_DETAIL_LINES);
const otherChargesInput = () => z.array(OtherChargeInputSchema).max(MAX_OTHER_CHARGES);

/**
 * Optional references and dates a host's order form carries; on a confirmed order they stay
 * editable, like `remarks`.
 */
const fulfilmentFields = () =>
  z.object({
    field_officer_id: id().nullable().describe('An active field officer (the dropdown `field-officers`).'),
    port_id: id().nullable().describe('An active port (the dropdown `ports`).'),
    customer_reference: text(CUSTOMER_REFERENCE_MAX_LENGTH)
      .nullable()
      .describe("The customer's own purchase order number; searchable with `q`."),
    delivery_date: calendarDate().nullable().describe('Not before the order date.'),
  });

export const CreateSalesOrderBodySchema = z
  .object({
    customer_id: id(),
    sales_order_date: calendarDate().describe('Decides the financial year and so the number series.'),
    location_id: id(),
    sales_order_no: orderNumber()
      .nullish()
      .describe(
        'Omit to let the server assign the next number of the series. A supplied number shaped like a series number ' +
          "({prefix}-{4-digit year}-{digits}, any case) must be of the order's own series and is stored in canonical form " +
          '(prefix upper-case, sequence zero-padded to 5 digits); any other is free-form and moves no counter. ' +
          'No two orders, live or deleted, share a number, case and zero padding ignored.',
      ),
    grand_total: claimedMoney()
      .nullish()
      .describe('Optional; refused when more than 0.01 away from the computed grand total.'),
    remarks: text(ORDER_REMARKS_MAX_LENGTH).nullish(),
    details: detailsInput(),
    other_charges: otherChargesInput().optional(),
    status: z
      .enum(['draft', 'confirmed'])
      .optional()
      .describe(
        'draft (the default) or confirmed: created and confirmed in one transaction, with the checks of POST ' +
          '/sales-orders/{id}/confirm (a refused confirm creates nothing and consumes no number); confirmed needs ' +
          '`sales_orders.confirm` as well.',
      ),
    acknowledge_warnings: z
      .boolean()
      .optional()
      .describe(
        'With status confirmed: confirm despite licence warnings, as for POST /sales-orders/{id}/confirm; true needs ' +
          '`licences.override`.',
      ),
  })
  .merge(fulfilmentFields().partial());

/**
 * Every field optional; `details` and `other_charges`, when present, replace the stored sets.
 * At least one field must be present.
 */
export const UpdateSalesOrderBodySchema = documented(
  z
    .object({
      customer_id: id(),
      sales_order_date: calendarDate(),
      location_id: id(),
      sales_order_no: orderNumber(),
      grand_total: claimedMoney().nullish(),
      remarks: text(ORDER_REMARKS_MAX_LENGTH).nullable(),
      details: detailsInput(),
      other_charges: otherChargesInput(),
    })
    .merge(fulfilmentFields())
    .partial(),
  // JSON cannot carry an undefined field, so "names a field" is "has a property".
  { minProperties: 1 },
).superRefine((body, ctx) => {
  if (Object.values(body).every((value) => value === undefined)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: 'the body names no field to update',
      params: { code: SchemaIssueCode.emptyUpdate },
    });
  }
});

export const SalesOrderIdParamsSchema = z.object({
  id: idParam().describe('Sales order id.'),
});

const name = () => z.string().max(NAME_MAX_LENGTH);
export const storedOrderNumber = () => z.string().max(ORDER_NUMBER_MAX_LENGTH);

export const SalesOrderDetailSchema = z.object({
  sales_order_detail_id: id(),
  product_id: id(),
  product_name: name(),
  packsize_id: id().nullable(),
  quantity: z.number(),
  rate: z.number(),
  amount: z.number(),
  remarks: z.string().max(LINE_REMARKS_MAX_LENGTH).nullable(),
  delivered_quantity: z.number().describe('Everything on its recorded deliveries, before returns.'),
  returned_quantity: z.number().describe('What came back of it (returns against its deliveries).'),
  pending_quantity: z
    .number()
    .describe('quantity - (delivered - returned) - short_closed, never below 0: what is still to deliver.'),
  short_closed_quantity: z.number().describe('What a close left undelivered (pending when the order was closed).'),
});

/** How much of an order has left the depot, net of returns, decided on exact quantities. */
export const ORDER_DELIVERY_STATUSES = ['not_delivered', 'partly_delivered', 'delivered'] as const;
export const OrderDeliveryStatusSchema = z
  .enum(ORDER_DELIVERY_STATUSES)
  .describe('delivered: no line has anything pending; partly_delivered: something delivered net of returns.');
export type OrderDeliveryStatus = z.infer<typeof OrderDeliveryStatusSchema>;

export const OtherChargeSchema = z.object({
  other_charge_id: id(),
  description: z.string().max(CHARGE_DESCRIPTION_MAX_LENGTH),
  amount: z.number(),
});

/** One order as read. */
const SalesOrderSchemaObject = z.object({
  sales_order_id: id(),
  sales_order_no: storedOrderNumber(),
  customer_id: id(),
  customer_name: name(),
  sales_order_date: z.string().max(10).regex(new RegExp(CALENDAR_DATE_PATTERN)).describe('YYYY-MM-DD'),
  location_id: id(),
  financial_year_id: id(),
  subtotal: z.number(),
  other_charges_total: z.number(),
  grand_total: z.number(),
  remarks: z.string().max(ORDER_REMARKS_MAX_LENGTH).nullable(),
  details: z.array(SalesOrderDetailSchema).max(MAX_DETAIL_LINES),
  other_charges: z.array(OtherChargeSchema).max(MAX_OTHER_CHARGES),
  version: z
    .number()
    .int()
    .positive()
    .max(MAX_ID)
    .describe('Starts at 1; +1 on every change (update, delete, confirm, cancel, close).'),
  created_at: dateTime(),
  updated_at: dateTime(),
  created_by: name().nullable(),
  updated_by: name().nullable(),
  status: SalesOrderStatusSchema,
  status_changed_at: dateTime().describe('When the order entered its status (its creation for a draft).'),
  cancellation_reason: z
    .string()
    .max(CANCELLATION_REASON_MAX_LENGTH)
    .nullable()
    .describe('Why it was cancelled; null unless cancelled.'),
  amended_from_id: id().nullable().describe('The cancelled order this one amends; null unless an amendment.'),
  field_officer_id: id().nullable(),
  field_officer_name: name().nullable(),
  port_id: id().nullable(),
  port_name: name().nullable(),
  customer_reference: z.string().max(CUSTOMER_REFERENCE_MAX_LENGTH).nullable(),
  delivery_date: z.string().max(10).regex(new RegExp(CALENDAR_DATE_PATTERN)).nullable().describe('YYYY-MM-DD'),
  delivery_status: OrderDeliveryStatusSchema,
});

type SalesOrderSchemaObject = typeof SalesOrderSchemaObject;
/** Named (an interface derived from the schema, not a shape written by hand) so that declarations refer to it rather than writing it out again at every route that answers it. */
export interface SalesOrderSchema extends SalesOrderSchemaObject {}
export const SalesOrderSchema: SalesOrderSchema = SalesOrderSchemaObject;

export const CreatedSalesOrderSchema = z.object({
  sales_order_id: id(),
  order_number: storedOrderNumber(),
  total_amount: z.number().describe('The grand total.'),
});

export const UpdatedSalesOrderSchema = z.object({
  sales_order_id: id(),
  updated: z.literal(true),
  version: z
    .number()
    .int()
    .positive()
    .max(MAX_ID)
    .describe("The version after this update; the response's ETag carries it too."),
});

export const DeletedSalesOrderSchema = z.object({
  sales_order_id: id(),
  deleted: z.literal(true),
});

export const MaxNumberQuerySchema = z.object({
  year_id: idParam().describe('Financial year id.'),
  location_id: idParam().describe('Location id.'),
});

export const MaxNumberSchema = z.object({
  max_sales_order_number: storedOrderNumber()
    .nullable()
    .describe(
      'The number of the series with the highest sequence, deleted orders included (free-form numbers are in no series); null when empty.',
    ),
  next_sales_order_number: storedOrderNumber().describe('The number the next order without sales_order_no would get.'),
  year_id: id(),
  location_id: id(),
});

export type SalesOrderDetailInput = z.infer<typeof SalesOrderDetailInputSchema>;
export type OtherChargeInput = z.infer<typeof OtherChargeInputSchema>;
export type CreateSalesOrderBody = z.infer<typeof CreateSalesOrderBodySchema>;
export type UpdateSalesOrderBody = z.infer<typeof UpdateSalesOrderBodySchema>;
export type SalesOrder = z.infer<typeof SalesOrderSchema>;
export type SalesOrderDetail = z.infer<typeof SalesOrderDetailSchema>;
export type OtherCharge = z.infer<typeof OtherChargeSchema>;
export type CreatedSalesOrder = z.infer<typeof CreatedSalesOrderSchema>;
export type UpdatedSalesOrder = z.infer<typeof UpdatedSalesOrderSchema>;
export type DeletedSalesOrder = z.infer<typeof DeletedSalesOrderSchema>;
export type MaxNumberQuery = z.infer<typeof MaxNumberQuerySchema>;
export type MaxNumber = z.infer<typeof MaxNumberSchema>;
