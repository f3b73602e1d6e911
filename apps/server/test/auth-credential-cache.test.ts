import { createHash, randomBytes } from 'node:crypto';

import { Permission } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createApiKey, createSession } from './support/credentials.js';
import { answeredOtherwiseAfter, callUntil, eventually } from './support/eventually.js';
import { type QueryCountingServer, startQueryCountingServer } from './support/query-counting-server.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const PATH = '/sales-orders/calculate-totals';
const BODY = { details: [{ quantity: 1, rate: 7 }] };
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

const withKey = (server: TestServer, key: string) =>
  request(server.api).post(PATH).set('Authorization', `ApiKey ${key}`).send(BODY);
// A cookie-authenticated write must come from a trusted origin: the service's own.
const withCookie = (server: TestServer, cookie: string) =>
  request(server.api).post(PATH).set('Cookie', cookie).set('Origin', server.origin).send(BODY);
const statusWithKey = async (server: TestServer, key: string) => (await withKey(server, key)).status;
const statusWithCookie = async (server: TestServer, cookie: string) => (await withCookie(server, cookie)).status;

/** A key in the service's format, not yet stored: the test stores it with SQL, as the CLI would. */
const unstoredKey = () => {
  const prefix = `sok_${randomBytes(5)
    .toString('hex')
    .replace(/[^a-z2-7]/g, 'a')
    .slice(0, 8)}`;
  return { prefix, key: `${prefix}_${randomBytes(32).toString('base64url')}` };
};

