import { initContract } from '@ts-rest/core';
import { z } from 'zod';

import { ApiKeyHistoryEntrySchema, ApiKeySchema } from './api-keys.js';
import { dateTime, documented, fromBase64Url, id, idParam, MAX_ID, queryInteger, toBase64Url } from './common.js';
import { DeliverySchema } from './deliveries.js';
import { successEnvelope } from './envelope.js';
import { CommonErrorResponses, describedError } from './errors.js';
import { ImportSchema } from './imports.js';
import { Permission } from './permissions.js';
import { OrderDeliveryStatusSchema, SalesOrderSchema } from './sales-order.js';

/**
 * Events: one per change of an order or an API key, and one per import that ends (completed or failed), written in the change's own transaction (the
 * outbox), read in commit order from GET /events and pushed to webhook endpoints
 * (webhook-endpoints.ts).
 */

/** The events of an order; the lifecycle's transitions (confirm, close, cancel, amend) have one each. */
export const SALES_ORDER_EVENT_TYPES = [
  'sales_order.created',
  'sales_order.updated',
  'sales_order.deleted',
  'sales_order.confirmed',
  'sales_order.closed',
  'sales_order.cancelled',
  'sales_order.amended',
  /** A change request applied to a confirmed order (POST /sales-orders/{id}/changes/{change_id}/apply). */
  'sales_order.changed',
] as const;

/** The events of an API key: one per entry of its history (GET /api-keys/{id}/history). */
export const API_KEY_EVENT_TYPES = [
  'api_key.created',
  'api_key.renamed',
  'api_key.rotated',
  'api_key.revoked',
] as const;

/** The events of an import: one when it ends completed (every order tried) or failed (it could not go on); none for a cancel. */
export const IMPORT_EVENT_TYPES = ['import.completed', 'import.failed'] as const;

/** The events of a delivery: recorded, cancelled, and each return against it. */
export const DELIVERY_EVENT_TYPES = ['delivery.recorded', 'delivery.cancelled', 'delivery.returned'] as const;

/**
 * What an event can be about, its **subject**: the part of its type before the dot
 * (`sales_order.created` is about a sales order). Each kind says which permission a reader needs
 * besides `events.read` to see its events, and its events carry their subject's id as
 * `<subject>_id`. A reader limited to locations sees only the events of subjects inside them
 * (an order in one of its locations; a key whose locations are all among them). An import's
events are its owner's only (the caller that started it, as GET /imports/{id}). To add a kind:
 * its types and permission here, an event schema below, and its location rule in the server
 * (apps/server/src/events/store/event-visibility.ts); docs/decisions/events-of-other-subjects.md.
 */
export const EVENT_SUBJECTS = {
  sales_order: { types: SALES_ORDER_EVENT_TYPES, permission: null },
  api_key: { types: API_KEY_EVENT_TYPES, permission: Permission.apiKeysManage },
  import: { types: IMPORT_EVENT_TYPES, permission: Permission.import },
  delivery: { types: DELIVERY_EVENT_TYPES, permission: null },
} as const satisfies Record<string, { types: readonly string[]; permission: Permission | null }>;
export type EventSubject = keyof typeof EVENT_SUBJECTS;

/** Every type of event. */
export const EVENT_TYPES = [
  ...SALES_ORDER_EVENT_TYPES,
  ...API_KEY_EVENT_TYPES,
  ...IMPORT_EVENT_TYPES,
  ...DELIVERY_EVENT_TYPES,
] as const;

export const EventTypeSchema = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventTypeSchema>;
export const SalesOrderEventTypeSchema = z.enum(SALES_ORDER_EVENT_TYPES);
export type SalesOrderEventType = z.infer<typeof SalesOrderEventTypeSchema>;
export const ApiKeyEventTypeSchema = z.enum(API_KEY_EVENT_TYPES);
export type ApiKeyEventType = z.infer<typeof ApiKeyEventTypeSchema>;
export const ImportEventTypeSchema = z.enum(IMPORT_EVENT_TYPES);
export type ImportEventType = z.infer<typeof ImportEventTypeSchema>;
export const DeliveryEventTypeSchema = z.enum(DELIVERY_EVENT_TYPES);
export type DeliveryEventType = z.infer<typeof DeliveryEventTypeSchema>;

