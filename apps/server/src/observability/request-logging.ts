import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Express } from 'express';
import { type Level, stdSerializers } from 'pino';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf, scopeSize } from '../auth/scope.js';
import type { Logger } from './logger.js';

declare global {
  // Express's own extension point for request properties (declaration merging).
  namespace Express {
    interface Request {
      /** The request's id: the acceptable X-Request-Id sent, else a new UUID. */
      id: string;
      /** A logger whose lines carry this request's id (`reqId`). */
      log: Logger;
    }
  }
}

// A caller's id is kept only when it is short and plain, so it cannot forge log lines.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Load balancers probe these every few seconds: at info they would drown the real traffic.
const HEALTH_PROBES = new Set(['/healthz', '/readyz']);

// A path is the caller's text: cut so that one request cannot make a long line.
const MAX_LOGGED_PATH = 256;

type LoggedRequest = IncomingMessage & { originalUrl?: string; access?: AccessContext };

/** The path without its query string (which can be long and is not needed to follow a request). */
const pathOf = (req: LoggedRequest): string => {
  const path = (req.originalUrl ?? req.url ?? '').split('?', 1)[0] ?? '';
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}...` : path;
};

const requestIdOf = (req: IncomingMessage): string => {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
};

const levelOf = (req: LoggedRequest, res: ServerResponse): Level => {
  // A 503 is a database outage or overload, reported once per episode by the database's
  // availability monitor; one error line per refused request would bury that line.
  if (res.statusCode === 503) return 'info';
  if (res.statusCode >= 500) return 'error';
  if (res.statusCode >= 400) return 'warn';
  return HEALTH_PROBES.has(pathOf(req)) ? 'debug' : 'info';
};

/**
 * One concise line per request (reqId, method, path, status, duration, subject) when its
 * answer is sent (`request`; `request failed` for a 5xx) or its connection closes first
 * (`request aborted`, at warn, with `aborted: true` and no status unless one was sent), with its
 * id: `X-Request-Id` from the caller when acceptable, else a new UUID, echoed back in the
 * response header. Headers are logged only at `debug` (credentials redacted, see logger.ts),
 * successful health probes only at `debug`.
 *
 * Written here rather than with pino-http, which builds two child loggers per request (with
 * redaction over the whole request object) before it logs anything: that was about a tenth of
 * the CPU time of a request that does no database work. Here a request gets a child logger only
 * when something logs through `req.log`, which is rare (failures). Installed on `app` first,
 * before any other middleware.
 */
export const useRequestLogging = (app: Express, logger: Logger): void => {
  // Built once: the serializers print headers under these keys at debug, as pino-http did.
  const accessLog = logger.child({}, { serializers: { req: stdSerializers.req, res: stdSerializers.res } });
  // `req.log` is a getter on this app's request prototype, defined once: a property defined on
  // each request would change the shape of every request object and slow all later reads of it.
  const requestLoggers = new WeakMap<object, Logger>();
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Express['request']): Logger {
      let requestLogger = requestLoggers.get(this);
      if (!requestLogger) {
        requestLogger = logger.child({ reqId: this.id });
        requestLoggers.set(this, requestLogger);
      }
      return requestLogger;
    },
  });
  app.use((req, res, next) => {
    const startedAt = performance.now();
    const id = requestIdOf(req);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    // 'close' before 'finish': the caller (or a proxy's timeout) went away before the whole
    // answer was written. res.statusCode would still say 200 then, for an answer never sent.
    const onDone = (answered: boolean) => {
      res.off('finish', onFinish);
      res.off('close', onClose);
      const level = answered ? levelOf(req, res) : 'warn';
      if (!accessLog.isLevelEnabled(level)) return;
      accessLog[level](
        {
          reqId: id,
          method: req.method,
          path: pathOf(req),
          ...(res.headersSent ? { status: res.statusCode } : {}),
          ...(answered ? {} : { aborted: true }),
          durationMs: Math.round(performance.now() - startedAt),
          ...(req.access ? { subject: req.access.subject, scope: scopeSize(scopeOf(req.access)) } : {}),
          ...(accessLog.isLevelEnabled('debug') ? { req, res } : {}),
        },
        answered ? (res.statusCode >= 500 ? 'request failed' : 'request') : 'request aborted',
      );
    };
    const onFinish = () => onDone(true);
    const onClose = () => onDone(false);
    res.on('finish', onFinish);
    res.on('close', onClose);
    next();
  });
};
