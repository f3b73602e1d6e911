import { initContract } from '@ts-rest/core';
import { z } from 'zod';

import { dateTime, id, idParam, MAX_ID, queryBoolean } from './common.js';
import { ErrorDetailSchema, successEnvelope } from './envelope.js';
import { CommonErrorResponses, describedError } from './errors.js';
import { Permission } from './permissions.js';
import { storedOrderNumber } from './sales-order.js';
import { IdempotencyHeadersSchema } from './write-safety.js';

/**
 * Imports: a file of many orders (CSV or JSON Lines) sent as the request body, created in the
 * background in chunks on the job queue, each chunk through the bulk create, each order with an
 * idempotency key derived from the import and its `order_ref` (so a resumed import makes no
 * duplicate). See docs/api.md, "Imports".
 */

/** The media types an import's file may have: the request body's Content-Type. */
export const IMPORT_MEDIA_TYPES = ['text/csv', 'application/x-ndjson'] as const;
export type ImportMediaType = (typeof IMPORT_MEDIA_TYPES)[number];

/** Why an import's order, or the import's file, was refused (beside the create's own codes). */
export const ImportCode = {
  /** The body is not CSV or JSON Lines (binary, no header with `order_ref`, a line that is not a JSON object), or is empty. */
  importNotReadable: 'import_not_readable',
  /** The file holds more orders than IMPORT_MAX_ORDERS. */
  importTooManyOrders: 'import_too_many_orders',
  /** A CSV row with more or fewer cells than the header. */
  wrongColumnCount: 'wrong_column_count',
  /** A cell that should hold a number does not. */
  invalidCell: 'invalid_cell',
  /** A row that is not valid UTF-8. */
  invalidEncoding: 'invalid_encoding',
  /** A JSON Lines line that is not a JSON object. */
  invalidLine: 'invalid_line',
  /** Rows of one `order_ref` disagree on an order column, or a JSON Lines `order_ref` is repeated. */
  inconsistentOrder: 'inconsistent_order',
  /** A cancel of an import that has ended already (completed, failed or cancelled): nothing changed. */
  importEnded: 'import_ended',
  /**
   * An order whose `order_ref` already made an order in an earlier import of the same caller:
   * skipped (failed, naming that order) unless the upload says `allow_duplicates=true`.
   */
  duplicateOrderRef: 'duplicate_order_ref',
} as const;
export type ImportCode = (typeof ImportCode)[keyof typeof ImportCode];

export const IMPORT_STATES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export const ImportStateSchema = z.enum(IMPORT_STATES);
export type ImportState = z.infer<typeof ImportStateSchema>;

const count = () => z.number().int().min(0).max(MAX_ID);

export const ImportSchema = z.object({
  import_id: id(),
  state: ImportStateSchema.describe(
    'queued (waiting for a worker), running, completed (every order tried), failed (the import could not go on), cancelled.',
  ),
  format: z.enum(['csv', 'ndjson']),
  orders_total: count().describe('Orders in the file (rows grouped by `order_ref` for CSV).'),
  rows_read: count().describe('Rows (CSV) or lines (JSON Lines) of the orders tried so far.'),
  orders_created: count(),
  orders_failed: count(),
  created_at: dateTime(),
  started_at: dateTime().nullable(),
  finished_at: dateTime().nullable(),
  estimated_seconds_left: z
    .number()
    .int()
    .min(0)
    .max(MAX_ID)
    .nullable()
    .describe('While running: the orders left at the rate so far; null otherwise.'),
  error: z.string().max(500).nullable().describe('Why a failed import stopped.'),
  waiting_until: dateTime()
    .nullable()
    .describe(
      "While the import waits for its starter's BULK_ORDERS_PER_MINUTE window (its orders count against it, as a " +
        "bulk create's do): when the window resets and it goes on; null otherwise.",
    ),
});
export type Import = z.infer<typeof ImportSchema>;

export const ImportListSchema = z.object({ items: z.array(ImportSchema).max(100) });

/**
 * The columns of an import's CSV file, in the order a template lists them: one row per order line
 * (and/or other charge), the rows of one order sharing its `order_ref`; a line's remarks are
 * `line_remarks`, a charge's fields `charge_description` and `charge_amount`.
 */
export const IMPORT_CSV_COLUMNS = [
  'order_ref',
  'customer_id',
  'location_id',
  'sales_order_date',
  'sales_order_no',
  'status',
  'acknowledge_warnings',
  'grand_total',
  'remarks',
  'field_officer_id',
  'port_id',
  'customer_reference',
  'delivery_date',
  'product_id',
  'packsize_id',
  'quantity',
  'rate',
  'amount',
  'line_remarks',
  'charge_description',
  'charge_amount',
] as const;
export type ImportCsvColumn = (typeof IMPORT_CSV_COLUMNS)[number];

