/**
 * Calls the bench makes to the service to set its scenarios up, outside every measurement.
 */

/**
 * fetch, with a failure that names its request and the socket's error: `fetch failed` alone
 * (ECONNRESET, twice in earlier runs, not reproduced since) does not say which call met it.
 * A GET (the progress reads) is sent once more when its kept-alive connection was reset: the
 * service may close an idle connection just as it is reused.
 */
export const benchFetch = async (url: string, init: RequestInit = {}): Promise<Response> => {
  const method = init.method ?? 'GET';
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fetch(url, init);
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      if (method === 'GET' && attempt === 1 && cause?.code === 'ECONNRESET') continue;
      throw new Error(
        `${method} ${url}: ${(error as Error).message} (${cause?.code ?? cause?.message ?? 'no cause'})`,
        {
          cause: error,
        },
      );
    }
  }
};

/** Tries of a setup call answered 503 before the bench stops. */
const SETUP_ATTEMPTS = 5;

/**
 * A setup call to the service at `origin` with `headers` (POST when it has a body): its parsed
 * answer, or the bench stops with the service's status and body when it is not the one expected.
 */
export const setupCalls = (origin: string, headers: Record<string, string>) => {
  const setupCall = async (url: string, expected: number, body?: unknown): Promise<unknown> => {
    for (let attempt = 1; ; attempt += 1) {
      const response = await benchFetch(url, {
        method: body ? 'POST' : 'GET',
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      // A 503 (a database past its deadline on a loaded machine) is retried, as a client would:
      // the setup is not measured, and a setup order made twice changes no row's figures.
      if (response.status === 503 && expected !== 503 && attempt < SETUP_ATTEMPTS) {
        await new Promise((resolve) => setTimeout(resolve, attempt * 1_000));
        continue;
      }
      if (response.status !== expected) throw new Error(`setup: ${url} answered ${response.status}: ${text}`);
      return JSON.parse(text);
    }
  };
  /** Creates an order: its id. */
  const createOrder = async (body: unknown): Promise<number> =>
    ((await setupCall(`${origin}/api/sales-orders`, 201, body)) as { data: { sales_order_id: number } }).data
      .sales_order_id;
  return { setupCall, createOrder };
};
