import type { Db } from '../db/transactions.js';
import { inTransaction, type JobQueue, RETRIED_UNTIL_IT_CAN } from '../jobs/job-queue.js';
import type { DeliveryKey } from './store/event-store.js';

/**
 * The queue that spreads webhook deliveries over every running instance, on pg-boss
 * (docs/decisions/webhook-delivery-on-pg-boss.md). One job stands for
 * one (endpoint, subject) pair, the subject an order or an API key: "send this order's next
 * pending delivery to this endpoint". The queue's `stately` policy keeps at most one such job
 * active and one queued per pair, so two instances never send to one endpoint for one order at
 * once, and the order's events leave one by one, in version order (the deliveries' own table
 * says which is next). A job whose process dies is taken up again once it expires. It is one of
 * the queues of the process's job queue (jobs/job-queue.ts), which starts and stops pg-boss.
 */

export const DELIVERY_QUEUE = 'webhook-deliveries';
/**
 * How often each idle sending slot asks for a job. Jobs queued in this process wake its slots at
 * once (`wake`); the poll is for jobs another process queued and for retries coming due.
 */
const POLL_INTERVAL_SECONDS = 1;
/** pg-boss's first retry of a failed or expired job comes 1 to 2 s later (exponential backoff with jitter). */
const RETRY_DELAY_SECONDS = 1;
/** Finished jobs are kept this long: the deliveries' own table is the record. */
const FINISHED_JOB_SECONDS = 3_600;

/** Jobs taken out of the queue per statement when an endpoint is parked. */
const PARK_PAGE = 10_000;

/** The probe of an endpoint whose circuit breaker is open: one at most queued per endpoint (circuit-breaker.ts). */
export type ProbeJob = { endpoint_id: number; probe: true };

export type DeliveryJob = DeliveryKey | ProbeJob;

/**
 * A job's data as queued: an (endpoint, subject) pair, a probe, or as a version before event
 * subjects queued it, an (endpoint, order) pair, which may still wait in the queue after an upgrade.
 */
type QueuedJob = DeliveryJob | { endpoint_id: number; sales_order_id: number };

const keyOfJob = (job: QueuedJob): DeliveryJob =>
  'sales_order_id' in job
    ? { endpoint_id: job.endpoint_id, subject_type: 'sales_order', subject_id: job.sales_order_id }
    : job;

export interface DeliveryQueue {
  /**
   * Schedules the pairs' jobs at `startAfter` (now by default), in the transaction `db` holds
   * when given: rolled back with it. A pair that already has a queued job keeps that one.
   */
  schedule(keys: DeliveryKey[], options?: { db?: Db; startAfter?: Date }): Promise<void>;
  /**
   * Runs `handler` for jobs, `concurrency` at a time in this process and at most
   * `endpointConcurrency` of one endpoint's at a time across every process.
   */
  work(
    { concurrency, endpointConcurrency }: { concurrency: number; endpointConcurrency: number },
    handler: (job: DeliveryJob) => Promise<void>,
  ): Promise<void>;
  /**
   * Takes every queued (not yet active) job of an endpoint out of the queue but its probe: one
   * that is disabled, deleted or parked by its circuit breaker. Its deliveries stay pending; what
   * resumes it queues them again (webhookDeliveryStore.pendingKeys).
   */
  park(endpointId: number): Promise<void>;
  /** Queues the endpoint's probe at `startAfter`, unless one is queued already. */
  scheduleProbe(endpointId: number, startAfter: Date): Promise<void>;
  /** Wakes this process's workers now (jobs were just queued) instead of at their next poll. */
  wake(): void;
}

/** The pair's singleton key; an order's as before subjects, so a job queued then and one now are one. */
const keyOf = ({ endpoint_id, subject_type, subject_id }: DeliveryKey) =>
  subject_type === 'sales_order' ? `${endpoint_id}:${subject_id}` : `${endpoint_id}:${subject_type}:${subject_id}`;

