/**
 * The page's fetch, handed to the SDK: after a 429 (the service's per-address rate limit, which
 * every clerk behind one office address shares) nothing more is sent until its `Retry-After` has
 * passed, whichever part of the page asks, the SDK's own retries included. A request asked for
 * meanwhile waits and then goes; `onWait` tells the clerk how long.
 */

/** When a 429 comes without a readable Retry-After: the rate limit's window is a minute. */
const DEFAULT_WAIT_MS = 60_000;

/** Retry-After in milliseconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
const retryAfterMs = (headers: Headers): number | undefined => {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
};

export const rateGate = (onWait: (seconds: number) => void, send: typeof fetch = fetch.bind(globalThis)) => {
  let closedUntil = 0;
  const gated: typeof fetch = async (input, init) => {
    // Again after waking: another answer may have closed the gate for longer meanwhile.
    for (let wait = closedUntil - Date.now(); wait > 0; wait = closedUntil - Date.now()) {
      onWait(Math.ceil(wait / 1000));
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const response = await send(input, init);
    if (response.status === 429)
      closedUntil = Math.max(closedUntil, Date.now() + (retryAfterMs(response.headers) ?? DEFAULT_WAIT_MS));
    return response;
  };
  return gated;
};
