import { ErrorCode, ServiceCode } from '@sales-order/contract';
import type { ErrorRequestHandler, Response } from 'express';

import { isDatabaseOverloaded } from '../db/connection-gate.js';
import type { DatabaseAvailability } from '../db/database-availability.js';
import { isDatabaseUnavailable, isLockNotAvailable, sqlStateOf } from '../db/database-errors.js';
import { failure } from './envelope.js';

/** Seconds a caller is asked to wait before retrying while the database does not answer. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const DATABASE_MESSAGE = 'The service is temporarily unavailable: its database did not answer in time. Retry later.';

/** 503 in the envelope with `Retry-After` (`code` names the reason in `details`). */
export const answerServiceUnavailable = (
  res: Response,
  { message = DATABASE_MESSAGE, code = ServiceCode.databaseUnavailable }: { message?: string; code?: ServiceCode } = {},
): void => {
  res
    .status(ErrorCode.serviceUnavailable)
    .set('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS))
    .json(failure(ErrorCode.serviceUnavailable, message, [{ path: '', message, code }]));
};

/** Seconds a caller is asked to wait after meeting another request's lock: contention passes quickly. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

const BUSY_MESSAGE =
  'The service is busy: another request held what this one needed (the order or its series) for too long. Retry later.';

/**
 * Lock contention (lock_timeout ended a wait for another request's lock) is not an outage: 503
 * `busy` with a short Retry-After, logged at info (alerts on warnings and errors stay for
 * outages and faults), neither reported to the availability monitor nor counted as an outage.
 * A failed write was rolled back as a whole, so the same request can be retried as it is.
 */
export const lockContentionHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (!isLockNotAvailable(error)) {
    next(error);
    return;
  }
  req.log.info({ sqlState: sqlStateOf(error) }, 'lock wait timed out: another request held the lock');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res
    .status(ErrorCode.serviceUnavailable)
    .set('Retry-After', String(BUSY_RETRY_AFTER_SECONDS))
    .json(
      failure(ErrorCode.serviceUnavailable, BUSY_MESSAGE, [
        { path: '', message: BUSY_MESSAGE, code: ServiceCode.busy },
      ]),
    );
};

const OVERLOADED_MESSAGE =
  'The service has more requests than it can serve in time: this one could not get a database connection before its deadline. Retry later.';

/**
 * A request shed by the connection gate (db/connection-gate.ts) is not an outage either: 503
 * `overloaded` with a short Retry-After, logged at info, not reported to the availability monitor.
 * The shed checkout is refused before its statement or transaction starts: that one changed nothing.
 */
export const overloadHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (!isDatabaseOverloaded(error)) {
    next(error);
    return;
  }
  req.log.info('shed: no database connection before the request deadline');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res
    .status(ErrorCode.serviceUnavailable)
    .set('Retry-After', String(BUSY_RETRY_AFTER_SECONDS))
    .json(
      failure(ErrorCode.serviceUnavailable, OVERLOADED_MESSAGE, [
        { path: '', message: OVERLOADED_MESSAGE, code: ServiceCode.overloaded },
      ]),
    );
};

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
