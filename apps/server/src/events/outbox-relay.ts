import type { PrismaClient } from '../generated/prisma/client.js';
import { type PeriodicJob, startPeriodicJob } from '../jobs/periodic.js';
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

/** `runOnce` positions whatever has committed before the call; resolves with how many events it positioned. */
export type OutboxRelay = PeriodicJob<number>;

export const startOutboxRelay = (
  prisma: PrismaClient,
  {
    queue,
    reportFailure,
    intervalMs = RELAY_INTERVAL_MS,
  }: { queue: DeliveryQueue; reportFailure: (error: unknown) => void; intervalMs?: number },
): OutboxRelay => {
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

  // Every RELAY_INTERVAL_MS after the previous run (jobs/periodic.ts), and at once when asked: a
  // run asked for while one is under way follows it, since that one may have started before what
  // the caller just committed. A failed run (the database away for a moment) is redone at the next.
  return startPeriodicJob(relay, { intervalMs, firstRunAfterMs: 0, whileRunning: 'queue', onError: reportFailure });
};
