import http from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode } from '@sales-order/contract';
import type { Express } from 'express';
import type { AppConfig } from './config.js';
import { failure } from './http/envelope.js';
import type { Logger } from './logger.js';

/**
 * How often Node looks for requests past HTTP_HEADERS_TIMEOUT_MS or HTTP_REQUEST_TIMEOUT_MS.
 * Its default (30 s) would let a trickled body run up to 30 s past the configured limit.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

const REQUEST_TIMEOUT_MESSAGE = 'The request was not received in full in time';

/** Node's own answers to the other client errors, as it sends them when nobody listens. */
const nodeDefaultAnswer = (code: unknown): string =>
  code === 'HPE_HEADER_OVERFLOW'
    ? 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n'
    : code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
      ? 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n'
      : 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';

const requestTimeoutAnswer = (): string => {
  const body = JSON.stringify(
    failure(ErrorCode.requestTimeout, REQUEST_TIMEOUT_MESSAGE, [
      { path: '', message: REQUEST_TIMEOUT_MESSAGE, code: 'request_timeout' },
    ]),
  );
  return [
    'HTTP/1.1 408 Request Timeout',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
};

/**
 * Node reports a request that outlived its headers or request timeout (a client trickling its
 * body) as a client error, outside Express: it is answered here, on the socket, with the
 * envelope and 408. Other client errors get exactly what Node would send on its own.
 */
const answerClientError = (logger: Logger) => (error: Error & { code?: unknown }, socket: Duplex) => {
  // Node's own test before it answers: a response already under way cannot be replaced.
  const started = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage?.headersSent === true;
  if (!socket.writable || started) {
    socket.destroy();
    return;
  }
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  if (timedOut) logger.info('request not received in full in time: answered 408 and closed');
  socket.end(timedOut ? requestTimeoutAnswer() : nodeDefaultAnswer(error.code), () => socket.destroy());
};

/**
 * The HTTP server for `app`, with the connection timeouts from configuration: how long an idle
 * keep-alive connection is kept, and how long a client may take to send its headers and its
 * whole request.
 */
export const createHttpServer = (app: Express, { http: timeouts }: Pick<AppConfig, 'http'>, logger: Logger): http.Server => {
  const server = http.createServer(
    {
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    app,
  );
  server.on('clientError', answerClientError(logger));
  return server;
};
