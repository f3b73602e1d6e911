import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';

import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { createLogger } from '../src/observability/logger.js';
import { loadConfig } from '../src/startup/config.js';
import { createHttpServer } from '../src/startup/http-server.js';
import { configProblems } from './support/config-problems.js';
import {
  connectionRefused,
  type ServerProcess,
  startServerProcess,
  stopServerProcess,
} from './support/server-process.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { signJwt, TEST_JWT_SECRET } from './support/tokens.js';

const TOTALS_BODY = JSON.stringify({ details: [{ quantity: 2, rate: 10.5 }] });

const configProblemsText = (env: Record<string, string>) => configProblems(env).join('\n');

describe('HTTP timeouts from configuration', () => {
  it('default to a 5 s keep-alive, 10 s for the headers and 30 s for the whole request', () => {
    const server = createHttpServer(express(), loadConfig({}), createLogger('silent'));
    expect({
      keepAlive: server.keepAliveTimeout,
      headers: server.headersTimeout,
      request: server.requestTimeout,
    }).toEqual({
      keepAlive: 5_000,
      headers: 10_000,
      request: 30_000,
    });
  });

  it('refuses headers allowed longer than the whole request, and values out of range, naming the variable', () => {
    expect(configProblemsText({ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' })).toMatch(
      /^HTTP_HEADERS_TIMEOUT_MS: /,
    );
    expect(configProblemsText({ DATABASE_STATEMENT_TIMEOUT_MS: '5' })).toMatch(/^DATABASE_STATEMENT_TIMEOUT_MS: /);
    expect(configProblemsText({ REDIS_TIMEOUT_MS: 'soon' })).toMatch(/^REDIS_TIMEOUT_MS: /);
    expect(configProblemsText({ SHUTDOWN_DRAIN_DELAY_MS: '-1' })).toMatch(/^SHUTDOWN_DRAIN_DELAY_MS: /);
  });

  describe('a client trickling its body', () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_HEADERS_TIMEOUT_MS: '2000' });
    });
    afterAll(() => server?.close());

    it('is answered 408 in the envelope and cut once HTTP_REQUEST_TIMEOUT_MS has passed', async () => {
      const token = await signJwt({ payload: { permissions: ['*'] } });
      const socket = net.connect(Number(new URL(server.origin).port), '127.0.0.1');
      await once(socket, 'connect');
      const started = Date.now();
      socket.write(
        [
          'POST /api/sales-orders/calculate-totals HTTP/1.1',
          'Host: 127.0.0.1',
          `Authorization: Bearer ${token}`,
          'Content-Type: application/json',
          'Content-Length: 1000',
          '',
          '',
        ].join('\r\n'),
      );
      // Whitespace is valid before JSON: the body is well-formed, just never finished. Trickled
      // until the service answers: a write racing its close (EPIPE, ECONNRESET on a loaded
      // machine) is not the test's business, so errors are ignored and the wait is on 'close'
      // (events.once would reject on the 'error').
      const trickle = setInterval(() => socket.writable && socket.write(' '), 250);
      // Before, Node let such a request run 5 minutes, and the default HTTP_REQUEST_TIMEOUT_MS
      // is 30 s: giving up short of that still shows the 2 s configured here cut it.
      const giveUp = setTimeout(() => socket.destroy(), 25_000);
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('utf8');
      });
      socket.once('end', () => clearInterval(trickle));
      socket.on('error', () => {});
      await new Promise((resolve) => socket.once('close', resolve));
      clearInterval(trickle);
      clearTimeout(giveUp);
      const elapsed = Date.now() - started;

      // Not before the 2 s; after it, Node's once-a-second check on a machine however loaded,
      // but short of the default 30 s.
      expect(elapsed).toBeGreaterThanOrEqual(1_900);
      expect(elapsed).toBeLessThan(25_000);
      const [head = '', body = ''] = received.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 408 /);
      expect(head).toMatch(/\r\nContent-Type: application\/json/i);
      expect(JSON.parse(body)).toEqual({
        success: false,
        error: {
          message: expect.any(String),
          code: 408,
          details: [expect.objectContaining({ code: 'request_timeout' })],
        },
      });
    });
  });
});

