import { randomUUID } from 'node:crypto';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';

// A caller's id is kept only when it is short and plain, so it cannot forge log lines.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * One log line per request with its id: `X-Request-Id` from the caller when acceptable, else a
 * new UUID, echoed back in the response header.
 */
export const requestLogging = (logger: Logger) =>
  pinoHttp({
    logger,
    genReqId: (req, res) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (_req, res, error) => {
      // A 503 is a database outage or overload, reported once per episode by the database's
      // availability monitor; one error line per refused request would bury that line.
      if (!error && res.statusCode === 503) return 'info';
      if (error || res.statusCode >= 500) return 'error';
      if (res.statusCode >= 400) return 'warn';
      return 'info';
    },
  });
