import {
  type ApiKey,
  type ApiKeyAction,
  type ApiKeyEventData,
  type ApiKeyHistoryEntry,
  Permission,
} from '@sales-order/contract';

import type { LocationList } from '../../auth/access-context.js';
import type { Scope } from '../../auth/scope.js';
import type { Db } from '../../db/transactions.js';
import { ACROSS_LOCATIONS, LOCKED_IN_SCOPE, withinLocations } from '../../db/within-locations.js';
import { subjectEventCtes } from '../../events/store/outbox-store.js';
import { Prisma } from '../../generated/prisma/client.js';

/** The statements about API keys as they are managed: rows in the API's read shape and the audit trail. */

const time = (column: string) => Prisma.raw(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')`);

/** A key's columns in the read shape; `k` is api_keys. Never the hash. */
const READ_COLUMNS = Prisma.sql`k.id, k.name, k.prefix, k.permissions, k.locations,
  ((k.revoked_at IS NULL OR k.revoked_at > now()) AND (k.expires_at IS NULL OR k.expires_at > now())) AS active,
  ${time('k.created_at')} AS created_at, k.created_by, ${time('k.expires_at')} AS expires_at,
  ${time('k.last_used_at')} AS last_used_at, ${time('k.revoked_at')} AS revoked_at, k.revoked_by, k.rotated_from_id`;

export interface NewKeyRow {
  name: string;
  prefix: string;
  keyHash: string;
  permissions: string[];
  /** Location ids; null: every location. */
  locations: LocationList;
  expiresAt: Date | null;
  createdBy: string;
  rotatedFromId: number | null;
}

/** What the rules of a change read of a key, locked for the change's transaction. */
export interface KeyState {
  id: number;
  name: string;
  prefix: string;
  permissions: string[];
  locations: number[] | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  active: boolean;
  hasSuccessor: boolean;
}

/**
 * What a manager of keys reaches: keys whose permissions it holds every one of (a key with `*`
 * only a holder of `*`) and whose locations lie inside its own. Any other key is not there for it.
 */
export interface KeyReach {
  permissions: ReadonlySet<string>;
  scope: Scope;
}

export interface KeyPageFilter {
  active?: boolean;
  name?: string;
  limit: number;
  /** Keys older (smaller id) than this one. */
  before?: number;
  /** The reader: only keys within its reach. */
  reach: KeyReach;
}

export interface NewChange {
  apiKeyId: number;
  action: ApiKeyAction;
  actor: string;
  changes: ApiKeyHistoryEntry['changes'];
}

const ACTIVE = Prisma.sql`(k.revoked_at IS NULL OR k.revoked_at > now()) AND (k.expires_at IS NULL OR k.expires_at > now())`;

/**
 * `seconds` from now by the database's clock, cut to the column's milliseconds: rounded, an end
 * of "now" could land after now() and leave the key working a moment longer.
 */
const endIn = (seconds: number) =>
  Prisma.sql`date_trunc('milliseconds', now() + make_interval(secs => ${seconds}::int))`;

/**
 * The keys a manager may see and change (KeyReach): every permission of the key is one of its own
 * (`*` is held only by `*`), and the key's locations lie inside its own. A key for every location
 * (NULL) lies inside no limited scope; one for none ([]) inside all.
 */
const inScope = ({ permissions, scope }: KeyReach) =>
  Prisma.sql`AND ${
    permissions.has(Permission.all) ? Prisma.sql`TRUE` : Prisma.sql`k.permissions <@ ${[...permissions]}::text[]`
  } AND ${withinLocations(scope, { allOf: 'k.locations' })}`;

/** `%`, `_` and `\` as themselves in LIKE. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

export const apiKeyStore = {
  insert: async (tx: Db, key: NewKeyRow): Promise<ApiKey> => {
    const [row] = await tx.$queryRaw<ApiKey[]>`
      WITH k AS (
        -- location scope: the maker's, which checkGrant held the key's locations inside
        INSERT INTO api_keys (name, prefix, key_hash, permissions, locations, expires_at, created_by, rotated_from_id)
        VALUES (${key.name}, ${key.prefix}, ${key.keyHash}, ${key.permissions}::text[],
          ${key.locations === null ? null : [...key.locations]}::int[], ${key.expiresAt}::timestamptz,
          ${key.createdBy}, ${key.rotatedFromId}::int)
        RETURNING *)
      SELECT ${READ_COLUMNS} FROM k`;
    return row!;
  },

  /** The key, if it lies within `reach`. */
  find: async (db: Db, id: number, reach: KeyReach): Promise<ApiKey | null> => {
    const [row] = await db.$queryRaw<ApiKey[]>`
      SELECT ${READ_COLUMNS} FROM api_keys k WHERE k.id = ${id}::int ${inScope(reach)}`;
    return row ?? null;
  },

  /**
   * When the key with this prefix stops working: the earlier of its expiry and a revocation
   * (past or ahead); null when neither is set (or there is no such key).
   */
  endOf: async (db: Db, prefix: string): Promise<Date | null> => {
    const [row] = await db.$queryRaw<{ ends: Date | null }[]>`
      SELECT LEAST(expires_at, revoked_at) AS ends FROM api_keys
      WHERE prefix = ${prefix} AND ${ACROSS_LOCATIONS} /* the calling key itself, to bound what it makes */`;
    return row?.ends ?? null;
  },

  /** The id of the key with this prefix, or null. */
  idOfPrefix: async (db: Db, prefix: string): Promise<number | null> => {
    const [row] = await db.$queryRaw<
      { id: number }[]
    >`SELECT id FROM api_keys WHERE prefix = ${prefix} AND ${ACROSS_LOCATIONS}`;
    return row?.id ?? null;
  },

  /**
   * Locks a key for a change until the transaction ends, and reads what the change's rules need;
   * null when there is none within `reach`. Whether it has a successor is read by a statement of
   * its own once the lock is held: a statement that waited for the lock keeps the snapshot it
   * started with, in which the successor committed by the rotation it waited for is not there
   * yet (twelve rotations at once made three 500s of the successor's unique index).
   */
  lock: async (tx: Db, id: number, reach: KeyReach): Promise<KeyState | null> => {
    const [row] = await tx.$queryRaw<Omit<KeyState, 'hasSuccessor'>[]>`
      SELECT k.id, k.name, k.prefix, k.permissions, k.locations, k.expires_at AS "expiresAt",
        k.revoked_at AS "revokedAt", ${ACTIVE} AS active
      FROM api_keys k WHERE k.id = ${id}::int ${inScope(reach)} FOR UPDATE`;
    if (!row) return null;
    const [successor] = await tx.$queryRaw<{ id: number }[]>`
      SELECT s.id FROM api_keys s WHERE s.rotated_from_id = ${id}::int AND ${LOCKED_IN_SCOPE} /* the successor of the key locked above */`;
    return { ...row, hasSuccessor: successor !== undefined };
  },

  /** Newest first, `limit` + 1 rows to tell whether more follow. */
  page: async (db: Db, { active, name, limit, before, reach }: KeyPageFilter): Promise<ApiKey[]> => {
    const byActive =
      active === undefined ? Prisma.empty : active ? Prisma.sql`AND ${ACTIVE}` : Prisma.sql`AND NOT (${ACTIVE})`;
    const byName =
      name === undefined || name === '' ? Prisma.empty : Prisma.sql`AND k.name ILIKE ${`%${likeEscaped(name)}%`}`;
    const after = before === undefined ? Prisma.empty : Prisma.sql`AND k.id < ${before}::int`;
    return db.$queryRaw<ApiKey[]>`
      SELECT ${READ_COLUMNS} FROM api_keys k
      WHERE true ${inScope(reach)} ${byActive} ${byName} ${after}
      ORDER BY k.id DESC LIMIT ${limit + 1}::int`;
  },

  rename: async (tx: Db, id: number, name: string): Promise<ApiKey> => {
    const [row] = await tx.$queryRaw<ApiKey[]>`
      WITH k AS (UPDATE api_keys SET name = ${name} WHERE id = ${id}::int AND ${LOCKED_IN_SCOPE} RETURNING *)
      SELECT ${READ_COLUMNS} FROM k`;
    return row!;
  },

  /** Ends the key `seconds` from now by the database's clock, unless it ends earlier already. */
  expireIn: async (tx: Db, id: number, seconds: number): Promise<ApiKey> => {
    const [row] = await tx.$queryRaw<ApiKey[]>`
      WITH k AS (
        UPDATE api_keys
        SET expires_at = LEAST(coalesce(expires_at, 'infinity'), ${endIn(seconds)})
        WHERE id = ${id}::int AND ${LOCKED_IN_SCOPE} RETURNING *)
      SELECT ${READ_COLUMNS} FROM k`;
    return row!;
  },

  /** Revokes the key `seconds` from now, unless a revocation already lies earlier. */
  revokeIn: async (tx: Db, id: number, seconds: number, actor: string): Promise<ApiKey> => {
    const [row] = await tx.$queryRaw<ApiKey[]>`
      WITH k AS (
        UPDATE api_keys
        SET revoked_at = LEAST(coalesce(revoked_at, 'infinity'), ${endIn(seconds)}),
          revoked_by = ${actor}
        WHERE id = ${id}::int AND ${LOCKED_IN_SCOPE} RETURNING *)
      SELECT ${READ_COLUMNS} FROM k`;
    return row!;
  },

  /**
   * Records a change in the key's history and as its `api_key.<action>` event (the outbox:
   * events/store/outbox-store.ts), in one statement of the change's transaction. `event` is what
   * the event carries: the key after the change, never its secret.
   */
  recordChange: async (tx: Db, change: NewChange, event: ApiKeyEventData): Promise<void> => {
    await tx.$executeRaw`
      WITH change AS (
        INSERT INTO api_key_changes (api_key_id, action, actor, changes)
        VALUES (${change.apiKeyId}::int, ${change.action}, ${change.actor}, ${JSON.stringify(change.changes)}::json)),
      ${subjectEventCtes({ type: `api_key.${change.action}`, subjectId: change.apiKeyId, data: event })}
      SELECT 1`;
  },

  /** A key's changes, oldest first, after the change `after`; `limit` + 1 rows. */
  history: async (
    db: Db,
    id: number,
    { limit, after }: { limit: number; after?: number },
  ): Promise<ApiKeyHistoryEntry[]> => {
    const rows = await db.$queryRaw<(Omit<ApiKeyHistoryEntry, 'id'> & { id: bigint })[]>`
      SELECT c.id, c.action, c.actor, ${time('c.occurred_at')} AS occurred_at, c.changes
      FROM api_key_changes c
      WHERE c.api_key_id = ${id}::int ${after === undefined ? Prisma.empty : Prisma.sql`AND c.id > ${after}::bigint`}
      ORDER BY c.id LIMIT ${limit + 1}::int`;
    return rows.map((row) => ({ ...row, id: Number(row.id) }));
  },
};
