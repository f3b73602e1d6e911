import type { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../observability/logger.js';
import { idempotencyStore } from './idempotency-store.js';

const BATCH_SIZE = 1000;
/** Batches per run: a backlog drains over several runs instead of holding one connection long. */
const MAX_BATCHES_PER_RUN = 50;

export interface IdempotencyPurge {
  /** One purge run now (what the timer does); resolves with the number of keys deleted. */
  runOnce(): Promise<number>;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Deletes expired Idempotency-Keys off the request path: a timer that never keeps the process
 * alive, small batches that skip rows others hold, so N instances can purge side by side.
 */
export const startIdempotencyPurge = (
  prisma: PrismaClient,
  { intervalSeconds, logger }: { intervalSeconds: number; logger: Logger },
): IdempotencyPurge => {
  let running: Promise<number> | undefined;

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

  const runOnce = (): Promise<number> => {
    running ??= purge().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    // A failed run (the database away for a moment) is retried at the next tick.
    runOnce().catch((error: unknown) => logger.warn({ err: error }, 'purging expired idempotency keys failed'));
  }, intervalSeconds * 1000);
  timer.unref();

  return {
    runOnce,
    stop: async () => {
      clearInterval(timer);
      await running?.catch(() => 0);
    },
  };
};
