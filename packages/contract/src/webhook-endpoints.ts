import { initContract } from '@ts-rest/core';
import { z } from 'zod';

import {
  dateTime,
  dateTimeInput,
  documented,
  id,
  idParam,
  MAX_ID,
  queryInteger,
  SchemaIssueCode,
  text,
} from './common.js';
import { successEnvelope } from './envelope.js';
import { CommonErrorResponses, describedError } from './errors.js';
import {
  ApiKeyEventDataSchema,
  ApiKeyEventTypeSchema,
  EVENT_CURSOR_MAX_LENGTH,
  EVENT_TYPES,
  eventCursor,
  eventId,
  EventTypeSchema,
  ImportEventTypeSchema,
  SalesOrderEventTypeSchema,
} from './events.js';
import { ImportSchema } from './imports.js';
import { Permission } from './permissions.js';
import { SalesOrderSchema } from './sales-order.js';

/**
 * Webhook endpoints: addresses that receive every event (events.ts) as a Standard Webhooks
 * delivery (https://www.standardwebhooks.com): headers `webhook-id` (the event id, the same on
 * every retry), `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256>`, one per
 * secret in use), and a JSON body `{ type, timestamp, data }`.
 */

/** `error.details[].code` values of the webhook routes. */
export const WebhookCode = {
  /** 422: http:// while the service accepts only https:// (WEBHOOK_ALLOW_HTTP). */
  urlNotHttps: 'webhook_url_not_https',
  /** 422: the host is, or resolves to, a loopback, private, link-local or otherwise non-public address. */
  addressNotAllowed: 'webhook_address_not_allowed',
  /** 422: the host name does not resolve. */
  hostUnresolvable: 'webhook_host_unresolvable',
  /** 422: the service holds as many endpoints as it allows. */
  tooManyEndpoints: 'too_many_webhook_endpoints',
  /** 409: replay needs an enabled endpoint. */
  endpointDisabled: 'webhook_endpoint_disabled',
  /** 400: the URL carries a user name, password or fragment. */
  invalidUrl: 'invalid_webhook_url',
  /** 422: rotate-secret while PREVIOUS_SECRETS_MAX replaced secrets still sign: wait for the oldest to expire. */
  tooManySecrets: 'too_many_webhook_secrets',
} as const;
export type WebhookCode = (typeof WebhookCode)[keyof typeof WebhookCode];

export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;
/** How many endpoints the service keeps at most: each one multiplies the delivery work. */
export const WEBHOOK_ENDPOINTS_MAX = 50;
/** `whsec_` and the base64 of 32 random bytes. */
export const WEBHOOK_SECRET_MAX_LENGTH = 64;
/** An owner's identity: the method, a colon and a subject of at most 200 characters. */
const OWNER_MAX_LENGTH = 220;
/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_HOURS = 24;
/**
 * Replaced secrets that may sign at once beside the current one: each rotation within
 * PREVIOUS_SECRET_HOURS adds one, and every delivery carries a signature by each.
 */
export const PREVIOUS_SECRETS_MAX = 5;

const webhookUrl = () =>
  documented(z.string(), { format: 'uri', maxLength: WEBHOOK_URL_MAX_LENGTH, pattern: '^[hH][tT][tT][pP][sS]?://' })
    .superRefine((value, ctx) => {
      let url: URL | undefined;
      try {
        url = value.length <= WEBHOOK_URL_MAX_LENGTH ? new URL(value) : undefined;
      } catch {
        url = undefined;
      }
      if (!url || !['http:', 'https:'].includes(url.protocol)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `must be an https:// URL of at most ${WEBHOOK_URL_MAX_LENGTH} characters`,
          params: { code: WebhookCode.invalidUrl },
        });
      } else if (url.username !== '' || url.password !== '' || url.hash !== '') {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: 'must not carry a user name, password or fragment (the signature authenticates each delivery)',
          params: { code: WebhookCode.invalidUrl },
        });
      }
    })
    .describe(
      'Where deliveries are POSTed: https:// (http:// only with WEBHOOK_ALLOW_HTTP=true), without credentials or fragment. ' +
        'Its host must resolve to public addresses only (unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true), checked here and ' +
        'again at every delivery.',
    );

const eventTypes = () =>
  z
    .array(EventTypeSchema)
    .min(1)
    .max(EVENT_TYPES.length)
    // A type named twice is the same set of types.
    .transform((types) => [...new Set(types)])
    .describe(
      'The event types delivered to this endpoint; omitted or null: every type its owner may read (api_key.* only ' +
        "while the owner holds api_keys.manage; import.* only of the owner's own imports, while it holds sales_orders.import).",
    );