/** The subject an event of this type is about. */
export const subjectOfEventType = (type: EventType): EventSubject => type.slice(0, type.indexOf('.')) as EventSubject;

/** The `id` of an event, and of every webhook delivery of it (`webhook-id`). */
export const eventId = () =>
  z
    .string()
    .max(36)
    .uuid()
    .describe('Unique; the `webhook-id` of every delivery of this event, retries and replays included.');

const version = () =>
  z
    .number()
    .int()
    .positive()
    .max(MAX_ID)
    .describe(
      "The order's version after the change: order and deduplicate by it (a receiver may get an update before a create it missed).",
    );

const occurredAt = () => dateTime().describe('When the change was made (UTC, YYYY-MM-DD HH:mm:ss).');

/** One change of an order, as the feed answers it. */
const SalesOrderEventSchemaObject = z.object({
  id: eventId(),
  type: SalesOrderEventTypeSchema,
  occurred_at: occurredAt(),
  sales_order_id: id(),
  version: version(),
  data: SalesOrderSchema.describe(
    'The order as GET /sales-orders/{id} read it right after the change; for sales_order.deleted, its last shape.',
  ),
});

type SalesOrderEventSchemaObject = typeof SalesOrderEventSchemaObject;
/** Named (an interface derived from the schema, not a shape written by hand) so that declarations refer to it rather than writing it out again at every route that answers it. */
export interface SalesOrderEventSchema extends SalesOrderEventSchemaObject {}
export const SalesOrderEventSchema: SalesOrderEventSchema = SalesOrderEventSchemaObject;
export type SalesOrderEvent = z.infer<typeof SalesOrderEventSchema>;

/** What an API key's event carries: the key after the change and its history entry (never the secret). */
const ApiKeyEventDataSchemaObject = z.object({
  api_key: ApiKeySchema.describe('The key as GET /api-keys/{id} read it right after the change (never its secret).'),
  actor: ApiKeyHistoryEntrySchema.shape.actor.describe('Who made the change.'),
  changes: ApiKeyHistoryEntrySchema.shape.changes,
});
type ApiKeyEventDataSchemaObject = typeof ApiKeyEventDataSchemaObject;
/** Named, like SalesOrderEventSchema. */
export interface ApiKeyEventDataSchema extends ApiKeyEventDataSchemaObject {}
export const ApiKeyEventDataSchema: ApiKeyEventDataSchema = ApiKeyEventDataSchemaObject;
export type ApiKeyEventData = z.infer<typeof ApiKeyEventDataSchema>;

/**
 * One change of an API key, as the feed answers it: read only by callers holding
 * `api_keys.manage` besides `events.read` (and, for a caller limited to locations, only of keys
 * inside them). A rotation gives two: `api_key.rotated` of the old key, `api_key.created` of its
 * successor (`rotated_from_id` set).
 */
const ApiKeyEventSchemaObject = z.object({
  id: eventId(),
  type: ApiKeyEventTypeSchema,
  occurred_at: occurredAt(),
  api_key_id: id(),
  data: ApiKeyEventDataSchema,
});
type ApiKeyEventSchemaObject = typeof ApiKeyEventSchemaObject;
/** Named, like SalesOrderEventSchema. */
export interface ApiKeyEventSchema extends ApiKeyEventSchemaObject {}
export const ApiKeyEventSchema: ApiKeyEventSchema = ApiKeyEventSchemaObject;
export type ApiKeyEvent = z.infer<typeof ApiKeyEventSchema>;

/**
 * The end of an import, as the feed answers it: read only by the import's owner (the caller that
 * started it), holding `sales_orders.import` besides `events.read`. `data` is the import as
 * GET /imports/{id} read it when it ended (its counts, times and format; never its file or rows).
 */
const ImportEventSchemaObject = z.object({
  id: eventId(),
  type: ImportEventTypeSchema,
  occurred_at: occurredAt(),
  import_id: id(),
  data: ImportSchema.describe('The import as GET /imports/{id} read it right after it ended.'),
});
type ImportEventSchemaObject = typeof ImportEventSchemaObject;
/** Named, like SalesOrderEventSchema. */
export interface ImportEventSchema extends ImportEventSchemaObject {}
export const ImportEventSchema: ImportEventSchema = ImportEventSchemaObject;
export type ImportEvent = z.infer<typeof ImportEventSchema>;

