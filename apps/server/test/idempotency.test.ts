import { randomUUID } from 'node:crypto';

import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApiKey, createSession } from './support/credentials.js';
import { orderBody } from './support/fixtures.js';
import { SERVICE_DEFAULT_DATABASE_TIMEOUTS, useServerWithFixtures } from './support/test-server.js';
import { signJwt, TEST_SUBJECT } from './support/tokens.js';

const onPostgresServer = Boolean(process.env.TEST_DATABASE_URL);

describe('Idempotency-Key on POST /sales-orders', () => {
  // Write safety is tested at the service's own database timeouts, as an operator runs it.
  const suite = useServerWithFixtures({
    ...SERVICE_DEFAULT_DATABASE_TIMEOUTS,
    IDEMPOTENCY_PURGE_INTERVAL_SECONDS: '1',
  });
  const prisma = () => suite.server.database.prisma;
  const post = (key: string | undefined, body: object) => {
    const call = suite.server.http.post('/sales-orders');
    return key === undefined ? call.send(body) : call.set('Idempotency-Key', key).send(body);
  };
  const ordersWithRemarks = (remarks: string) => prisma().salesOrder.count({ where: { remarks } });
  /** A POST with the key as another caller: `headers` carry its credentials. */
  const postAs = (headers: Record<string, string>, key: string, body: object) =>
    request(suite.server.api).post('/sales-orders').set(headers).set('Idempotency-Key', key).send(body);

  it('10 concurrent POSTs with one key: exactly one order, and all ten callers get the same 201 body', async () => {
    const key = randomUUID();
    const body = orderBody(suite.fixtures, { remarks: `concurrent ${key}` });

    const responses = await Promise.all(Array.from({ length: 10 }, () => post(key, body)));

    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(201));
    const first = responses[0]!;
    for (const response of responses) {
      expect(response.body).toEqual(first.body);
      expect(response.headers.location).toBe(first.headers.location);
    }
    expect(first.body.data.sales_order_id).toEqual(expect.any(Number));
    expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(await ordersWithRemarks(`concurrent ${key}`)).toBe(1);
  });

  it('replays the first response to a retry: same status, body and Location, Idempotent-Replayed, nothing created', async () => {
    const key = randomUUID();
    const body = orderBody(suite.fixtures, { remarks: `retry ${key}` });

    const first = await post(key, body);
    // The same body, its keys in another order: the fingerprint is of the canonical JSON.
    const retry = await post(key, Object.fromEntries(Object.entries(body).reverse()));

    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.location).toBe(first.headers.location);
    expect(await ordersWithRemarks(`retry ${key}`)).toBe(1);
  });

  it('the same key with another body: 422 idempotency_key_reused, and nothing created', async () => {
    const key = randomUUID();
    await post(key, orderBody(suite.fixtures, { remarks: `first ${key}` }));

    const response = await post(key, orderBody(suite.fixtures, { remarks: `second ${key}` }));

    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      success: false,
      error: {
        message: 'Idempotency-Key reused with a different request',
        code: 422,
        details: [{ path: 'idempotency-key', code: 'idempotency_key_reused', message: expect.stringContaining(key) }],
      },
    });
    expect(await ordersWithRemarks(`second ${key}`)).toBe(0);
  });

  it('an error stores nothing: the caller corrects the request and retries with the same key', async () => {
    const key = randomUUID();
    const refused = await post(key, orderBody(suite.fixtures, { customer_id: 999_999, remarks: `corrected ${key}` }));
    expect(refused.status).toBe(422);
    expect(await prisma().idempotencyKey.count({ where: { key } })).toBe(0);

    const corrected = await post(key, orderBody(suite.fixtures, { remarks: `corrected ${key}` }));

    expect(corrected.status).toBe(201);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
    expect(await ordersWithRemarks(`corrected ${key}`)).toBe(1);
  });

  it('keys belong to their caller: another subject with the same key makes its own order', async () => {
    const key = randomUUID();
    const body = orderBody(suite.fixtures, { remarks: `two callers ${key}` });
    const mine = await post(key, body);
    const token = await signJwt({ payload: { permissions: ['*'] }, subject: 'another-caller' });

    const theirs = await postAs({ Authorization: `Bearer ${token}` }, key, body);

    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.sales_order_id).not.toBe(mine.body.data.sales_order_id);
    expect(await ordersWithRemarks(`two callers ${key}`)).toBe(2);
  });

  it("keys are scoped by authentication method and subject: no token or session takes an API key's or a token's key", async () => {
    const key = randomUUID();
    const body = orderBody(suite.fixtures, { remarks: `scoped ${key}` });
    const { key: apiKey, summary } = await createApiKey(prisma(), ['*']);
    const byKey = await postAs({ Authorization: `ApiKey ${apiKey}` }, key, body);
    expect(byKey.status).toBe(201);

    // A token whose sub is the key's subject is refused, rather than replaying the key's order.
    const impostor = await signJwt({ payload: { permissions: ['*'] }, subject: `api_key:${summary.prefix}` });
    const byToken = await postAs({ Authorization: `Bearer ${impostor}` }, key, body);
    expect(byToken.status).toBe(401);
    expect(byToken.body.error.details[0].code).toBe('invalid_token');

    // Host session `alice` and JWT `alice` are two callers: the same key makes two orders.
    const aliceToken = await signJwt({ payload: { permissions: ['*'] }, subject: 'alice' });
    const asToken = await postAs({ Authorization: `Bearer ${aliceToken}` }, key, body);
    const session = await createSession(prisma(), { userId: 'alice' });
    const asSession = await postAs({ Cookie: session.cookie, Origin: suite.server.origin }, key, body);
    expect([asToken.status, asSession.status]).toEqual([201, 201]);
    expect(asSession.headers['idempotent-replayed']).toBeUndefined();
    expect(new Set([byKey, asToken, asSession].map((response) => response.body.data.sales_order_id)).size).toBe(3);
    expect(await ordersWithRemarks(`scoped ${key}`)).toBe(3);
  });

  it('without a key, two identical POSTs make two orders (the spec behaviour stands)', async () => {
    const body = orderBody(suite.fixtures, { remarks: `no key ${randomUUID()}` });
    await post(undefined, body);
    await post(undefined, body);
    expect(await ordersWithRemarks(body.remarks)).toBe(2);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['not ASCII', 'clé-1'],
    ['a control character', 'key\tone'],
  ])('a key that is %s: 400 in the envelope, nothing created', async (_name, key) => {
    const remarks = `bad key ${randomUUID()}`;
    const response = await post(key, orderBody(suite.fixtures, { remarks }));

    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([
      {
        path: 'idempotency-key',
        code: 'invalid_idempotency_key',
        message: 'must be 1 to 255 printable ASCII characters',
      },
    ]);
    expect(await ordersWithRemarks(remarks)).toBe(0);
  });

  it('accepts a key of exactly 255 printable characters', async () => {
    const response = await post(`${'~ '.repeat(127)}!`, orderBody(suite.fixtures));
    expect(response.status).toBe(201);
  });

  it('an expired key is forgotten: the same key creates a new order, and the purge deletes expired keys', async () => {
    const key = randomUUID();
    const body = orderBody(suite.fixtures, { remarks: `expiry ${key}` });
    const first = await post(key, body);
    const stored = await prisma().idempotencyKey.findUniqueOrThrow({
      where: { subject_key: { subject: `jwt:${TEST_SUBJECT}`, key } },
    });
    // Kept IDEMPOTENCY_TTL_HOURS (24 by default).
    expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBe(24 * 3600 * 1000);
    await prisma().$executeRaw`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = ${key}`;

    const after = await post(key, body);

    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(after.body.data.sales_order_id).not.toBe(first.body.data.sales_order_id);
    expect(await ordersWithRemarks(`expiry ${key}`)).toBe(2);

    // The taken-over key is live again; expire two others and let the purge timer (1 s here) run.
    const expired = [randomUUID(), randomUUID()];
    for (const other of expired) await post(other, orderBody(suite.fixtures, { remarks: `purge ${other}` }));
    await prisma()
      .$executeRaw`UPDATE idempotency_keys SET expires_at = now() - interval '1 hour' WHERE key = ANY(${expired})`;
    await expect
      .poll(() => prisma().idempotencyKey.count({ where: { key: { in: expired } } }), { timeout: 10_000 })
      .toBe(0);
    expect(await prisma().idempotencyKey.count({ where: { key } })).toBe(1);
    // Purging keys deletes no order.
    expect(await prisma().salesOrder.count({ where: { remarks: { startsWith: 'purge ' } } })).toBe(2);
  });
});

