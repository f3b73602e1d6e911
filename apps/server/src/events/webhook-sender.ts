import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';

import { DELIVERY_ERROR_MAX_LENGTH } from '@sales-order/contract';

import { AddressRefusedError, guardedLookup, hostOf, nonPublicRange, type Resolver } from './address-guard.js';

/**
 * Sends one webhook request and says how it went, never throwing: a 2xx answer is a success,
 * anything else (another status, no answer within the timeout, a refused address, a broken
 * connection) a failure with its reason. Redirects are not followed (a 3xx is a failure like
 * any other status), and at most RESPONSE_READ_LIMIT bytes of the answer are read, then the
 * connection is dropped: a receiver cannot make the service read an endless body.
 */

const RESPONSE_READ_LIMIT = 64 * 1024;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookOutcome {
  /** The status answered; null when none was. */
  statusCode: number | null;
  /** Why no answer came (timeout, refused address, connection error); null when one did. */
  error: string | null;
  latencyMs: number;
  /** No complete answer within the timeout: the attempt held its sending slot all that time. */
  timedOut: boolean;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookOutcome>;
  /** Closes idle keep-alive connections. */
  close(): void;
}

export interface WebhookSenderOptions {
  timeoutMs: number;
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
  resolve: Resolver;
}

const clip = (text: string) =>
  text.length > DELIVERY_ERROR_MAX_LENGTH ? text.slice(0, DELIVERY_ERROR_MAX_LENGTH) : text;

const isTimeout = (error: unknown) => {
  const { name } = error as Error;
  return name === 'AbortError' || name === 'TimeoutError';
};

const describeError = (error: unknown, timeoutMs: number): string => {
  if (error instanceof AddressRefusedError) return error.message;
  const { code, message } = error as NodeJS.ErrnoException;
  if (isTimeout(error)) return `no complete answer within ${timeoutMs} ms`;
  return code ? `${code}: ${message}` : message;
};

export const createWebhookSender = ({
  timeoutMs,
  allowHttp,
  allowPrivateNetworks,
  resolve,
}: WebhookSenderOptions): WebhookSender => {
  // Keep-alive agents whose new connections go only to addresses the guard let through.
  const lookup = guardedLookup(resolve, allowPrivateNetworks);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, lookup }),
    'https:': new https.Agent({ keepAlive: true, lookup }),
  };

  const exchange = (url: URL, request: WebhookRequest): Promise<number> =>
    new Promise((resolveStatus, reject) => {
      const transport = url.protocol === 'https:' ? https : http;
      const outgoing = transport.request(
        url,
        {
          method: 'POST',
          headers: {
            ...request.headers,
            'content-length': Buffer.byteLength(request.body),
            'user-agent': 'sales-order-service-webhooks',
          },
          agent: agents[url.protocol as 'http:' | 'https:'],
          signal: AbortSignal.timeout(timeoutMs),
        },
        (response) => {
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > RESPONSE_READ_LIMIT) {
              response.destroy();
              resolveStatus(response.statusCode ?? 0);
            }
          });
          response.on('end', () => resolveStatus(response.statusCode ?? 0));
          // Closed before its end (by the receiver, or above): the status still stands.
          response.on('close', () => resolveStatus(response.statusCode ?? 0));
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });

  return {
    send: async (request) => {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const url = new URL(request.url);
      if (url.protocol === 'http:' && !allowHttp) {
        return {
          statusCode: null,
          error: 'http:// refused: only https:// unless WEBHOOK_ALLOW_HTTP=true',
          latencyMs: 0,
          timedOut: false,
        };
      }
      // An IP literal is connected to without a lookup: judged here.
      const host = hostOf(url);
      const range = isIP(host) !== 0 && !allowPrivateNetworks ? nonPublicRange(host) : null;
      if (range !== null) {
        return {
          statusCode: null,
          error: new AddressRefusedError(host, host, range).message,
          latencyMs: 0,
          timedOut: false,
        };
      }
      try {
        const statusCode = await exchange(url, request);
        return { statusCode, error: null, latencyMs: latency(), timedOut: false };
      } catch (error) {
        return {
          statusCode: null,
          error: clip(describeError(error, timeoutMs)),
          latencyMs: latency(),
          timedOut: isTimeout(error),
        };
      }
    },
    close: () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
};

/** A 2xx answer. */
export const isDelivered = ({ statusCode }: WebhookOutcome): boolean =>
  statusCode !== null && statusCode >= 200 && statusCode < 300;
