import { randomBytes, randomInt } from 'node:crypto';

import { AuthenticationCode } from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import { unauthenticated } from '../errors/domain-error.js';
import { type AccessContext, API_KEY_SUBJECT_PREFIX } from './access-context.js';
import { apiKeyRepository, type LiveApiKey } from './api-key-repository.js';
import { createCredentialCache } from './credential-cache.js';
import type { LastUsedRecorder } from './last-used-recorder.js';
import { digestsEqual, sha256Hex } from './token-hash.js';

/**
 * `Authorization: ApiKey <key>` for machine callers. A key reads `sok_<8 chars>_<43 chars>`:
 * the first 12 characters are its prefix, stored in clear to find the row and to name the key;
 * the whole key is stored only as its SHA-256 and is shown once, when it is created. Creating,
 * rotating and revoking keys is api-keys/; this is what authenticating by one needs.
 */

const KEY_SCHEME = 'sok_';
const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const KEY_PATTERN = /^(sok_[a-z2-7]{8})_[A-Za-z0-9_-]{43}$/;
const PREFIX_PATTERN = /^sok_[a-z2-7]{8}$/;

/** last_used_at is refreshed at most this often per key, so busy keys do not write on every use. */
export const LAST_USED_RESOLUTION_MS = 60_000;

const invalidKey = () => unauthenticated('The API key is not valid', AuthenticationCode.invalidApiKey);

/**
 * A new key from the CSPRNG: `sok_` + 8 base32 characters (40 random bits) + `_` + 32 random
 * bytes in base64url; with its prefix and the SHA-256 that is all the database keeps of it.
 */
export const generateApiKey = () => {
  const id = Array.from({ length: 8 }, () => PREFIX_ALPHABET[randomInt(PREFIX_ALPHABET.length)]).join('');
  const prefix = `${KEY_SCHEME}${id}`;
  const key = `${prefix}_${randomBytes(32).toString('base64url')}`;
  return { prefix, key, keyHash: sha256Hex(key) };
};

/** The prefix a whole key or a prefix names, or undefined when the text is neither. */
export const prefixNamedBy = (prefixOrKey: string): string | undefined => {
  const prefix = KEY_PATTERN.exec(prefixOrKey)?.[1] ?? prefixOrKey;
  return PREFIX_PATTERN.test(prefix) ? prefix : undefined;
};

/** Whether `key` is a stored key, unrevoked and unexpired; no side effects. */
export const isLiveApiKey = async (db: Db, key: string): Promise<boolean> => {
  const prefix = KEY_PATTERN.exec(key)?.[1];
  return prefix !== undefined && (await findLiveKey(db, prefix, sha256Hex(key))) !== null;
};

type AuthenticatedKey = { id: number; access: AccessContext };

/** The caller a live key's row is. */
const accessOfKey = (row: LiveApiKey): AccessContext => ({
  subject: `${API_KEY_SUBJECT_PREFIX}${row.prefix}`,
  permissions: new Set(row.permissions),
  method: 'api_key',
  locations: row.locations,
  keyFamily: row.family,
});

/**
 * The caller of the key with this prefix as it reads now (unrevoked and unexpired), without its
 * secret: how an import's chunks look at the key that started it again; null when it has ended.
 */
export const currentKeyAccess = async (db: Db, prefix: string): Promise<AccessContext | null> => {
  const row = await apiKeyRepository.findLive(db, prefix);
  return row && accessOfKey(row);
};

/** The live key whose prefix and SHA-256 these are; no side effects. */
const findLiveKey = async (db: Db, prefix: string, digest: string) => {
  const row = await apiKeyRepository.findLive(db, prefix);
  return row && digestsEqual(row.keyHash, digest) ? row : null;
};

/**
 * Authentication by key. The caller of a key is kept in a cache by the key's SHA-256 (see
 * credential-cache.ts: successes only, at most AUTH_CACHE_TTL_MS and never past the key's
 * expiry, dropped at once when the database announces a revocation); a use is recorded in
 * `last_used_at` off the request path (last-used-recorder.ts).
 */
export const createApiKeyAuthentication = (
  db: Db,
  {
    cacheTtlMs,
    lastUsed,
    now = () => new Date(),
  }: { cacheTtlMs: number; lastUsed: LastUsedRecorder; now?: () => Date },
) => {
  const cache = createCredentialCache<AuthenticatedKey>(cacheTtlMs);

  const lookup = async (prefix: string, digest: string) => {
    const row = await findLiveKey(db, prefix, digest);
    if (!row) return null;
    lastUsed.stored(row.id, row.lastUsedAt);
    return { value: { id: row.id, access: accessOfKey(row) }, msLeft: row.msLeft };
  };

  return {
    cache,
    /**
     * Forgets the cached caller of key `id`: called by the instance that revoked or rotated it,
     * once the change committed, so its next request reads the row again without waiting for
     * the database's notice (which tells the other instances).
     */
    forgetKey(id: number) {
      cache.invalidateWhere((key) => key.id === id);
    },
    /** The caller a key belongs to; unknown, revoked and expired keys are all just "not valid". */
    async authenticate(key: string): Promise<AccessContext> {
      const prefix = KEY_PATTERN.exec(key)?.[1];
      if (prefix === undefined) throw invalidKey();
      const digest = sha256Hex(key);
      const found = await cache.get(digest, () => lookup(prefix, digest));
      if (!found) throw invalidKey();
      lastUsed.used(found.id, now());
      return found.access;
    },
  };
};

export type ApiKeyAuthentication = ReturnType<typeof createApiKeyAuthentication>;
