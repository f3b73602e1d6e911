import { isDatabaseOverloaded } from '../db/connection-gate.js';
import type { Database } from '../db/database.js';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import type { Logger } from '../observability/logger.js';

/** pg-boss passes a worker's failed fetch on with ` (Queue: ..., Worker: ...)` added to its message. */
const withoutQueueSuffix = (error: unknown): unknown => {
  const { message, code } = (error ?? {}) as { message?: unknown; code?: unknown };
  if (typeof message !== 'string' || !/ \(Queue: [^)]*\)$/.test(message)) return error;
  return Object.assign(new Error(message.replace(/ \(Queue: [^)]*\)$/, '')), { code });
};

/**
 * How background work (the events' relay polls, the job queue's fetches and maintenance,
 * job-queue.ts) reports a failed database call, given what it was doing (`message`).
 *
 * - A database outage is reported once, with the requests' own report (database-availability.ts),
 *   not once per poll that meets it.
 * - On a server, one poll past its timeout is one slow statement (a cold start, a busy machine),
 *   not yet an outage: the database is asked at once (twice if need be), and only when that
 *   fails too is it reported as one; otherwise a warning. A slow first poll at start-up used to raise a false
 *   outage alert.
 * - The embedded database lives in this process and cannot be out: a poll that waited too long
 *   for its one connection met the requests' traffic, and the next poll tries again (debug).
 * - A poll shed by the connection gate (the pool's queue past its bound, requests first) met
 *   an overload the requests' own 503s already report: the next poll tries again (debug).
 * - Anything else is worth a warning each time.
 */
export const backgroundFailureReporter =
  (database: Pick<Database, 'embedded' | 'availability' | 'ping'>, logger: Logger) =>
  (message: string) =>
  (error: unknown): void => {
    if (isDatabaseOverloaded(error)) {
      logger.debug({ err: error }, `${message}: shed while the pool is busy; the next run tries again`);
      return;
    }
    if (!isDatabaseUnavailable(error) && !isDatabaseUnavailable(withoutQueueSuffix(error))) {
      logger.warn({ err: error }, message);
      return;
    }
    if (database.embedded) {
      logger.debug({ err: error }, message);
      return;
    }
    if (!database.availability.available) {
      database.availability.reportFailure(error);
      return;
    }
    // Asked twice: on a loaded machine one ping can itself be slow, and an outage fails both.
    database
      .ping()
      .catch(() => database.ping())
      .then(
        () => logger.warn({ err: error }, `${message}; the database answers, so this is not an outage`),
        () => database.availability.reportFailure(error),
      );
  };
