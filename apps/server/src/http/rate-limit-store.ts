import cluster from 'node:cluster';

import { ClusterMemoryStoreWorker } from '@express-rate-limit/cluster-memory-store';
import { type ClientRateLimitInfo, MemoryStore, type Options, type Store } from 'express-rate-limit';
import pTimeout, { TimeoutError } from 'p-timeout';
import { RedisStore } from 'rate-limit-redis';

import type { Logger } from '../observability/logger.js';
import type { RedisClient } from './redis-client.js';

/** At most one warning per this interval while Redis keeps failing with errors. */
const WARNING_INTERVAL_MS = 60_000;
/** While Redis does not answer, how often it is asked again (one PING at a time). */
const PROBE_INTERVAL_MS = 1_000;

/**
 * Counts kept on this machine: in a node:cluster worker (WEB_CONCURRENCY > 1), in the primary
 * process, which every worker asks (main.ts starts its side), so that a client's budget is one
 * across the workers; in a single process, in its own memory.
 */
export const localRateLimitStore = (prefix = 'rate-limit'): Store =>
  cluster.isWorker ? new ClusterMemoryStoreWorker({ prefix }) : new MemoryStore();

/**
 * Counts in Redis, so that every instance shares one budget per client; while Redis is
 * unreachable or slow, counts on this machine instead (localRateLimitStore: the cluster's
 * primary, or this process). The limit then holds per instance (at most N x the limit across N
 * instances) rather than failing open or refusing
 * every request, and the shared count resumes by itself when Redis answers again.
 */
export class RedisStoreWithFallback implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private readonly redis: RedisStore;
  private readonly memory: Store;
  private options: Options | undefined;
  private lastWarningAt = 0;
  /**
   * False from a Redis answer that did not come within the timeout until Redis answers again:
   * meanwhile requests are counted in memory at once instead of each waiting for the timeout.
   */
  private answering = true;
  private warnedOfThisEpisode = false;
  private probeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: RedisClient,
    prefix: string,
    private readonly logger: Logger,
    private readonly timeoutMs: number,
    /** The counts' name in the cluster's primary while counting locally. */
    localPrefix?: string,
  ) {
    this.prefix = prefix;
    this.memory = localRateLimitStore(localPrefix);
    this.redis = new RedisStore({ prefix, sendCommand: (...args: string[]) => client.sendCommand(args) });
    // rate-limit-redis loads its Lua scripts in init() and keeps a failed load forever, so it is
    // (re)initialised on every connection instead of once at start-up.
    client.on('ready', () => {
      this.initRedis();
      this.answersAgain();
    });
  }

  init(options: Options): void {
    this.options = options;
    void this.memory.init?.(options);
    if (this.client.isReady) this.initRedis();
  }

  private initRedis(): void {
    if (!this.options) return;
    this.redis.init(this.options).catch((error: unknown) => this.warnFailure(error));
  }

  /** Logs at most one warning per WARNING_INTERVAL_MS; says whether this one was logged. */
  private warn(fields: object, message: string): boolean {
    if (Date.now() - this.lastWarningAt < WARNING_INTERVAL_MS) return false;
    this.lastWarningAt = Date.now();
    this.logger.warn(fields, message);
    return true;
  }

  private warnFailure(error: unknown): void {
    this.warn({ err: error }, 'rate limit: Redis failed; counting in this instance until it answers again');
  }

  /**
   * A connected Redis that stops answering (a hung server or network) sends no error: the
   * commands just wait. The first one that outlasts the timeout switches counting to memory
   * until a PING is answered or the connection is made again. A busy event loop can make a
   * healthy Redis miss a short timeout too, so the warning is throttled like the others, and
   * the all-clear is logged only after a warning.
   */
  private notAnswering(): void {
    if (!this.answering) return;
    this.answering = false;
    this.warnedOfThisEpisode = this.warn(
      { timeoutMs: this.timeoutMs },
      'rate limit: Redis did not answer in time; counting in this instance until it answers again',
    );
    this.probe();
  }

  private probe(): void {
    this.client.ping().then(
      () => this.answersAgain(),
      // Not connected: the 'ready' event ends the episode; meanwhile, ask again later.
      () => {
        this.probeTimer = setTimeout(() => {
          if (!this.answering) this.probe();
        }, PROBE_INTERVAL_MS);
        this.probeTimer.unref();
      },
    );
  }

  private answersAgain(): void {
    clearTimeout(this.probeTimer);
    if (this.answering) return;
    this.answering = true;
    if (this.warnedOfThisEpisode) this.logger.info('rate limit: Redis answers again; counting there');
  }

  private async either<T>(shared: () => Promise<T>, local: () => Promise<T>): Promise<T> {
    if (!this.client.isReady || !this.answering) return local();
    try {
      return await pTimeout(shared(), { milliseconds: this.timeoutMs });
    } catch (error) {
      if (error instanceof TimeoutError) this.notAnswering();
      else this.warnFailure(error);
      return local();
    }
  }

  increment(key: string): Promise<ClientRateLimitInfo> {
    return this.either(
      () => this.redis.increment(key),
      async () => this.memory.increment(key),
    );
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.either(
      () => this.redis.get(key),
      async () => this.memory.get?.(key),
    );
  }

  decrement(key: string): Promise<void> {
    return this.either(
      () => this.redis.decrement(key),
      async () => this.memory.decrement(key),
    );
  }

  resetKey(key: string): Promise<void> {
    return this.either(
      () => this.redis.resetKey(key),
      async () => this.memory.resetKey(key),
    );
  }

  shutdown(): void {
    clearTimeout(this.probeTimer);
    void this.memory.shutdown?.();
  }
}
