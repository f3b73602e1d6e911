import { EVENT_SUBJECTS, Permission } from '@sales-order/contract';

import type { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../observability/logger.js';
import { probeSlots } from './circuit-breaker.js';
import type { DeliveryJob, DeliveryQueue } from './delivery-queue.js';
import { retryDelayAfter } from './retry-schedule.js';
import type { DeliveryKey } from './store/event-store.js';
import { ownerMayReceive } from './store/event-visibility.js';
import { webhookDeliveryStore } from './store/webhook-delivery-store.js';
import { webhookEndpointStore } from './store/webhook-endpoint-store.js';
import { isDelivered, type WebhookSender } from './webhook-sender.js';
import { webhookHeaders } from './webhook-signing.js';

/**
 * What a delivery job does for its (endpoint, subject): sends the subject's pending deliveries
 * (an order's, in version order) to the endpoint in position order, one attempt each, while they are due and the job's time
 * allows; records every attempt; and leaves a job for what remains (a retry at its time, or the
 * next delivery now). The job is held (pg-boss) until this returns, so a process that dies
 * midway leaves it to expire and be taken up again: nothing is dropped, at worst sent twice.
 */

export interface DeliveryWorkerOptions {
  /** A client, not a transaction: a claim is a transaction of its own. */
  db: PrismaClient;
  queue: DeliveryQueue;
  sender: WebhookSender;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  /** At most this many of one endpoint's deliveries are out at once, across every process. */
  endpointConcurrency: number;
  /** This process's sending slots: its circuit breakers' probes take at most half of them. */
  concurrency: number;
  logger: Logger;
  /** Each attempt's outcome (the metrics' count): delivered, to be retried, or given up. */
  onAttempt?: (outcome: 'succeeded' | 'retried' | 'failed') => void;
}

/** How long a delivery stays claimed by its sender beyond the request's own timeout. */
const LEASE_MARGIN_MS = 5_000;
/** When a delivery is held by another sender, or its endpoint's slots are all out (rare races), look again this much later. */
const HELD_RECHECK_MS = 1_000;

/**
 * How long a job may run before pg-boss gives it to another worker: two attempts and margins.
 * A delivery cut off by a dying process is sent again within twice WEBHOOK_TIMEOUT_MS plus 15 s
 * of its job's start (docs/configuration.md): this expiry (2 x timeout + 5 s), then up to 3 s
 * until pg-boss's monitor fails the job over (delivery-queue.ts), 2 s of retry delay, 1 s until
 * an idle slot polls, and 4 s to spare for a busy machine.
 */
export const deliveryJobTimeoutSeconds = (timeoutMs: number) => Math.ceil((2 * timeoutMs + LEASE_MARGIN_MS) / 1000);

/** Why a delivery was not sent to an endpoint whose owner may not receive events (its attempt's error). */
export const notReceivingReason = (owner: string | null, permission: string = Permission.eventsRead): string =>
  owner === null
    ? `not sent: the endpoint belongs to no caller, so none holds ${permission} for it`
    : `not sent: the endpoint's owner ${owner} does not hold ${permission} (or its key or session is no longer valid)`;

/** Why a delivery was not sent to an endpoint whose owner no longer reaches the event's subject (its attempt's error). */
export const outOfScopeReason = (owner: string | null): string =>
  `not sent: the endpoint's owner ${owner ?? '(none)'} no longer reaches this event's location (its locations now)`;

/** The JSON body of a delivery: Standard Webhooks' `{ type, timestamp, data }`. */
export const webhookBody = (type: string, occurredAt: Date, data: unknown): string =>
  JSON.stringify({ type, timestamp: occurredAt.toISOString(), data });

export const createDeliveryWorker = ({
  db,
  queue,
  sender,
  retryScheduleMs,
  timeoutMs,
  endpointConcurrency,
  concurrency,
  logger,
  onAttempt = () => {},
}: DeliveryWorkerOptions) => {
  const leaseMs = timeoutMs + LEASE_MARGIN_MS;
  const probesAtOnce = probeSlots(concurrency);
  let probesOut = 0;

  /** Parks an endpoint whose breaker just opened, and schedules its probe for when it half-opens. */
  const park = async (endpointId: number, until: Date) => {
    await queue.scheduleProbe(endpointId, until);
    await queue.park(endpointId);
    logger.warn(
      { webhookEndpointId: endpointId, until: until.toISOString() },
      'webhook endpoint parked: its receiver did not answer in time, again; one delivery will probe it then',
    );
  };

  /** Sends one claimed delivery, counting it among the probes while it is one. */
  const send = async (probe: boolean, request: Parameters<WebhookSender['send']>[0]) => {
    if (probe) probesOut += 1;
    try {
      return await sender.send(request);
    } finally {
      if (probe) probesOut -= 1;
    }
  };

  /** One attempt of the key's next delivery; true when the next one may follow at once. */
  const attemptNext = async (key: DeliveryKey): Promise<boolean> => {
    const next = await webhookDeliveryStore.next(db, key);
    if (!next) return false;
    const endpoint = await webhookEndpointStore.target(db, key.endpoint_id);
    // Disabled: its deliveries wait, and resume when it is enabled again.
    if (!endpoint?.enabled) return false;
    // Parked by its circuit breaker: they resume once its probe is answered. The probe is queued
    // when the breaker opens; this makes sure of it (at most one is queued).
    if (endpoint.circuit === 'open') {
      await queue.scheduleProbe(key.endpoint_id, endpoint.circuit_open_until!);
      return false;
    }
    if (!next.due) {
      await queue.schedule([key], { startAfter: next.wait_until });
      return false;
    }
    // Events carry the order (or the key): an owner that may not read them gets none (authentication.md).
    const permission = EVENT_SUBJECTS[key.subject_type].permission;
    const refused = !endpoint.receives || !ownerMayReceive(key.subject_type, endpoint.owner_permissions);
    // The owner's scope as its credential says now: an owner narrowed since the fan-out gets none
    // of what lies outside it (next.visible, event-visibility.ts).
    if (refused || !next.visible) {
      const reason = refused
        ? notReceivingReason(endpoint.owner, endpoint.receives && permission ? permission : undefined)
        : outOfScopeReason(endpoint.owner);
      await webhookDeliveryStore.skip(db, next.id, reason);
      return webhookDeliveryStore.morePending(db, key, next.id);
    }
    const probe = endpoint.circuit === 'half-open';
    // Half this process's slots at most for probes: the rest stay with endpoints that answer.
    if (probe && probesOut >= probesAtOnce) {
      await queue.schedule([key], { startAfter: new Date(Date.now() + HELD_RECHECK_MS) });
      return false;
    }
    const attemptsBefore = await webhookDeliveryStore.claim(db, {
      deliveryId: next.id,
      endpointId: key.endpoint_id,
      leaseMs,
      endpointLimit: endpointConcurrency,
    });
    if (attemptsBefore === null) {
      // Another probe of the endpoint is out: what it finds queues this subject again (or parks it).
      if (probe) return false;
      await queue.schedule([key], { startAfter: new Date(Date.now() + HELD_RECHECK_MS) });
      return false;
    }
    const attemptedAt = new Date();
    const body = webhookBody(next.type, next.occurred_at, next.data);
    const outcome = await send(probe, {
      url: endpoint.url,
      body,
      headers: webhookHeaders({ id: next.event_id, timestamp: attemptedAt, body }, endpoint.secrets),
    });
    const delivered = isDelivered(outcome);
    const recorded = await webhookDeliveryStore.recordAttempt(db, {
      deliveryId: next.id,
      endpointId: key.endpoint_id,
      attemptedAt,
      statusCode: outcome.statusCode,
      error: outcome.error,
      latencyMs: outcome.latencyMs,
      delivered,
      gone: outcome.statusCode === 410,
      timedOut: outcome.timedOut,
      retryDelayMs: retryDelayAfter(attemptsBefore + 1, retryScheduleMs),
    });
    onAttempt(delivered ? 'succeeded' : recorded.retryAt ? 'retried' : 'failed');
    if (recorded.disabledNow) {
      logger.warn(
        { webhookEndpointId: key.endpoint_id, reason: recorded.disabledReason },
        recorded.disabledReason === 'gone'
          ? 'webhook endpoint disabled: the receiver answered 410 Gone'
          : 'webhook endpoint disabled: every delivery failed for 3 days',
      );
    }
    if (!recorded.enabled) {
      await queue.park(key.endpoint_id);
      return false;
    }
    if (recorded.circuitOpenUntil) {
      await park(key.endpoint_id, recorded.circuitOpenUntil);
      return false;
    }
    if (recorded.circuitClosed) {
      logger.info({ webhookEndpointId: key.endpoint_id }, 'webhook endpoint answered its probe: its deliveries resume');
      await queue.schedule(await webhookDeliveryStore.pendingKeys(db, key.endpoint_id));
      queue.wake();
    }
    // Still pending: it stays the subject's next delivery, so the subject waits for its retry.
    if (recorded.retryAt) {
      await queue.schedule([key], { startAfter: recorded.retryAt });
      return false;
    }
    return webhookDeliveryStore.morePending(db, key, next.id);
  };

  /** The subject a probe job sends for (the one due first), or null when none is due yet (the probe waits for it). */
  const keyToProbe = async (endpointId: number): Promise<DeliveryKey | null> => {
    const found = await webhookDeliveryStore.probeKey(db, endpointId);
    if (!found) return null;
    if (found.dueAt.getTime() > Date.now()) {
      await queue.scheduleProbe(endpointId, found.dueAt);
      return null;
    }
    return found.key;
  };

  return async (job: DeliveryJob): Promise<void> => {
    const key = 'probe' in job ? await keyToProbe(job.endpoint_id) : job;
    if (!key) return;
    const started = performance.now();
    let more = await attemptNext(key);
    // Further deliveries of the same subject go out in this job while it has time for another attempt.
    while (more && performance.now() - started < timeoutMs) more = await attemptNext(key);
    if (more) {
      await queue.schedule([key]);
      queue.wake();
    }
  };
};
