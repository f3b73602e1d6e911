import { Webhook, WebhookVerificationError as LibraryVerificationError } from 'standardwebhooks';

import type {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointBody,
  DeletedWebhookEndpoint,
  ListWebhookDeliveriesQuery,
  PingedWebhookEndpoint,
  ReplayedWebhookEvents,
  ReplayWebhookEventsBody,
  RotatedWebhookSecret,
  UpdateWebhookEndpointBody,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookPayload,
} from './generated/contract-types.js';
import { type ClientContext, definedOnly, unwrap } from './transport.js';

/** Webhook endpoints: register, change, remove, rotate secrets, read deliveries, replay, ping. */
export const webhookMethods = ({ client }: ClientContext) => {
  return {
    /** POST /webhook-endpoints: the answer's `secret` is shown this once; keep it in the receiver. */
    createWebhookEndpoint: (body: CreateWebhookEndpointBody): Promise<CreatedWebhookEndpoint> =>
      unwrap(client.createWebhookEndpoint({ body })),
    /** GET /webhook-endpoints */
    listWebhookEndpoints: (): Promise<WebhookEndpointList> => unwrap(client.listWebhookEndpoints()),
    /** GET /webhook-endpoints/{id}: a disabled endpoint says why in `disabled_reason`. */
    getWebhookEndpoint: (id: number): Promise<WebhookEndpoint> => unwrap(client.getWebhookEndpoint({ params: { id } })),
    /** PATCH /webhook-endpoints/{id}: URL, event types, description; `enabled` disables or enables it. */
    updateWebhookEndpoint: (id: number, body: UpdateWebhookEndpointBody): Promise<WebhookEndpoint> =>
      unwrap(client.updateWebhookEndpoint({ params: { id }, body })),
    /** DELETE /webhook-endpoints/{id} */
    deleteWebhookEndpoint: (id: number): Promise<DeletedWebhookEndpoint> =>
      unwrap(client.deleteWebhookEndpoint({ params: { id } })),
    /** POST /webhook-endpoints/{id}/rotate-secret: the new secret; the old one still signs for 24 hours. */
    rotateWebhookSecret: (id: number): Promise<RotatedWebhookSecret> =>
      unwrap(client.rotateWebhookSecret({ params: { id } })),
    /** GET /webhook-endpoints/{id}/deliveries: newest first, with every attempt and the next retry. */
    listWebhookDeliveries: (id: number, query: ListWebhookDeliveriesQuery = {}): Promise<WebhookDeliveryPage> =>
      unwrap(client.listWebhookDeliveries({ params: { id }, query: definedOnly(query) })),
    /** POST /webhook-endpoints/{id}/replay: `{ after: cursor }` or `{ since: '2026-11-24 08:00:00' }`. */
    replayWebhookEvents: (id: number, body: ReplayWebhookEventsBody): Promise<ReplayedWebhookEvents> =>
      unwrap(client.replayWebhookEvents({ params: { id }, body })),
    /** POST /webhook-endpoints/{id}/ping: sends a signed test event now and says how the receiver answered. */
    pingWebhookEndpoint: (id: number): Promise<PingedWebhookEndpoint> =>
      unwrap(client.pingWebhookEndpoint({ params: { id } })),
  };
};

/** A verified webhook delivery: its payload, with `id` (the `webhook-id`, the event's id). */
export type WebhookEvent = WebhookPayload & { id: string };

/** Header values as Node (`req.headers`), fetch (`Headers`) or a plain object hand them over. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const plainHeaders = (headers: WebhookHeaders): Record<string, string> => {
  const entries: [string, string | string[] | undefined][] = [];
  if (typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => entries.push([name, value]));
  } else entries.push(...Object.entries(headers));
  return Object.fromEntries(
    entries.flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
};

/**
 * Checks a webhook delivery as Standard Webhooks says, with its reference library: the
 * `webhook-signature` (any of its signatures, so both secrets verify during a rotation) over the
 * exact body received, and a `webhook-timestamp` within 5 minutes of now (a replayed capture is
 * refused). Returns the typed event; throws WebhookVerificationError otherwise. Pass the raw
 * body (the bytes or text as received, before any JSON parsing) and the endpoint's `whsec_...` secret.
 * Deduplicate by `id` and order by `data.version`: delivery is at least once.
 */
export const verifyWebhook = (headers: WebhookHeaders, body: string | Uint8Array, secret: string): WebhookEvent => {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const plain = plainHeaders(headers);
  try {
    const payload = new Webhook(secret).verify(text, plain) as WebhookPayload;
    return { ...payload, id: plain['webhook-id']! };
  } catch (error) {
    if (error instanceof LibraryVerificationError) throw new WebhookVerificationError(error.message);
    throw error;
  }
};

/**
 * A delivery that does not verify: no or a wrong signature, a timestamp more than 5 minutes
 * away, missing headers. (The SDK's own class, so its types need none of the library's.)
 */
export class WebhookVerificationError extends Error {
  override readonly name: string = 'WebhookVerificationError';
}
