import {
  type ApiKey,
  type ApiKeyAction,
  ApiKeyCode,
  ApiKeyEventDataSchema,
  type ApiKeyHistory,
  type ApiKeyHistoryEntry,
  type ApiKeyHistoryFilters,
  type ApiKeyPage,
  type CreateApiKeyRequest,
  type CreatedApiKey,
  type ListApiKeysFilters,
  type RevokeApiKeyRequest,
  type RotateApiKeyRequest,
  ValidationCode,
} from '@sales-order/contract';

import type { LocationList } from '../auth/access-context.js';
import { generateApiKey } from '../auth/api-keys.js';
import { resolveEach } from '../auth/location-scopes.js';
import type { Db, TransactionPort } from '../db/transactions.js';
import { DomainError, notFound, unprocessable } from '../errors/domain-error.js';
import { formatDateTime } from '../shared/calendar.js';
import { checkGrant, type KeyManager, type LocationEntry } from './key-manager.js';
import { apiKeyStore, type KeyState } from './store/api-key-store.js';

/**
 * Managing API keys: create, list, read, rename, rotate with a grace period, revoke now or
 * later, and each key's history. Every change and its history entry commit together. The
 * secret is generated here (auth/api-keys.ts: CSPRNG), stored only as its SHA-256 and returned
 * once to the caller; it never reaches a log, the history or an event. Every change is also an
 * `api_key.*` event of GET /events and the webhooks (events/store/event-visibility.ts says who sees it). A key may be limited to
 * locations; a manager limited to locations makes only keys inside its own, and sees and changes
 * only those (others are 404, as if missing: docs/decisions/api-keys-managed-over-http.md).
 */

const keyNotFound = (id: number) => notFound(`API key ${id} not found`);

const notActive = (key: KeyState) =>
  new DomainError('conflict', `API key ${key.id} is revoked or expired`, [
    { path: '', message: 'a revoked or expired key cannot be changed', code: ApiKeyCode.apiKeyNotActive },
  ]);

const checkFutureExpiry = (expiresAt: Date | null | undefined, now: Date) => {
  if (expiresAt && expiresAt <= now) {
    throw unprocessable(
      [{ path: 'expires_at', message: 'the expiry must be in the future', code: ApiKeyCode.expiryInPast }],
      'The API key cannot be created',
    );
  }
};

/**
 * A key never makes a key that outlives it: made by an API key that ends (its expiry, or a
 * revocation ahead), the new key's `expires_at` is at most that end. Omitted or null (never) is
 * refused rather than quietly cut to the maker's end: a machine key that stops on a date nobody
 * chose would be an outage found late. Sessions and tokens are people signing in, whose keys are
 * meant to outlive the sign-in: they are not bounded (docs/decisions/api-keys-managed-over-http.md).
 */
const checkWithinMaker = (expiresAt: Date | null, makerEnds: Date | null) => {
  if (makerEnds === null || (expiresAt !== null && expiresAt <= makerEnds)) return;
  throw unprocessable(
    [
      {
        path: 'expires_at',
        message: `the key you call with stops working at ${formatDateTime(makerEnds)} UTC: a key it makes must expire no later (${expiresAt === null ? 'give expires_at' : 'an earlier expires_at'})`,
        code: ApiKeyCode.expiryBeyondMaker,
      },
    ],
    'A key cannot make a key that outlives it',
  );
};

/** The request's `locations` entry by entry, with the location each names; null: every location. */
const locationEntries = async (
  db: Db,
  locations: readonly (string | number)[] | null | undefined,
): Promise<LocationEntry[] | null> => {
  if (locations === undefined || locations === null) return null;
  const ids = await resolveEach(db, locations);
  return locations.map((entry, index) => ({ index, entry, id: ids[index] }));
};

/** The entries as ids, each once, ascending (as stored); null stays every location. */
const idsOf = (entries: readonly LocationEntry[] | null): LocationList =>
  entries === null ? null : [...new Set(entries.map(({ id }) => id!))].sort((a, b) => a - b);

