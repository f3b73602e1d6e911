import { z } from 'zod';
import {
  MAX_DETAIL_LINES,
  MAX_OTHER_CHARGES,
  SchemaIssueCode,
  calendarDate,
  claimedMoney,
  dateTime,
  id,
  idParam,
  money,
  orderNumber,
  quantity,
  rate,
  requiredText,
  text,
} from './common.js';

/** A detail line as sent on create and update. */
export const SalesOrderDetailInputSchema = z.object({
  product_id: id(),
  packsize_id: id().nullish().describe('Must belong to the product.'),
  quantity: quantity(),
  rate: rate(),
  amount: claimedMoney()
    .nullish()
    .describe('Optional; the server computes quantity x rate rounded half-up to 2 places and refuses a value more than 0.01 away.'),
  remarks: text(1000).nullish(),
});

export const OtherChargeInputSchema = z.object({
  description: requiredText(200),
  amount: money(),
});

const detailsInput = () => z.array(SalesOrderDetailInputSchema).min(1).max(MAX_DETAIL_LINES);
const otherChargesInput = () => z.array(OtherChargeInputSchema).max(MAX_OTHER_CHARGES);

export const CreateSalesOrderBodySchema = z.object({
  customer_id: id(),
  sales_order_date: calendarDate().describe('Decides the financial year and so the number series.'),
  location_id: id(),
  sales_order_no: orderNumber()
    .nullish()
    .describe('Omit to let the server assign the next number of the series; a supplied one must be unique in its series.'),
  grand_total: claimedMoney()
    .nullish()
    .describe('Optional; refused when more than 0.01 away from the computed grand total.'),
  remarks: text(2000).nullish(),
  details: detailsInput(),
  other_charges: otherChargesInput().optional(),
});

/**
 * Every field optional; `details` and `other_charges`, when present, replace the stored sets.
 * At least one field must be present.
 */
export const UpdateSalesOrderBodySchema = z
  .object({
    customer_id: id(),
    sales_order_date: calendarDate(),
    location_id: id(),
    sales_order_no: orderNumber(),
    grand_total: claimedMoney().nullish(),
    remarks: text(2000).nullable(),
    details: detailsInput(),
    other_charges: otherChargesInput(),
  })
  .partial()
  .superRefine((body, ctx) => {
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

export const SalesOrderDetailSchema = z.object({
  sales_order_detail_id: z.number().int(),
  product_id: z.number().int(),
  product_name: z.string(),
  packsize_id: z.number().int().nullable(),
  quantity: z.number(),
  rate: z.number(),
  amount: z.number(),
  remarks: z.string().nullable(),
});

export const OtherChargeSchema = z.object({
  other_charge_id: z.number().int(),
  description: z.string(),
  amount: z.number(),
});

/** One order as read. */
export const SalesOrderSchema = z.object({
  sales_order_id: z.number().int(),
  sales_order_no: z.string(),
  customer_id: z.number().int(),
  customer_name: z.string(),
  sales_order_date: z.string().describe('YYYY-MM-DD'),
  location_id: z.number().int(),
  financial_year_id: z.number().int(),
  subtotal: z.number(),
  other_charges_total: z.number(),
  grand_total: z.number(),
  remarks: z.string().nullable(),
  details: z.array(SalesOrderDetailSchema),
  other_charges: z.array(OtherChargeSchema),
  version: z.number().int().describe('Starts at 1; +1 on every update or delete.'),
  created_at: dateTime(),
  updated_at: dateTime(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
});

export const CreatedSalesOrderSchema = z.object({
  sales_order_id: z.number().int(),
  order_number: z.string(),
  total_amount: z.number().describe('The grand total.'),
});

export const UpdatedSalesOrderSchema = z.object({
  sales_order_id: z.number().int(),
  updated: z.literal(true),
  version: z.number().int().describe('The version after this update; the response\'s ETag carries it too.'),
});

export const DeletedSalesOrderSchema = z.object({
  sales_order_id: z.number().int(),
  deleted: z.literal(true),
});

export const MaxNumberQuerySchema = z.object({
  year_id: idParam().describe('Financial year id.'),
  location_id: idParam().describe('Location id.'),
});

export const MaxNumberSchema = z.object({
  max_sales_order_number: z
    .string()
    .nullable()
    .describe('The number with the highest trailing sequence in the series, deleted orders included; null when empty.'),
  next_sales_order_number: z.string().describe('The number the next order without sales_order_no would get.'),
  year_id: z.number().int(),
  location_id: z.number().int(),
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
