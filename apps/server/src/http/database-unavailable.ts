import { ErrorCode, ServiceCode } from '@sales-order/contract';
import type { ErrorRequestHandler, Request, Response } from 'express';

import { isDatabaseOverloaded } from '../db/connection-gate.js';
import type { DatabaseAvailability } from '../db/database-availability.js';
import { isContention, isDatabaseUnavailable, sqlStateOf } from '../db/database-errors.js';
import { UploadsBusyError } from '../imports/upload-turns.js';
import { failure } from './envelope.js';

/** Seconds a caller is asked to wait before retrying while the database does not answer. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const DATABASE_MESSAGE = 'The service is temporarily unavailable: its database did not answer in time. Retry later.';

/** 503 in the envelope with `Retry-After` (`code` names the reason in `details`). */
export const answerServiceUnavailable = (
  res: Response,
  {
    message = DATABASE_MESSAGE,
    code = ServiceCode.databaseUnavailable,
    retryAfterSeconds = DATABASE_RETRY_AFTER_SECONDS,
  }: { message?: string; code?: ServiceCode; retryAfterSeconds?: number } = {},
): void => {
  res
    .status(ErrorCode.serviceUnavailable)
    .set('Retry-After', String(retryAfterSeconds))
    .json(failure(ErrorCode.serviceUnavailable, message, [{ path: '', message, code }]));
};

/** Seconds a caller is asked to wait after meeting another request's lock: contention passes quickly. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * A 503 that is not an outage (contention, a shed request): a short Retry-After, logged at info
 * by `log` (alerts on warnings and errors stay for outages and faults), neither reported to the
 * availability monitor nor counted as an outage.
 */
const passingTroubleHandler =
  (
    matches: (error: unknown) => boolean,
    { code, message }: { code: ServiceCode; message: string },
    log: (req: Request, error: unknown) => void,
  ): ErrorRequestHandler =>
  (error: unknown, req, res, next) => {
    if (!matches(error)) {
      next(error);
      return;
    }
    log(req, error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    answerServiceUnavailable(res, { message, code, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
  };

/**
 * Contention: lock_timeout ended a wait for another request's lock (after the retries its
 * deadline allowed, db/transactions.ts), or statement_timeout ended a statement queued behind
 * such locks: 503 `busy`. A failed write was rolled back as a whole, so the same request can be
 * retried as it is.
 */
export const contentionHandler = passingTroubleHandler(
  isContention,
  {
    code: ServiceCode.busy,
    message:
      'The service is busy: another request held what this one needed (the order or its series) for too long, or its statement ran past its time. Retry later.',
  },
  (req, error) => req.log.info({ sqlState: sqlStateOf(error) }, 'lock wait timed out: another request held the lock'),
);

/**
 * A request shed by the connection gate (db/connection-gate.ts): 503 `overloaded`. The shed
 * checkout is refused before its statement or transaction starts: that one changed nothing.
 */
export const overloadHandler = passingTroubleHandler(
  isDatabaseOverloaded,
  {
    code: ServiceCode.overloaded,
    message:
      'The service has more requests than it can serve in time: this one could not get a database connection before its deadline. Retry later.',
  },
  (req) => req.log.info('shed: no database connection before the request deadline'),
);

/** An upload whose turn among the files being read did not come before its deadline: 503 `overloaded`. */
export const uploadsBusyHandler = passingTroubleHandler(
  (error) => error instanceof UploadsBusyError,
  {
    code: ServiceCode.overloaded,
    message:
      'The service is reading as many import files as it reads at once (IMPORT_UPLOADS_CONCURRENT): this one could not start before its deadline. Retry later.',
  },
  (req) => req.log.info('shed: no import upload turn before the request deadline'),
);

/**
 * Answers 503 for failures that mean the database is unreachable, hung or overloaded; anything
 * else goes on to the general error handler (a genuine fault stays a 500). The outage is logged
 * once by `availability`, not here per request.
 */
export const databaseUnavailableHandler =
  (availability: DatabaseAvailability, onAnswered: () => void = () => {}): ErrorRequestHandler =>
  (error: unknown, _req, res, next) => {
    if (!isDatabaseUnavailable(error)) {
      next(error);
      return;
    }
    availability.reportFailure(error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    onAnswered();
    answerServiceUnavailable(res);
  };
