import { initContract } from '@ts-rest/core';
import { z } from 'zod';

import {
  calendarDate,
  documented,
  fromBase64Url,
  id,
  isStorableText,
  MAX_ID,
  queryInteger,
  toBase64Url,
} from './common.js';
import { successEnvelope } from './envelope.js';
import { CommonErrorResponses, describedError } from './errors.js';
import { SalesOrderStatusSchema } from './order-lifecycle.js';
import { OrderFilterFields } from './order-list.js';
import { Permission } from './permissions.js';

/**
 * GET /reports/sales: orders grouped by one to three keys, with exact sums. The rules that keep a
 * report honest are checked here, in the contract, so that a request that would add apples to
 * oranges is a 400 before anything is read (docs/api.md, "Reports").
 */

/** What a report groups by. */
export const REPORT_GROUP_KEYS = [
  'location',
  'customer',
  'product',
  'field_officer',
  'port',
  'status',
  'delivery_status',
  'financial_year',
  'month',
  'day',
] as const;
export type ReportGroupKey = (typeof REPORT_GROUP_KEYS)[number];

/** What a report sums or counts. */
export const REPORT_METRICS = [
  'order_count',
  'line_count',
  'ordered_quantity',
  'delivered_quantity',
  'returned_quantity',
  'pending_quantity',
  'subtotal',
  'other_charges_total',
  'grand_total',
] as const;
export type ReportMetric = (typeof REPORT_METRICS)[number];

/** Quantities: each product's own unit, so they add up only within one product. */
export const QUANTITY_METRICS: readonly ReportMetric[] = [
  'ordered_quantity',
  'delivered_quantity',
  'returned_quantity',
  'pending_quantity',
];
/** Amounts of the whole order (its other charges belong to no line): not split among products. */
export const ORDER_TOTAL_METRICS: readonly ReportMetric[] = ['other_charges_total', 'grand_total'];
/** What a report dated by deliveries and returns can say: only their own quantities, and what they touched. */
export const DELIVERY_DATE_METRICS: readonly ReportMetric[] = [
  'order_count',
  'line_count',
  'delivered_quantity',
  'returned_quantity',
];
/** The metrics that count (integers); the others are exact decimal sums. */
export const COUNT_METRICS: readonly ReportMetric[] = ['order_count', 'line_count'];

export const REPORT_DATE_BASES = ['order_date', 'delivery_date'] as const;
export type ReportDateBasis = (typeof REPORT_DATE_BASES)[number];

export const REPORT_LIMIT_MAX = 1_000;
export const REPORT_LIMIT_DEFAULT = 100;
/** Most rows a CSV report answers (REPORT_CSV_MAX_ROWS) unless the operator sets another. */
export const REPORT_CSV_MAX_ROWS_DEFAULT = 100_000;
/** Far longer than any cursor the service issues (a sort value and three keys' names and ids). */
export const REPORT_CURSOR_MAX_LENGTH = 4096;
/** The default metrics: how many orders, and what they are worth. */
export const REPORT_DEFAULT_METRICS: readonly ReportMetric[] = ['order_count', 'grand_total'];

/** `error.details[].code` of a report's refusals. */
export const ReportCode = {
  /** A quantity metric without `product` among the group keys (a bag and a litre do not add up): 400. */
  quantityNeedsProduct: 'quantity_needs_product',
  /** `grand_total` or `other_charges_total` grouped by product: an order's charges belong to no product (400). */
  totalNotByProduct: 'total_not_by_product',
  /** With `date_basis=delivery_date`, a metric that deliveries and returns do not date (400). */
  notByDeliveryDate: 'not_by_delivery_date',
  /** A CSV report of more rows than REPORT_CSV_MAX_ROWS (422): narrow the filters or group more coarsely. */
  reportTooLarge: 'report_too_large',
} as const;
export type ReportCode = (typeof ReportCode)[keyof typeof ReportCode];

