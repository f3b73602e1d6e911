import type { PrismaClient } from '../generated/prisma/client.js';
import { type PeriodicJob, startPeriodicJob } from '../jobs/periodic.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { type HoldingsRecount, licenceHoldingsRepository } from './licence-holdings-repository.js';

/** Changes moved per fold statement, and statements per run: a backlog drains over several runs. */
const FOLD_BATCH = 10_000;
const FOLD_BATCHES_PER_RUN = 50;
/** Line ids summed per recount statement: each stays far below the statement timeout. */
const RECOUNT_CHUNK = 50_000;
/** The drifted days a recount logs (their count is always whole). */
const RECOUNT_SAMPLE = 20;
/** The recount's transaction: its one snapshot over every chunk. */
const RECOUNT_TIMEOUT_MS = 10 * 60_000;

export interface LicenceHoldingsJobs {
  /** Folds the appended changes into the per-day totals; `runOnce` resolves with how many moved. */
  fold: PeriodicJob<number>;
  /** Recounts the totals from the order lines and reports the days that differ. */
  recount: PeriodicJob<HoldingsRecount>;
  stop(): Promise<void>;
}

/**
 * The licence quota's running total kept small and checked (docs/decisions/licence-holdings-ledger.md),
 * off the request path, in one process of a cluster:
 * - every LICENCE_FOLD_INTERVAL_SECONDS, the changes the triggers appended are folded into one
 *   row per product and day, so a licence's use stays a sum of at most a row a day plus the
 *   changes since the last fold;
 * - every LICENCE_RECOUNT_INTERVAL_SECONDS, what the lines hold is recounted and compared with
 *   the totals: a day that differs is drift (a bug, or a writer that went around the triggers),
 *   logged at error with the first days and counted in the gauge `licence_holdings_drift_days`.
 *   Nothing is repaired behind the operator's back: `SELECT licence_holdings_rebuild()` does it.
 */
export const startLicenceHoldingsJobs = (
  prisma: PrismaClient,
  {
    foldIntervalSeconds,
    recountIntervalSeconds,
    logger,
    metrics,
  }: {
    foldIntervalSeconds: number;
    recountIntervalSeconds: number;
    logger: Logger;
    metrics: Pick<Metrics, 'gauge'>;
  },
): LicenceHoldingsJobs => {
  const fold = startPeriodicJob(
    async (): Promise<number> => {
      let total = 0;
      for (let batch = 0; batch < FOLD_BATCHES_PER_RUN; batch += 1) {
        const moved = await licenceHoldingsRepository.fold(prisma, FOLD_BATCH);
        total += moved;
        if (moved < FOLD_BATCH) break;
      }
      return total;
    },
    {
      intervalMs: foldIntervalSeconds * 1000,
      // A failed run (the database away for a moment) leaves the changes for the next one.
      onError: (error: unknown) => logger.warn({ err: error }, 'folding licence holdings failed'),
    },
  );

  /** Drifted days at the last recount; a cluster's primary takes the largest of its workers'. */
  let drifted = 0;
  metrics.gauge(
    'licence_holdings_drift_days',
    'Days of a product whose licence running total differed from what its order lines hold, at the last recount.',
    () => drifted,
  );
  const recount = startPeriodicJob(
    async (): Promise<HoldingsRecount> => {
      const result = await licenceHoldingsRepository.recount(prisma, {
        chunk: RECOUNT_CHUNK,
        sample: RECOUNT_SAMPLE,
        timeoutMs: RECOUNT_TIMEOUT_MS,
      });
      drifted = result.drifted;
      if (result.drifted > 0) {
        logger.error(
          { driftedDays: result.drifted, sample: result.sample },
          'licence holdings differ from what the order lines hold: SELECT licence_holdings_rebuild() recounts them',
        );
      }
      return result;
    },
    {
      intervalMs: recountIntervalSeconds * 1000,
      onError: (error: unknown) => logger.warn({ err: error }, 'recounting licence holdings failed'),
    },
  );

  return {
    fold,
    recount,
    stop: async () => {
      await Promise.all([fold.stop(), recount.stop()]);
    },
  };
};