/** 422 at each entry that names no location (a manager limited to locations got 403 for it already). */
const checkKnownLocations = (entries: readonly LocationEntry[] | null) => {
  const unknown = (entries ?? []).filter(({ id }) => id === undefined);
  if (unknown.length > 0) {
    throw unprocessable(
      unknown.map(({ index, entry }) => ({
        path: `locations.${index}`,
        message: `no location has the code or id ${JSON.stringify(entry)}`,
        code: ValidationCode.unknownLocation,
      })),
      'The API key cannot be created',
    );
  }
};

const apiTime = (date: Date | null) => (date ? formatDateTime(date) : null);

type Changes = ApiKeyHistoryEntry['changes'];

export interface ApiKeyManagementDeps {
  transactions: TransactionPort;
  now?: () => Date;
  /**
   * Told of a key whose end changed (revoked, or ended by a rotation) once the change committed,
   * before it is answered: this process's credential cache forgets the key's caller at once.
   */
  keyEnded?: (id: number) => void;
}

export const createApiKeyManagement = ({
  transactions,
  now = () => new Date(),
  keyEnded = () => {},
}: ApiKeyManagementDeps) => {
  const { db } = transactions;

  /** Locks the key for the transaction, or 404 (also when it lies beyond the manager's permissions or locations). */
  const lockKey = async (tx: Db, id: number, manager: KeyManager): Promise<KeyState> => {
    const key = await apiKeyStore.lock(tx, id, manager);
    if (!key) throw keyNotFound(id);
    return key;
  };

  /**
   * Records a change in the key's history and as its `api_key.<action>` event, in the change's
   * transaction. The event carries the key as it now reads, through the contract's schema, which
   * keeps only the record's fields: never a secret, whatever object is handed in.
   */
  const record = async (tx: Db, key: ApiKey, action: ApiKeyAction, manager: KeyManager, changes: Changes) => {
    const event = ApiKeyEventDataSchema.parse({ api_key: key, actor: manager.actor, changes });
    await apiKeyStore.recordChange(tx, { apiKeyId: key.id, action, actor: manager.actor, changes }, event);
  };

  /** Inserts a key with a fresh secret and its `created` entry; the secret is returned, never stored. */
  const insertKey = async (
    tx: Db,
    manager: KeyManager,
    key: {
      name: string;
      permissions: string[];
      locations: LocationList;
      expiresAt: Date | null;
      rotatedFromId: number | null;
    },
  ): Promise<CreatedApiKey> => {
    checkWithinMaker(
      key.expiresAt,
      manager.ownKeyPrefix === null ? null : await apiKeyStore.endOf(tx, manager.ownKeyPrefix),
    );
    const { prefix, key: secret, keyHash } = generateApiKey();
    const created = await apiKeyStore.insert(tx, { ...key, prefix, keyHash, createdBy: manager.actor });
    const changes: Changes = [
      { field: 'name', from: null, to: created.name },
      { field: 'permissions', from: null, to: created.permissions },
      { field: 'locations', from: null, to: created.locations },
      { field: 'expires_at', from: null, to: created.expires_at },
      ...(key.rotatedFromId === null ? [] : [{ field: 'rotated_from_id', from: null, to: key.rotatedFromId }]),
    ];
    await record(tx, created, 'created', manager, changes);
    return { ...created, secret };
  };

  return {
    async create(input: CreateApiKeyRequest, manager: KeyManager): Promise<CreatedApiKey> {
      const locations = await locationEntries(db, input.locations);
      checkGrant(manager, { permissions: input.permissions, locations });
      checkKnownLocations(locations);
      checkFutureExpiry(input.expires_at, now());
      return transactions.withTransaction((tx) =>
        insertKey(tx, manager, {
          name: input.name,
          permissions: input.permissions,
          locations: idsOf(locations),
          expiresAt: input.expires_at ?? null,
          rotatedFromId: null,
        }),
      );
    },

    /** The keys the manager may see: those whose permissions it holds and whose locations lie inside its own. */
    async list({ active, name, limit, cursor }: ListApiKeysFilters, manager: KeyManager): Promise<ApiKeyPage> {
      const rows = await apiKeyStore.page(db, { active, name, limit, before: cursor, reach: manager });
      const items = rows.slice(0, limit);
      return { items, next_cursor: rows.length > limit ? items.at(-1)!.id : null };
    },

    async get(id: number, manager: KeyManager): Promise<ApiKey> {
      const key = await apiKeyStore.find(db, id, manager);
      if (!key) throw keyNotFound(id);
      return key;
    },

    async rename(id: number, name: string, manager: KeyManager): Promise<ApiKey> {
      return transactions.withTransaction(async (tx) => {
        const before = await lockKey(tx, id, manager);
        const renamed = await apiKeyStore.rename(tx, id, name);
        if (before.name !== name) {
          await record(tx, renamed, 'renamed', manager, [{ field: 'name', from: before.name, to: name }]);
        }
        return renamed;
      });
    },

    /**
     * A successor with a new secret and the same name, permissions and locations (which the
     * manager holds: a key beyond them is not found); the current key then ends after the grace,
     * or earlier if it ended earlier anyway. Of rotations at once, the first makes the successor
     * and the others wait for its lock and answer 409.
     */
    async rotate(id: number, input: RotateApiKeyRequest, manager: KeyManager): Promise<CreatedApiKey> {
      checkFutureExpiry(input.expires_at, now());
      const successor = await transactions.withTransaction(async (tx) => {
        const current = await lockKey(tx, id, manager);
        if (!current.active) throw notActive(current);
        if (current.hasSuccessor) {
          throw new DomainError('conflict', `API key ${id} was rotated already`, [
            { path: '', message: 'rotate its successor instead', code: ApiKeyCode.apiKeyAlreadyRotated },
          ]);
        }
        const successor = await insertKey(tx, manager, {
          name: current.name,
          permissions: current.permissions,
          locations: current.locations,
          expiresAt: input.expires_at === undefined ? current.expiresAt : input.expires_at,
          rotatedFromId: id,
        });
        const ended = await apiKeyStore.expireIn(tx, id, input.expire_current_in_seconds);
        await record(tx, ended, 'rotated', manager, [
          { field: 'expires_at', from: apiTime(current.expiresAt), to: ended.expires_at },
          { field: 'successor_id', from: null, to: successor.id },
        ]);
        return successor;
      });
      keyEnded(id);
      return successor;
    },

    /** Revokes now or after a delay; a key revokes itself only when the caller confirms it. */
    async revoke(id: number, input: RevokeApiKeyRequest, manager: KeyManager): Promise<ApiKey> {
      const revoked = await transactions.withTransaction(async (tx) => {
        const current = await lockKey(tx, id, manager);
        if (current.prefix === manager.ownKeyPrefix && !input.confirm_self) {
          throw unprocessable(
            [
              {
                path: 'confirm_self',
                message: 'this request is authenticated with the key it revokes: send "confirm_self": true to do so',
                code: ApiKeyCode.confirmSelfRequired,
              },
            ],
            'A key revokes itself only when asked to',
          );
        }
        if (current.revokedAt !== null && current.revokedAt <= now()) throw notActive(current);
        const revoked = await apiKeyStore.revokeIn(tx, id, input.revoke_in_seconds, manager.actor);
        await record(tx, revoked, 'revoked', manager, [
          { field: 'revoked_at', from: apiTime(current.revokedAt), to: revoked.revoked_at },
        ]);
        return revoked;
      });
      keyEnded(id);
      return revoked;
    },

    async history(id: number, { limit, cursor }: ApiKeyHistoryFilters, manager: KeyManager): Promise<ApiKeyHistory> {
      if (!(await apiKeyStore.find(db, id, manager))) throw keyNotFound(id);
      const rows = await apiKeyStore.history(db, id, { limit, after: cursor });
      const items = rows.slice(0, limit);
      return { items, next_cursor: rows.length > limit ? items.at(-1)!.id : null };
    },

    /** The id of the key a prefix (or a whole key) names; for the CLI. */
    async idOfPrefix(prefix: string): Promise<number | null> {
      return apiKeyStore.idOfPrefix(db, prefix);
    },
  };
};

export type ApiKeyManagement = ReturnType<typeof createApiKeyManagement>;
