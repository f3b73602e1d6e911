import { AccessCode } from '@sales-order/contract';
import type { RequestHandler } from 'express';

import { forbidden } from '../errors/domain-error.js';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A browser attaches the host session cookie to requests that other sites make it send, so a
 * cookie-authenticated write must show it comes from a page we trust: its Origin is one of
 * ALLOWED_ORIGINS or this service's own origin. Browsers send Origin on every cross-origin
 * request and on same-origin POST/PUT/PATCH/DELETE, so a write without one did not come from a
 * current browser page and is refused too. Bearer and ApiKey callers are not affected: a
 * browser cannot be made to attach those.
 */
export const requireTrustedOriginForSessions = (allowedOrigins: readonly string[]): RequestHandler => {
  const allowed = new Set(allowedOrigins);
  return (req, _res, next) => {
    if (req.access?.method !== 'session' || !UNSAFE_METHODS.has(req.method)) {
      next();
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && (allowed.has(origin) || origin === `${req.protocol}://${req.get('host')}`)) {
      next();
      return;
    }
    next(forbidden('Cookie-authenticated changes are accepted only from allowed origins', AccessCode.originNotAllowed));
  };
};
