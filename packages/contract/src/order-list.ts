import { z } from 'zod';

import {
  calendarDate,
  dateTime,
  dateTimeInput,
  decimalPlaces,
  documented,
  fromBase64Url,
  id,
  idParam,
  isCalendarDate,
  isStorableText,
  MAX_DETAIL_LINES,
  MONEY_MAX,
  numberFromText,
  ORDER_NUMBER_MAX_LENGTH,
  queryBoolean,
  queryInteger,
  requiredText,
  SchemaIssueCode,
  toBase64Url,
} from './common.js';
import { SALES_ORDER_STATUSES, type SalesOrderStatus } from './order-lifecycle.js';
import { ORDER_DELIVERY_STATUSES, type OrderDeliveryStatus, SalesOrderSchema } from './sales-order.js';

/**
 * GET /sales-orders: filters, sorts, the opaque keyset cursor and the page. The cursor is
 * decoded and checked here, in the contract, so a tampered or foreign cursor is a 400 like any
 * other malformed query parameter.
 */

export const LIST_LIMIT_MAX = 200;
export const LIST_LIMIT_DEFAULT = 50;
/** `include_total=true` counts at most this many orders; beyond it `total_capped` is true. */
export const LIST_TOTAL_CAP = 10_000;
/** Far longer than any cursor the service issues (sort, key of at most 50 characters, id). */
export const LIST_CURSOR_MAX_LENGTH = 512;

export const ListSortSchema = z
  .enum([
    '-sales_order_date',
    'sales_order_date',
    '-updated_at',
    'updated_at',
    '-grand_total',
    'grand_total',
    'sales_order_no',
    'delivery_status',
    '-delivery_status',
  ])
  .describe('Sort key; "-" means descending. The order id breaks ties, in the same direction.');
export type ListSort = z.infer<typeof ListSortSchema>;

/** The column a sort orders by, without its direction. */
export type ListSortKey = 'sales_order_date' | 'updated_at' | 'grand_total' | 'sales_order_no' | 'delivery_status';

export const sortKeyOf = (sort: ListSort): ListSortKey => sort.replace(/^-/, '') as ListSortKey;

/** Decimal text as PostgreSQL prints NUMERIC(18,2), within the money range (13 integer digits). */
const DECIMAL_TEXT = /^-?\d{1,13}\.\d{2}$/;
/** A timestamp as the cursor carries it: ISO 8601 in UTC with milliseconds. */
const ISO_MILLIS = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/**
 * What a cursor holds: the sort it belongs to, the last row's sort key and its id. Decoded with
 * the bounds of the values the service writes in it (ids of stored rows, 1..2^31-1; real
 * calendar days and times; amounts in the money range; storable text), so a forged cursor is a
 * 400, never an error of the database.
 */
export const ListCursorSchema = z.discriminatedUnion('s', [
  z.object({ s: z.enum(['-sales_order_date', 'sales_order_date']), k: calendarDate(), i: id() }).strict(),
  z
    .object({
      s: z.enum(['-updated_at', 'updated_at']),
      k: z
        .string()
        .regex(ISO_MILLIS)
        .refine((value) => isCalendarDate(value.slice(0, 10))),
      i: id(),
    })
    .strict(),
  z
    .object({
      s: z.enum(['-grand_total', 'grand_total']),
      k: z.string().regex(DECIMAL_TEXT),
      i: id(),
    })
    .strict(),
  z
    .object({
      s: z.literal('sales_order_no'),
      k: z.string().min(1).max(ORDER_NUMBER_MAX_LENGTH).refine(isStorableText),
      i: id(),
    })
    .strict(),
  z
    .object({ s: z.enum(['delivery_status', '-delivery_status']), k: z.enum(ORDER_DELIVERY_STATUSES), i: id() })
    .strict(),
]);
export type ListCursor = z.infer<typeof ListCursorSchema>;

export const encodeListCursor = (cursor: ListCursor): string => toBase64Url(JSON.stringify(cursor));

