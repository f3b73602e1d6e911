import { randomUUID } from 'node:crypto';

import {
  type CreateSalesOrderBody,
  createSalesOrderClient,
  SalesOrderApiError,
  SalesOrderNetworkError,
  SalesOrderPreconditionFailedError,
  SalesOrderPreconditionRequiredError,
} from '@sales-order/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { SERVICE_DEFAULT_DATABASE_TIMEOUTS, useServerWithFixtures } from './support/test-server.js';
import { signJwt, TEST_SUBJECT } from './support/tokens.js';

const onPostgresServer = Boolean(process.env.TEST_DATABASE_URL);

/** What one attempt of the SDK sent, and how it ended. */
interface Attempt {
  method: string;
  idempotencyKey: string | null;
  ifMatch: string | null;
  outcome: number | 'network error';
}

/** Node's fetch, recording every attempt; `afterFailure` runs when an attempt gets no response. */
const recordingFetch =
  (attempts: Attempt[], afterFailure: () => void = () => {}): typeof fetch =>
  async (input, init = {}) => {
    const headers = new Headers(init.headers);
    const attempt: Attempt = {
      method: init.method ?? 'GET',
      idempotencyKey: headers.get('idempotency-key'),
      ifMatch: headers.get('if-match'),
      outcome: 'network error',
    };
    attempts.push(attempt);
    try {
      const response = await fetch(input, init);
      attempt.outcome = response.status;
      return response;
    } catch (error) {
      afterFailure();
      throw error;
    }
  };

