import { generateKeyPairSync } from 'node:crypto';

import { Permission } from '@sales-order/contract';
import { UnsecuredJWT } from 'jose';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { configProblems } from './support/config-problems.js';
import { orderBody } from './support/fixtures.js';
import { startTestServer, type TestServer, useServerWithFixtures } from './support/test-server.js';
import { secretKey, signJwt, TEST_JWT_SECRET } from './support/tokens.js';

const READ = { permissions: [Permission.read] };
const PATH = '/sales-orders/calculate-totals';
const BODY = { details: [{ quantity: 2, rate: 5 }] };

const callWith = (server: TestServer, token: string) =>
  request(server.api).post(PATH).set('Authorization', `Bearer ${token}`).send(BODY);

const expectRefused = async (server: TestServer, token: string, code = 'invalid_token') => {
  const response = await callWith(server, token);
  expect(response.status, token).toBe(401);
  expect(response.headers['www-authenticate']).toContain('Bearer');
  expect(response.body.success).toBe(false);
  expect(response.body.error.code).toBe(401);
  expect(response.body.error.details[0].code).toBe(code);
};

const expectAccepted = async (server: TestServer, token: string) => {
  const response = await callWith(server, token);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.data.grand_total).toBe(10);
};

const rsaKeys = () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKey };
};

const ecKeys = () => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKey };
};

const now = () => Math.floor(Date.now() / 1000);

describe('JWT bearer tokens with HS256 (JWT_SECRET), issuer and audience', () => {
  let server: TestServer;
  const issuer = 'https://idp.example.com';
  const audience = 'sales-order-service';

  beforeAll(async () => {
    server = await startTestServer({ JWT_ISSUER: issuer, JWT_AUDIENCE: audience });
  });
  afterAll(() => server?.close());

  const sign = (options: Parameters<typeof signJwt>[0] = {}) =>
    signJwt({ payload: READ, issuer, audience, ...options });

  it('accepts a good token', async () => {
    await expectAccepted(server, await sign());
  });

  it('refuses an expired token, allowing 30 seconds of clock skew', async () => {
    await expectAccepted(server, await sign({ expiresIn: now() - 10 }));
    await expectRefused(server, await sign({ expiresIn: now() - 60 }), 'token_expired');
  });

  it('refuses a token that is not valid yet (nbf), allowing 30 seconds of clock skew', async () => {
    await expectAccepted(server, await sign({ notBefore: now() + 10 }));
    await expectRefused(server, await sign({ notBefore: now() + 120 }));
  });

  it('refuses a token signed with another secret', async () => {
    await expectRefused(server, await sign({ key: secretKey(`${TEST_JWT_SECRET}-other`) }));
  });

  it('refuses a token whose payload was changed after signing', async () => {
    const [header, , signature] = (await sign()).split('.');
    const forged = Buffer.from(
      JSON.stringify({ sub: 'admin', permissions: ['*'], iss: issuer, aud: audience, exp: now() + 600 }),
    ).toString('base64url');
    await expectRefused(server, `${header}.${forged}.${signature}`);
  });

  it('refuses alg: none', async () => {
    const unsigned = new UnsecuredJWT({ permissions: ['*'] })
      .setSubject('admin')
      .setIssuer(issuer)
      .setAudience(audience)
      .setExpirationTime('5m')
      .encode();
    await expectRefused(server, unsigned);
  });

  it('refuses a token without exp', async () => {
    await expectRefused(server, await sign({ expiresIn: null }));
  });

  it('refuses a token without sub', async () => {
    await expectRefused(server, await sign({ subject: null }));
  });

  it('refuses a token with a subject too long to record', async () => {
    await expectRefused(server, await sign({ subject: 'x'.repeat(201) }));
  });

  it('refuses a wrong or missing issuer and a wrong or missing audience', async () => {
    await expectRefused(server, await signJwt({ payload: READ, issuer: 'https://evil.example.com', audience }));
    await expectRefused(server, await signJwt({ payload: READ, audience }));
    await expectRefused(server, await signJwt({ payload: READ, issuer, audience: 'another-service' }));
    await expectRefused(server, await signJwt({ payload: READ, issuer }));
  });

  it('refuses a permissions claim that is not an array of strings', async () => {
    await expectRefused(server, await sign({ payload: { permissions: 'sales_orders.read' } }));
    await expectRefused(server, await sign({ payload: { permissions: [1] } }));
  });

  it('refuses garbage', async () => {
    for (const garbage of ['garbage', 'a.b.c', 'eyJhbGciOiJIUzI1NiJ9..', '....']) await expectRefused(server, garbage);
  });
});

describe('JWT bearer tokens with RS256 (JWT_PUBLIC_KEY)', () => {
  let server: TestServer;
  const keys = rsaKeys();

  beforeAll(async () => {
    // Only the public key: HS256 is then not accepted at all.
    server = await startTestServer({ JWT_SECRET: '', JWT_PUBLIC_KEY: keys.pem });
  });
  afterAll(() => server?.close());

  it('accepts a token signed with the private key', async () => {
    await expectAccepted(server, await signJwt({ alg: 'RS256', key: keys.privateKey, payload: READ }));
  });

  it('refuses an HS256 token "signed" with the public key (key confusion)', async () => {
    await expectRefused(server, await signJwt({ alg: 'HS256', key: secretKey(keys.pem), payload: READ }));
  });

  it('refuses an HS256 token signed with the test secret, which this server does not hold', async () => {
    await expectRefused(server, await signJwt({ payload: READ }));
  });

  it('refuses an RS256 token from another key pair', async () => {
    await expectRefused(server, await signJwt({ alg: 'RS256', key: rsaKeys().privateKey, payload: READ }));
  });

  it('accepts the key with its line breaks written as \\n, as one environment line holds it', async () => {
    const oneLine = await startTestServer({ JWT_SECRET: '', JWT_PUBLIC_KEY: keys.pem.trim().replace(/\n/g, '\\n') });
    try {
      await expectAccepted(oneLine, await signJwt({ alg: 'RS256', key: keys.privateKey, payload: READ }));
    } finally {
      await oneLine.close();
    }
  });
});