/** The order's delivery progress (decided from its lines' exact quantities). */
const DELIVERY_STATUSES = ['not_delivered', 'partly_delivered', 'delivered'] as const;

/** What one group key answers in a row: its id and name, or its value. */
export const GROUP_KEY_FIELDS = {
  location: ['location_id', 'location_name'],
  customer: ['customer_id', 'customer_name'],
  product: ['product_id', 'product_name'],
  field_officer: ['field_officer_id', 'field_officer_name'],
  port: ['port_id', 'port_name'],
  status: ['status'],
  delivery_status: ['delivery_status'],
  financial_year: ['financial_year_id', 'financial_year_code'],
  month: ['month'],
  day: ['day'],
} as const satisfies Record<ReportGroupKey, readonly string[]>;

/**
 * How rows are ordered by a group key, and what the keyset cursor carries for it: a key with a
 * name orders by its name, then its id (`0` and `''` stand for none: an order without a field
 * officer or port); the others by their value (`YYYY-MM` and `YYYY-MM-DD` order by time).
 */
export type KeysetPart = 'text' | 'integer';
export const GROUP_KEY_ORDER: Record<ReportGroupKey, readonly KeysetPart[]> = {
  location: ['text', 'integer'],
  customer: ['text', 'integer'],
  product: ['text', 'integer'],
  field_officer: ['text', 'integer'],
  port: ['text', 'integer'],
  status: ['text'],
  delivery_status: ['text'],
  financial_year: ['text', 'integer'],
  month: ['text'],
  day: ['text'],
};

/** One or more distinct items of `values`, comma-separated; each at most once. */
const commaList = <T extends string>(values: readonly T[], what: string, max: number) =>
  documented(z.string().max(300), {
    pattern: `^(?:${values.join('|')})(?:,(?:${values.join('|')})){0,${max - 1}}$`,
  }).transform((value, ctx) => {
    const items = value.split(',');
    const unknown = items.filter((item) => !(values as readonly string[]).includes(item));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: z.ZodIssueCode.invalid_enum_value,
        options: [...values],
        received: unknown[0]!,
        message: `${JSON.stringify(unknown[0])} is not a ${what}: one of ${values.join(', ')}`,
      });
      return z.NEVER;
    }
    if (new Set(items).size !== items.length) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `names a ${what} twice` });
      return z.NEVER;
    }
    if (items.length > max) {
      ctx.addIssue({
        code: z.ZodIssueCode.too_big,
        maximum: max,
        inclusive: true,
        type: 'array',
        message: `at most ${max} ${what}s`,
      });
      return z.NEVER;
    }
    return items as T[];
  });

/** A sort: a group key or metric of the request, `-` before it for descending. */
const SORT_PATTERN = `^-?(?:${[...REPORT_GROUP_KEYS, ...REPORT_METRICS].join('|')})$`;

/** The keyset cursor's content: the request's sort and grouping, and the last row's ordering values. */
interface ReportCursor {
  /** The sort it belongs to. */
  s: string;
  /** The group keys, comma-separated. */
  g: string;
  /** The last row's values, in keyset order (reportKeyset). */
  v: (string | number)[];
}

export const encodeReportCursor = (cursor: ReportCursor): string => toBase64Url(JSON.stringify(cursor));

/** A metric's value as the cursor carries it: an integer count, or exact decimal text. */
const DECIMAL_TEXT = /^-?\d{1,30}(?:\.\d{1,3})?$/;

/**
 * The values a row is ordered by, in order: the sorted metric (if any), then every group key's
 * ordering parts, the sorted key's first. What `v` of a cursor holds, and the server's ORDER BY.
 */
