import type { Scope } from '../auth/scope.js';
import type { SqlDb } from '../db/sql-db.js';
import type { Db } from '../db/transactions.js';
import { withinLocations } from '../db/within-locations.js';
import type { Prisma } from '../generated/prisma/client.js';

/**
 * Every statement about Idempotency-Keys: the only module that reads or writes
 * `idempotency_keys`. Each takes a list of keys, so that a request with many keys (a bulk
 * create's items) costs the same statements as one with a single key.
 */

export interface KeyRef {
  /** The caller's identity (auth/access-context.ts identityOf): keys of different callers never meet. */
  subject: string;
  key: string;
}

export interface StoredKey extends KeyRef {
  fingerprint: string;
  result: Prisma.JsonValue;
  /** Whether the caller's scope covers every location the result is about (a replay may show it). */
  inScope: boolean;
}

export interface KeyToClaim extends KeyRef {
  fingerprint: string;
}

export interface KeyResult extends KeyRef {
  /** The result a retry gets; undefined lets the key go (its request stored nothing). */
  result: unknown;
  /** The locations the result is about: a replay goes only to a caller whose scope covers them. */
  locations: readonly number[];
}

export const idempotencyStore = {
  /**
   * The keys of `keys` whose result was committed and has not expired yet, by the database's
   * clock (the one `claim` judges expiry by, whatever this host's clock says), and whether
   * `scope` covers every location each result is about (NULL, results stored before their
   * locations were: every location).
   */
  findLive: (db: Db, keys: readonly KeyRef[], scope: Scope): Promise<StoredKey[]> =>
    db.$queryRaw<StoredKey[]>`
      SELECT k.subject, k.key, k.fingerprint, k.result, ${withinLocations(scope, { allOf: 'k.locations' })} AS "inScope"
      FROM idempotency_keys k
        JOIN unnest(${keys.map((ref) => ref.subject)}::text[], ${keys.map((ref) => ref.key)}::text[]) AS u(subject, key)
          ON k.subject = u.subject AND k.key = u.key
      WHERE k.expires_at > now()`,

  /**
   * Inserts the keys as the first write of the request's transaction, in one statement with a
   * lock_timeout of `lockTimeout` for its own waits only: while another transaction holds one
   * of them uncommitted, the unique index makes this wait for it (at most that long each, then
   * 55P03), and the transaction's own timeout is put back once every key is taken. Keys are
   * taken in (subject, key) order, so two requests sharing keys never wait for each other
   * crosswise; an expired row is taken over. Returns how many were taken: fewer than asked when
   * a live key was committed first (its result is then the answer).
   */
  claim: async (
    db: SqlDb,
    keys: readonly KeyToClaim[],
    { ttlHours, lockTimeout }: { ttlHours: number; lockTimeout: string },
  ): Promise<number> => {
    // The restore reads the count, so it runs once the inserts (and their waits) are done.
    const [row] = await db.$queryRaw<{ claimed: number }[]>`
      -- location scope: a claim stores no result yet (its locations come with it, in complete)
      WITH setting AS MATERIALIZED (
        SELECT current_setting('lock_timeout') AS previous, set_config('lock_timeout', ${lockTimeout}, true) AS slice),
      claimed AS (
        INSERT INTO idempotency_keys (subject, key, fingerprint, expires_at)
        SELECT k.subject, k.key, k.fingerprint, now() + make_interval(hours => ${ttlHours}::int)
        FROM setting, unnest(${keys.map((ref) => ref.subject)}::text[], ${keys.map((ref) => ref.key)}::text[],
          ${keys.map((ref) => ref.fingerprint)}::text[]) AS k(subject, key, fingerprint)
        ORDER BY k.subject, k.key
        ON CONFLICT (subject, key) DO UPDATE
          SET fingerprint = EXCLUDED.fingerprint, result = NULL, locations = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
          WHERE idempotency_keys.expires_at <= now()
        RETURNING 1)
      SELECT c.claimed, set_config('lock_timeout', CASE WHEN c.claimed >= 0 THEN s.previous END, true) AS restored
      FROM setting s, (SELECT count(*)::int AS claimed FROM claimed) c`;
    return row!.claimed;
  },

  /**
   * Stores the results of the request that claimed the keys, as the last write of its
   * transaction; a key without a result is let go (deleted), so a retry does the work again.
   */
  complete: async (db: SqlDb, results: readonly KeyResult[]): Promise<void> => {
    await db.$executeRaw`
      -- location scope: the result is stored with the locations it is about, which findLive checks
      WITH done AS (
        SELECT * FROM unnest(${results.map((entry) => entry.subject)}::text[], ${results.map((entry) => entry.key)}::text[],
          ${results.map((entry) => (entry.result === undefined ? null : JSON.stringify(entry.result)))}::text[]::jsonb[],
          ${results.map((entry) => `{${entry.locations.join(',')}}`)}::text[])
          AS d(subject, key, result, locations)),
      stored AS (
        UPDATE idempotency_keys k SET result = d.result, locations = d.locations::int[] FROM done d
        WHERE k.subject = d.subject AND k.key = d.key AND d.result IS NOT NULL)
      DELETE FROM idempotency_keys k USING done d
      WHERE k.subject = d.subject AND k.key = d.key AND d.result IS NULL`;
  },

  /**
   * Deletes up to `batchSize` expired keys. SKIP LOCKED: a row another instance is purging,
   * or a request is taking over, is left alone instead of waited for.
   */
  purgeExpired: (db: Db, batchSize: number): Promise<number> =>
    db.$executeRaw`
      -- location scope: none applies to purging expired keys, whoever's
      DELETE FROM idempotency_keys WHERE id IN (
        SELECT id FROM idempotency_keys WHERE expires_at <= now()
        ORDER BY expires_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)`,
};
