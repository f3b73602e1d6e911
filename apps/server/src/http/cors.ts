import cors from 'cors';
import type { RequestHandler } from 'express';

/**
 * CORS for the host ERP's pages on ALLOWED_ORIGINS, with credentials (the session cookie).
 * Preflights get their headers here but are answered only after the rate limit has counted
 * them (`answerPreflight`), so an OPTIONS flood is limited like any other.
 */
export const corsForAllowedOrigins = (allowedOrigins: readonly string[]): RequestHandler =>
  cors({
    origin: allowedOrigins.length > 0 ? [...allowedOrigins] : false,
    credentials: true,
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'Idempotency-Key', 'If-Match', 'If-None-Match'],
    exposedHeaders: ['Location', 'ETag', 'Idempotent-Replayed', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'WWW-Authenticate', 'X-Request-Id'],
    maxAge: 600,
    preflightContinue: true,
  });

/** Ends OPTIONS requests (CORS preflights) with 204 and the headers set above. */
export const answerPreflight: RequestHandler = (req, res, next) => {
  if (req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
};
