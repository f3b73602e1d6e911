import { Permission } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createSession } from './support/credentials.js';
import { type TestServer, startTestServer } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

describe('request logs', () => {
  let server: TestServer;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ LOG_LEVEL: 'debug' }, { logStream: { write: (line: string) => void lines.push(line) } });
  });
  afterAll(() => server?.close());

  /** The log entries of one request, once its access line is written. */
  const logsOf = async (requestId: string) => {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const mine = lines.filter((line) => line.includes(requestId));
      if (mine.some((line) => line.includes('"res":'))) return mine.join('\n');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no access log line for ${requestId}`);
  };

  it('redact the Authorization header and cookies of every method, accepted or refused', async () => {
    const token = await signJwt({ payload: { permissions: [Permission.read] } });
    const { key } = await createApiKey(server.database.prisma, [Permission.read]);
    const { token: sessionToken, cookie } = await createSession(server.database.prisma);
    const secrets = [token, key, sessionToken, 'forged-token-value'];
    const calls: [string, Record<string, string>][] = [
      ['jwt-ok', { Authorization: `Bearer ${token}` }],
      ['key-ok', { Authorization: `ApiKey ${key}` }],
      ['session-ok', { Cookie: cookie }],
      ['jwt-bad', { Authorization: 'Bearer forged-token-value' }],
      ['both', { Authorization: `ApiKey ${key}`, Cookie: cookie }],
    ];
    for (const [name, headers] of calls) {
      const response = await request(server.api)
        .post('/sales-orders/calculate-totals')
        .set(headers)
        .set('X-Request-Id', `log-test-${name}`)
        .set('Origin', server.origin)
        .send({ details: [] });
      expect(response.status, name).toBe(name === 'jwt-bad' ? 401 : 200);
      const logged = await logsOf(`log-test-${name}`);
      for (const secret of secrets) expect(logged, name).not.toContain(secret);
      const access = JSON.parse(logged.split('\n').find((line) => line.includes('"res":'))!) as {
        req: { headers: Record<string, string> };
      };
      for (const header of Object.keys(headers)) expect(access.req.headers[header.toLowerCase()], `${name} ${header}`).toBe('[Redacted]');
    }
    // The reason for a refusal is logged, without the credential.
    expect(await logsOf('log-test-jwt-bad')).toContain('"reason":"invalid_token"');
  });
});