/** One order of an import, as GET /imports/{id}/results writes it (one JSON object a line). */
export const ImportResultSchema = z.object({
  order_ref: z.string().max(100),
  lines: z.array(z.number().int().positive().max(MAX_ID)).describe("The file's line numbers of the order's rows."),
  status: z.enum(['created', 'failed']),
  sales_order_id: id().nullable(),
  order_number: storedOrderNumber().nullable(),
  errors: z.array(ErrorDetailSchema).describe('Paths like `details.0.quantity`; messages name the line and column.'),
});
export type ImportResult = z.infer<typeof ImportResultSchema>;

export const ImportIdParamsSchema = z.object({ id: idParam().describe('Import id.') });

const NotFoundImportResponse = describedError(
  "Not found: no import of the caller has this id (with `imports.admin`: none inside the caller's locations).",
);

export const StartImportQuerySchema = z
  .object({
    allow_duplicates: queryBoolean().describe(
      'true: import orders whose `order_ref` already made an order in an earlier import of yours (default false: ' +
        'they fail `duplicate_order_ref`).',
    ),
  })
  .partial();
export type StartImportQuery = z.infer<typeof StartImportQuerySchema>;

const c = initContract();
const importing = { permission: Permission.import, tag: 'Imports' } as const;

export const importsContract = c.router(
  {
    startImport: {
      method: 'POST',
      path: '/imports',
      headers: IdempotencyHeadersSchema,
      query: StartImportQuerySchema,
      // The file itself, as text/csv or application/x-ndjson (metadata.fileBody): the server
      // reads the bytes (the OpenAPI document describes them as text of those types).
      body: z.custom<string | Uint8Array>(() => true),
      responses: {
        202: successEnvelope(ImportSchema),
        413: describedError('Payload too large: the file is larger than IMPORT_MAX_BYTES.'),
      },
      summary: 'Start an import of a CSV or JSON Lines file of orders; it runs in the background',
      description:
        'The body is the file (`Content-Type: text/csv` or `application/x-ndjson`), at most IMPORT_MAX_BYTES (20 MiB) ' +
        'and IMPORT_MAX_ORDERS (50,000) orders. A file that is empty or neither CSV nor JSON Lines is 400 ' +
        '`import_not_readable`. A malformed row fails only its order. An order whose `order_ref` already made an ' +
        'order in an earlier import of the same caller fails `duplicate_order_ref` (naming that order) unless ' +
        '`allow_duplicates=true`. With an `Idempotency-Key`, a retry of the same upload (same bytes, type and query) ' +
        'answers the import it started. See docs/api.md, "Imports", for the columns.',
      metadata: { ...importing, fileBody: IMPORT_MEDIA_TYPES } as const,
    },
    listImports: {
      method: 'GET',
      path: '/imports',
      responses: { 200: successEnvelope(ImportListSchema) },
      summary:
        "The caller's imports (with `imports.admin`: every one inside its locations), newest first (the last 100)",
      metadata: importing,
    },
    getImport: {
      method: 'GET',
      path: '/imports/:id',
      pathParams: ImportIdParamsSchema,
      responses: { 200: successEnvelope(ImportSchema), 404: NotFoundImportResponse },
      summary: "An import's state, counts and estimate of the time left",
      metadata: importing,
    },
    getImportResults: {
      method: 'GET',
      path: '/imports/:id/results',
      pathParams: ImportIdParamsSchema,
      responses: {
        200: c.otherResponse({ contentType: 'application/x-ndjson', body: z.string() }),
        404: NotFoundImportResponse,
      },
      summary: 'The per-order results so far: JSON Lines, or CSV with `Accept: text/csv`',
      description:
        'One ImportResult a line, in file order. With `Accept: text/csv`: columns order_ref, lines, status, ' +
        'sales_order_id, order_number, errors; cells that would start a spreadsheet formula are escaped.',
      metadata: { ...importing, textAnswers: ['application/x-ndjson', 'text/csv'] } as const,
    },
    cancelImport: {
      method: 'POST',
      path: '/imports/:id/cancel',
      pathParams: ImportIdParamsSchema,
      body: c.noBody(),
      responses: {
        200: successEnvelope(ImportSchema),
        404: NotFoundImportResponse,
        409: describedError(
          'Conflict: the import has ended already (completed, failed or cancelled); `import_ended`, nothing changed.',
        ),
      },
      summary: 'Cancel an import: it stops after the chunks it is on; the orders made stay',
      metadata: importing,
    },
  },
  { strictStatusCodes: true, commonResponses: CommonErrorResponses },
);
