/**
 * Polls `check` every 20 ms until it returns true, for at most `withinMs`; returns how long it
 * took. For changes that reach the service asynchronously (a NOTIFY, a batched write).
 */
export const eventually = async (check: () => Promise<boolean>, withinMs: number): Promise<number> => {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > withinMs) throw new Error(`not true within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** One call of a request: its status, and when it was sent and answered (Date.now()). */
export type TimedCall = { status: number; sentAt: number; answeredAt: number };

/**
 * Calls `call` every 20 ms until it answers `status`, for at most `withinMs` (a bound on a hang,
 * not the thing measured), and returns every call with its times. How soon a change takes effect
 * is then judged by when each call was sent (`answeredOtherwiseAfter`): a loaded machine answers
 * late, which polling against a short deadline would take for the change being late.
 */
export const callUntil = async (
  call: () => Promise<number>,
  status: number,
  withinMs = 60_000,
): Promise<TimedCall[]> => {
  const calls: TimedCall[] = [];
  await eventually(async () => {
    const sentAt = Date.now();
    const answered = await call();
    calls.push({ status: answered, sentAt, answeredAt: Date.now() });
    return answered === status;
  }, withinMs);
  return calls;
};

/**
 * The calls sent later than `boundMs` after `since` that were not answered with the final
 * status (the last call's): each one shows the change taking longer than the bound.
 */
export const answeredOtherwiseAfter = (calls: TimedCall[], since: number, boundMs: number): TimedCall[] =>
  calls.filter((call) => call.status !== calls.at(-1)!.status && call.sentAt > since + boundMs);
