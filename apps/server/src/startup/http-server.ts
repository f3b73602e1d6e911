import http from 'node:http';

import type { Express } from 'express';

import { answerClientErrorsInEnvelope } from '../http/client-errors.js';
import type { Logger } from '../observability/logger.js';
import type { AppConfig } from './config.js';

/**
 * How often Node looks for requests past HTTP_HEADERS_TIMEOUT_MS or HTTP_REQUEST_TIMEOUT_MS.
 * Its default (30 s) would let a trickled body run up to 30 s past the configured limit.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * The HTTP server for `app`, with the connection timeouts from configuration: how long an idle
 * keep-alive connection is kept, and how long a client may take to send its headers and its
 * whole request. What Node's parser refuses (a trickled body past the request timeout among
 * them: 408) is answered in the envelope.
 */
export const createHttpServer = (
  app: Express,
  { http: timeouts }: Pick<AppConfig, 'http'>,
  logger: Logger,
): http.Server => {
  const server = http.createServer(
    {
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    app,
  );
  answerClientErrorsInEnvelope(server, logger);
  return server;
};
