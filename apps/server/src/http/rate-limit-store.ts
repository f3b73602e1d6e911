import { type ClientRateLimitInfo, MemoryStore, type Options, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { Logger } from '../logger.js';
import type { RedisClient } from '../redis.js';

/** How long a Redis answer may take before the request is counted locally instead. */
const REDIS_TIMEOUT_MS = 500;
/** At most one warning per this interval while Redis keeps failing. */
const WARNING_INTERVAL_MS = 60_000;

const withTimeout = <T>(work: Promise<T>): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${REDIS_TIMEOUT_MS} ms`)), REDIS_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
};

/**
 * Counts in Redis, so that every instance shares one budget per client; while Redis is
 * unreachable or slow, counts in this process's memory instead. The limit then holds per
 * instance (at most N x the limit across N instances) rather than failing open or refusing
 * every request, and the shared count resumes by itself when Redis answers again.
 */
export class RedisStoreWithFallback implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private readonly redis: RedisStore;
  private readonly memory = new MemoryStore();
  private options: Options | undefined;
  private lastWarningAt = 0;

  constructor(
    private readonly client: RedisClient,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.prefix = prefix;
    this.redis = new RedisStore({ prefix, sendCommand: (...args: string[]) => client.sendCommand(args) });
    // rate-limit-redis loads its Lua scripts in init() and keeps a failed load forever, so it is
    // (re)initialised on every connection instead of once at start-up.
    client.on('ready', () => this.initRedis());
  }

  init(options: Options): void {
    this.options = options;
    this.memory.init(options);
    if (this.client.isReady) this.initRedis();
  }

  private initRedis(): void {
    if (!this.options) return;
    this.redis.init(this.options).catch((error: unknown) => this.warn(error));
  }

  private warn(error: unknown): void {
    if (Date.now() - this.lastWarningAt < WARNING_INTERVAL_MS) return;
    this.lastWarningAt = Date.now();
    this.logger.warn({ err: error }, 'rate limit: Redis failed; counting in this instance until it answers again');
  }

  private async either<T>(shared: () => Promise<T>, local: () => Promise<T>): Promise<T> {
    if (!this.client.isReady) return local();
    try {
      return await withTimeout(shared());
    } catch (error) {
      this.warn(error);
      return local();
    }
  }

  increment(key: string): Promise<ClientRateLimitInfo> {
    return this.either(
      () => this.redis.increment(key),
      () => this.memory.increment(key),
    );
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.either(
      () => this.redis.get(key),
      () => this.memory.get(key),
    );
  }

  decrement(key: string): Promise<void> {
    return this.either(
      () => this.redis.decrement(key),
      () => this.memory.decrement(key),
    );
  }

  resetKey(key: string): Promise<void> {
    return this.either(
      () => this.redis.resetKey(key),
      () => this.memory.resetKey(key),
    );
  }

  shutdown(): void {
    this.memory.shutdown();
  }
}