describe('the SDK makes writes safe to retry', () => {
  const suite = useServerWithFixtures({ ...SERVICE_DEFAULT_DATABASE_TIMEOUTS, IDEMPOTENCY_WAIT_SECONDS: '1' });
  let proxy: TcpProxy;
  let token: string;
  beforeAll(async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(suite.server.origin).port) });
    token = await signJwt({ payload: { permissions: ['*'] }, expiresIn: '1h' });
  });
  afterAll(() => proxy?.close());

  /** `around` wraps the recording fetch: a test that orders its steps around the attempts. */
  const clientThroughProxy = (
    attempts: Attempt[],
    afterFailure?: () => void,
    retryAttempts = 3,
    around: (send: typeof fetch) => typeof fetch = (send) => send,
  ) =>
    createSalesOrderClient({
      baseUrl: `http://127.0.0.1:${proxy.port}/api`,
      auth: { type: 'bearer', token },
      fetch: around(recordingFetch(attempts, afterFailure)),
      retry: { attempts: retryAttempts, baseDelayMs: 20 },
    });
  const body = (remarks: string) => orderBody(suite.fixtures, { remarks }) as CreateSalesOrderBody;
  const ordersWithRemarks = (remarks: string) => suite.server.database.prisma.salesOrder.count({ where: { remarks } });

  it('the lost acknowledgement: the server commits, the response is lost, the SDK retries with the same key: one order, and the caller gets its 201', async () => {
    const attempts: Attempt[] = [];
    const remarks = `lost ack ${randomUUID()}`;
    proxy.dropResponses();
    // The network heals once the first response has been lost.
    const client = clientThroughProxy(attempts, () => proxy.restore());

    const created = await client.createSalesOrder(body(remarks));

    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['network error', 201]);
    expect(attempts[0]!.idempotencyKey).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(attempts[1]!.idempotencyKey).toBe(attempts[0]!.idempotencyKey);
    const [order] = await suite.server.database.prisma.salesOrder.findMany({ where: { remarks } });
    expect(await ordersWithRemarks(remarks)).toBe(1);
    expect(created).toEqual({ sales_order_id: order!.id, order_number: order!.salesOrderNo, total_amount: 7905 });
  });

  it("sends the caller's own Idempotency-Key, and a repeated call returns the first order", async () => {
    const attempts: Attempt[] = [];
    const client = clientThroughProxy(attempts);
    const remarks = `own key ${randomUUID()}`;
    const idempotencyKey = `order-form-${randomUUID()}`;

    const first = await client.createSalesOrder(body(remarks), { idempotencyKey });
    const again = await client.createSalesOrder(body(remarks), { idempotencyKey });

    expect(again).toEqual(first);
    expect(attempts.map((attempt) => attempt.idempotencyKey)).toEqual([idempotencyKey, idempotencyKey]);
    expect(await ordersWithRemarks(remarks)).toBe(1);
  });

  it('a new key for every createSalesOrder call: two calls, two orders', async () => {
    const attempts: Attempt[] = [];
    const client = clientThroughProxy(attempts);
    const remarks = `two calls ${randomUUID()}`;

    await client.createSalesOrder(body(remarks));
    await client.createSalesOrder(body(remarks));

    expect(new Set(attempts.map((attempt) => attempt.idempotencyKey)).size).toBe(2);
    expect(await ordersWithRemarks(remarks)).toBe(2);
  });

  it('does not retry a refusal (422): one attempt, a SalesOrderApiError', async () => {
    const attempts: Attempt[] = [];
    const client = clientThroughProxy(attempts);

    const error = await client
      .createSalesOrder({ ...body('refused'), customer_id: 999_999 })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(SalesOrderApiError);
    expect(error).toMatchObject({ status: 422 });
    expect(attempts).toHaveLength(1);
  });

  it('a service that cannot be reached rejects with SalesOrderNetworkError (not a bare TypeError), after the configured attempts', async () => {
    const attempts: Attempt[] = [];
    const client = clientThroughProxy(attempts, undefined, 2);
    proxy.cut();
    try {
      const read = await client.getSalesOrder(1).catch((caught: unknown) => caught);
      const created = await client.createSalesOrder(body('unreachable')).catch((caught: unknown) => caught);

      for (const error of [read, created]) {
        expect(error).toBeInstanceOf(SalesOrderNetworkError);
        expect(error).not.toBeInstanceOf(SalesOrderApiError);
        expect((error as Error).name).toBe('SalesOrderNetworkError');
        expect((error as Error).cause).toBeInstanceOf(TypeError);
      }
      // One read, two create attempts with one key.
      expect(attempts.map((attempt) => attempt.method)).toEqual(['GET', 'POST', 'POST']);
      expect(attempts[2]!.idempotencyKey).toBe(attempts[1]!.idempotencyKey);
    } finally {
      proxy.restore();
    }
    expect(await ordersWithRemarks('unreachable')).toBe(0);
  });

  it('ifMatch: a stale version rejects with SalesOrderPreconditionFailedError carrying the current version; the current one writes', async () => {
    const attempts: Attempt[] = [];
    const client = clientThroughProxy(attempts);
    const { sales_order_id: id } = await client.createSalesOrder(body(`if-match ${randomUUID()}`));
    const read = await client.getSalesOrder(id);
    expect(read.version).toBe(1);
    const updated = await client.updateSalesOrder(id, { remarks: 'first' }, { ifMatch: read.version });
    expect(updated).toEqual({ sales_order_id: id, updated: true, version: 2 });

    const stale = await client
      .updateSalesOrder(id, { remarks: 'lost update' }, { ifMatch: read.version })
      .catch((caught: unknown) => caught);
    const staleDelete = await client.deleteSalesOrder(id, { ifMatch: 1 }).catch((caught: unknown) => caught);

    for (const error of [stale, staleDelete]) {
      expect(error).toBeInstanceOf(SalesOrderPreconditionFailedError);
      expect(error).toBeInstanceOf(SalesOrderApiError);
      expect(error).toMatchObject({
        status: 412,
        code: 412,
        name: 'SalesOrderPreconditionFailedError',
        currentVersion: 2,
      });
    }
    expect((await client.getSalesOrder(id)).remarks).toBe('first');
    expect(await client.deleteSalesOrder(id, { ifMatch: '*' })).toEqual({ sales_order_id: id, deleted: true });
    expect(attempts.filter((attempt) => attempt.ifMatch !== null).map((attempt) => attempt.ifMatch)).toEqual([
      '"1"',
      '"1"',
      '"1"',
      '*',
    ]);
  });

  it.skipIf(!onPostgresServer)(
    'a 409 while the first request with the key runs is retried after Retry-After, and then creates the order once (needs TEST_DATABASE_URL)',
    async () => {
      const attempts: Attempt[] = [];
      const remarks = `sdk in progress ${randomUUID()}`;
      const idempotencyKey = randomUUID();
      // Another request holds the key (an uncommitted claim) until the SDK's first attempt has
      // been answered, then fails; the retry goes out once it has rolled back. Steps, not times:
      // a loaded machine cannot reorder them.
      let claimed = () => {};
      const claimHeld = new Promise<void>((resolve) => (claimed = resolve));
      let firstAnswered = () => {};
      const answered = new Promise<void>((resolve) => (firstAnswered = resolve));
      const holder = suite.server.database.prisma
        .$transaction(
          async (tx) => {
            await tx.$executeRaw`INSERT INTO idempotency_keys (subject, key, fingerprint, expires_at)
            VALUES (${`jwt:${TEST_SUBJECT}`}, ${idempotencyKey}, ${'0'.repeat(64)}, now() + interval '1 day')`;
            claimed();
            await answered;
            throw new Error('roll back');
          },
          { timeout: 120_000 },
        )
        .catch(() => undefined);
      await claimHeld;

      const client = clientThroughProxy(attempts, undefined, 3, (send) => async (input, init) => {
        if (attempts.length > 0) await holder;
        const response = await send(input, init);
        firstAnswered();
        return response;
      });
      const created = await client.createSalesOrder(body(remarks), { idempotencyKey });
      await holder;

      expect(attempts.map((attempt) => attempt.outcome)).toEqual([409, 201]);
      expect(created.sales_order_id).toEqual(expect.any(Number));
      expect(await ordersWithRemarks(remarks)).toBe(1);
    },
  );
});

describe('the SDK against REQUIRE_IF_MATCH=true', () => {
  const suite = useServerWithFixtures({ ...SERVICE_DEFAULT_DATABASE_TIMEOUTS, REQUIRE_IF_MATCH: 'true' });

  it('an update or delete without ifMatch rejects with SalesOrderPreconditionRequiredError', async () => {
    const token = await signJwt({ payload: { permissions: ['*'] } });
    const client = createSalesOrderClient({ baseUrl: suite.server.api, auth: { type: 'bearer', token } });
    const { sales_order_id: id } = await client.createSalesOrder(orderBody(suite.fixtures));

    const update = await client.updateSalesOrder(id, { remarks: 'blind' }).catch((caught: unknown) => caught);
    const remove = await client.deleteSalesOrder(id).catch((caught: unknown) => caught);

    for (const error of [update, remove]) {
      expect(error).toBeInstanceOf(SalesOrderPreconditionRequiredError);
      expect(error).toMatchObject({ status: 428, name: 'SalesOrderPreconditionRequiredError' });
    }
    expect(await client.updateSalesOrder(id, { remarks: 'checked' }, { ifMatch: 1 })).toMatchObject({ version: 2 });
  });
});
