import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { pinoHttp } from 'pino-http';

import type { Principal } from '../auth/principal.js';
import type { Logger } from '../logger.js';

// A caller's id is kept only when it is short and plain, so it cannot forge log lines.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Load balancers probe these every few seconds: at info they would drown the real traffic.
const HEALTH_PROBES = new Set(['/healthz', '/readyz']);

// A path is the caller's text: cut so that one request cannot make a long line.
const MAX_LOGGED_PATH = 256;

type LoggedRequest = IncomingMessage & { originalUrl?: string; principal?: Principal };

/** The path without its query string (which can be long and is not needed to follow a request). */
const pathOf = (req: LoggedRequest): string => {
  const path = (req.originalUrl ?? req.url ?? '').split('?', 1)[0] ?? '';
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}...` : path;
};

/**
 * One concise line per request (method, path, status, duration, request id, subject) with its
 * id: `X-Request-Id` from the caller when acceptable, else a new UUID, echoed back in the
 * response header. Headers are logged only at `debug`, successful health probes only at `debug`.
 */
export const requestLogging = (logger: Logger) => {
  const accessLine = (req: LoggedRequest, res: ServerResponse, responseTime: number) => ({
    method: req.method,
    path: pathOf(req),
    status: res.statusCode,
    durationMs: responseTime,
    ...(req.principal ? { subject: req.principal.subject } : {}),
    // The serializers print headers (credentials redacted, see logger.ts) under these keys.
    ...(logger.isLevelEnabled('debug') ? { req, res } : {}),
  });
  return pinoHttp<LoggedRequest>({
    logger,
    // Lines logged through req.log carry the request id, not the whole request.
    quietReqLogger: true,
    quietResLogger: true,
    genReqId: (req, res) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (req, res, error) => {
      // A 503 is a database outage or overload, reported once per episode by the database's
      // availability monitor; one error line per refused request would bury that line.
      if (!error && res.statusCode === 503) return 'info';
      if (error || res.statusCode >= 500) return 'error';
      if (res.statusCode >= 400) return 'warn';
      return HEALTH_PROBES.has(pathOf(req)) ? 'debug' : 'info';
    },
    customSuccessObject: (req, res, { responseTime }: { responseTime: number }) => accessLine(req, res, responseTime),
    // No error object here: the error handler logs the cause once; a 5xx without a thrown
    // error would otherwise get a made-up one with a stack.
    customErrorObject: (req, res, _error, { responseTime }: { responseTime: number }) =>
      accessLine(req, res, responseTime),
    customSuccessMessage: () => 'request',
    customErrorMessage: () => 'request failed',
  });
};
