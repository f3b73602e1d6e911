import type { AppConfig } from '../config.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';
import { type Resolver, systemResolver } from './address-guard.js';
import { type DeliveryQueue, startDeliveryQueue } from './delivery-queue.js';
import { createDeliveryWorker, deliveryJobTimeoutSeconds } from './delivery-worker.js';
import { type EventPurge, startEventPurge } from './event-purge.js';
import { type OutboxRelay, startOutboxRelay } from './outbox-relay.js';
import { createWebhookSender, type WebhookSender } from './webhook-sender.js';

/**
 * The events' background work in one process: the relay (positions and fans out), the delivery
 * workers (pg-boss) and, where `purge` is asked, the retention purge. What the routes' use
 * cases need of it (the queue, the sender, the resolver) comes with it.
 */
export interface EventProcessing {
  queue: DeliveryQueue;
  sender: WebhookSender;
  resolve: Resolver;
  relay: OutboxRelay;
  /** Only in the process that runs the periodic jobs (cluster slot 0, or the single process). */
  purge?: EventPurge;
  stop(): Promise<void>;
}

export const startEventProcessing = async (
  database: Pick<Database, 'prisma' | 'pool' | 'embedded'>,
  config: Pick<AppConfig, 'webhooks' | 'events'>,
  { logger, purge: runPurge }: { logger: Logger; purge: boolean },
): Promise<EventProcessing> => {
  const { webhooks } = config;
  const queue = await startDeliveryQueue(database.pool, {
    embedded: database.embedded,
    jobTimeoutSeconds: deliveryJobTimeoutSeconds(webhooks.timeoutMs),
    logger,
  });
  const resolve = systemResolver;
  const sender = createWebhookSender({ ...webhooks, resolve });
  await queue.work(
    webhooks.concurrency,
    createDeliveryWorker({
      db: database.prisma,
      queue,
      sender,
      retryScheduleMs: webhooks.retryScheduleMs,
      timeoutMs: webhooks.timeoutMs,
      logger,
    }),
  );
  const relay = startOutboxRelay(database.prisma, { queue, logger });
  const purge = runPurge
    ? startEventPurge(database.prisma, {
        retentionDays: config.events.retentionDays,
        intervalSeconds: config.events.purgeIntervalSeconds,
        logger,
      })
    : undefined;
  return {
    queue,
    sender,
    resolve,
    relay,
    purge,
    stop: async () => {
      await relay.stop();
      await purge?.stop();
      await queue.stop();
      sender.close();
    },
  };
};
