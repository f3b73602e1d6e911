import { AuthenticationCode } from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import { unauthenticated } from '../errors/domain-error.js';
import { type AccessContext, MAX_SUBJECT_LENGTH } from './access-context.js';
import { createCredentialCache } from './credential-cache.js';
import { resolveLocations } from './location-scopes.js';
import { sessionRepository } from './session-repository.js';
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

const invalidSession = () => unauthenticated('The session is not valid', AuthenticationCode.invalidSession);

/**
 * The user of a session is kept in a cache by the token's SHA-256 (see credential-cache.ts:
 * successes only, at most AUTH_CACHE_TTL_MS and never past the session's expiry, dropped at once
 * when the database announces that the host changed or deleted the row).
 */
/**
 * The caller of the live session whose token has the SHA-256 `digest`, as it reads now, and how
 * long it has left; null for none. Also how an import's chunks look at their starter again.
 */
export const sessionAccessOf = async (
  db: Db,
  digest: string,
): Promise<{ value: AccessContext; msLeft: number } | null> => {
  const session = await sessionRepository.findLive(db, digest);
  if (!session) return null;
  if (session.userId === '' || session.userId.length > MAX_SUBJECT_LENGTH) return null;
  // The host may leave the array NULL; that is a session without permissions.
  const access: AccessContext = {
    subject: session.userId,
    permissions: new Set(session.permissions ?? []),
    method: 'session',
    // NULL is every location. Entries naming no location are dropped: the scope only narrows
    // (a typo of the host's never widens it, and the clerk keeps the locations that exist).
    locations: session.locations === null ? null : (await resolveLocations(db, session.locations)).ids,
    credential: { sessionDigest: digest },
  };
  return { value: access, msLeft: session.msLeft };
};

export const createSessionService = (db: Db, { cacheTtlMs }: { cacheTtlMs: number }) => {
  const cache = createCredentialCache<AccessContext>(cacheTtlMs);
  const lookup = (digest: string) => sessionAccessOf(db, digest);

  return {
    cache,
    /** The user of a live session; unknown, expired and revoked sessions are all "not valid". */
    async authenticate(token: string): Promise<AccessContext> {
      if (token.length > MAX_TOKEN_LENGTH) throw invalidSession();
      const digest = sha256Hex(token);
      const access = await cache.get(digest, () => lookup(digest));
      if (!access) throw invalidSession();
      return access;
    },
  };
};

export type SessionService = ReturnType<typeof createSessionService>;