/** The cursor a `next_cursor` held, or undefined when the text is not one. */
export const decodeListCursor = (value: string): ListCursor | undefined => {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(value)) return undefined;
  try {
    const parsed = ListCursorSchema.safeParse(JSON.parse(fromBase64Url(value)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/** A money bound from a query string, carried to SQL as exact decimal text. */
const moneyBound = () =>
  numberFromText('decimal', documented(z.number().finite().gte(-MONEY_MAX).lte(MONEY_MAX), { multipleOf: 0.01 }))
    .refine((value) => decimalPlaces(value) <= 2, {
      message: 'must have at most 2 decimal places',
      params: { code: SchemaIssueCode.tooManyDecimals },
    })
    .transform((value) => value.toFixed(2));

const PREFIX_TEXT = /^[A-Za-z0-9/_.-]{1,50}$/;

const STATUS_LIST = new RegExp(`^(?:${SALES_ORDER_STATUSES.join('|')})(?:,(?:${SALES_ORDER_STATUSES.join('|')}))*$`);

const DELIVERY_STATUS_ALTERNATIVES = ORDER_DELIVERY_STATUSES.join('|');
const DELIVERY_STATUS_LIST = new RegExp(
  `^(?:${DELIVERY_STATUS_ALTERNATIVES})(?:,(?:${DELIVERY_STATUS_ALTERNATIVES}))*$`,
);

/** One or more statuses, comma-separated (`confirmed,closed`), each at most once in effect. */
const statusList = () =>
  documented(z.string().max(60), { pattern: STATUS_LIST.source })
    .transform((value, ctx) => {
      if (!STATUS_LIST.test(value)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `must be one or more of ${SALES_ORDER_STATUSES.join(', ')}, comma-separated`,
        });
        return z.NEVER;
      }
      return [...new Set(value.split(','))] as SalesOrderStatus[];
    })
    .describe(`Orders in any of these statuses, comma-separated: ${SALES_ORDER_STATUSES.join(', ')}.`);

/**
 * The list's filters, one definition: GET /sales-orders takes them all, GET /reports/sales the
 * ones a report filters by (reports.ts), with the same names, formats and meanings.
 */
export const OrderFilterFields = z.object({
  customer_id: idParam().optional(),
  location_id: idParam().optional(),
  year_id: idParam().optional().describe('Financial year id.'),
  date_from: calendarDate().optional().describe('Order date on or after (inclusive).'),
  date_to: calendarDate().optional().describe('Order date on or before (inclusive).'),
  number: z
    .string()
    .max(ORDER_NUMBER_MAX_LENGTH)
    .regex(PREFIX_TEXT)
    .optional()
    .describe('Exact order number, case-insensitive.'),
  number_prefix: z
    .string()
    .max(ORDER_NUMBER_MAX_LENGTH)
    .regex(PREFIX_TEXT)
    .optional()
    .describe('Order numbers starting with this, case-insensitive.'),
  q: requiredText(100)
    .optional()
    .describe(
      "Case-insensitive substring of the order number, the customer name, the remarks or the customer's reference.",
    ),
  product_id: idParam().optional().describe('Orders having at least one line of this product.'),
  min_total: moneyBound().optional().describe('Grand total at least this.'),
  max_total: moneyBound().optional().describe('Grand total at most this.'),
  updated_since: dateTimeInput().optional().describe('Orders whose updated_at is at or after this instant.'),
  status: statusList().optional(),
  include_deleted: queryBoolean().describe('true: soft-deleted orders too, with their deleted_at (default false).'),
  delivery_status: documented(z.string().max(60), { pattern: DELIVERY_STATUS_LIST.source })
    .transform((value, ctx) => {
      if (!DELIVERY_STATUS_LIST.test(value)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `must be one or more of ${ORDER_DELIVERY_STATUSES.join(', ')}, comma-separated`,
        });
        return z.NEVER;
      }
      return [...new Set(value.split(','))] as OrderDeliveryStatus[];
    })
    .optional()
    .describe(`Orders in any of these delivery statuses, comma-separated: ${ORDER_DELIVERY_STATUSES.join(', ')}.`),
});

export const ListSalesOrdersQuerySchema = OrderFilterFields.extend({
  sort: ListSortSchema.default('-sales_order_date'),
  limit: queryInteger(1, LIST_LIMIT_MAX)
    .default(LIST_LIMIT_DEFAULT)
    .describe(`1..${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}.`),
  cursor: z
    .string()
    .max(LIST_CURSOR_MAX_LENGTH)
    .transform((value, ctx) => {
      const cursor = decodeListCursor(value);
      if (!cursor) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'is not a cursor this service issued' });
        return z.NEVER;
      }
      return cursor;
    })
    .optional()
    .describe('Opaque: the next_cursor of the previous page, with the same filters and sort.'),
  include_total: queryBoolean().describe(`true: also count the matching orders, up to ${LIST_TOTAL_CAP}.`),
}).superRefine((query, ctx) => {
  if (query.cursor && query.cursor.s !== query.sort) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['cursor'], message: 'belongs to another sort' });
  }
});

/** The list's filters as the contract reads them (without sort and paging). */
export type OrderFilters = z.output<typeof OrderFilterFields>;

export type ListSalesOrdersQuery = z.input<typeof ListSalesOrdersQuerySchema>;
export type ListSalesOrdersFilters = z.output<typeof ListSalesOrdersQuerySchema>;

/**
 * One order in a list: the read shape's header (its remarks too, which `q` searches), totals and
 * version, its line count, without lines.
 */
export const SalesOrderListItemSchema = SalesOrderSchema.pick({
  sales_order_id: true,
  sales_order_no: true,
  customer_id: true,
  customer_name: true,
  sales_order_date: true,
  location_id: true,
  financial_year_id: true,
  subtotal: true,
  other_charges_total: true,
  grand_total: true,
  version: true,
  created_at: true,
  updated_at: true,
  status: true,
  status_changed_at: true,
  cancellation_reason: true,
  amended_from_id: true,
  field_officer_id: true,
  port_id: true,
  customer_reference: true,
  remarks: true,
  delivery_date: true,
  delivery_status: true,
}).extend({
  line_count: z.number().int().min(0).max(MAX_DETAIL_LINES),
  deleted_at: dateTime().nullable().describe('Set on soft-deleted orders (only listed with include_deleted=true).'),
});

export const SalesOrderPageSchema = z.object({
  items: z.array(SalesOrderListItemSchema).max(LIST_LIMIT_MAX),
  next_cursor: z
    .string()
    .max(LIST_CURSOR_MAX_LENGTH)
    .nullable()
    .describe('Pass as `cursor` for the next page; null on the last page.'),
  total: z
    .number()
    .int()
    .min(0)
    .max(LIST_TOTAL_CAP)
    .optional()
    .describe(`Only with include_total=true: matching orders, at most ${LIST_TOTAL_CAP}.`),
  total_capped: z
    .boolean()
    .optional()
    .describe(`Only with include_total=true: true when more than ${LIST_TOTAL_CAP} orders match.`),
});

export type SalesOrderListItem = z.infer<typeof SalesOrderListItemSchema>;
export type SalesOrderPage = z.infer<typeof SalesOrderPageSchema>;
