import { apiContract } from '@sales-order/contract';
import cors from 'cors';
import type { RequestHandler } from 'express';

/** Every method a route of the contract answers (PATCH for webhook endpoints among them). */
const CONTRACT_METHODS = [...new Set(Object.values(apiContract).map((route) => route.method))].sort();

/**
 * CORS for the host ERP's pages on ALLOWED_ORIGINS, with credentials (the session cookie).
 * Other origins get no `Access-Control-*` header at all (only `Vary: Origin`, since the answer
 * depends on it), so nothing about the API's CORS settings is shown to them.
 * Preflights get their headers here but are answered only after the rate limit has counted
 * them (`answerPreflight`), so an OPTIONS flood is limited like any other.
 */
export const corsForAllowedOrigins = (allowedOrigins: readonly string[]): RequestHandler => {
  const allowed = new Set(allowedOrigins);
  const forAllowedOrigin = cors({
    // Only called for an allowed origin, which it echoes.
    origin: true,
    credentials: true,
    // From the contract, so that a route's method is never left out (a hand-written list once left PATCH out).
    methods: CONTRACT_METHODS,
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'Idempotency-Key', 'If-Match', 'If-None-Match'],
    exposedHeaders: [
      'Location',
      'ETag',
      'Idempotent-Replayed',
      'Retry-After',
      'RateLimit',
      'RateLimit-Policy',
      'WWW-Authenticate',
      'X-Request-Id',
    ],
    maxAge: 600,
    preflightContinue: true,
  });
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && allowed.has(origin)) {
      forAllowedOrigin(req, res, next);
      return;
    }
    res.vary('Origin');
    next();
  };
};

/** Ends OPTIONS requests (CORS preflights) with 204 and the headers set above. */
export const answerPreflight: RequestHandler = (req, res, next) => {
  if (req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
};