export const reportKeyset = (
  groupBy: readonly ReportGroupKey[],
  sort: string,
): { metric?: ReportMetric; keys: ReportGroupKey[] } => {
  const name = sort.replace(/^-/, '');
  const sortedKey = (groupBy as readonly string[]).includes(name) ? (name as ReportGroupKey) : undefined;
  return {
    ...(sortedKey ? {} : { metric: name as ReportMetric }),
    keys: sortedKey ? [sortedKey, ...groupBy.filter((key) => key !== sortedKey)] : [...groupBy],
  };
};

/** The ordering values a cursor must hold for `groupBy` and `sort`, or a reason it does not. */
const decodeReportCursor = (
  text: string,
  groupBy: readonly ReportGroupKey[],
  sort: string,
): (string | number)[] | string => {
  let cursor: unknown;
  try {
    cursor = JSON.parse(fromBase64Url(text));
  } catch {
    return 'is not a cursor this service issued';
  }
  const { s, g, v } = (cursor ?? {}) as Partial<ReportCursor>;
  if (typeof s !== 'string' || typeof g !== 'string' || !Array.isArray(v)) return 'is not a cursor this service issued';
  if (s !== sort || g !== groupBy.join(',')) return 'belongs to another sort or grouping';
  const { metric, keys } = reportKeyset(groupBy, sort);
  const parts: ('metric' | KeysetPart)[] = [
    ...(metric ? (['metric'] as const) : []),
    ...keys.flatMap((key) => GROUP_KEY_ORDER[key]),
  ];
  const fits = (value: unknown, part: 'metric' | KeysetPart) =>
    part === 'integer'
      ? Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_ID
      : part === 'text'
        ? typeof value === 'string' && value.length <= 200 && isStorableText(value)
        : typeof value === 'string' && DECIMAL_TEXT.test(value);
  if (v.length !== parts.length || !parts.every((part, index) => fits(v[index], part)))
    return 'is not a cursor this service issued';
  return v;
};

const issue = (ctx: z.RefinementCtx, path: string, message: string, code?: string) =>
  ctx.addIssue({ code: z.ZodIssueCode.custom, path: [path], message, ...(code ? { params: { code } } : {}) });

