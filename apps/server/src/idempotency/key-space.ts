import { type AccessContext, API_KEY_SUBJECT_PREFIX, identityOf } from '../auth/access-context.js';

/**
 * The space a caller's Idempotency-Keys live in (the `subject` of idempotency_keys): its identity
 * across methods (identityOf), except that every key of one API key's rotation family (the
 * first key and its successors) shares the first key's space. A rotation hands the same caller a
 * new secret; a retry sent with the successor's secret is still the same request, and replays
 * instead of doing the work again. The family is read when the key authenticates
 * (auth/api-key-repository.ts) and never changes for a key: a rotation only adds a successor.
 */
export const keySpaceOf = (access: Pick<AccessContext, 'method' | 'subject' | 'keyFamily'>): string =>
  access.method === 'api_key' && access.keyFamily !== undefined
    ? `${API_KEY_SUBJECT_PREFIX}${access.keyFamily}`
    : identityOf(access);
