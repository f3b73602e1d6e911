import type { Db } from '../db/transactions.js';
import { type AccessContext, API_KEY_SUBJECT_PREFIX } from './access-context.js';
import { currentKeyAccess } from './api-keys.js';
import { sessionAccessOf } from './sessions.js';

/**
 * A caller's access as it reads now, for work it started that goes on after its request (an
 * import's chunks): null once its credential no longer works.
 * - An API key: its row now (revoked, expired or narrowed since shows here).
 * - A host session: its row now, by the token's SHA-256 kept at the start.
 * - A JWT cannot be looked up: the token's claims at the start, until its exp (no leeway).
 * A starter whose credential cannot be told (a session without its digest) is treated as ended.
 */
export const currentAccessOf = async (db: Db, starter: AccessContext, now: Date): Promise<AccessContext | null> => {
  const { method, subject, credential } = starter;
  if (method === 'api_key')
    return subject.startsWith(API_KEY_SUBJECT_PREFIX)
      ? currentKeyAccess(db, subject.slice(API_KEY_SUBJECT_PREFIX.length))
      : null;
  if (method === 'session')
    return credential && 'sessionDigest' in credential
      ? ((await sessionAccessOf(db, credential.sessionDigest))?.value ?? null)
      : null;
  return credential && 'tokenExpiresAt' in credential && credential.tokenExpiresAt > now ? starter : null;
};
