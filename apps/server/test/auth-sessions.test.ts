import { createHash } from 'node:crypto';

import { apiContract, Permission } from '@sales-order/contract';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createSession } from './support/credentials.js';
import { answeredOtherwiseAfter, callUntil } from './support/eventually.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

const ALLOWED = 'https://erp.example.com';
const ALSO_ALLOWED = 'http://localhost:8080';
const COOKIE_NAME = 'host_sid';

describe('host session cookie', () => {
  const suite = useServerWithFixtures({
    ALLOWED_ORIGINS: `${ALLOWED}, ${ALSO_ALLOWED}`,
    SESSION_COOKIE_NAME: COOKIE_NAME,
  });

  const session = (options: Parameters<typeof createSession>[1] = {}) =>
    createSession(suite.server.database.prisma, { cookieName: COOKIE_NAME, ...options });

  const readWith = (cookie: string) =>
    request(suite.server.api)
      .post('/sales-orders/calculate-totals')
      .set('Cookie', cookie)
      .set('Origin', ALLOWED)
      .send({ details: [] });

  const createWith = (cookie: string, origin?: string) => {
    const pending = request(suite.server.api).post('/sales-orders').set('Cookie', cookie);
    return (origin === undefined ? pending : pending.set('Origin', origin)).send(orderBody(suite.fixtures));
  };

  const expectInvalidSession = (response: request.Response) => {
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBeDefined();
    expect(response.body.error.details).toEqual([
      { path: '', message: 'The session is not valid', code: 'invalid_session' },
    ]);
  };

  it('authenticates a live session under the configured cookie name, among other cookies', async () => {
    const { token } = await session({ permissions: [Permission.read] });
    const response = await readWith(`theme=dark; ${COOKIE_NAME}=${token}; lang=bn`);
    expect(response.status).toBe(200);
    expect(response.body.data.grand_total).toBe(0);
    // The default name is not the configured one.
    const unnamed = await request(suite.server.api)
      .post('/sales-orders/calculate-totals')
      .set('Cookie', `erp_session=${token}`)
      .send({ details: [] });
    expect(unnamed.status).toBe(401);
  });

  it('refuses an expired session, a revoked session and an unknown one', async () => {
    expectInvalidSession(await readWith((await session({ expiresAt: new Date(Date.now() - 1000) })).cookie));
    expectInvalidSession(await readWith((await session({ revokedAt: new Date(Date.now() - 1000) })).cookie));
    expectInvalidSession(await readWith(`${COOKIE_NAME}=never-issued`));
  });

  it('honours a revocation written by the host while the session is in use', async () => {
    const { token, cookie } = await session();
    expect((await readWith(cookie)).status).toBe(200);
    await suite.server.database.prisma.session.update({
      where: { tokenHash: createHash('sha256').update(token).digest('hex') },
      data: { revokedAt: new Date() },
    });
    const revoked = Date.now();
    // The revocation reaches the credential cache through NOTIFY: no read sent 8 s after it is
    // served, under the default AUTH_CACHE_TTL_MS (10 s) a missed notice would take. Judged by
    // when each read was sent, so a loaded machine's slow answers do not count against it.
    const reads = await callUntil(async () => (await readWith(cookie)).status, 401);
    expect(answeredOtherwiseAfter(reads, revoked, 8_000)).toEqual([]);
    expectInvalidSession(await readWith(cookie));
  });

  it('accepts a cookie-authenticated write from an allowed origin and from the service itself', async () => {
    const { cookie } = await session({ userId: 'clerk-1' });
    for (const origin of [ALLOWED, ALSO_ALLOWED, suite.server.origin]) {
      const response = await createWith(cookie, origin);
      expect(response.status, origin).toBe(201);
    }
    const [order] = await suite.server.database.prisma.salesOrder.findMany({
      where: { createdBy: 'clerk-1' },
      take: 1,
    });
    expect(order).toBeDefined();
  });

  it('refuses a cookie-authenticated write from another origin, a null origin and without Origin (CSRF)', async () => {
    const { cookie } = await session();
    const before = await suite.server.database.prisma.salesOrder.count();
    for (const origin of [
      'https://evil.example.com',
      'https://erp.example.com.evil.net',
      'http://erp.example.com',
      'null',
      undefined,
    ]) {
      const response = await createWith(cookie, origin);
      expect(response.status, String(origin)).toBe(403);
      expect(response.body.error).toEqual({
        message: 'Cookie-authenticated changes are accepted only from allowed origins',
        code: 403,
        details: [
          {
            path: '',
            message: 'Cookie-authenticated changes are accepted only from allowed origins',
            code: 'origin_not_allowed',
          },
        ],
      });
    }
    const update = await request(suite.server.api)
      .put('/sales-orders/1')
      .set('Cookie', cookie)
      .set('Origin', 'https://evil.example.com')
      .send({ remarks: 'x' });
    expect(update.status).toBe(403);
    const remove = await request(suite.server.api).delete('/sales-orders/1').set('Cookie', cookie);
    expect(remove.status).toBe(403);
    expect(await suite.server.database.prisma.salesOrder.count()).toBe(before);
  });

  it('lets cookie-authenticated reads through from any origin (CORS decides who may read the answer)', async () => {
    const { cookie } = await session();
    const response = await request(suite.server.api)
      .get('/sales-orders/987654')
      .set('Cookie', cookie)
      .set('Origin', 'https://evil.example.com');
    expect(response.status).toBe(404);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('does not apply the origin check to Authorization callers', async () => {
    const token = await signJwt({ payload: { permissions: ['*'] } });
    const response = await request(suite.server.api)
      .post('/sales-orders')
      .set('Authorization', `Bearer ${token}`)
      .set('Origin', 'https://evil.example.com')
      .send(orderBody(suite.fixtures));
    expect(response.status).toBe(201);
  });

  it('never falls back to the cookie when an Authorization header is present but invalid', async () => {
    const { cookie } = await session();
    expect((await readWith(cookie)).status).toBe(200);
    for (const authorization of ['Bearer not-a-token', 'ApiKey sok_aaaaaaaa_bad', 'Basic eDp5', '']) {
      const response = await readWith(cookie).set('Authorization', authorization);
      expect(response.status, authorization).toBe(401);
      expect(response.body.error.details[0].code).not.toBe('invalid_session');
    }
  });

  it('answers CORS preflights for allowed origins, with credentials, and not for others', async () => {
    const preflightOf = (path: string, method: string) =>
      request(suite.server.api)
        .options(path)
        .set('Origin', ALLOWED)
        .set('Access-Control-Request-Method', method)
        .set('Access-Control-Request-Headers', 'content-type');
    const preflight = await preflightOf('/sales-orders', 'POST');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(preflight.headers['access-control-allow-credentials']).toBe('true');
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
    expect(preflight.headers['access-control-allow-headers']).toContain('Content-Type');
    expect(preflight.headers.vary).toContain('Origin');

    // Every method of the contract, PATCH (webhook endpoints) included.
    const patch = await preflightOf('/webhook-endpoints/1', 'PATCH');
    expect(patch.status).toBe(204);
    const allowed = (patch.headers['access-control-allow-methods'] as string).split(',');
    expect(allowed).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
    expect(allowed).toEqual(
      expect.arrayContaining([...new Set(Object.values(apiContract).map((route) => route.method))]),
    );

    const foreign = await request(suite.server.api)
      .options('/sales-orders')
      .set('Origin', 'https://evil.example.com')
      .set('Access-Control-Request-Method', 'POST');
    // Without Access-Control-Allow-Origin the browser shows the foreign page nothing, and no
    // other CORS header tells it what the API would allow.
    expect(Object.keys(foreign.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(foreign.headers.vary).toContain('Origin');

    // The actual request from an allowed origin carries the CORS headers too, even when refused.
    const actual = await request(suite.server.api).get('/sales-orders/1').set('Origin', ALLOWED);
    expect(actual.status).toBe(401);
    expect(actual.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(actual.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
  });
});
