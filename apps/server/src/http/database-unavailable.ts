import { ErrorCode } from '@sales-order/contract';
import type { ErrorRequestHandler, Response } from 'express';

import type { DatabaseAvailability } from '../db/database-availability.js';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import { failure } from './envelope.js';

/** Seconds a caller is asked to wait before retrying while the database does not answer. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const DATABASE_MESSAGE = 'The service is temporarily unavailable: its database did not answer in time. Retry later.';

/** 503 in the envelope with `Retry-After` (`code` names the reason in `details`). */
export const answerServiceUnavailable = (
  res: Response,
  { message = DATABASE_MESSAGE, code = 'database_unavailable' }: { message?: string; code?: string } = {},
): void => {
  res
    .status(ErrorCode.serviceUnavailable)
    .set('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS))
    .json(failure(ErrorCode.serviceUnavailable, message, [{ path: '', message, code }]));
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
