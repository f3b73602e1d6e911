/**
 * Runs the latest of a burst of calls after `delayMs` of quiet (debounce), and hands each
 * answer to `apply` only when no newer request has already been answered: every request gets
 * a sequence number, and an answer older than the last one applied is dropped. A slow early
 * answer therefore never overwrites what a later keystroke produced.
 */
export const latestOnly = <T>(
  delayMs: number,
  apply: (value: T) => void,
  fail: (error: unknown) => void,
): { schedule(run: () => Promise<T> | undefined): void; now(run: () => Promise<T> | undefined): void } => {
  let issued = 0;
  let applied = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const start = (run: () => Promise<T> | undefined) => {
    const sequence = ++issued;
    const pending = run();
    if (!pending) {
      // Nothing to ask (an incomplete form): anything still in flight is stale now.
      applied = sequence;
      return;
    }
    pending.then(
      (value) => {
        if (sequence <= applied) return;
        applied = sequence;
        apply(value);
      },
      (error: unknown) => {
        if (sequence > applied) fail(error);
      },
    );
  };
  return {
    schedule(run) {
      clearTimeout(timer);
      timer = setTimeout(() => start(run), delayMs);
    },
    now(run) {
      clearTimeout(timer);
      start(run);
    },
  };
};
