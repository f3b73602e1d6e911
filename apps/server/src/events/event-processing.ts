import type { Database } from '../db/database.js';
import { backgroundFailureReporter } from '../jobs/background-failures.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { Logger } from '../observability/logger.js';
import { type Metrics, noMetrics } from '../observability/metrics.js';
import type { AppConfig } from '../startup/config.js';
import { type Resolver, systemResolver } from './address-guard.js';
import { type DeliveryQueue, startDeliveryQueue } from './delivery-queue.js';
import { createDeliveryWorker, deliveryJobTimeoutSeconds } from './delivery-worker.js';
import { type EventPurge, startEventPurge } from './event-purge.js';
import { type OutboxRelay, startOutboxRelay } from './outbox-relay.js';
import { eventStore } from './store/event-store.js';
import { createWebhookSender, type WebhookSender } from './webhook-sender.js';

/**
 * The events' background work in one process: the relay (positions and fans out), the delivery
 * workers (their queue on the process's job queue, jobs/job-queue.ts) and, where `purge` is
 * asked, the retention purge. What the routes' use cases need of it (the queue, the sender, the
 * resolver) comes with it.
 */
export interface EventProcessing {
  queue: DeliveryQueue;
  sender: WebhookSender;
  resolve: Resolver;
  relay: OutboxRelay;
  /** Only in the process that runs the periodic jobs (cluster slot 0, or the single process). */
  purge?: EventPurge;
  /**
   * Stops the relay and the purge: nothing more is queued. The deliveries under way end with the
   * job queue's stop, after this; the sender's connections close then (JobQueue.whenStopped).
   */
  stop(): Promise<void>;
}

export const startEventProcessing = async (
  database: Pick<Database, 'prisma' | 'embedded' | 'availability' | 'ping'>,
  config: Pick<AppConfig, 'webhooks' | 'events'>,
  {
    jobs,
    logger,
    purge: runPurge,
    metrics = noMetrics,
  }: { jobs: JobQueue; logger: Logger; purge: boolean; metrics?: Pick<Metrics, 'counter' | 'gauge'> },
): Promise<EventProcessing> => {
  const { webhooks } = config;
  const deliveries = metrics.counter('webhook_deliveries_total', 'Webhook delivery attempts, by outcome.', ['outcome']);
  // One statement a scrape for the three gauges (each asks within the same moment).
  let backlog: ReturnType<typeof eventStore.backlog> | undefined;
  const readBacklog = () => {
    backlog ??= eventStore.backlog(database.prisma).finally(() => setTimeout(() => (backlog = undefined), 1_000));
    return backlog;
  };
  metrics.gauge(
    'events_outbox_depth',
    'Committed events the relay has not positioned yet.',
    async () => (await readBacklog()).queued,
  );
  metrics.gauge(
    'webhook_deliveries_pending',
    'Webhook deliveries not yet succeeded or given up.',
    async () => (await readBacklog()).pending,
  );
  metrics.gauge(
    'webhook_oldest_undelivered_age_seconds',
    'How long the oldest pending webhook delivery has waited.',
    async () => (await readBacklog()).oldestPendingSeconds,
  );
  const reportFailure = backgroundFailureReporter(database, logger);
  const queue = await startDeliveryQueue(jobs, {
    jobTimeoutSeconds: deliveryJobTimeoutSeconds(webhooks.timeoutMs),
    reportFailure,
  });
  const resolve = systemResolver;
  const sender = createWebhookSender({ ...webhooks, resolve });
  jobs.whenStopped(() => sender.close());
  await queue.work(
    { concurrency: webhooks.concurrency, endpointConcurrency: webhooks.endpointConcurrency },
    createDeliveryWorker({
      db: database.prisma,
      queue,
      sender,
      retryScheduleMs: webhooks.retryScheduleMs,
      timeoutMs: webhooks.timeoutMs,
      endpointConcurrency: webhooks.endpointConcurrency,
      concurrency: webhooks.concurrency,
      logger,
      onAttempt: (outcome) => deliveries.inc({ outcome }),
    }),
  );
  const relay = startOutboxRelay(database.prisma, {
    queue,
    reportFailure: reportFailure('outbox relay: positioning events failed'),
  });
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
    },
  };
};
