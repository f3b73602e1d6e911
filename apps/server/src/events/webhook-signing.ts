import { randomBytes } from 'node:crypto';

import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com), with the reference library:
 * HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` keyed by the endpoint's secret,
 * sent as `v1,<base64>`. While a rotated-out secret is still valid, both sign: the
 * specification lets `webhook-signature` carry several signatures separated by spaces, and a
 * receiver accepts the delivery when any of them verifies with its secret.
 */

const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks writes them. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;

export interface SignedMessage {
  /** `webhook-id`: the event id, the same on every attempt. */
  id: string;
  /** `webhook-timestamp`: when this attempt is sent. */
  timestamp: Date;
  body: string;
}

/** The headers of one delivery attempt, signed by every secret in `secrets`. */
export const webhookHeaders = (message: SignedMessage, secrets: readonly string[]): Record<string, string> => ({
  'content-type': 'application/json',
  'webhook-id': message.id,
  'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
  'webhook-signature': secrets
    .map((secret) => new Webhook(secret).sign(message.id, message.timestamp, message.body))
    .join(' '),
});
