import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { startPeriodicJob } from '../../src/jobs/periodic.js';

/**
 * The one runner of periodic work (src/jobs/periodic.ts: the outbox relay, the event purge, the
 * idempotency purge). On vitest's fake clock, so that "nothing more runs" is shown by moving the
 * clock far on rather than by waiting.
 */

const INTERVAL_MS = 1_000;

/** A promise and the function that settles it: a run that takes as long as the test says. */
const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
};

describe('periodic jobs', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs every interval, counted from the end of the previous run, the first after firstRunAfterMs', async () => {
    let runs = 0;
    const job = startPeriodicJob(async () => ++runs, {
      intervalMs: INTERVAL_MS,
      firstRunAfterMs: 10,
      onError: () => {},
    });
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 3);
    expect(runs).toBe(4);
    await job.stop();
  });

  it('never overlaps a slow run: the next one comes an interval after it ends', async () => {
    let runs = 0;
    const slow = gate();
    const job = startPeriodicJob(
      async () => {
        runs += 1;
        if (runs === 1) await slow.opened;
      },
      { intervalMs: INTERVAL_MS, onError: () => {} },
    );
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(runs).toBe(1);
    // Ten intervals while the first run holds: no second run starts beside it.
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 10);
    expect(runs).toBe(1);
    slow.open();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS - 1);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    await job.stop();
  });

  it('survives a failing run: the error is reported and the schedule goes on', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const job = startPeriodicJob(
      async () => {
        runs += 1;
        if (runs === 2) throw new Error('the database went away');
        return runs;
      },
      { intervalMs: INTERVAL_MS, onError: (error) => errors.push(error) },
    );
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 4);
    expect(runs).toBe(4);
    expect(errors).toEqual([new Error('the database went away')]);
    // A run asked for directly that fails rejects to its caller, and the schedule still goes on.
    runs = 1;
    await expect(job.runOnce()).rejects.toThrow('the database went away');
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(runs).toBe(3);
    await job.stop();
  });

  it('stops: waits for the run under way, then nothing more runs', async () => {
    let runs = 0;
    let finished = 0;
    const slow = gate();
    const job = startPeriodicJob(
      async () => {
        runs += 1;
        await slow.opened;
        finished += 1;
      },
      { intervalMs: INTERVAL_MS, onError: () => {} },
    );
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(runs).toBe(1);
    let stopped = false;
    const stopping = job.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    // The run under way holds the stop.
    expect(stopped).toBe(false);
    slow.open();
    await stopping;
    expect(finished).toBe(1);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 100);
    expect(runs).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("runOnce joins a run under way ('join'), or runs once more after it ('queue')", async () => {
    for (const whileRunning of ['join', 'queue'] as const) {
      let runs = 0;
      // Each run waits for its own gate.
      const gates = [gate(), gate()];
      const job = startPeriodicJob(
        async () => {
          runs += 1;
          await gates[runs - 1]!.opened;
          return runs;
        },
        { intervalMs: INTERVAL_MS * 1000, whileRunning, onError: () => {} },
      );
      const asked = [job.runOnce(), job.runOnce(), job.runOnce()];
      gates[0]!.open();
      expect(await asked[0]).toBe(1);
      if (whileRunning === 'join') {
        expect(await Promise.all(asked)).toEqual([1, 1, 1]);
        expect(runs).toBe(1);
      } else {
        gates[1]!.open();
        // The two asked for while the first ran share one run after it.
        expect(await Promise.all(asked)).toEqual([1, 2, 2]);
        expect(runs).toBe(2);
      }
      await job.stop();
    }
  });
});