describe('SIGTERM on the real server process', () => {
  // Long enough for the requests made while draining to arrive on a loaded machine.
  const DRAIN_DELAY_MS = 15_000;
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess({
      SHUTDOWN_DRAIN_DELAY_MS: String(DRAIN_DELAY_MS),
      // How long the in-flight request may take is not under test here: the defaults (30 s for
      // a request, 10 s after the drain) would cut it when a loaded machine stretches the steps.
      HTTP_REQUEST_TIMEOUT_MS: '600000',
      SHUTDOWN_TIMEOUT_MS: '600000',
      JWT_SECRET: TEST_JWT_SECRET,
    });
  });
  afterAll(() => (server ? stopServerProcess(server) : undefined));

  it(
    'turns /readyz 503 first while still serving, then stops accepting, lets the slow in-flight request finish with 200, and exits 0',
    { timeout: 300_000 },
    async () => {
      const origin = server.api.replace(/\/api$/, '');
      const authorization = `Bearer ${await signJwt({ payload: { permissions: ['*'] }, expiresIn: '10m' })}`;
      const readyz = () => request(origin).get('/readyz');
      // Ready first: the 'listening' line comes before the first database ping, which a loaded
      // machine can take longer than /readyz's 800 ms to answer.
      await vi.waitFor(async () => expect((await readyz()).status).toBe(200), { timeout: 60_000, interval: 100 });

      // A request in flight over the whole shutdown: its body arrives in two parts.
      const slow = http.request(`${server.api}/sales-orders/calculate-totals`, {
        method: 'POST',
        headers: {
          Authorization: authorization,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(TOTALS_BODY),
        },
      });
      const slowAnswer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        slow.on('response', (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => {
            body += chunk.toString('utf8');
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        slow.on('error', reject);
      });
      // Its headers and first part on the wire (connected, written) before the signal.
      await new Promise<void>((resolve, reject) =>
        slow.write(TOTALS_BODY.slice(0, 10), (error) => (error ? reject(error) : resolve())),
      );

      // 'close', not 'exit': the exit can come before the last of its output ('stopped') is read.
      const exited = once(server.child, 'close');
      server.child.kill('SIGTERM');

      // Draining: not ready (because of the signal, not a slow ping), yet every request is still served.
      const readiness = await vi.waitFor(
        async () => {
          const answer = await readyz();
          expect(JSON.stringify(answer.body)).toContain('shutting_down');
          return answer;
        },
        { timeout: DRAIN_DELAY_MS, interval: 50 },
      );
      expect(readiness.status).toBe(503);
      expect(readiness.headers['retry-after']).toBeDefined();
      expect(readiness.body).toEqual({
        success: false,
        error: {
          message: 'The service is shutting down',
          code: 503,
          details: [expect.objectContaining({ code: 'shutting_down' })],
        },
      });
      const during = await request(server.api)
        .post('/sales-orders/calculate-totals')
        .set('Authorization', authorization)
        .set('Content-Type', 'application/json')
        .send(TOTALS_BODY);
      expect(during.status).toBe(200);
      expect(during.body.data.grand_total).toBe(21);

      // After the drain delay new connections are refused, while the slow request is still open.
      const port = Number(new URL(origin).port);
      await vi.waitFor(async () => expect(await connectionRefused(port)).toBe(true), {
        timeout: DRAIN_DELAY_MS + 60_000,
        interval: 100,
      });
      expect(server.child.exitCode).toBeNull();

      slow.end(TOTALS_BODY.slice(10));
      const answer = await slowAnswer;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).data.grand_total).toBe(21);

      const [code] = await exited;
      expect(code).toBe(0);
      const messages = server.output
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { msg?: string }).msg);
      expect(messages).toEqual(
        expect.arrayContaining(['draining: /readyz answers 503, requests are still served', 'stopped']),
      );
    },
  );
});
