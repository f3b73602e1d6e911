import type { PrismaClient } from '../generated/prisma/client.js';
import { type PeriodicJob, startPeriodicJob } from '../jobs/periodic.js';
import type { Logger } from '../observability/logger.js';
import { idempotencyStore } from './idempotency-store.js';

const BATCH_SIZE = 1000;
/** Batches per run: a backlog drains over several runs instead of holding one connection long. */
const MAX_BATCHES_PER_RUN = 50;

/** `runOnce` resolves with the number of keys deleted. */
export type IdempotencyPurge = PeriodicJob<number>;

/**
 * Deletes expired Idempotency-Keys off the request path, every IDEMPOTENCY_PURGE_INTERVAL_SECONDS
 * (jobs/periodic.ts: a timer that never keeps the process alive), in small batches that skip rows
 * others hold, so N instances can purge side by side.
 */
export const startIdempotencyPurge = (
  prisma: PrismaClient,
  { intervalSeconds, logger }: { intervalSeconds: number; logger: Logger },
): IdempotencyPurge => {
  const purge = async (): Promise<number> => {
    let total = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
      const deleted = await idempotencyStore.purgeExpired(prisma, BATCH_SIZE);
      total += deleted;
      if (deleted < BATCH_SIZE) break;
    }
    if (total > 0) logger.info({ deleted: total }, 'purged expired idempotency keys');
    return total;
  };

  return startPeriodicJob(purge, {
    intervalMs: intervalSeconds * 1000,
    // A failed run (the database away for a moment) is retried at the next one.
    onError: (error: unknown) => logger.warn({ err: error }, 'purging expired idempotency keys failed'),
  });
};
