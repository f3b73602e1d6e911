import { randomBytes, randomInt } from 'node:crypto';

import { AuthenticationCode, ValidationCode } from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import { unauthenticated, unprocessable } from '../errors/domain-error.js';
import { type AccessContext, KNOWN_PERMISSIONS } from './access-context.js';
import { apiKeyRepository, type ApiKeySummary } from './api-key-repository.js';
import { createCredentialCache } from './credential-cache.js';
import type { LastUsedRecorder } from './last-used-recorder.js';
import { type LocationReference, resolveLocations } from './location-scopes.js';
import { digestsEqual, sha256Hex } from './token-hash.js';

/**
 * `Authorization: ApiKey <key>` for machine callers. A key reads `sok_<8 chars>_<43 chars>`:
 * the first 12 characters are its prefix, stored in clear to find the row and to name the key;
 * the whole key is stored only as its SHA-256 and is shown once, when it is created.
 */

const KEY_SCHEME = 'sok_';
const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const KEY_PATTERN = /^(sok_[a-z2-7]{8})_[A-Za-z0-9_-]{43}$/;
const PREFIX_PATTERN = /^sok_[a-z2-7]{8}$/;

/** last_used_at is refreshed at most this often per key, so busy keys do not write on every use. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export type { ApiKeySummary };

export type NewApiKey = {
  name: string;
  permissions: string[];
  /** Codes or ids; null for every location. */
  locations: LocationReference[] | null;
  expiresAt: Date | null;
};

export type RevokeResult = 'revoked' | 'already_revoked' | 'unknown';

const invalidKey = () => unauthenticated('The API key is not valid', AuthenticationCode.invalidApiKey);

/** `sok_` + 8 base32 characters (40 random bits) + `_` + 32 random bytes in base64url. */
const generateKey = () => {
  const id = Array.from({ length: 8 }, () => PREFIX_ALPHABET[randomInt(PREFIX_ALPHABET.length)]).join('');
  const prefix = `${KEY_SCHEME}${id}`;
  return { prefix, key: `${prefix}_${randomBytes(32).toString('base64url')}` };
};

const validateNewKey = ({ name, permissions, expiresAt }: NewApiKey, now: Date) => {
  const problems = [];
  if (name.trim() === '' || name.length > 200) {
    problems.push({ path: 'name', message: 'name must be 1 to 200 characters', code: 'invalid_name' });
  }
  if (permissions.length === 0) {
    problems.push({ path: 'permissions', message: 'give at least one permission', code: 'required' });
  }
  for (const permission of permissions) {
    if (!KNOWN_PERMISSIONS.includes(permission)) {
      problems.push({
        path: 'permissions',
        message: `unknown permission "${permission}"; known: ${KNOWN_PERMISSIONS.join(', ')}`,
        code: 'unknown_permission',
      });
    }
  }
  if (expiresAt !== null && expiresAt <= now) {
    problems.push({ path: 'expires_at', message: 'the expiry must be in the future', code: 'expiry_in_past' });
  }
  if (problems.length > 0) throw unprocessable(problems, 'The API key cannot be created');
};

export const createApiKeyService = (db: Db, now: () => Date = () => new Date()) => ({
  /** Stores a new key and returns it: the only time the key itself is ever available. */
  async create(input: NewApiKey): Promise<{ key: string; summary: ApiKeySummary }> {
    validateNewKey(input, now());
    const locations = input.locations === null ? null : await resolveLocations(db, input.locations);
    if (locations && locations.unknown.length > 0) {
      throw unprocessable(
        [
          {
            path: 'locations',
            message: `no location has the code or id ${locations.unknown.map((entry) => JSON.stringify(entry)).join(', ')}`,
            code: ValidationCode.unknownLocation,
          },
        ],
        'The API key cannot be created',
      );
    }
    const { prefix, key } = generateKey();
    const summary = await apiKeyRepository.insert(db, {
      name: input.name.trim(),
      prefix,
      keyHash: sha256Hex(key),
      permissions: [...new Set(input.permissions)],
      locations: locations?.ids ?? null,
      expiresAt: input.expiresAt,
    });
    return { key, summary };
  },

  /** Revokes by prefix (or by the whole key, whose prefix is taken). */
  async revoke(prefixOrKey: string): Promise<RevokeResult> {
    const prefix = KEY_PATTERN.exec(prefixOrKey)?.[1] ?? prefixOrKey;
    if (!PREFIX_PATTERN.test(prefix)) return 'unknown';
    if (await apiKeyRepository.revoke(db, prefix, now())) return 'revoked';
    return (await apiKeyRepository.exists(db, prefix)) ? 'already_revoked' : 'unknown';
  },

  async list(): Promise<ApiKeySummary[]> {
    return apiKeyRepository.list(db);
  },

  /** Whether `key` is a stored key, unrevoked and unexpired; no side effects. */
  async isLive(key: string): Promise<boolean> {
    const prefix = KEY_PATTERN.exec(key)?.[1];
    return prefix !== undefined && (await findLiveKey(db, prefix, sha256Hex(key))) !== null;
  },
});

export type ApiKeyService = ReturnType<typeof createApiKeyService>;

type AuthenticatedKey = { id: number; access: AccessContext };

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
    const access: AccessContext = {
      subject: `api_key:${row.prefix}`,
      permissions: new Set(row.permissions),
      method: 'api_key',
      locations: row.locations,
    };
    return { value: { id: row.id, access }, msLeft: row.msLeft };
  };

  return {
    cache,
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
