import PQueue from 'p-queue';
import { describe, expect, it, onTestFinished, vi } from 'vitest';

import { waitForTurn } from '../../src/shared/turns.js';

class TooLate extends Error {}

describe('waitForTurn', () => {
  it('a turn held past the wait bound keeps its slot: the next waiter does not start beside it', async () => {
    // A fake clock: the turn is held past its bound by moving time on, not by waiting for it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => void vi.useRealTimers());
    const queue = new PQueue({ concurrency: 1 });
    const release = await waitForTurn(queue, 20, () => new TooLate());
    // Held for ten times the first waiter's bound: p-queue's own signal would free the slot here.
    await vi.advanceTimersByTimeAsync(200);
    let second = false;
    const next = waitForTurn(queue, 5_000, () => new TooLate()).then((done) => {
      second = true;
      return done;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.pending).toBe(1);
    expect(second).toBe(false);
    release();
    (await next)();
    expect(second).toBe(true);
  });

  it('a waiter whose turn does not come in time is refused with its error and never runs', async () => {
    const queue = new PQueue({ concurrency: 1 });
    const release = await waitForTurn(queue, 1_000, () => new TooLate());
    await expect(waitForTurn(queue, 30, () => new TooLate())).rejects.toBeInstanceOf(TooLate);
    release();
    await queue.onIdle();
    expect(queue.pending).toBe(0);
    expect(queue.size).toBe(0);
  });
});