/**
 * A delivery's change, as the feed answers it: seen by exactly those who may read its order (its
 * location). `version` is the order's after the change (each delivery, cancellation and return
 * is a new version of the order).
 */
const DeliveryEventSchemaObject = z.object({
  id: eventId(),
  type: DeliveryEventTypeSchema,
  occurred_at: occurredAt(),
  delivery_id: id(),
  version: version(),
  data: z.object({
    delivery: DeliverySchema.describe('The delivery as GET /deliveries/{id} read it right after the change.'),
    sales_order_id: id(),
    delivery_status: OrderDeliveryStatusSchema.describe("The order's delivery status after the change."),
  }),
});
type DeliveryEventSchemaObject = typeof DeliveryEventSchemaObject;
/** Named, like SalesOrderEventSchema. */
export interface DeliveryEventSchema extends DeliveryEventSchemaObject {}
export const DeliveryEventSchema: DeliveryEventSchema = DeliveryEventSchemaObject;
export type DeliveryEvent = z.infer<typeof DeliveryEventSchema>;

/** Any event of the feed (an order's, an API key's, an import's, a delivery's), by `type`. */
export const FeedEventSchema = z.discriminatedUnion('type', [
  SalesOrderEventSchema,
  ApiKeyEventSchema,
  ImportEventSchema,
  DeliveryEventSchema,
]);
export type FeedEvent = z.infer<typeof FeedEventSchema>;

/** `error.details[].code` values of the feed. */
export const FeedCode = {
  /**
   * 410: events after the cursor were purged (EVENT_RETENTION_DAYS): the reader missed them and
   * must resynchronise; `oldest_cursor` is where the kept events start.
   */
  cursorPastRetention: 'cursor_past_retention',
} as const;
export type FeedCode = (typeof FeedCode)[keyof typeof FeedCode];

export const EVENTS_LIMIT_MAX = 500;
export const EVENTS_LIMIT_DEFAULT = 100;
/**
 * A page stops before the event that would take its events' `data` past this many bytes of JSON
 * (one event is always given, however big): a 500-line order updated 500 times is hundreds of
 * megabytes of events.
 */
export const EVENTS_PAGE_MAX_BYTES = 1_000_000;
export const EVENT_CURSOR_MAX_LENGTH = 64;

/** Where a reader of the feed stands: the commit-order position of the last event it has seen. */
export interface EventCursor {
  position: number;
}

export const encodeEventCursor = ({ position }: EventCursor): string => toBase64Url(`p${position}`);

/** The cursor a `next_cursor` held, or undefined when the text is not one. */
export const decodeEventCursor = (value: string): EventCursor | undefined => {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(value)) return undefined;
  try {
    const match = /^p(0|[1-9][0-9]{0,15})$/.exec(fromBase64Url(value));
    const position = match ? Number(match[1]) : Number.NaN;
    return Number.isSafeInteger(position) ? { position } : undefined;
  } catch {
    return undefined;
  }
};

/** An opaque `next_cursor` of the feed, checked and decoded. */
export const eventCursor = () =>
  z
    .string()
    .max(EVENT_CURSOR_MAX_LENGTH)
    .transform((value, ctx) => {
      const cursor = decodeEventCursor(value);
      if (!cursor) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'is not a cursor this service issued' });
        return z.NEVER;
      }
      return cursor;
    });

const EVENT_TYPE_ALTERNATIVES = EVENT_TYPES.map((type) => type.replace('.', '\\.')).join('|');
/** A comma-separated list of event types, as the document states it. */
export const EVENT_TYPE_LIST_PATTERN = `^(?:${EVENT_TYPE_ALTERNATIVES})(?:,(?:${EVENT_TYPE_ALTERNATIVES}))*$`;

/** `a,b,c` of event types in a query string, read as the set of types. */
const eventTypeList = () =>
  documented(z.string().max(400), { pattern: EVENT_TYPE_LIST_PATTERN })
    .transform((value, ctx) => {
      const types = value.split(',');
      const unknown = types.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `names no event type: ${unknown.map((type) => JSON.stringify(type)).join(', ')}`,
        });
        return z.NEVER;
      }
      return [...new Set(types as EventType[])];
    })
    .describe(
      `Comma-separated event types, e.g. sales_order.created,sales_order.deleted; of: ${EVENT_TYPES.join(', ')}.`,
    );