export const SalesReportQuerySchema = OrderFilterFields.pick({
  status: true,
  location_id: true,
  customer_id: true,
  product_id: true,
  year_id: true,
  date_from: true,
  date_to: true,
  q: true,
  include_deleted: true,
})
  .extend({
    group_by: commaList(REPORT_GROUP_KEYS, 'group key', 3).describe(
      `One to three group keys, comma-separated, each at most once: ${REPORT_GROUP_KEYS.join(', ')}.`,
    ),
    metrics: commaList(REPORT_METRICS, 'metric', REPORT_METRICS.length)
      .optional()
      .describe(
        `Metrics, comma-separated, each at most once: ${REPORT_METRICS.join(', ')}. Default ` +
          `${REPORT_DEFAULT_METRICS.join(',')}. Quantities need \`product\` among the group keys (400 ` +
          '`quantity_needs_product`); `grand_total` and `other_charges_total` cannot be grouped by product (400 ' +
          '`total_not_by_product`).',
      ),
    date_basis: z
      .enum(REPORT_DATE_BASES)
      .default('order_date')
      .describe(
        'order_date (default): orders dated by their order date. delivery_date: delivered and returned quantities ' +
          'dated by their delivery and return (date_from, date_to, month and day then read those dates); only ' +
          `${DELIVERY_DATE_METRICS.join(', ')} (400 \`not_by_delivery_date\` otherwise).`,
      ),
    date_from: calendarDate()
      .optional()
      .describe(
        'On or after (inclusive): the order date, or with date_basis=delivery_date the delivery or return date.',
      ),
    date_to: calendarDate()
      .optional()
      .describe(
        'On or before (inclusive): the order date, or with date_basis=delivery_date the delivery or return date.',
      ),
    sort: documented(z.string().max(40), { pattern: SORT_PATTERN })
      .optional()
      .describe(
        'A group key or metric of this request, "-" before it for descending; default the first group key. A key ' +
          'sorts by its name (then id), month and day by time; the other group keys break ties.',
      ),
    limit: queryInteger(1, REPORT_LIMIT_MAX)
      .default(REPORT_LIMIT_DEFAULT)
      .describe(`Rows per page, 1..${REPORT_LIMIT_MAX}, default ${REPORT_LIMIT_DEFAULT}.`),
    cursor: z
      .string()
      .max(REPORT_CURSOR_MAX_LENGTH)
      .optional()
      .describe('Opaque: the next_cursor of the previous page, with the same filters, grouping and sort.'),
    format: z
      .enum(['json', 'csv'])
      .optional()
      .describe('csv: every row as CSV (as `Accept: text/csv`), without paging; json (default): a page.'),
  })
  .superRefine((query, ctx) => {
    // A list that did not parse has its issue already (and no value to read): nothing more to say.
    if (!Array.isArray(query.group_by) || !(query.metrics === undefined || Array.isArray(query.metrics))) return;
    const metrics = query.metrics ?? REPORT_DEFAULT_METRICS;
    const byProduct = query.group_by.includes('product');
    const quantities = metrics.filter((metric) => QUANTITY_METRICS.includes(metric));
    if (quantities.length > 0 && !byProduct)
      issue(
        ctx,
        'metrics',
        `${quantities.join(', ')}: quantities add up only within one product (its unit): add product to group_by`,
        ReportCode.quantityNeedsProduct,
      );
    const totals = metrics.filter((metric) => ORDER_TOTAL_METRICS.includes(metric));
    if (totals.length > 0 && byProduct)
      issue(
        ctx,
        'metrics',
        `${totals.join(', ')}: an order's other charges belong to no product; by product, ask for subtotal (the ` +
          "product's line amounts)",
        ReportCode.totalNotByProduct,
      );
    const undated = metrics.filter((metric) => !DELIVERY_DATE_METRICS.includes(metric));
    if (query.date_basis === 'delivery_date' && undated.length > 0)
      issue(
        ctx,
        'metrics',
        `${undated.join(', ')}: not dated by deliveries and returns; with date_basis=delivery_date ask for ` +
          DELIVERY_DATE_METRICS.join(', '),
        ReportCode.notByDeliveryDate,
      );
    const sorted = query.sort?.replace(/^-/, '');
    if (
      query.sort !== undefined &&
      (!new RegExp(SORT_PATTERN).test(query.sort) ||
        !([...query.group_by, ...metrics] as string[]).includes(sorted ?? ''))
    )
      issue(ctx, 'sort', 'must be a group key or metric of this request, "-" before it for descending');
    else if (query.cursor !== undefined) {
      const values = decodeReportCursor(query.cursor, query.group_by, query.sort ?? query.group_by[0]!);
      if (typeof values === 'string') issue(ctx, 'cursor', values);
    }
  })
  .transform(({ metrics, sort, cursor, ...query }) => {
    const sorting = sort ?? query.group_by[0]!;
    return {
      ...query,
      metrics: metrics ?? [...REPORT_DEFAULT_METRICS],
      sort: sorting,
      // Checked by the refinement above, which runs first.
      after:
        cursor === undefined ? undefined : (decodeReportCursor(cursor, query.group_by, sorting) as (string | number)[]),
    };
  });

export type SalesReportQuery = z.input<typeof SalesReportQuerySchema>;
export type SalesReportFilters = z.output<typeof SalesReportQuerySchema>;

/** A count of orders or lines. */
const count = () => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/**
 * An exact sum, written with every digit PostgreSQL's numeric sum has (2 decimals for money, 3 for
 * quantities): exact as JSON text; a total past 15 significant digits loses its last digits in a
 * parser that reads numbers as doubles (the CSV keeps them as text).
 */
const sum = (what: string) => z.number().describe(what);

