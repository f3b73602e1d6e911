import pg from 'pg';

import type { Logger } from '../observability/logger.js';

/** The channels the database's triggers notify (migration 20261122073400_change_notifications). */
export const CREDENTIALS_CHANNEL = 'credentials_changed';
export const MASTER_DATA_CHANNEL = 'master_data_changed';
const CHANNELS = [CREDENTIALS_CHANNEL, MASTER_DATA_CHANNEL];

const RECONNECT_FIRST_DELAY_MS = 500;
const RECONNECT_MAX_DELAY_MS = 30_000;

/**
 * What the database's triggers say changed, for caches to drop what they hold. Notices can be
 * missed (while the listening connection is down): `onReset` tells when to forget everything.
 */
export type ChangeNotifications = {
  /** Calls `listener` with the payload of every notice on `channel`. */
  on(channel: string, listener: (payload: string) => void): void;
  /** Calls `listener` whenever notices may have been missed: on losing and on (re)gaining LISTEN. */
  onReset(listener: () => void): void;
  /** True while LISTEN is in place, so changes are heard as they commit. */
  readonly listening: boolean;
  close(): Promise<void>;
};

/** For a database that cannot notify (the embedded one): caches rely on their TTL alone. */
export const noChangeNotifications = (): ChangeNotifications => ({
  on: () => {},
  onReset: () => {},
  listening: false,
  close: async () => {},
});

/**
 * LISTENs on its own connection (a pooled one would be handed to queries), reconnecting with a
 * growing delay when it is lost; caches are reset both when it is lost and when it is back.
 */
export const listenForChanges = (
  url: string,
  { connectTimeoutMs, logger }: { connectTimeoutMs: number; logger: Logger },
): ChangeNotifications => {
  const listeners = new Map<string, ((payload: string) => void)[]>();
  const resetListeners: (() => void)[] = [];
  let listening = false;
  let closed = false;
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = RECONNECT_FIRST_DELAY_MS;
  // Said 'lost' (LISTEN was in place and went): only then is a reconnect news worth a line. A
  // first connection that needs a retry at start-up was never lost.
  let lossReported = false;

  const reset = () => {
    for (const listener of resetListeners) listener();
  };

  const lost = (error?: unknown) => {
    if (client === undefined) return;
    client.removeAllListeners();
    // An error event after this must not crash the process.
    client.on('error', () => {});
    client.end().catch(() => {});
    client = undefined;
    // At info: a lost database is reported once per outage by the availability monitor; this
    // line only says why caches now rely on their TTL.
    if (listening) {
      logger.info(
        { reason: error instanceof Error ? error.message : undefined },
        'change notifications lost: caches rely on their TTL until they are back',
      );
      lossReported = true;
    }
    listening = false;
    reset();
    if (!closed) {
      retryTimer = setTimeout(connect, delay);
      retryTimer.unref();
      delay = Math.min(delay * 2, RECONNECT_MAX_DELAY_MS);
    }
  };

  const connect = () => {
    const candidate = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
    });
    client = candidate;
    candidate.on('error', lost);
    candidate.on('end', () => lost(new Error('the connection ended')));
    candidate.on('notification', ({ channel, payload }) => {
      for (const listener of listeners.get(channel) ?? []) listener(payload ?? '');
    });
    candidate
      .connect()
      .then(() => candidate.query(CHANNELS.map((channel) => `LISTEN ${channel}`).join('; ')))
      .then(() => {
        if (client !== candidate) return;
        if (lossReported) logger.info('change notifications are back');
        lossReported = false;
        listening = true;
        delay = RECONNECT_FIRST_DELAY_MS;
        // Whatever changed while nobody listened is unknown: start afresh.
        reset();
      })
      .catch((error: unknown) => {
        if (client === candidate) lost(error);
      });
  };

  connect();

  return {
    on(channel, listener) {
      listeners.set(channel, [...(listeners.get(channel) ?? []), listener]);
    },
    onReset(listener) {
      resetListeners.push(listener);
    },
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const current = client;
      client = undefined;
      listening = false;
      if (current) {
        current.removeAllListeners();
        current.on('error', () => {});
        await current.end().catch(() => {});
      }
    },
  };
};
