import type { PrismaClient } from '../generated/prisma/client.js';
import { type PeriodicJob, startPeriodicJob } from '../jobs/periodic.js';
import type { Logger } from '../observability/logger.js';
import { eventStore } from './store/event-store.js';

/**
 * Deletes events older than EVENT_RETENTION_DAYS, with their deliveries, in bounded batches off
 * the request path, every EVENT_PURGE_INTERVAL_SECONDS (jobs/periodic.ts): each statement reads at most BATCH_SIZE events, and a run stops after
 * MAX_BATCHES_PER_RUN, so a backlog drains over several runs instead of holding one connection.
 */

export const EVENT_PURGE_BATCH_SIZE = 500;
const MAX_BATCHES_PER_RUN = 100;

/** `runOnce` resolves with the number deleted by each batch. */
export type EventPurge = PeriodicJob<number[]>;

export const startEventPurge = (
  prisma: PrismaClient,
  {
    retentionDays,
    intervalSeconds,
    logger,
    batchSize = EVENT_PURGE_BATCH_SIZE,
  }: { retentionDays: number; intervalSeconds: number; logger: Logger; batchSize?: number },
): EventPurge => {
  const purge = async (): Promise<number[]> => {
    const batches: number[] = [];
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
      const deleted = await eventStore.purgeOldest(prisma, retentionDays, batchSize);
      // None of the oldest batch is past retention: nothing older is left.
      if (deleted === 0) break;
      batches.push(deleted);
    }
    const total = batches.reduce((sum, deleted) => sum + deleted, 0);
    if (total > 0) logger.info({ deleted: total, retentionDays }, 'purged events past retention');
    return batches;
  };

  return startPeriodicJob(purge, {
    intervalMs: intervalSeconds * 1000,
    onError: (error: unknown) => logger.warn({ err: error }, 'purging events failed'),
  });
};