const description = () => text(WEBHOOK_DESCRIPTION_MAX_LENGTH).nullable();

export const CreateWebhookEndpointBodySchema = z.object({
  url: webhookUrl(),
  event_types: eventTypes().nullish(),
  description: description().optional(),
});
export type CreateWebhookEndpointBody = z.infer<typeof CreateWebhookEndpointBodySchema>;

export const UpdateWebhookEndpointBodySchema = documented(
  z
    .object({
      url: webhookUrl(),
      event_types: eventTypes().nullable(),
      description: description(),
      enabled: z
        .boolean()
        .describe(
          'false disables the endpoint (nothing is delivered); true enables it again and resumes its deliveries.',
        ),
    })
    .partial(),
  // At least one of the fields above: unknown fields are ignored, so they do not count.
  { anyOf: ['url', 'event_types', 'description', 'enabled'].map((field) => ({ required: [field] })) },
).superRefine((body, ctx) => {
  if (Object.values(body).every((value) => value === undefined)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: 'the body names no field to change',
      params: { code: SchemaIssueCode.emptyUpdate },
    });
  }
});
export type UpdateWebhookEndpointBody = z.infer<typeof UpdateWebhookEndpointBodySchema>;

export const WebhookEndpointIdParamsSchema = z.object({ id: idParam().describe('Webhook endpoint id.') });

export const DisabledReasonSchema = z
  .enum(['manual', 'gone', 'failing'])
  .describe(
    'manual: disabled through PATCH; gone: the receiver answered 410 Gone; failing: every delivery failed for 3 days.',
  );

const WebhookEndpointSchemaObject = z.object({
  id: id(),
  url: z.string().max(WEBHOOK_URL_MAX_LENGTH),
  description: z.string().max(WEBHOOK_DESCRIPTION_MAX_LENGTH).nullable(),
  event_types: z.array(EventTypeSchema).max(EVENT_TYPES.length).nullable().describe('null: every type.'),
  locations: z
    .array(id())
    .max(1000)
    .nullable()
    .describe(
      'The location scope of the caller that registered the endpoint: it receives only the events of orders in these locations. null: every location.',
    ),
  enabled: z.boolean(),
  disabled_reason: DisabledReasonSchema.nullable(),
  disabled_at: dateTime().nullable(),
  failing_since: dateTime()
    .nullable()
    .describe('The first failed attempt since the last success; 3 days of failures disable the endpoint.'),
  previous_secret_expires_at: dateTime()
    .nullable()
    .describe(
      'Until then the secret replaced by the last rotation signs beside the current one (each earlier replaced ' +
        'secret until its own expiry, 24 h after its rotation); null when none signs.',
    ),
  owner: z
    .string()
    .max(OWNER_MAX_LENGTH)
    .nullable()
    .describe(
      'Who registered it, and so who sees it and whose events.read it needs to receive: `api_key:<prefix>`, ' +
        '`jwt:<sub>` or `session:<user>`. Other callers see it only with webhooks.admin.',
    ),
  created_at: dateTime(),
  updated_at: dateTime(),
});
type WebhookEndpointSchemaObject = typeof WebhookEndpointSchemaObject;
/** Named (an interface derived from the schema) so that declarations refer to it rather than writing it out at every route. */
export interface WebhookEndpointSchema extends WebhookEndpointSchemaObject {}
export const WebhookEndpointSchema: WebhookEndpointSchema = WebhookEndpointSchemaObject;
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

const secret = () =>
  z
    .string()
    .max(WEBHOOK_SECRET_MAX_LENGTH)
    .describe('whsec_ and base64: the signing secret, shown only in this answer. Keep it in the receiver.');

export const CreatedWebhookEndpointSchema = WebhookEndpointSchemaObject.extend({ secret: secret() });
export type CreatedWebhookEndpoint = z.infer<typeof CreatedWebhookEndpointSchema>;

export const WebhookEndpointListSchema = z.object({
  items: z.array(WebhookEndpointSchema).max(WEBHOOK_ENDPOINTS_MAX),
});
export type WebhookEndpointList = z.infer<typeof WebhookEndpointListSchema>;

export const DeletedWebhookEndpointSchema = z.object({ id: id(), deleted: z.literal(true) });
export type DeletedWebhookEndpoint = z.infer<typeof DeletedWebhookEndpointSchema>;