export const ListEventsQuerySchema = z.object({
  after: eventCursor()
    .optional()
    .describe('Opaque: the next_cursor of the previous page (same filters); omitted, the oldest event kept.'),
  limit: queryInteger(1, EVENTS_LIMIT_MAX)
    .default(EVENTS_LIMIT_DEFAULT)
    .describe(
      `Events per page, 1..${EVENTS_LIMIT_MAX}, default ${EVENTS_LIMIT_DEFAULT}; a page also stops before ` +
        `${EVENTS_PAGE_MAX_BYTES} bytes of the events' data (one event always comes, however big), with ` +
        '`has_more` true and its cursor.',
    ),
  types: eventTypeList().optional(),
  sales_order_id: idParam().optional().describe('Only the events of this order.'),
});
export type ListEventsQuery = z.input<typeof ListEventsQuerySchema>;
export type ListEventsFilters = z.output<typeof ListEventsQuerySchema>;

const EventPageSchemaObject = z.object({
  items: z
    .array(FeedEventSchema)
    .max(EVENTS_LIMIT_MAX)
    .describe(
      'In commit order. Events of orders for every reader; of API keys only for a reader that also holds api_keys.manage; ' +
        "of imports only the reader's own, for a reader that also holds sales_orders.import.",
    ),
  next_cursor: z
    .string()
    .max(EVENT_CURSOR_MAX_LENGTH)
    .describe(
      'Pass as `after` to continue; always set, also on an empty page: it is where the next call resumes, so a consumer ' +
        'keeps it and polls with it.',
    ),
  has_more: z.boolean().describe('true: more events are readable right now (call again at once); false: poll later.'),
});
type EventPageSchemaObject = typeof EventPageSchemaObject;
/** Named, like SalesOrderEventSchema: the route's answers refer to it rather than writing it out. */
export interface EventPageSchema extends EventPageSchemaObject {}
export const EventPageSchema: EventPageSchema = EventPageSchemaObject;
export type EventPage = z.infer<typeof EventPageSchema>;

/** The feed's answer, named so that the route's declaration refers to it instead of writing it out. */
const EventPageEnvelopeObject = successEnvelope(EventPageSchema);
type EventPageEnvelopeObject = typeof EventPageEnvelopeObject;
interface EventPageEnvelope extends EventPageEnvelopeObject {}
const EventPageEnvelope: EventPageEnvelope = EventPageEnvelopeObject;

const c = initContract();

export const eventsContract = c.router(
  {
    listEvents: {
      method: 'GET',
      path: '/events',
      query: ListEventsQuerySchema,
      responses: {
        200: EventPageEnvelope,
        410: describedError(
          'Gone: events after `after` were purged (older than EVENT_RETENTION_DAYS), so the reader missed them: ' +
            '`details[0].code` `cursor_past_retention`, with `oldest_cursor`, the cursor after which the oldest event ' +
            'kept comes. Resynchronise (e.g. the sales-order list with `updated_since`), then read on from it.',
        ),
      },
      summary:
        'The change feed: every change of every order (and API key, and the end of an import), in the order the changes committed',
      description:
        'A consumer that pages with `next_cursor` sees every committed event exactly once, in commit order, also while ' +
        'orders are written concurrently. Events are kept EVENT_RETENTION_DAYS (default 30); a cursor whose next events ' +
        'were purged answers 410 `cursor_past_retention` rather than skipping them. The events of API keys (`api_key.*`) ' +
        'come only to a caller that also holds `api_keys.manage`; those of imports (`import.completed`, `import.failed`) ' +
        'only to the caller that started the import, holding `sales_orders.import`; a caller limited to locations gets ' +
        'only the events of orders in them, of keys inside them and of its imports started inside them. See docs/api.md, "Events".',
      metadata: { permission: Permission.eventsRead, tag: 'Events' } as const,
    },
  },
  { strictStatusCodes: true, commonResponses: CommonErrorResponses },
);