describe('JWT bearer tokens with ES256 (JWT_PUBLIC_KEY) beside HS256', () => {
  let server: TestServer;
  const keys = ecKeys();

  beforeAll(async () => {
    server = await startTestServer({ JWT_PUBLIC_KEY: keys.pem });
  });
  afterAll(() => server?.close());

  it('accepts ES256 tokens from the key and HS256 tokens from the secret', async () => {
    await expectAccepted(server, await signJwt({ alg: 'ES256', key: keys.privateKey, payload: READ }));
    await expectAccepted(server, await signJwt({ payload: READ }));
  });

  it('refuses an RS256 token and an ES256 token from another key', async () => {
    await expectRefused(server, await signJwt({ alg: 'RS256', key: rsaKeys().privateKey, payload: READ }));
    await expectRefused(server, await signJwt({ alg: 'ES256', key: ecKeys().privateKey, payload: READ }));
  });

  it('refuses an HS256 token signed with the public key even though HS256 is enabled', async () => {
    await expectRefused(server, await signJwt({ key: secretKey(keys.pem), payload: READ }));
  });
});

describe('JWT configuration', () => {
  const problemsOf = (env: Record<string, string>) => configProblems(env).join('\n');

  it('refuses a JWT_SECRET shorter than 32 bytes, without echoing it', () => {
    const problems = problemsOf({ JWT_SECRET: 'short-secret-value' });
    expect(problems).toMatch(/^JWT_SECRET: must be at least 32 bytes/);
    expect(problems).not.toContain('short-secret-value');
  });

  it('refuses a private key, a small RSA key, an unsupported curve and text that is no key', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(problemsOf({ JWT_PUBLIC_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() })).toMatch(
      /^JWT_PUBLIC_KEY: holds a private key/,
    );
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    expect(problemsOf({ JWT_PUBLIC_KEY: small })).toMatch(/RSA key of 1024 bits/);
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    expect(problemsOf({ JWT_PUBLIC_KEY: p384 })).toMatch(
      /must be an RSA public key \(RS256\) or an EC P-256 public key \(ES256\)/,
    );
    expect(problemsOf({ JWT_PUBLIC_KEY: 'not a key' })).toMatch(/is not a PEM public key/);
  });

  it('answers 401 to every Bearer token when no JWT key is configured', async () => {
    const server = await startTestServer({ JWT_SECRET: '' });
    try {
      await expectRefused(server, await signJwt({ payload: READ }));
    } finally {
      await server.close();
    }
  });
});

describe('JWT claims that cannot be trusted as sent', () => {
  const suite = useServerWithFixtures();

  const createOrderWith = (token: string) =>
    request(suite.server.api)
      .post('/sales-orders')
      .set('Authorization', `Bearer ${token}`)
      .send(orderBody(suite.fixtures));
  const orderCount = () => suite.server.database.prisma.salesOrder.count();

  it('refuses a token issued in the future, allowing 30 seconds of clock skew', async () => {
    await expectAccepted(suite.server, await signJwt({ payload: READ, issuedAt: now() + 10 }));
    await expectRefused(suite.server, await signJwt({ payload: READ, issuedAt: now() + 120 }));
    await expectRefused(
      suite.server,
      await signJwt({ payload: READ, issuedAt: now() + 3600, expiresIn: now() + 7200 }),
    );
  });

  it('splits scope on ASCII spaces only: a non-breaking space grants nothing', async () => {
    await expectAccepted(suite.server, await signJwt({ payload: { scope: `openid  ${Permission.read}` } }));
    const before = await orderCount();
    for (const scope of [`${Permission.read}\u00a0*`, `${Permission.read}\t*`, `openid\u2003${Permission.create}`]) {
      const token = await signJwt({ payload: { scope } });
      const response = await createOrderWith(token);
      expect(response.status, JSON.stringify(scope)).toBe(403);
      expect(response.body.error.details[0].code).toBe('missing_permission');
    }
    expect(await orderCount()).toBe(before);
  });

  it('refuses a subject with NUL, another control character or a lone surrogate, and writes nothing', async () => {
    const before = await orderCount();
    for (const subject of ['erp\u0000user', 'erp\u0007user', 'erp\ud800user', '\udc00']) {
      const token = await signJwt({ payload: { permissions: ['*'] }, subject });
      const response = await createOrderWith(token);
      expect(response.status, JSON.stringify(subject)).toBe(401);
      expect(response.body.error.details[0].code).toBe('invalid_token');
      expect(response.headers['www-authenticate']).toContain('Bearer');
    }
    expect(await orderCount()).toBe(before);
    // A subject outside the BMP (a surrogate pair) is well-formed text and is recorded as sent.
    const created = await createOrderWith(await signJwt({ payload: { permissions: ['*'] }, subject: 'erp-user-😀' }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const stored = await suite.server.database.prisma.salesOrder.findFirstOrThrow({
      where: { createdBy: { not: null } },
      orderBy: { id: 'desc' },
    });
    expect(stored.createdBy).toBe('erp-user-😀');
  });
});