// Far longer than any wait below: a change seen in time was seen through NOTIFY, not the TTL.
const LONG_TTL = { AUTH_CACHE_TTL_MS: '300000' };
// Generous for a loaded machine, and still a tenth of that TTL: what it bounds is NOTIFY, not the clock.
const NOTIFIED_WITHIN_MS = 30_000;

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'credential cache with change notifications (needs TEST_DATABASE_URL: LISTEN)',
  () => {
    let server: QueryCountingServer;

    beforeAll(async () => {
      server = await startQueryCountingServer(LONG_TTL);
    });
    afterAll(() => server?.close());

    it('refuses a key revoked with SQL at once (NOTIFY), although its caller is cached', async () => {
      const { key, summary } = await createApiKey(server.database.prisma, [Permission.read]);
      expect(await statusWithKey(server, key)).toBe(200);
      expect(await statusWithKey(server, key)).toBe(200);
      await server.database.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE prefix = ${summary.prefix}`;
      await eventually(async () => (await statusWithKey(server, key)) === 401, NOTIFIED_WITHIN_MS);
    });

    it('refuses a session revoked, expired or deleted by the host with SQL at once (NOTIFY)', async () => {
      const statements = [
        (hash: string) =>
          server.database.prisma.$executeRaw`UPDATE sessions SET revoked_at = now() WHERE token_hash = ${hash}`,
        (hash: string) =>
          server.database.prisma
            .$executeRaw`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE token_hash = ${hash}`,
        (hash: string) => server.database.prisma.$executeRaw`DELETE FROM sessions WHERE token_hash = ${hash}`,
      ];
      for (const end of statements) {
        const { token, cookie } = await createSession(server.database.prisma);
        expect(await statusWithCookie(server, cookie)).toBe(200);
        await end(sha256(token));
        await eventually(async () => (await statusWithCookie(server, cookie)) === 401, NOTIFIED_WITHIN_MS);
      }
    });

    // The use is written by a timer two seconds after it (last-used-recorder.ts), so an UPDATE
    // during the burst can only come from the request path, as it did before the cache.
    it('serves a burst with one key from one lookup, and records its use off the request path', async () => {
      const { key, summary } = await createApiKey(server.database.prisma, [Permission.read]);
      const sent = await server.queriesDuring(async () => {
        const statuses = await Promise.all(Array.from({ length: 20 }, () => statusWithKey(server, key)));
        expect(statuses).toEqual(Array(20).fill(200));
      });
      // A statement may open with its location-scope comment line(s).
      const statements = sent.map((sql) => sql.replace(/^(\s*--[^\n]*\n)*/, ''));
      expect(statements.filter((sql) => /\bapi_keys\b/.test(sql) && /^\s*SELECT/i.test(sql))).toHaveLength(1);
      expect(statements.filter((sql) => /^\s*UPDATE/i.test(sql))).toEqual([]);
      const lastUsed = async () =>
        (await server.database.prisma.apiKey.findUniqueOrThrow({ where: { prefix: summary.prefix } })).lastUsedAt;
      await eventually(async () => (await lastUsed()) !== null, 60_000);
    });

    it('keeps credentials by the whole key: another secret under a cached key prefix is refused', async () => {
      const { key } = await createApiKey(server.database.prisma, [Permission.all]);
      expect(await statusWithKey(server, key)).toBe(200);
      expect(await statusWithKey(server, `${key.slice(0, 13)}${'A'.repeat(43)}`)).toBe(401);
      expect(await statusWithKey(server, `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`)).toBe(401);
    });

    it('does not keep refusals: a key or session refused a moment ago works as soon as it is stored', async () => {
      const { prefix, key } = unstoredKey();
      expect(await statusWithKey(server, key)).toBe(401);
      await server.database.prisma.$executeRaw`
      INSERT INTO api_keys (name, prefix, key_hash, permissions) VALUES ('late', ${prefix}, ${sha256(key)}, ARRAY['*'])`;
      expect(await statusWithKey(server, key)).toBe(200);

      const token = randomBytes(24).toString('base64url');
      expect(await statusWithCookie(server, `erp_session=${token}`)).toBe(401);
      await server.database.prisma.$executeRaw`
      INSERT INTO sessions (token_hash, user_id, permissions, expires_at)
      VALUES (${sha256(token)}, 'late-user', ARRAY['*'], now() + interval '1 hour')`;
      expect(await statusWithCookie(server, `erp_session=${token}`)).toBe(200);
    });

    it('does not keep a key past its own expiry', async () => {
      const { key } = await createApiKey(server.database.prisma, [Permission.read], {
        expiresAt: new Date(Date.now() + 1_500),
      });
      expect(await statusWithKey(server, key)).toBe(200);
      // No statement changes the row: only the expiry kept with the cached caller ends it.
      await eventually(async () => (await statusWithKey(server, key)) === 401, NOTIFIED_WITHIN_MS);
    });
  },
);

describe('credential cache without change notifications', () => {
  let server: TestServer;
  // Long enough that "still served from the cache right after" holds on a loaded machine; the
  // bounds below stay under the default TTL (10 s), so a TTL setting ignored still fails.
  const TTL_MS = 3_000;

  beforeAll(async () => {
    server = await startTestServer({ AUTH_CACHE_TTL_MS: String(TTL_MS) });
    // A lost notice, as while the listening connection is down.
    await server.database.prisma.$executeRaw`ALTER TABLE api_keys DISABLE TRIGGER api_keys_notify_change`;
    await server.database.prisma.$executeRaw`ALTER TABLE sessions DISABLE TRIGGER sessions_notify_change`;
  });
  afterAll(() => server?.close());

  it('refuses a revoked key and a revoked session within AUTH_CACHE_TTL_MS', async () => {
    const { key, summary } = await createApiKey(server.database.prisma, [Permission.read]);
    const { token, cookie } = await createSession(server.database.prisma);
    // Each is cached no earlier than its first use was sent.
    const firstUseSent = Date.now();
    expect(await statusWithKey(server, key)).toBe(200);
    expect(await statusWithCookie(server, cookie)).toBe(200);
    await server.database.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE prefix = ${summary.prefix}`;
    await server.database.prisma
      .$executeRaw`UPDATE sessions SET revoked_at = now() WHERE token_hash = ${sha256(token)}`;
    const revokedAt = Date.now();
    // Still served from the cache right after (nothing told the service), when answered inside
    // the TTL of the first use: a loaded machine may take longer, and then proves nothing here.
    const rightAfter = await statusWithKey(server, key);
    if (Date.now() < firstUseSent + TTL_MS) expect(rightAfter).toBe(200);
    // ...and refused once the TTL has run out: no call sent after it (and a margin for the
    // clocks of two processes) is answered otherwise. Judged by when each call was sent.
    const keyCalls = await callUntil(() => statusWithKey(server, key), 401);
    const cookieCalls = await callUntil(() => statusWithCookie(server, cookie), 401);
    expect(answeredOtherwiseAfter(keyCalls, revokedAt, TTL_MS + 1_000)).toEqual([]);
    expect(answeredOtherwiseAfter(cookieCalls, revokedAt, TTL_MS + 1_000)).toEqual([]);
  });

  it('records a use again once LAST_USED_RESOLUTION_MS has passed since the stored one', async () => {
    const { prisma } = server.database;
    const { key, summary } = await createApiKey(prisma, [Permission.read]);
    const lastUsed = async () =>
      (await prisma.apiKey.findUniqueOrThrow({ where: { prefix: summary.prefix } })).lastUsedAt;
    expect(await statusWithKey(server, key)).toBe(200);
    await eventually(async () => (await lastUsed()) !== null, 60_000);
    const old = new Date(Date.now() - 3_600_000);
    await prisma.apiKey.update({ where: { prefix: summary.prefix }, data: { lastUsedAt: old } });
    // Read again from the database once the cached caller has expired (TTL_MS), then recorded
    // again: uses go on until one is.
    await eventually(async () => {
      expect(await statusWithKey(server, key)).toBe(200);
      return (await lastUsed())!.getTime() > old.getTime();
    }, 60_000);
  });
});