export const RotatedWebhookSecretSchema = z.object({
  secret: secret(),
  previous_secret_expires_at: dateTime().describe(
    `Until then (${PREVIOUS_SECRET_HOURS} h) every delivery carries a signature by the old secret too; secrets ` +
      'replaced by earlier rotations keep signing until their own expiry.',
  ),
});
export type RotatedWebhookSecret = z.infer<typeof RotatedWebhookSecretSchema>;

export const DELIVERIES_LIMIT_MAX = 100;
export const DELIVERIES_LIMIT_DEFAULT = 20;
/** The error text of an attempt that got no HTTP answer, clipped to this. */
export const DELIVERY_ERROR_MAX_LENGTH = 500;
/** Attempts a delivery can have: one and one per retry of the longest schedule the service accepts. */
export const DELIVERY_ATTEMPTS_MAX = 21;
/** Far above any timeout the service accepts (WEBHOOK_TIMEOUT_MS). */
const DELIVERY_LATENCY_MAX_MS = 3_600_000;

export const DeliveryStatusSchema = z
  .enum(['pending', 'succeeded', 'failed'])
  .describe('pending: not yet answered with 2xx and retries are left; failed: the retry schedule is spent.');

export const DeliveryAttemptSchema = z.object({
  attempted_at: dateTime(),
  status_code: z.number().int().min(100).max(599).nullable().describe('The HTTP status answered; null when none was.'),
  error: z
    .string()
    .max(DELIVERY_ERROR_MAX_LENGTH)
    .nullable()
    .describe('Why the attempt failed without an answer (timeout, refused address, connection error); null otherwise.'),
  latency_ms: z.number().int().min(0).max(DELIVERY_LATENCY_MAX_MS),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;

export const WebhookDeliverySchema = z.object({
  delivery_id: id(),
  event_id: eventId(),
  event_type: EventTypeSchema,
  sales_order_id: id()
    .nullable()
    .describe("The event's order; null for an event of another subject (an API key, an import)."),
  version: z
    .number()
    .int()
    .positive()
    .max(MAX_ID)
    .nullable()
    .describe("The order's version after the change; null for an event of another subject."),
  status: DeliveryStatusSchema,
  attempts: z.array(DeliveryAttemptSchema).max(DELIVERY_ATTEMPTS_MAX).describe('Oldest first.'),
  next_attempt_at: dateTime().nullable().describe('When a pending delivery is tried next; null otherwise.'),
  created_at: dateTime(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const ListWebhookDeliveriesQuerySchema = z.object({
  status: DeliveryStatusSchema.optional(),
  limit: queryInteger(1, DELIVERIES_LIMIT_MAX)
    .default(DELIVERIES_LIMIT_DEFAULT)
    .describe(`1..${DELIVERIES_LIMIT_MAX}, default ${DELIVERIES_LIMIT_DEFAULT}.`),
  cursor: idParam().optional().describe('The next_cursor of the previous page: older deliveries.'),
});
export type ListWebhookDeliveriesQuery = z.input<typeof ListWebhookDeliveriesQuerySchema>;
export type ListWebhookDeliveriesFilters = z.output<typeof ListWebhookDeliveriesQuerySchema>;

const WebhookDeliveryPageSchemaObject = z.object({
  items: z.array(WebhookDeliverySchema).max(DELIVERIES_LIMIT_MAX).describe('Newest first.'),
  next_cursor: id().nullable().describe('Pass as `cursor` for older deliveries; null on the last page.'),
});
type WebhookDeliveryPageSchemaObject = typeof WebhookDeliveryPageSchemaObject;
/** Named, like WebhookEndpointSchema. */
export interface WebhookDeliveryPageSchema extends WebhookDeliveryPageSchemaObject {}
export const WebhookDeliveryPageSchema: WebhookDeliveryPageSchema = WebhookDeliveryPageSchemaObject;
export type WebhookDeliveryPage = z.infer<typeof WebhookDeliveryPageSchema>;

/** Replay re-sends at most this many events per call; `next_cursor` continues. */
export const REPLAY_MAX_EVENTS = 10_000;

export const ReplayWebhookEventsBodySchema = z.union([
  z.object({ after: eventCursor().describe('A feed cursor (GET /events next_cursor): the events after it.') }).strict(),
  z.object({ since: dateTimeInput().describe('The events that occurred at or after this instant.') }).strict(),
]);
export type ReplayWebhookEventsBody = z.input<typeof ReplayWebhookEventsBodySchema>;
export type ReplayWebhookEventsRequest = z.output<typeof ReplayWebhookEventsBodySchema>;

export const ReplayedWebhookEventsSchema = z.object({
  queued: z.number().int().min(0).max(REPLAY_MAX_EVENTS).describe('Events queued for delivery again, in commit order.'),
  next_cursor: z
    .string()
    .max(EVENT_CURSOR_MAX_LENGTH)
    .nullable()
    .describe(`More than ${REPLAY_MAX_EVENTS} events matched: replay again with this as \`after\`. null: all queued.`),
});
export type ReplayedWebhookEvents = z.infer<typeof ReplayedWebhookEventsSchema>;

export const PingedWebhookEndpointSchema = z.object({
  event_id: eventId(),
  delivered: z.boolean().describe('true: the receiver answered 2xx within the timeout.'),
  status_code: DeliveryAttemptSchema.shape.status_code,
  error: DeliveryAttemptSchema.shape.error,
  latency_ms: DeliveryAttemptSchema.shape.latency_ms,
});
export type PingedWebhookEndpoint = z.infer<typeof PingedWebhookEndpointSchema>;

/** The `type` of the test event POST /webhook-endpoints/{id}/ping sends. */
export const PING_EVENT_TYPE = 'webhook.ping';

/** The JSON body of a delivery of an order's event: `data` is the event's order. */
export const SalesOrderWebhookPayloadSchema = z.object({
  type: SalesOrderEventTypeSchema,
  timestamp: z.string().max(30).describe('When the change was made, ISO 8601 in UTC.'),
  data: SalesOrderSchema,
});

/**
 * The JSON body of a delivery of an API key's event: `data` is the key after the change and who
 * changed what (never the secret). Sent only to endpoints whose owner holds api_keys.manage.
 */
export const ApiKeyWebhookPayloadSchema = z.object({
  type: ApiKeyEventTypeSchema,
  timestamp: z.string().max(30).describe('When the change was made, ISO 8601 in UTC.'),
  data: ApiKeyEventDataSchema,
});

/**
 * The JSON body of a delivery of an import's event: `data` is the import as it ended. Sent only
 * to endpoints of the import's owner, while it holds sales_orders.import.
 */
export const ImportWebhookPayloadSchema = z.object({
  type: ImportEventTypeSchema,
  timestamp: z.string().max(30).describe('When the import ended, ISO 8601 in UTC.'),
  data: ImportSchema,
});

/** The JSON body of a ping. */
export const PingWebhookPayloadSchema = z.object({
  type: z.literal(PING_EVENT_TYPE),
  timestamp: z.string().max(30),
  data: z.object({ webhook_endpoint_id: id(), message: z.string().max(200) }),
});

/** What a delivery's body holds, by `type`. */
export const WebhookPayloadSchema = z.discriminatedUnion('type', [
  SalesOrderWebhookPayloadSchema,
  ApiKeyWebhookPayloadSchema,
  ImportWebhookPayloadSchema,
  PingWebhookPayloadSchema,
]);
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;

/** The answers with an endpoint, named so that declarations write it out once. */
const WebhookEndpointEnvelopeObject = successEnvelope(WebhookEndpointSchema);
type WebhookEndpointEnvelopeObject = typeof WebhookEndpointEnvelopeObject;
interface WebhookEndpointEnvelope extends WebhookEndpointEnvelopeObject {}
const WebhookEndpointEnvelope: WebhookEndpointEnvelope = WebhookEndpointEnvelopeObject;

const UnprocessableEndpointResponse = describedError(
  'Unprocessable entity: the URL is refused (http:// without WEBHOOK_ALLOW_HTTP, a non-public or unresolvable address) or the service holds its maximum of endpoints.',
);
const NotFoundEndpointResponse = describedError(
  "Not found: no webhook endpoint has this id, or it is another caller's (without webhooks.admin).",
);
const ConflictDisabledResponse = describedError(
  'Conflict: the endpoint is disabled (`webhook_endpoint_disabled`); enable it with PATCH first.',
);

const c = initContract();
const manage = { permission: Permission.webhooksManage, tag: 'Webhooks' } as const;
/** Register, change and replay make events reach the caller: events.read as well. */
const manageReceiving = { ...manage, receivesEvents: true } as const;

export const webhookEndpointsContract = c.router(
  {
    createWebhookEndpoint: {
      method: 'POST',
      path: '/webhook-endpoints',
      body: CreateWebhookEndpointBodySchema,
      responses: {
        201: successEnvelope(CreatedWebhookEndpointSchema),
        422: UnprocessableEndpointResponse,
      },
      summary: 'Register a webhook endpoint; the answer holds its signing secret, shown this once',
      metadata: manageReceiving,
    },
    listWebhookEndpoints: {
      method: 'GET',
      path: '/webhook-endpoints',
      responses: { 200: successEnvelope(WebhookEndpointListSchema) },
      summary: "The caller's webhook endpoints (every caller's with webhooks.admin), oldest first",
      metadata: manage,
    },
    getWebhookEndpoint: {
      method: 'GET',
      path: '/webhook-endpoints/:id',
      pathParams: WebhookEndpointIdParamsSchema,
      responses: { 200: WebhookEndpointEnvelope, 404: NotFoundEndpointResponse },
      summary: 'Read one webhook endpoint (disabled ones say why)',
      metadata: manage,
    },
    updateWebhookEndpoint: {
      method: 'PATCH',
      path: '/webhook-endpoints/:id',
      pathParams: WebhookEndpointIdParamsSchema,
      body: UpdateWebhookEndpointBodySchema,
      responses: {
        200: WebhookEndpointEnvelope,
        404: NotFoundEndpointResponse,
        422: UnprocessableEndpointResponse,
      },
      summary: 'Change the URL, event types or description, or disable and enable an endpoint',
      metadata: manageReceiving,
    },
    deleteWebhookEndpoint: {
      method: 'DELETE',
      path: '/webhook-endpoints/:id',
      pathParams: WebhookEndpointIdParamsSchema,
      body: c.noBody(),
      responses: { 200: successEnvelope(DeletedWebhookEndpointSchema), 404: NotFoundEndpointResponse },
      summary: 'Remove an endpoint with its pending deliveries',
      metadata: manage,
    },
    rotateWebhookSecret: {
      method: 'POST',
      path: '/webhook-endpoints/:id/rotate-secret',
      pathParams: WebhookEndpointIdParamsSchema,
      body: c.noBody(),
      responses: {
        200: successEnvelope(RotatedWebhookSecretSchema),
        404: NotFoundEndpointResponse,
        422: describedError(
          `Unprocessable entity: ${PREVIOUS_SECRETS_MAX} replaced secrets still sign (\`too_many_webhook_secrets\`): ` +
            'rotate again once the oldest has expired.',
        ),
      },
      summary: `A new signing secret; the old one keeps signing beside it for ${PREVIOUS_SECRET_HOURS} h`,
      description:
        `Every secret replaced within the last ${PREVIOUS_SECRET_HOURS} h keeps signing until its own expiry, so a ` +
        'receiver on any of them still verifies (Standard Webhooks: one signature per secret, separated by spaces); at ' +
        `most ${PREVIOUS_SECRETS_MAX} at once.`,
      metadata: manage,
    },
    listWebhookDeliveries: {
      method: 'GET',
      path: '/webhook-endpoints/:id/deliveries',
      pathParams: WebhookEndpointIdParamsSchema,
      query: ListWebhookDeliveriesQuerySchema,
      responses: { 200: successEnvelope(WebhookDeliveryPageSchema), 404: NotFoundEndpointResponse },
      summary: 'Deliveries to an endpoint, newest first, with every attempt and the next retry',
      metadata: manage,
    },
    replayWebhookEvents: {
      method: 'POST',
      path: '/webhook-endpoints/:id/replay',
      pathParams: WebhookEndpointIdParamsSchema,
      body: ReplayWebhookEventsBodySchema,
      responses: {
        202: successEnvelope(ReplayedWebhookEventsSchema),
        404: NotFoundEndpointResponse,
        409: ConflictDisabledResponse,
      },
      summary: 'Send the kept events after a feed cursor, or since an instant, to this endpoint again',
      description:
        'Each event goes again with its own id (`webhook-id`), in commit order and per order in version order; an event ' +
        'whose delivery to this endpoint is still pending is not queued twice.',
      metadata: manageReceiving,
    },
    pingWebhookEndpoint: {
      method: 'POST',
      path: '/webhook-endpoints/:id/ping',
      pathParams: WebhookEndpointIdParamsSchema,
      body: c.noBody(),
      responses: { 200: successEnvelope(PingedWebhookEndpointSchema), 404: NotFoundEndpointResponse },
      summary: `Send a signed test event (${PING_EVENT_TYPE}) now and answer how the receiver responded`,
      metadata: manage,
    },
  },
  { strictStatusCodes: true, commonResponses: CommonErrorResponses },
);