/**
 * Creates the deliveries' queue on the job queue `jobs`, its settings applied at every start (a
 * restart with another WEBHOOK_TIMEOUT_MS changes the expiry of the jobs queued from then on); a
 * stop of the job queue waits up to `jobTimeoutSeconds` for the deliveries under way.
 */
export const startDeliveryQueue = async (
  jobs: JobQueue,
  {
    jobTimeoutSeconds,
    reportFailure,
  }: {
    jobTimeoutSeconds: number;
    /** Where failures go, by what failed (an outage is reported once, the rest each time). */
    reportFailure: (message: string) => (error: unknown) => void;
  },
): Promise<DeliveryQueue> => {
  const { boss } = jobs;
  await jobs.createQueue(DELIVERY_QUEUE, {
    policy: 'stately',
    settings: {
      expireInSeconds: jobTimeoutSeconds,
      // A job fails only when its handler could not reach the database.
      ...RETRIED_UNTIL_IT_CAN,
      retryDelay: RETRY_DELAY_SECONDS,
      deleteAfterSeconds: FINISHED_JOB_SECONDS,
    },
    updateAtStart: true,
    stopWaitSeconds: jobTimeoutSeconds,
  });
  const workers: string[] = [];

  return {
    schedule: async (keys, { db, startAfter } = {}) => {
      if (keys.length === 0) return;
      await boss.insert(
        DELIVERY_QUEUE,
        keys.map((key) => ({
          data: { endpoint_id: key.endpoint_id, subject_type: key.subject_type, subject_id: key.subject_id },
          singletonKey: keyOf(key),
          group: { id: String(key.endpoint_id) },
          ...(startAfter ? { startAfter } : {}),
        })),
        inTransaction(db),
      );
    },
    work: async ({ concurrency, endpointConcurrency }, handler) => {
      // One pg-boss worker per slot, each with an id of its own, so that `wake` reaches every one
      // of them (pg-boss wakes a worker by its id).
      for (let slot = 0; slot < concurrency; slot += 1) {
        let worker = '';
        worker = await boss.work<QueuedJob>(
          DELIVERY_QUEUE,
          { batchSize: 1, groupConcurrency: endpointConcurrency, pollingIntervalSeconds: POLL_INTERVAL_SECONDS },
          async ([job]) => {
            try {
              await handler(keyOfJob(job!.data));
            } catch (error) {
              // The database failed the handler: the job is tried again (its retry settings).
              reportFailure('webhook delivery job failed')(error);
              throw error;
            } finally {
              // A slot that found a job asks for the next one at once, not at its next poll: after
              // each job pg-boss waits out the polling interval, so a backlog drained at one job
              // per slot per second, and to one endpoint at a few a second.
              boss.notifyWorker(worker);
            }
          },
        );
        workers.push(worker);
      }
    },
    park: async (endpointId) => {
      // A job's data holds its endpoint (also as queued before event subjects); pages of 10,000.
      for (;;) {
        const jobs = await boss.findJobs<QueuedJob>(DELIVERY_QUEUE, {
          data: { endpoint_id: endpointId },
          queued: true,
          limit: PARK_PAGE,
        });
        const parked = jobs.filter((job) => !('probe' in job.data)).map((job) => job.id);
        if (parked.length > 0) await boss.deleteJob(DELIVERY_QUEUE, parked);
        if (jobs.length < PARK_PAGE) return;
      }
    },
    scheduleProbe: async (endpointId, startAfter) => {
      await boss.insert(DELIVERY_QUEUE, [
        {
          data: { endpoint_id: endpointId, probe: true },
          singletonKey: `${endpointId}:probe`,
          group: { id: String(endpointId) },
          startAfter,
        },
      ]);
    },
    wake: () => {
      for (const worker of workers) boss.notifyWorker(worker);
    },
  };
};
