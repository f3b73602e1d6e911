import type { Db } from '../db/transactions.js';
import type { Logger } from '../observability/logger.js';
import { apiKeyRepository } from './api-key-repository.js';

/** How often pending uses are written: a use shows in `last_used_at` within about this long. */
const FLUSH_INTERVAL_MS = 2_000;

/**
 * Records when each API key was last used without touching the request: a use is noted in
 * memory, at most once per key per `resolutionMs` (starting from the stored value), and the
 * notes are written together in one UPDATE every two seconds, and on shutdown (`flush`). A
 * failed write is logged and retried with the next batch; it never fails or delays a request.
 */
export const createLastUsedRecorder = (db: Db, { resolutionMs, logger }: { resolutionMs: number; logger: Logger }) => {
  /** The last use recorded (or found stored) per key id, in epoch ms. */
  const recorded = new Map<number, number>();
  /** Uses waiting to be written, per key id. */
  let waiting = new Map<number, Date>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const write = async (batch: Map<number, Date>) => {
    try {
      // Never moves a stored time backwards (another instance may have written a later one).
      await apiKeyRepository.recordUses(db, batch);
    } catch (error) {
      logger.warn({ err: error, keys: batch.size }, 'could not record API key use; retrying with the next batch');
      for (const [id, at] of batch) if (!waiting.has(id)) waiting.set(id, at);
      schedule();
    }
  };

  const flush = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting.size > 0) {
      const batch = waiting;
      waiting = new Map();
      writing = writing.then(() => write(batch));
    }
    return writing;
  };

  function schedule() {
    if (timer !== undefined) return;
    timer = setTimeout(() => void flush(), FLUSH_INTERVAL_MS);
    timer.unref();
  }

  return {
    /** What the database holds for a key just read from it: the start of its resolution, unless a write waits. */
    stored(id: number, lastUsedAt: Date | null) {
      if (!waiting.has(id)) recorded.set(id, lastUsedAt?.getTime() ?? Number.NEGATIVE_INFINITY);
    },
    /** Notes a use of key `id` at `at`. */
    used(id: number, at: Date) {
      const last = recorded.get(id) ?? Number.NEGATIVE_INFINITY;
      if (at.getTime() - last < resolutionMs) return;
      recorded.set(id, at.getTime());
      waiting.set(id, at);
      schedule();
    },
    /** Writes every waiting use now. */
    flush,
  };
};

export type LastUsedRecorder = ReturnType<typeof createLastUsedRecorder>;
