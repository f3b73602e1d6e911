import { unauthenticated } from '../errors/domain-error.js';
import type { PrismaClient, Session } from '../generated/prisma/client.js';
import { MAX_SUBJECT_LENGTH, type Principal } from './principal.js';
import { sha256Hex } from './token-hash.js';

/**
 * The host ERP's browser session: its cookie value is looked up by SHA-256 in the `sessions`
 * table that the host writes. The lookup is by the digest of what the caller sent, so its
 * timing tells nothing about stored digests. Expiry and revocation are compared in SQL against
 * the database's clock (`now()`), the clock the host wrote them by, so neither the service's
 * clock nor any time-zone setting moves the moment a session ends.
 */

// Longer values are not session ids; refusing them early keeps hashing cheap.
const MAX_TOKEN_LENGTH = 4096;

const invalidSession = () => unauthenticated('The session is not valid', 'invalid_session');

export const createSessionService = (prisma: PrismaClient) => ({
  /** The user of a live session; unknown, expired and revoked sessions are all "not valid". */
  async authenticate(token: string): Promise<Principal> {
    if (token.length > MAX_TOKEN_LENGTH) throw invalidSession();
    const [session] = await prisma.$queryRaw<Pick<Session, 'userId' | 'permissions'>[]>`
      SELECT user_id AS "userId", permissions FROM sessions
      WHERE token_hash = ${sha256Hex(token)} AND revoked_at IS NULL AND expires_at > now()`;
    if (!session) throw invalidSession();
    if (session.userId === '' || session.userId.length > MAX_SUBJECT_LENGTH) throw invalidSession();
    // The host may leave the array NULL; that is a session without permissions.
    return { subject: session.userId, permissions: new Set(session.permissions ?? []), method: 'session' };
  },
});

export type SessionService = ReturnType<typeof createSessionService>;
