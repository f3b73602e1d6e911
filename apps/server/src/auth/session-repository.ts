import type { Db } from '../db/transactions.js';
import type { Session } from '../generated/prisma/client.js';

/**
 * Every statement about host sessions. The host ERP owns the `sessions` table; the service only
 * reads it, but for the CLI that writes a row as the host's login would (cli/host-session.ts).
 * Expiry and revocation are compared against the database's clock (`now()`), the clock the host
 * writes them by.
 */

/** A live session, and how long it has left by the database's clock. */
export type LiveSession = Pick<Session, 'userId' | 'permissions'> & {
  /** As the host wrote it: codes or ids; NULL means every location. */
  locations: string[] | null;
  msLeft: number;
};

export const sessionRepository = {
  /** The unrevoked, unexpired session whose token has this SHA-256; null otherwise. */
  findLive: async (db: Db, tokenDigest: string): Promise<LiveSession | null> => {
    const [session] = await db.$queryRaw<LiveSession[]>`
      SELECT user_id AS "userId", permissions, locations, (EXTRACT(EPOCH FROM expires_at - now()) * 1000)::float8 AS "msLeft"
      FROM sessions
      WHERE token_hash = ${tokenDigest} AND revoked_at IS NULL AND expires_at > now()`;
    return session ?? null;
  },

  /** Writes a session as the host's login would: valid for `hours` from now by the database's clock. */
  insert: async (
    db: Db,
    session: {
      tokenDigest: string;
      userId: string;
      permissions: string[];
      locations: string[] | null;
      hours: number;
    },
  ): Promise<void> => {
    await db.$executeRaw`
      INSERT INTO sessions (token_hash, user_id, permissions, locations, expires_at)
      VALUES (${session.tokenDigest}, ${session.userId}, ${session.permissions}, ${session.locations}::text[],
        now() + make_interval(hours => ${session.hours}))`;
  },
};
