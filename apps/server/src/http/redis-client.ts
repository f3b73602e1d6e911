import { createClient } from 'redis';

import type { Logger } from '../observability/logger.js';

// Commands sent while not connected fail at once instead of queueing.
const createRedisClient = (url: string) =>
  createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: 2_000 } });

export type RedisClient = ReturnType<typeof createRedisClient>;

/**
 * The shared Redis (REDIS_URL). It connects, and reconnects after an outage, in the background:
 * the service starts and keeps serving while Redis is down. Commands sent while it is not
 * connected fail at once instead of queueing, so callers can fall back instead of waiting.
 */
export const connectRedis = (url: string, logger: Logger): RedisClient => {
  const client = createRedisClient(url);
  let reachable: boolean | undefined;
  client.on('ready', () => {
    reachable = true;
    logger.info('connected to Redis');
  });
  // Every failed reconnection emits an error; one line per outage is enough.
  client.on('error', (error: unknown) => {
    if (reachable !== false) logger.warn({ err: error }, 'Redis is not reachable; retrying in the background');
    reachable = false;
  });
  client.connect().catch(() => {
    // Reported through the 'error' listener above.
  });
  return client;
};

/** Closes the connection: politely when connected, at once while still trying to connect. */
export const closeRedis = async (client: RedisClient): Promise<void> => {
  if (client.isReady) await client.close();
  else client.destroy();
};
