/**
 * Requests come first; background work (an import's chunks) gives way to them. The HTTP layer
 * counts the requests under way in this process (`begin`); background work asks `quiet` before
 * its next step and waits, at most as long as it says, for a moment with no request under way.
 * docs/decisions/imports-give-way-to-requests.md.
 */
export interface Foreground {
  /** A request begins; the function it returns ends it (once, however often it is called). */
  begin(): () => void;
  /** Requests under way now. */
  readonly active: number;
  /** Resolves once no request is under way, or after `ms` at most (at once when none is). */
  quiet(ms: number): Promise<void>;
}

export const createForeground = (): Foreground => {
  let active = 0;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const resolve of woken) resolve();
  };
  return {
    begin: () => {
      active += 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        active -= 1;
        if (active === 0) wake();
      };
    },
    get active() {
      return active;
    },
    quiet: (ms) =>
      active === 0 || ms <= 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              waiters = waiters.filter((waiter) => waiter !== done);
              resolve();
            };
            const timer = setTimeout(done, ms);
            // A pause never keeps the process alive.
            timer.unref();
            waiters.push(done);
          }),
  };
};
