import type { Logger } from '../observability/logger.js';

/** While the database is unavailable, how often it is asked whether it answers again. */
const PROBE_INTERVAL_MS = 500;

export interface DatabaseAvailability {
  /** False from the first failure of an outage until a probe finds the database answering. */
  readonly available: boolean;
  /**
   * Records a failure that says the database is unreachable, hung or overloaded. The first of
   * an outage is logged and starts probing; the rest are only counted.
   */
  reportFailure(error: unknown): void;
  stop(): void;
}

/**
 * Tells the log about database outages once per episode instead of once per request: one
 * error line when the first failure arrives, then silence while requests keep failing, then
 * one info line (with the outage's duration and how many failures it caused) once a probe
 * query answers and no request has failed for `quietMs`.
 *
 * `quietMs` is the longest a request can wait on the database before it fails (a connection,
 * then a statement or lock wait): a shorter quiet spell only means the requests still waiting
 * have not timed out yet, and an overloaded pool answers a probe now and then, so ending the
 * outage then would make the log flap.
 */
export const createDatabaseAvailability = (
  logger: Logger,
  probe: () => Promise<void>,
  { quietMs }: { quietMs: number },
): DatabaseAvailability => {
  let outage: { since: number; failures: number; lastFailureAt: number } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const scheduleProbe = () => {
    if (stopped || !outage) return;
    timer = setTimeout(() => {
      probe().then(
        () => {
          if (!outage || Date.now() - outage.lastFailureAt < quietMs) {
            scheduleProbe();
            return;
          }
          logger.info({ outageMs: Date.now() - outage.since, failures: outage.failures }, 'database answers again');
          outage = undefined;
        },
        () => scheduleProbe(),
      );
    }, PROBE_INTERVAL_MS);
    // A probe never keeps the process alive on its own.
    timer.unref();
  };

  return {
    get available() {
      return outage === undefined;
    },
    reportFailure(error) {
      if (outage) {
        outage.failures += 1;
        outage.lastFailureAt = Date.now();
        return;
      }
      outage = { since: Date.now(), failures: 1, lastFailureAt: Date.now() };
      logger.error({ err: error }, 'database unavailable: answering 503 until it answers again');
      scheduleProbe();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
};
