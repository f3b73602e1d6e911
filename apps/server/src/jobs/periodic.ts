/**
 * The service's one runner of periodic work (the outbox relay, the event purge, the idempotency
 * purge): a job runs every `intervalMs`, counted from the end of its previous run, so runs never
 * overlap and a slow one never piles up behind itself; a failed run is reported and the next one
 * comes at its time as usual; `stop()` ends the schedule and waits for a run under way. Its timer
 * never keeps the process alive. A caller may also run the job now (`runOnce`: tests, or the
 * relay woken by a commit); the schedule keeps its own time.
 */

export interface PeriodicJobOptions {
  /** Between the end of one run and the start of the next. */
  intervalMs: number;
  /** Until the first run; `intervalMs` by default. */
  firstRunAfterMs?: number;
  /**
   * What `runOnce` does while a run is under way: `join` it (the run already does what was asked:
   * a purge), or `queue` one more after it (the run may have started before what the caller
   * asks it to see: the relay, for an event just committed).
   */
  whileRunning?: 'join' | 'queue';
  /** A failed run's error (the database away for a moment): the schedule goes on. */
  onError: (error: unknown) => void;
}

export interface PeriodicJob<T> {
  /** Runs the job now (see `whileRunning`); resolves with the run's result. */
  runOnce(): Promise<T>;
  /** No more scheduled runs; resolves once a run under way has ended. */
  stop(): Promise<void>;
}

export const startPeriodicJob = <T>(
  run: () => Promise<T>,
  { intervalMs, firstRunAfterMs = intervalMs, whileRunning = 'join', onError }: PeriodicJobOptions,
): PeriodicJob<T> => {
  let running: Promise<T> | undefined;
  /** A run asked for while one was under way (`queue`): it starts once that one ends. */
  let queued: Promise<T> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const start = (): Promise<T> => {
    running = Promise.resolve()
      .then(run)
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const runOnce = (): Promise<T> => {
    if (!running) return start();
    if (whileRunning === 'join') return running;
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return runOnce();
      });
    return queued;
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(tick, delayMs);
    timer.unref();
  };

  function tick() {
    runOnce()
      .catch(onError)
      .finally(() => schedule(intervalMs));
  }

  schedule(firstRunAfterMs);

  return {
    runOnce,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await queued?.catch(() => undefined);
      await running?.catch(() => undefined);
    },
  };
};