/**
 * A key revoked or rotated over HTTP stops on the instance that changed it within the change's
 * own request, before any notice could reach it: here no notice ever does (the triggers are off)
 * and the TTL is far beyond the test, so only the request's own drop can refuse the key.
 */
describe('credential cache: the instance that revokes a key drops it in the same request', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(LONG_TTL);
    await server.database.prisma.$executeRaw`ALTER TABLE api_keys DISABLE TRIGGER api_keys_notify_change`;
  });
  afterAll(() => server?.close());

  const cachedKey = async () => {
    const created = await server.http.post('/api-keys').send({ name: 'cached', permissions: [Permission.read] });
    expect(created.status).toBe(201);
    const { id, secret } = created.body.data as { id: number; secret: string };
    expect(await statusWithKey(server, secret)).toBe(200);
    expect(await statusWithKey(server, secret)).toBe(200);
    return { id, secret };
  };

  it('refuses a key revoked now at the very next request', async () => {
    const { id, secret } = await cachedKey();
    expect((await server.http.post(`/api-keys/${id}/revoke`).send({})).status).toBe(200);
    expect(await statusWithKey(server, secret)).toBe(401);
  });

  it('refuses a key whose current secret a rotation ends now at the very next request', async () => {
    const { id, secret } = await cachedKey();
    const rotated = await server.http.post(`/api-keys/${id}/rotate`).send({ expire_current_in_seconds: 0 });
    expect(rotated.status).toBe(201);
    expect(await statusWithKey(server, secret)).toBe(401);
    expect(await statusWithKey(server, rotated.body.data.secret as string)).toBe(200);
  });

  it('ends a key revoked for later at that time, not at the TTL of the caller cached before', async () => {
    const { id, secret } = await cachedKey();
    const scheduled = await server.http.post(`/api-keys/${id}/revoke`).send({ revoke_in_seconds: 2 });
    expect(scheduled.status).toBe(200);
    // The database's now() was read before the answer came, so the revocation took effect by this.
    const revokedBy = Date.now() + 2_000;
    const calls = await callUntil(() => statusWithKey(server, secret), 401);
    // A margin for the clocks of two processes, where the TTL is five minutes.
    expect(answeredOtherwiseAfter(calls, revokedBy, 500)).toEqual([]);
  });
});
