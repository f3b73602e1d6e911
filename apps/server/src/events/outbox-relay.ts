import type { PrismaClient } from '../generated/prisma/client.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { eventStore } from './store/event-store.js';

/**
 * The outbox relay: gives committed events their place in commit order (store/event-store.ts
 * says why that makes the feed lose nothing) and, in the same transaction, creates their
 * deliveries to the webhook endpoints and the jobs that send them; a relay run that fails
 * leaves all of it undone, to be redone by the next. Every instance runs one: they take turns
 * through a row lock, and an instance that finds the lock taken leaves the work to its holder.
 */

/** How often an idle relay looks for new events (one indexed EXISTS). */
export const RELAY_INTERVAL_MS = 100;
const BATCH_SIZE = 500;

export interface OutboxRelay {
  /** Positions whatever has committed before this call; resolves with how many events it positioned. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export const startOutboxRelay = (
  prisma: PrismaClient,
  {
    queue,
    reportFailure,
    intervalMs = RELAY_INTERVAL_MS,
  }: { queue: DeliveryQueue; reportFailure: (error: unknown) => void; intervalMs?: number },
): OutboxRelay => {
  let running: Promise<number> | undefined;
  /** A run asked for while one was under way: it starts once that one ends. */
  let queued: Promise<number> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const relay = async (): Promise<number> => {
    let total = 0;
    while (await eventStore.anyUnpositioned(prisma)) {
      const batch = await prisma.$transaction(async (tx) => {
        const lastPosition = await eventStore.lockRelay(tx);
        if (lastPosition === null) return null;
        const positioned = await eventStore.positionCommitted(tx, lastPosition, BATCH_SIZE);
        await queue.schedule(positioned.keys, { db: tx });
        return positioned;
      });
      // Another instance's relay holds the lock: it positions these.
      if (!batch) break;
      total += batch.positioned;
      if (batch.keys.length > 0) queue.wake();
      if (batch.positioned < BATCH_SIZE) break;
    }
    return total;
  };

  const runOnce = (): Promise<number> => {
    if (!running) {
      running = relay().finally(() => {
        running = undefined;
      });
      return running;
    }
    // The run under way may have started before what the caller just committed.
    queued ??= running
      .catch(() => 0)
      .then(() => {
        queued = undefined;
        return runOnce();
      });
    return queued;
  };

  const tick = () => {
    runOnce()
      // A failed run (the database away for a moment) is redone at the next tick.
      .catch(reportFailure)
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(tick, intervalMs);
        timer.unref();
      });
  };
  timer = setTimeout(tick, 0);
  timer.unref();

  return {
    runOnce,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => 0);
    },
  };
};
