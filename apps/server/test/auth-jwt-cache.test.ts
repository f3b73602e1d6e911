import { Permission } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CLOCK_TOLERANCE_SECONDS } from '../src/auth/jwt-verifier.js';
import { eventually } from './support/eventually.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

const PATH = '/sales-orders/calculate-totals';
const BODY = { details: [{ quantity: 1, rate: 7 }] };

// Verified tokens are kept by their text (src/auth/jwt-verifier.ts); these tests use each token
// once to fill the cache, then check what a cached token may no longer do.
describe('verified JWT cache', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const withToken = (token: string) =>
    request(server.api).post(PATH).set('Authorization', `Bearer ${token}`).send(BODY);

  it('refuses a cached token once its exp has passed (exp is checked at every use)', async () => {
    const now = Math.floor(Date.now() / 1000);
    // Valid for about five more seconds (a loaded machine may take two for the first request):
    // exp lies inside the clock tolerance.
    const token = await signJwt({
      payload: { permissions: [Permission.read] },
      expiresIn: now - CLOCK_TOLERANCE_SECONDS + 5,
      issuedAt: now - 60,
    });
    expect((await withToken(token)).status).toBe(200);
    await eventually(async () => (await withToken(token)).status === 401, 60_000);
    const refused = await withToken(token);
    expect(refused.body.error.details[0].code).toBe('token_expired');
  });

  it('refuses another signature over the payload of a cached token', async () => {
    const token = await signJwt({ payload: { permissions: [Permission.read] } });
    expect((await withToken(token)).status).toBe(200);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = `${header}.${payload}.${signature.slice(0, -4)}${signature.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    expect((await withToken(forged)).status).toBe(401);
    expect((await withToken(forged)).status).toBe(401);
    expect((await withToken(token)).status).toBe(200);
  });
});
