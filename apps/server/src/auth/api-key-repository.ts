import type { Db } from '../db/transactions.js';
import type { ApiKey } from '../generated/prisma/client.js';

/** The statements authentication makes about API keys (managing them: api-keys/store). */

/** What authenticating by a key needs of its row, and how long it has left by the database's clock. */
export type LiveApiKey = Pick<ApiKey, 'id' | 'prefix' | 'keyHash' | 'permissions' | 'lastUsedAt'> & {
  /** Location ids; NULL means every location (read in SQL: Prisma would read NULL as []). */
  locations: number[] | null;
  msLeft: number | null;
  /** The prefix of the first key of its rotation family (its own unless a rotation made it). */
  family: string;
};

export const apiKeyRepository = {
  /**
   * The unrevoked, unexpired key with this prefix; the caller compares its digest. Expiry and a
   * revocation that lies ahead (revoke_in_seconds) are compared in SQL against the database's
   * clock, like a host session's; `msLeft` is the time to the earlier of the two. `family` walks
   * its rotations back to the first key.
   */
  findLive: async (db: Db, prefix: string): Promise<LiveApiKey | null> => {
    const [row] = await db.$queryRaw<LiveApiKey[]>`
      -- location scope: none applies to authenticating; the key found carries its own locations
      SELECT k.id, k.prefix, k.key_hash AS "keyHash", k.permissions, k.locations, k.last_used_at AS "lastUsedAt",
        (EXTRACT(EPOCH FROM LEAST(k.expires_at, k.revoked_at) - now()) * 1000)::float8 AS "msLeft",
        (WITH RECURSIVE family AS (
            SELECT k.prefix, k.rotated_from_id
            UNION ALL
            SELECT p.prefix, p.rotated_from_id FROM api_keys p JOIN family f ON p.id = f.rotated_from_id)
          SELECT prefix FROM family WHERE rotated_from_id IS NULL) AS family
      FROM api_keys k
      WHERE k.prefix = ${prefix} AND (k.revoked_at IS NULL OR k.revoked_at > now())
        AND (k.expires_at IS NULL OR k.expires_at > now())`;
    return row ?? null;
  },

  /** Records uses of several keys in one statement; never moves a key's last use back. */
  recordUses: async (db: Db, uses: ReadonlyMap<number, Date>): Promise<void> => {
    const ids = [...uses.keys()];
    const times = [...uses.values()].map((at) => at.toISOString());
    await db.$executeRaw`
      -- location scope: none applies to the service's own bookkeeping of its callers' keys
      UPDATE api_keys AS k SET last_used_at = u.at
      FROM unnest(${ids}::int[], ${times}::timestamptz[]) AS u(id, at)
      WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`;
  },
};
