import { once } from 'node:events';
import { connect } from 'node:net';

import { Permission } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createApiKey, createSession } from './support/credentials.js';
import { eventually } from './support/eventually.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

describe('request logs', () => {
  let server: TestServer;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(
      { LOG_LEVEL: 'debug' },
      { logStream: { write: (line: string) => void lines.push(line) } },
    );
  });
  afterAll(() => server?.close());

  /** The log entries of one request, once its access line is written. */
  const logsOf = async (requestId: string) => {
    const mine = () => lines.filter((line) => line.includes(requestId));
    await eventually(async () => mine().some((line) => line.includes('"res":')), 60_000);
    return mine().join('\n');
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
      for (const header of Object.keys(headers))
        expect(access.req.headers[header.toLowerCase()], `${name} ${header}`).toBe('[Redacted]');
    }
    // The reason for a refusal is logged, without the credential.
    expect(await logsOf('log-test-jwt-bad')).toContain('"reason":"invalid_token"');
  });

  it('at debug, carry the headers and log health probes', async () => {
    await request(server.origin).get('/healthz').set('X-Request-Id', 'log-debug-healthz').expect(200);
    await request(server.origin).get('/readyz').set('X-Request-Id', 'log-debug-readyz').expect(200);
    for (const id of ['log-debug-healthz', 'log-debug-readyz']) {
      const access = JSON.parse(await logsOf(id)) as { level: number; req: { headers: Record<string, string> } };
      expect(access.level, id).toBe(20);
      expect(access.req.headers['x-request-id'], id).toBe(id);
    }
  });
});

describe('request logs at info', () => {
  let server: TestServer;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(
      { LOG_LEVEL: 'info' },
      { logStream: { write: (line: string) => void lines.push(line) } },
    );
  });
  afterAll(() => server?.close());

  /** The lines that mention one request id, once its access line (status field) is written. */
  const linesOf = async (requestId: string) => {
    const mine = () => lines.filter((line) => line.includes(requestId));
    await eventually(async () => mine().some((line) => line.includes('"status":')), 60_000);
    return mine();
  };

  it('are one short line per request: method, path, status, duration, request id and subject, no headers', async () => {
    const { key, summary } = await createApiKey(server.database.prisma, [Permission.read]);
    const response = await request(server.api)
      // A query parameter the route does not have: 400, and the query string stays out of the line.
      .get('/sales-orders/999999?page=1')
      .set('Authorization', `ApiKey ${key}`)
      .set('X-Request-Id', 'log-info-read')
      .set('X-Log-Marker', 'header-value-that-must-not-be-logged');
    expect(response.status).toBe(400);
    const mine = await linesOf('log-info-read');
    expect(mine).toHaveLength(1);
    const line = mine[0]!;
    expect(line.length).toBeLessThanOrEqual(300);
    expect(line).not.toContain('header-value-that-must-not-be-logged');
    const entry = JSON.parse(line) as Record<string, unknown>;
    expect(entry).toMatchObject({
      level: 40,
      reqId: 'log-info-read',
      method: 'GET',
      path: '/api/sales-orders/999999',
      status: 400,
      subject: `api_key:${summary.prefix}`,
    });
    expect(entry.durationMs).toEqual(expect.any(Number));
    expect(entry).not.toHaveProperty('req');
    expect(entry).not.toHaveProperty('res');
  });

  it('stay short whatever the caller sends: a long path and many headers', async () => {
    await request(server.origin)
      .get(`/api/${'x'.repeat(4000)}`)
      .set('X-Request-Id', 'log-info-long')
      .set('X-Padding', 'p'.repeat(4000));
    const [line] = await linesOf('log-info-long');
    expect(line!.length).toBeLessThanOrEqual(500);
    expect(JSON.parse(line!)).toMatchObject({ method: 'GET', path: expect.stringMatching(/^\/api\/x+\.\.\.$/) });
  });

  it('say so when the caller goes away before the answer: no status 200 for an answer never sent', async () => {
    const token = await signJwt({ payload: { permissions: [Permission.read] } });
    // A body that never arrives in full: the request is authenticated and routed, then its
    // connection closes while the body is still awaited.
    const socket = connect(Number(new URL(server.origin).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      [
        'POST /api/sales-orders/calculate-totals HTTP/1.1',
        'Host: localhost',
        `Authorization: Bearer ${token}`,
        'Content-Type: application/json',
        'Content-Length: 100',
        'X-Request-Id: log-info-aborted',
        // Node answers "100 Continue" as it hands the request to the service: the sign that the
        // headers were read, waited for below instead of a time.
        'Expect: 100-continue',
        '',
        '{"details":',
      ].join('\r\n'),
    );
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    await eventually(async () => received.startsWith('HTTP/1.1 100 Continue'), 60_000);
    socket.destroy();
    await eventually(async () => lines.some((each) => each.includes('log-info-aborted')), 60_000);
    const entry = JSON.parse(lines.find((each) => each.includes('log-info-aborted'))!) as Record<string, unknown>;
    expect(entry).toMatchObject({
      level: 40,
      msg: 'request aborted',
      aborted: true,
      method: 'POST',
      path: '/api/sales-orders/calculate-totals',
    });
    expect(entry).not.toHaveProperty('status');
  });

  it('leave out health probes that succeed', async () => {
    await request(server.origin).get('/healthz').set('X-Request-Id', 'log-info-healthz').expect(200);
    await request(server.origin).get('/readyz').set('X-Request-Id', 'log-info-readyz').expect(200);
    // Lines are written in order: once a later request is logged, the probes' would be too.
    await request(server.api).get('/sales-orders/1').set('X-Request-Id', 'log-info-after-probes');
    await linesOf('log-info-after-probes');
    expect(lines.filter((line) => line.includes('log-info-healthz') || line.includes('log-info-readyz'))).toEqual([]);
  });
});
