import type { Db } from '../db/transactions.js';
import type { Prisma } from '../generated/prisma/client.js';

/**
 * Every database statement about Idempotency-Keys, but the one storing a create's result: the
 * create's own statement writes that (orders/store/order-write-store.ts).
 */

export interface StoredKey {
  fingerprint: string;
  result: Prisma.JsonValue;
}

export interface KeyToClaim {
  subject: string;
  key: string;
  fingerprint: string;
  ttlHours: number;
}

export const idempotencyRepository = {
  /**
   * A key whose result was committed and has not expired yet, by the database's clock (the
   * one `claim` judges expiry by, whatever this host's clock says).
   */
  findLive: async (db: Db, subject: string, key: string): Promise<StoredKey | null> => {
    const [row] = await db.$queryRaw<StoredKey[]>`
      SELECT fingerprint, result FROM idempotency_keys WHERE subject = ${subject} AND key = ${key} AND expires_at > now()`;
    return row ?? null;
  },

  /**
   * Inserts the key as the first write of the request's transaction. While another
   * transaction holds the same (subject, key) uncommitted, the unique index makes this wait
   * for it (up to the transaction's lock_timeout); an expired row is taken over. False when a
   * live key was committed first: its result is then the answer.
   */
  claim: async (db: Db, { subject, key, fingerprint, ttlHours }: KeyToClaim): Promise<boolean> => {
    const rows = await db.$queryRaw<{ id: bigint }[]>`
      INSERT INTO idempotency_keys (subject, key, fingerprint, expires_at)
      VALUES (${subject}, ${key}, ${fingerprint}, now() + make_interval(hours => ${ttlHours}::int))
      ON CONFLICT (subject, key) DO UPDATE
        SET fingerprint = EXCLUDED.fingerprint, result = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
        WHERE idempotency_keys.expires_at <= now()
      RETURNING id`;
    return rows.length === 1;
  },

  /** Stores the result of the request that claimed the key, in its transaction. */
  storeResult: async (db: Db, subject: string, key: string, result: unknown): Promise<void> => {
    await db.$executeRaw`
      UPDATE idempotency_keys SET result = ${JSON.stringify(result)}::jsonb WHERE subject = ${subject} AND key = ${key}`;
  },

  /** Deletes a key claimed in this transaction whose request stored nothing, so a retry does the work again. */
  release: async (db: Db, subject: string, key: string): Promise<void> => {
    await db.$executeRaw`DELETE FROM idempotency_keys WHERE subject = ${subject} AND key = ${key} AND result IS NULL`;
  },

  /**
   * Sets this transaction's lock_timeout and returns the previous one, so that a wait on
   * another request's key is bounded while the rest of the transaction keeps the usual limit.
   */
  setLockTimeout: async (db: Db, timeout: string): Promise<string> => {
    const [row] = await db.$queryRaw<{ previous: string }[]>`
      SELECT current_setting('lock_timeout') AS previous, set_config('lock_timeout', ${timeout}, true) AS current`;
    return row!.previous;
  },

  /**
   * Deletes up to `batchSize` expired keys. SKIP LOCKED: a row another instance is purging,
   * or a request is taking over, is left alone instead of waited for.
   */
  purgeExpired: (db: Db, batchSize: number): Promise<number> =>
    db.$executeRaw`
      DELETE FROM idempotency_keys WHERE id IN (
        SELECT id FROM idempotency_keys WHERE expires_at <= now()
        ORDER BY expires_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)`,
};
