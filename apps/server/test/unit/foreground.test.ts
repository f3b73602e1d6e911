import { describe, expect, it } from 'vitest';

import { createForeground } from '../../src/jobs/foreground.js';

/** The count of requests under way that background work gives way to (jobs/foreground.ts). */
describe('foreground', () => {
  /** Whether `promise` has settled once the microtasks queued so far have run. */
  const settledYet = async (promise: Promise<unknown>) => {
    let settled = false;
    void promise.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    return settled;
  };

  it('with no request under way, quiet resolves at once', async () => {
    const foreground = createForeground();
    expect(await settledYet(foreground.quiet(60_000))).toBe(true);
  });

  it('counts requests, each ending once however often its end is called', () => {
    const foreground = createForeground();
    const first = foreground.begin();
    const second = foreground.begin();
    expect(foreground.active).toBe(2);
    first();
    first();
    expect(foreground.active).toBe(1);
    second();
    expect(foreground.active).toBe(0);
  });

  it('while requests are under way, quiet waits until the last one ends', async () => {
    const foreground = createForeground();
    const first = foreground.begin();
    const second = foreground.begin();
    const quiet = foreground.quiet(60_000);
    first();
    expect(await settledYet(quiet)).toBe(false);
    second();
    expect(await settledYet(quiet)).toBe(true);
  });

  it('quiet gives up waiting after its time, and a later end wakes no one twice', async () => {
    const foreground = createForeground();
    const end = foreground.begin();
    const started = performance.now();
    await foreground.quiet(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(foreground.active).toBe(1);
    end();
    expect(foreground.active).toBe(0);
  });
});
