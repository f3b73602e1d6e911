import { once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Webhook } from 'standardwebhooks';
import { afterEach } from 'vitest';

import type { TestServer } from './test-server.js';

/**
 * A webhook receiver on a loopback port, as a customer would run one: it records every request
 * and answers as `respond` says (a status after an optional delay). Signatures are verified
 * with the `standardwebhooks` package, the receiving side's reference implementation.
 */

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request's body had arrived. */
  at: number;
}

export type Responder = (
  received: Received,
  index: number,
) => { status: number; delayMs?: number; body?: string; headers?: Record<string, string> };

export interface WebhookReceiver {
  url: string;
  port: number;
  received: Received[];
  /** Every request verified with `secret` (throws on the first that does not verify), as payloads. */
  verifyAll(secret: string): unknown[];
  /** Whether `received` verifies with `secret`. */
  verifies(received: Received, secret: string): boolean;
  /** Changes what the next requests get. */
  respondWith(responder: Responder): void;
  close(): Promise<void>;
}

const headersOf = (received: Received): Record<string, string> =>
  Object.fromEntries(
    Object.entries(received.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
  );

export const startWebhookReceiver = async (
  responder: Responder = () => ({ status: 204 }),
): Promise<WebhookReceiver> => {
  const received: Received[] = [];
  let respond = responder;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const { status, delayMs = 0, body = '', headers = {} } = respond(entry, received.length);
      received.push(entry);
      const answer = () => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
      };
      if (delayMs > 0) setTimeout(answer, delayMs).unref();
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const verify = (entry: Received, secret: string) => new Webhook(secret).verify(entry.body, headersOf(entry));
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    port,
    received,
    verifyAll: (secret) => received.map((entry) => verify(entry, secret)),
    verifies: (entry, secret) => {
      try {
        verify(entry, secret);
        return true;
      } catch {
        return false;
      }
    },
    respondWith: (next) => {
      respond = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};

/**
 * A suite's receivers and endpoints, gone after each test: `start` a receiver; after the test
 * every endpoint is deleted by `admin` (a caller that sees them all: the harness's, holding `*`)
 * and every receiver started is closed.
 */
export const useReceiversAndEndpoints = (admin: () => TestServer['http']) => {
  const started: WebhookReceiver[] = [];
  afterEach(async () => {
    for (const { id } of (await admin().get('/webhook-endpoints').expect(200)).body.data.items as { id: number }[]) {
      await admin().delete(`/webhook-endpoints/${id}`).expect(200);
    }
    for (const receiver of started.splice(0)) await receiver.close();
  });
  return {
    start: async (responder?: Responder) => {
      const receiver = await startWebhookReceiver(responder);
      started.push(receiver);
      return receiver;
    },
  };
};