const MetricShape = {
  order_count: count().optional().describe('Orders (each once, whatever its lines).'),
  line_count: count().optional().describe('Order lines.'),
  ordered_quantity: sum("The lines' ordered quantity.").optional(),
  delivered_quantity: sum('Delivered on recorded deliveries (cancelled ones left out), before returns.').optional(),
  returned_quantity: sum('Returned against those deliveries.').optional(),
  pending_quantity: sum(
    'Still to deliver: per line, ordered - (delivered - returned) - short-closed, never below 0.',
  ).optional(),
  subtotal: sum("The lines' amounts (by product: that product's lines).").optional(),
  other_charges_total: sum("The orders' other charges.").optional(),
  grand_total: sum("The orders' grand totals.").optional(),
} satisfies Record<ReportMetric, z.ZodTypeAny>;

const name = () => z.string().max(200);
export const SalesReportRowSchema = z.object({
  location_id: id().optional(),
  location_name: name().optional(),
  customer_id: id().optional(),
  customer_name: name().optional(),
  product_id: id().optional(),
  product_name: name().optional(),
  field_officer_id: id().nullable().optional().describe('null: orders without a field officer.'),
  field_officer_name: name().nullable().optional(),
  port_id: id().nullable().optional().describe('null: orders without a port.'),
  port_name: name().nullable().optional(),
  status: SalesOrderStatusSchema.optional(),
  delivery_status: z.enum(DELIVERY_STATUSES).optional(),
  financial_year_id: id().optional(),
  financial_year_code: z.string().max(16).optional(),
  month: z
    .string()
    .length(7)
    .regex(/^\d{4}-(?:0[1-9]|1[0-2])$/)
    .optional()
    .describe('YYYY-MM.'),
  day: calendarDate().optional(),
  ...MetricShape,
});
export type SalesReportRow = z.infer<typeof SalesReportRowSchema>;

export const SalesReportTotalsSchema = z
  .object(MetricShape)
  .describe('The metrics over every row the filters match, not only this page (order_count counts each order once).');
export type SalesReportTotals = z.infer<typeof SalesReportTotalsSchema>;

export const SalesReportSchema = z.object({
  rows: z.array(SalesReportRowSchema).max(REPORT_LIMIT_MAX),
  totals: SalesReportTotalsSchema,
  next_cursor: z
    .string()
    .max(REPORT_CURSOR_MAX_LENGTH)
    .nullable()
    .describe('Pass as `cursor` for the next page; null on the last page.'),
});
export type SalesReport = z.infer<typeof SalesReportSchema>;

const c = initContract();

export const reportsContract = c.router(
  {
    getSalesReport: {
      method: 'GET',
      path: '/reports/sales',
      query: SalesReportQuerySchema,
      responses: {
        200: successEnvelope(SalesReportSchema),
        422: describedError(
          'Unprocessable: a CSV report of more rows than REPORT_CSV_MAX_ROWS (`report_too_large`); narrow the filters.',
        ),
      },
      summary: 'Sales totals grouped by location, customer, product, month, ...: a page of rows, or every row as CSV',
      description:
        "The caller's location scope applies before grouping: a scoped caller's rows and totals are those of its own " +
        "orders. The order list's filters mean what they mean there (status, location_id, customer_id, product_id, " +
        'year_id, date_from, date_to, q, include_deleted); without `status`, cancelled orders are left out, and ' +
        'soft-deleted ones without `include_deleted=true`. Money is summed exactly. With `Accept: text/csv` or ' +
        '`format=csv`: every row as CSV (RFC 4180, UTF-8, a header row; a text cell starting with =, +, -, @, tab or ' +
        'carriage return is prefixed with a quote), at most REPORT_CSV_MAX_ROWS. See docs/api.md, "Reports".',
      metadata: { permission: Permission.reportsRead, tag: 'Reports', csvAnswer: true } as const,
    },
  },
  { strictStatusCodes: true, commonResponses: CommonErrorResponses },
);
export type ReportsContract = typeof reportsContract;
