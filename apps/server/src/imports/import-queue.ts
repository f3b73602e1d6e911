import type { Db } from '../db/transactions.js';
import { inTransaction, type JobQueue, RETRIED_UNTIL_IT_CAN } from '../jobs/job-queue.js';

/**
 * Imports run on the process's job queue (pg-boss, jobs/job-queue.ts), one job per
 * chunk: a chunk's last transaction records its results and queues the next chunk's job, so a
 * process that dies mid-chunk leaves a job that expires and runs again elsewhere, and the orders
 * it had already made are found again by their idempotency keys (import-chunk.ts importKeyOf).
 */

export const IMPORT_QUEUE = 'imports';

export interface ImportJob {
  import_id: number;
}

export interface ImportQueue {
  /** Queues the import's next chunk, in the transaction `db` holds when given; at `startAfter` when given. */
  enqueue(importId: number, db?: Db, startAfter?: Date): Promise<void>;
}

export const startImportQueue = async (
  jobs: JobQueue,
  {
    chunkTimeoutSeconds,
    runChunk,
    reportFailure,
  }: {
    chunkTimeoutSeconds: number;
    runChunk: (job: ImportJob) => Promise<void>;
    reportFailure: (error: unknown) => void;
  },
): Promise<ImportQueue> => {
  const { boss } = jobs;
  await jobs.createQueue(IMPORT_QUEUE, {
    // One chunk of an import runs at a time, and at most one more waits behind it.
    policy: 'stately',
    settings: {
      expireInSeconds: chunkTimeoutSeconds,
      // A chunk fails only when the database failed it.
      ...RETRIED_UNTIL_IT_CAN,
      retryDelay: 1,
      deleteAfterSeconds: 3_600,
    },
  });
  await boss.work<ImportJob>(IMPORT_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
    try {
      await runChunk(job!.data);
    } catch (error) {
      reportFailure(error);
      throw error;
    }
  });
  return {
    enqueue: async (importId, db, startAfter) => {
      await boss.send(
        IMPORT_QUEUE,
        { import_id: importId },
        { singletonKey: String(importId), ...inTransaction(db), ...(startAfter ? { startAfter } : {}) },
      );
    },
  };
};
