import cluster from 'node:cluster';

import { ErrorCode, ServiceCode } from '@sales-order/contract';
import type { Request } from 'express';
import { ipKeyGenerator, type Options, rateLimit, type Store } from 'express-rate-limit';

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

const WINDOW_MS = 60_000;

/**
 * Where counts are kept: in Redis when there is one (each instance shares them), else in this
 * machine's memory (a cluster's primary, or this process). `name` keeps each limit's counts apart.
 */
const storeFor = ({ redis, redisKeyPrefix, redisTimeoutMs, logger }: RateLimitSettings, name: string) =>
  redis
    ? new RedisStoreWithFallback(redis, `${redisKeyPrefix}${name}:`, logger, redisTimeoutMs, name)
    : cluster.isWorker
      ? localRateLimitStore(name)
      : undefined;

/** A refusal of a limit counted after the route is known (orders of a bulk create): 429 like the per-client limit. */
export class TooManyRequestsError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'TooManyRequestsError';
  }
}

/**
 * RATE_LIMIT_PER_MINUTE requests per client address in a fixed one-minute window, counted
 * before authentication so anonymous floods are limited too. The address is `req.ip`: the
 * socket's unless TRUST_PROXY names proxies whose X-Forwarded-For may be believed (IPv6 clients
 * are grouped by /56, as one user typically holds such a block). Answers carry the IETF
 * `RateLimit` and `RateLimit-Policy` headers; a 429 also `Retry-After` and the error envelope.
 */
export const rateLimitPerClient = (settings: RateLimitSettings) => {
  const { limitPerMinute, logger, onRefused = () => {} } = settings;
  // Without Redis, a single process keeps express-rate-limit's own memory store; cluster
  // workers share counts through the primary.
  const store: Store | undefined = storeFor(settings, 'rate-limit');
  const message = `Too many requests: at most ${limitPerMinute} per minute from one address`;
  return rateLimit({
    windowMs: WINDOW_MS,
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

/** The key a client's bulk orders are counted under: its address, grouped as the per-client limit groups it. */
export const quotaKeyOf = (req: Pick<Request, 'ip'>) => ipKeyGenerator(req.ip ?? '');

/**
 * BULK_ORDERS_PER_MINUTE orders per client address through bulk creates, in the same kind of
 * one-minute window and store as the per-client limit (Redis shared by every instance, else the
 * machine's memory), keyed the same way. A call's orders are counted when it is let in (one
 * hit each); a call they would take past the limit is refused whole with 429 and its orders
 * are taken off the count again, so a refused call spends nothing.
 */
export const ordersPerMinutePerClient = (settings: RateLimitSettings) => {
  const { limitPerMinute, onRefused = () => {} } = settings;
  const store: Store = storeFor(settings, 'bulk-orders') ?? localRateLimitStore('bulk-orders');
  // The store reads only the window from express-rate-limit's options.
  void store.init?.({ windowMs: WINDOW_MS } as Options);
  const times = <T>(count: number, each: () => Promise<T> | T) =>
    Promise.all(Array.from({ length: count }, () => each()));
  return {
    /**
     * Counts up to `wanted` orders under `key` (quotaKeyOf): as many as the window has left, and
     * when it resets. An import's chunks take their orders so, and wait for the reset when none
     * is left (imports/import-pace.ts).
     */
    takeUpTo: async (key: string, wanted: number): Promise<{ granted: number; resetAt: Date }> => {
      const hits = await times(wanted, () => store.increment(key));
      const over = hits.filter((hit) => hit.totalHits > limitPerMinute).length;
      if (over > 0) await times(over, () => store.decrement(key));
      const resetTime = hits.reduce((a, b) => (b.totalHits > a.totalHits ? b : a)).resetTime;
      return { granted: wanted - over, resetAt: resetTime ?? new Date(Date.now() + WINDOW_MS) };
    },
    /** Counts `count` orders of `req`'s client, or throws TooManyRequestsError (counting none). */
    take: async (req: Pick<Request, 'ip'>, count: number): Promise<void> => {
      const key = quotaKeyOf(req);
      const hits = await times(count, () => store.increment(key));
      const last = hits.reduce((a, b) => (b.totalHits > a.totalHits ? b : a));
      if (last.totalHits <= limitPerMinute) return;
      await times(count, () => store.decrement(key));
      onRefused();
      const resetInMs = (last.resetTime?.getTime() ?? Date.now() + WINDOW_MS) - Date.now();
      throw new TooManyRequestsError(
        `Too many orders: at most ${limitPerMinute} per minute from one address through bulk creates; this call has ${count}`,
        Math.max(1, Math.ceil(resetInMs / 1000)),
      );
    },
  };
};
