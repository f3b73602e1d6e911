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
