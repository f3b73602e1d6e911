import type PQueue from 'p-queue';

/**
 * Waits for a turn in `queue` (one slot of its concurrency) until `waitMs` pass, and resolves
 * with the function that gives the turn back; rejects with `onTimeout()` if the turn did not
 * come in time. The wait alone is bounded: a turn once taken is held until given back, however
 * long that takes (p-queue's own `signal` would also end a running task's hold on its slot
 * when it aborts, letting more turns run than the queue's concurrency).
 */
export const waitForTurn = (queue: PQueue, waitMs: number, onTimeout: () => Error): Promise<() => void> =>
  new Promise((resolve, reject) => {
    const waiting = new AbortController();
    const timer = setTimeout(() => waiting.abort(), Math.max(waitMs, 1));
    queue
      .add(
        () =>
          new Promise<void>((done) => {
            clearTimeout(timer);
            resolve(done);
          }),
        { signal: waiting.signal },
      )
      .catch(() => reject(onTimeout()));
  });
