import { fromPrisma, PgBoss, type Queue } from 'pg-boss';

import type { Database } from '../db/database.js';
import type { Db } from '../db/transactions.js';
import type { Logger } from '../observability/logger.js';
import { backgroundFailureReporter } from './background-failures.js';

/**
 * The process's job queue: pg-boss on the service's own database
 * (docs/decisions/webhook-delivery-on-pg-boss.md). Its queues are its users' own: the webhook
 * deliveries (events/delivery-queue.ts) and the imports' chunks (imports/import-queue.ts) each
 * create theirs here and work and send on `boss`; pg-boss polls and keeps them in one place.
 *
 * pg-boss runs its statements through the application's pg pool (its `db` option), so on the
 * embedded database it shares the one connection PGlite's socket serves rather than opening its
 * own, and it keeps its tables in the schema `pgboss`, which it creates and migrates itself.
 */

/**
 * How often pg-boss looks for expired jobs (of dead processes). Its monitor runs only on a pass
 * of its supervisor, every 60 s by default, which made a dead process's delivery wait about a
 * minute past its expiry: the supervisor now looks every second (one small statement) and runs
 * the monitor when its 2 s are up, so an expired job is failed over within 3 s.
 */
const MONITOR_INTERVAL_SECONDS = 2;
const SUPERVISE_INTERVAL_SECONDS = 1;
const MAINTENANCE_INTERVAL_SECONDS = 600;

/** A queue's settings (its jobs' expiry, retries, retention), without its name and policy. */
export type QueueSettings = Omit<Queue, 'name' | 'policy' | 'partition' | 'deadLetter' | 'heartbeatSeconds'>;

export interface QueueOptions {
  policy: Queue['policy'];
  settings: QueueSettings;
  /**
   * Applies `settings` to the queue at every start, not only when it is first created: a
   * restart with other settings changes the jobs queued from then on.
   */
  updateAtStart?: boolean;
  /** How long a stop waits for this queue's jobs under way to end; the longest asked is waited for. */
  stopWaitSeconds?: number;
}

export interface JobQueue {
  /** pg-boss itself: the queues' users send and work on it. */
  readonly boss: PgBoss;
  /** Creates the queue `name` unless it exists (another process may create it first). */
  createQueue(name: string, options: QueueOptions): Promise<void>;
  /** Runs `release` once the queue has stopped and its jobs under way have ended (what their handlers use). */
  whenStopped(release: () => void): void;
  /**
   * Stops taking jobs and waits for those under way (up to the longest `stopWaitSeconds`), then
   * runs what `whenStopped` was given. Called once what queues jobs (the events' relay) has stopped.
   */
  stop(): Promise<void>;
}

/**
 * How a failed job is tried again where a handler fails only when it could not reach the
 * database: until it can, backing off up to a minute between tries.
 */
export const RETRIED_UNTIL_IT_CAN = { retryLimit: 1_000_000, retryBackoff: true, retryDelayMax: 60 } as const;

/** pg-boss's options for a job sent in the transaction `db` holds (rolled back with it); none without one. */
export const inTransaction = (db?: Db) => (db ? { db: fromPrisma(db) } : {});

export const startJobQueue = async (
  database: Pick<Database, 'pool' | 'embedded' | 'availability' | 'ping'>,
  logger: Logger,
): Promise<JobQueue> => {
  const { pool } = database;
  const boss = new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => pool.query(text, values) },
    backend: database.embedded ? 'pglite' : 'postgres',
    schedule: false,
    monitorIntervalSeconds: MONITOR_INTERVAL_SECONDS,
    superviseIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
    maintenanceIntervalSeconds: MAINTENANCE_INTERVAL_SECONDS,
  });
  // A failed poll (the database away for a moment) is retried at the next one.
  boss.on('error', backgroundFailureReporter(database, logger)('job queue: a database call failed'));
  await boss.start();
  let stopWaitSeconds: number | undefined;
  const releases: (() => void)[] = [];
  return {
    boss,
    createQueue: async (name, { policy, settings, updateAtStart = false, stopWaitSeconds: wait }) => {
      if (wait !== undefined) stopWaitSeconds = Math.max(stopWaitSeconds ?? 0, wait);
      if (await boss.getQueue(name)) {
        if (updateAtStart) await boss.updateQueue(name, settings);
        return;
      }
      await boss.createQueue(name, { policy, ...settings }).catch(async (error: unknown) => {
        // Another instance created it first.
        if (!(await boss.getQueue(name))) throw error;
        if (updateAtStart) await boss.updateQueue(name, settings);
      });
    },
    whenStopped: (release) => {
      releases.push(release);
    },
    stop: async () => {
      await boss.stop({
        graceful: true,
        ...(stopWaitSeconds !== undefined ? { timeout: stopWaitSeconds * 1000 } : {}),
      });
      for (const release of releases) release();
    },
  };
};
