import { randomUUID } from 'node:crypto';

import {
  encodeEventCursor,
  type ListWebhookDeliveriesFilters,
  PING_EVENT_TYPE,
  type PingedWebhookEndpoint,
  REPLAY_MAX_EVENTS,
  type ReplayedWebhookEvents,
  type ReplayWebhookEventsRequest,
  WebhookCode,
  type WebhookDeliveryPage,
} from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { TransactionPort } from '../db/transactions.js';
import { DomainError, notFound } from '../errors/domain-error.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { webhookBody } from './delivery-worker.js';
import { visibleToReader } from './store/event-visibility.js';
import { webhookDeliveryStore } from './store/webhook-delivery-store.js';
import { webhookEndpointStore } from './store/webhook-endpoint-store.js';
import { endpointScopeOf } from './webhook-endpoints.js';
import { isDelivered, type WebhookSender } from './webhook-sender.js';
import { webhookHeaders } from './webhook-signing.js';

/** An endpoint's deliveries: listed, replayed, and the test event a ping sends. */

export interface DeliveryDeps {
  transactions: TransactionPort;
  queue: DeliveryQueue;
  sender: WebhookSender;
}

const endpointNotFound = (id: number) => notFound(`webhook endpoint ${id} not found`);

export const createWebhookDeliveries = ({ transactions, queue, sender }: DeliveryDeps) => ({
  list: async (
    endpointId: number,
    { status, limit, cursor }: ListWebhookDeliveriesFilters,
    access: AccessContext,
  ): Promise<WebhookDeliveryPage> => {
    if (!(await webhookEndpointStore.find(transactions.db, endpointId, endpointScopeOf(access))))
      throw endpointNotFound(endpointId);
    const rows = await webhookDeliveryStore.list(
      transactions.db,
      endpointId,
      { status, limit: limit + 1, beforeId: cursor },
      visibleToReader(access),
    );
    const items = rows.slice(0, limit);
    return { items, next_cursor: rows.length > limit ? items.at(-1)!.delivery_id : null };
  },

  /**
   * Queues kept events again for an enabled endpoint, with their jobs, in one transaction; at
   * most REPLAY_MAX_EVENTS per call, the answer saying where to continue.
   */
  replay: async (
    endpointId: number,
    from: ReplayWebhookEventsRequest,
    access: AccessContext,
  ): Promise<ReplayedWebhookEvents> => {
    const scope = endpointScopeOf(access);
    const result = await transactions.withTransaction(async (tx) => {
      const endpoint = await webhookEndpointStore.target(tx, endpointId, scope);
      if (!endpoint) throw endpointNotFound(endpointId);
      if (!endpoint.enabled) {
        const message = `webhook endpoint ${endpointId} is disabled: enable it (PATCH enabled=true) before a replay`;
        throw new DomainError('conflict', message, [{ path: '', message, code: WebhookCode.endpointDisabled }]);
      }
      await webhookEndpointStore.touchOwner(tx, endpointId, scope);
      const replayed = await webhookDeliveryStore.replay(
        tx,
        endpointId,
        'after' in from ? { afterPosition: from.after.position } : { since: from.since },
        REPLAY_MAX_EVENTS,
      );
      await queue.schedule(replayed.keys, { db: tx });
      return replayed;
    });
    if (result.keys.length > 0) queue.wake();
    return {
      queued: result.queued,
      next_cursor: result.morePosition === null ? null : encodeEventCursor({ position: result.morePosition }),
    };
  },

  /** Sends a signed test event now, enabled or not, and answers how the receiver responded. */
  ping: async (endpointId: number, access: AccessContext): Promise<PingedWebhookEndpoint> => {
    const endpoint = await webhookEndpointStore.target(transactions.db, endpointId, endpointScopeOf(access));
    if (!endpoint) throw endpointNotFound(endpointId);
    const id = randomUUID();
    const now = new Date();
    const body = webhookBody(PING_EVENT_TYPE, now, {
      webhook_endpoint_id: endpointId,
      message: 'A test event from the sales order service: nothing changed.',
    });
    const outcome = await sender.send({
      url: endpoint.url,
      body,
      headers: webhookHeaders({ id, timestamp: now, body }, endpoint.secrets),
    });
    return {
      event_id: id,
      delivered: isDelivered(outcome),
      status_code: outcome.statusCode,
      error: outcome.error,
      latency_ms: outcome.latencyMs,
    };
  },
});

export type WebhookDeliveries = ReturnType<typeof createWebhookDeliveries>;
