import type { Db } from '../db/transactions.js';
import { type ApiKey, Prisma } from '../generated/prisma/client.js';

/** Every statement about API keys. */

export type ApiKeySummary = Pick<
  ApiKey,
  'prefix' | 'name' | 'permissions' | 'createdAt' | 'expiresAt' | 'revokedAt' | 'lastUsedAt'
> & {
  /** Location ids; null means every location. */
  locations: number[] | null;
};

/** What authenticating by a key needs of its row, and how long it has left by the database's clock. */
export type LiveApiKey = Pick<ApiKey, 'id' | 'prefix' | 'keyHash' | 'permissions' | 'lastUsedAt'> & {
  /** Location ids; NULL means every location. */
  locations: number[] | null;
  msLeft: number | null;
};

/**
 * Summaries in SQL: Prisma reads a NULL list as [], which would show a key of every location
 * as a key of none.
 */
const summariesWhere = (db: Db, condition: Prisma.Sql): Promise<ApiKeySummary[]> =>
  db.$queryRaw<ApiKeySummary[]>`
    SELECT prefix, name, permissions, locations, created_at AS "createdAt", expires_at AS "expiresAt",
      revoked_at AS "revokedAt", last_used_at AS "lastUsedAt"
    FROM api_keys WHERE ${condition} ORDER BY id`;

export const apiKeyRepository = {
  insert: async (
    db: Db,
    {
      locations,
      ...key
    }: {
      name: string;
      prefix: string;
      keyHash: string;
      permissions: string[];
      locations: number[] | null;
      expiresAt: Date | null;
    },
  ): Promise<ApiKeySummary> => {
    // An omitted list stays NULL (every location); Prisma's types have no null for a list.
    const { id } = await db.apiKey.create({
      data: locations === null ? key : { ...key, locations },
      select: { id: true },
    });
    return (await summariesWhere(db, Prisma.sql`id = ${id}::int`))[0]!;
  },

  /** Revokes the unrevoked key with this prefix; false when there is none. */
  revoke: async (db: Db, prefix: string, at: Date): Promise<boolean> => {
    const { count } = await db.apiKey.updateMany({ where: { prefix, revokedAt: null }, data: { revokedAt: at } });
    return count > 0;
  },

  exists: async (db: Db, prefix: string): Promise<boolean> => (await db.apiKey.count({ where: { prefix } })) > 0,

  list: (db: Db): Promise<ApiKeySummary[]> => summariesWhere(db, Prisma.sql`true`),

  /**
   * The unrevoked, unexpired key with this prefix; the caller compares its digest. Expiry is
   * compared in SQL against the database's clock, like a host session's.
   */
  findLive: async (db: Db, prefix: string): Promise<LiveApiKey | null> => {
    const [row] = await db.$queryRaw<LiveApiKey[]>`
      SELECT id, prefix, key_hash AS "keyHash", permissions, locations, last_used_at AS "lastUsedAt",
        (EXTRACT(EPOCH FROM expires_at - now()) * 1000)::float8 AS "msLeft"
      FROM api_keys
      WHERE prefix = ${prefix} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`;
    return row ?? null;
  },

  /** Records uses of several keys in one statement; never moves a key's last use back. */
  recordUses: async (db: Db, uses: ReadonlyMap<number, Date>): Promise<void> => {
    const ids = [...uses.keys()];
    const times = [...uses.values()].map((at) => at.toISOString());
    await db.$executeRaw`
      UPDATE api_keys AS k SET last_used_at = u.at
      FROM unnest(${ids}::int[], ${times}::timestamptz[]) AS u(id, at)
      WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`;
  },
};
