import cluster from 'node:cluster';

import { ErrorCode, ServiceCode } from '@sales-order/contract';
import { rateLimit, type Store } from 'express-rate-limit';

import type { Logger } from '../observability/logger.js';
import { failure } from './envelope.js';
import { localRateLimitStore, RedisStoreWithFallback } from './rate-limit-store.js';
import type { RedisClient } from './redis-client.js';

export type RateLimitSettings = {
  limitPerMinute: number;
  /** Shared counts across instances; without it each instance counts in memory (its cluster's primary). */
  redis?: RedisClient;
  redisKeyPrefix: string;
  /** How long a Redis answer may take before the request is counted in memory instead. */
  redisTimeoutMs: number;
  logger: Logger;
  /** Called for every request refused (the metrics' count). */
  onRefused?: () => void;
};

/**
 * RATE_LIMIT_PER_MINUTE requests per client address in a fixed one-minute window, counted
 * before authentication so anonymous floods are limited too. The address is `req.ip`: the
 * socket's unless TRUST_PROXY names proxies whose X-Forwarded-For may be believed (IPv6 clients
 * are grouped by /56, as one user typically holds such a block). Answers carry the IETF
 * `RateLimit` and `RateLimit-Policy` headers; a 429 also `Retry-After` and the error envelope.
 */
export const rateLimitPerClient = ({
  limitPerMinute,
  redis,
  redisKeyPrefix,
  redisTimeoutMs,
  logger,
  onRefused = () => {},
}: RateLimitSettings) => {
  // Without Redis, a single process keeps express-rate-limit's own memory store; cluster
  // workers share counts through the primary.
  const store: Store | undefined = redis
    ? new RedisStoreWithFallback(redis, `${redisKeyPrefix}rate-limit:`, logger, redisTimeoutMs)
    : cluster.isWorker
      ? localRateLimitStore()
      : undefined;
  const message = `Too many requests: at most ${limitPerMinute} per minute from one address`;
  return rateLimit({
    windowMs: 60_000,
    limit: limitPerMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    ...(store ? { store } : {}),
    // express-rate-limit reports misconfigurations (such as an X-Forwarded-For header that
    // TRUST_PROXY does not cover) through this logger.
    logger: {
      error: (error, note) => logger.error({ err: error }, note ?? 'rate limit'),
      warn: (error, note) => logger.warn({ err: error }, note ?? 'rate limit'),
    },
    handler: (_req, res) => {
      onRefused();
      res
        .status(ErrorCode.tooManyRequests)
        .json(failure(ErrorCode.tooManyRequests, message, [{ path: '', message, code: ServiceCode.rateLimited }]));
    },
  });
};