describe.skipIf(!onPostgresServer)(
  'a retry while the first request still runs (skipped without TEST_DATABASE_URL)',
  () => {
    // The service's own database timeouts (statement 1.5 s, lock 1 s) under a longer wait: the
    // wait must outlast both.
    const suite = useServerWithFixtures({ ...SERVICE_DEFAULT_DATABASE_TIMEOUTS, IDEMPOTENCY_WAIT_SECONDS: '3' });

    /** Runs `statement` in a transaction left open until released, then rolled back. */
    const holdInTransaction = (
      statement: (
        tx: Parameters<Parameters<typeof suite.server.database.prisma.$transaction>[0]>[0],
      ) => Promise<unknown>,
    ) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const isHeld = new Promise<void>((resolve) => (held = resolve));
      const holder = suite.server.database.prisma
        .$transaction(
          async (tx) => {
            await statement(tx);
            held();
            await released;
            throw new Error('roll back');
          },
          { timeout: 30_000 },
        )
        .catch(() => undefined);
      return { isHeld, release: async () => (release(), holder) };
    };

    /** Holds (TEST_SUBJECT, key) the way a first request in flight does: an uncommitted claim. */
    const holdKey = (key: string) =>
      holdInTransaction(
        (tx) => tx.$executeRaw`INSERT INTO idempotency_keys (subject, key, fingerprint, expires_at)
      VALUES (${`jwt:${TEST_SUBJECT}`}, ${key}, ${'0'.repeat(64)}, now() + interval '1 day')`,
      );

    it('past IDEMPOTENCY_WAIT_SECONDS (beyond the statement timeout): 409 idempotency_request_in_progress with Retry-After; after the first failed, the key is free', async () => {
      const key = randomUUID();
      const body = orderBody(suite.fixtures, { remarks: `in progress ${key}` });
      const holder = holdKey(key);
      await holder.isHeld;

      const started = Date.now();
      const waiting = await suite.server.http.post('/sales-orders').set('Idempotency-Key', key).send(body);
      const waited = Date.now() - started;

      expect(waiting.status).toBe(409);
      expect(waiting.headers['retry-after']).toBe('3');
      expect(waiting.body.error).toEqual({
        message: 'A request with this Idempotency-Key is still in progress',
        code: 409,
        details: [{ path: 'idempotency-key', code: 'idempotency_request_in_progress', message: expect.any(String) }],
      });
      expect(waited).toBeGreaterThanOrEqual(2_900);
      await holder.release();

      const retry = await suite.server.http.post('/sales-orders').set('Idempotency-Key', key).send(body);
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await suite.server.database.prisma.salesOrder.count({ where: { remarks: `in progress ${key}` } })).toBe(1);
    });

    it('a retry waits past the statement timeout for a first request that then fails, and makes the order itself', async () => {
      const key = randomUUID();
      const body = orderBody(suite.fixtures, { remarks: `outlasts ${key}` });
      const holder = holdKey(key);
      await holder.isHeld;
      setTimeout(() => void holder.release(), 2_200);

      const started = Date.now();
      const retry = await suite.server.http.post('/sales-orders').set('Idempotency-Key', key).send(body);

      expect(retry.status).toBe(201);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_100);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await suite.server.database.prisma.salesOrder.count({ where: { remarks: `outlasts ${key}` } })).toBe(1);
    });

    it('a retry that arrives while the first request runs waits for it, then replays its response', async () => {
      const key = randomUUID();
      const body = orderBody(suite.fixtures, { remarks: `waits ${key}` });
      await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures));
      // Slows the first request down after it has claimed its key: it queues on the series counter.
      const counterLock = holdInTransaction(
        (tx) =>
          tx.$queryRaw`SELECT 1 FROM sales_order_counters WHERE location_id = ${suite.fixtures.locations.dhaka.id} FOR UPDATE`,
      );
      await counterLock.isHeld;
      const waitingForLocks = () =>
        suite.server.database.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.then(
          (rows) => rows[0]!.n,
        );
      const first = suite.server.http
        .post('/sales-orders')
        .set('Idempotency-Key', key)
        .send(body)
        .then((response) => response);
      await expect.poll(waitingForLocks).toBe(1);
      const retry = suite.server.http
        .post('/sales-orders')
        .set('Idempotency-Key', key)
        .send(body)
        .then((response) => response);
      // Both wait: the first on the counter, the retry on the first's key.
      await expect.poll(waitingForLocks).toBe(2);
      await counterLock.release();

      const [firstResponse, retryResponse] = await Promise.all([first, retry]);
      expect(firstResponse.status).toBe(201);
      expect(retryResponse.status).toBe(201);
      expect(retryResponse.headers['idempotent-replayed']).toBe('true');
      expect(retryResponse.body).toEqual(firstResponse.body);
      expect(await suite.server.database.prisma.salesOrder.count({ where: { remarks: `waits ${key}` } })).toBe(1);
    });
  },
);
