import { LRUCache } from 'lru-cache';

import type { Db } from '../db/transactions.js';
import type { Logger } from '../observability/logger.js';
import { type AccessContext, identityOf, type LocationList } from './access-context.js';
import { jwtSubjectScopeRepository } from './jwt-subject-scope-repository.js';

/**
 * The location scope of the latest token each JWT subject presented, kept in
 * `jwt_subject_scopes`: a JWT's grant cannot be looked up between requests (no token is kept),
 * so this is what its owner's webhook endpoints receive by (events/store/webhook-endpoint-store.ts
 * OWNER_LOCATIONS). A request writes only when its token's scope differs from the one stored:
 * each instance remembers what it last found stored per subject for at most AUTH_CACHE_TTL_MS
 * (after which it asks again, so a scope another instance recorded meanwhile is corrected within
 * that bound), and the statement itself writes nothing when the stored scope is the same.
 */

const MAX_SUBJECTS = 10_000;

/** A scope as a comparable text: `*` for every location, else the sorted ids. */
const keyOf = (locations: LocationList): string =>
  locations === null ? '*' : [...locations].sort((a, b) => a - b).join(',');

export const createJwtSubjectScopes = (db: Db, { cacheTtlMs, logger }: { cacheTtlMs: number; logger: Logger }) => {
  const known = cacheTtlMs > 0 ? new LRUCache<string, string>({ max: MAX_SUBJECTS, ttl: cacheTtlMs }) : undefined;
  return {
    /**
     * Notes the scope of a JWT caller's token. Written before the request goes on when it
     * changed, so that deliveries after the answer follow it; a failed write is logged and tried
     * again at the subject's next request, and never fails this one.
     */
    async presented(access: AccessContext): Promise<void> {
      if (access.method !== 'jwt') return;
      const identity = identityOf(access);
      const scope = keyOf(access.locations);
      if (known?.get(identity) === scope) return;
      try {
        await jwtSubjectScopeRepository.record(db, identity, access.locations);
        known?.set(identity, scope);
      } catch (error) {
        known?.delete(identity);
        logger.warn({ err: error }, "could not record a JWT subject's location scope; tried again at its next request");
      }
    },
  };
};

export type JwtSubjectScopes = ReturnType<typeof createJwtSubjectScopes>;
