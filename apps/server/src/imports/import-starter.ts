import { Permission } from '@sales-order/contract';

import {
  type AccessContext,
  type AuthMethod,
  hasPermission,
  identityOf,
  type LocationList,
} from '../auth/access-context.js';
import { currentAccessOf } from '../auth/current-access.js';
import { covers, scopeOf } from '../auth/scope.js';
import type { Db } from '../db/transactions.js';
import type { ImportEnd, ImportRow } from './import-store.js';

/**
 * An import's orders are made as its starter (the caller who uploaded it), as the starter is at
 * each chunk: these say who that is, and whether the import may still go on as it.
 */

/**
 * The `error` of an import ended because its starter's access ended: its credential no longer
 * works (revoked, expired, signed out, past a token's exp), or no longer holds
 * sales_orders.import, sales_orders.create or every location of the import.
 */
export const OWNER_ACCESS_REVOKED = 'owner_access_revoked';

/** How an import ends when its starter's access ended (OWNER_ACCESS_REVOKED). */
export const accessEnded: ImportEnd = {
  state: 'failed',
  error: `${OWNER_ACCESS_REVOKED}: the starter's credential no longer works, or no longer holds sales_orders.import, sales_orders.create or every location of the import`,
};

/** A permission held at the start and still held now: `*` stands for whatever the other holds. */
const heldBoth = (before: readonly string[], now: ReadonlySet<string>): ReadonlySet<string> => {
  if (now.has(Permission.all)) return new Set(before);
  if (before.includes(Permission.all)) return now;
  return new Set(before.filter((permission) => now.has(permission)));
};

/**
 * The starter as the caller its orders are made by: the access context stored on the import's row
 * (its subject, permissions and locations as they were at the start, and how to look its
 * credential up again). The way it authenticated is the part of its identity (`owner`,
 * identityOf) before its subject; an API key's identity is its subject.
 */
export const accessOfImport = (row: ImportRow, locations: LocationList): AccessContext => {
  const method = (row.owner === row.actor ? 'api_key' : row.owner.slice(0, row.owner.indexOf(':'))) as AuthMethod;
  const access: AccessContext = {
    subject: row.actor,
    method,
    permissions: new Set(row.permissions),
    locations,
    credential:
      row.sessionDigest !== null
        ? { sessionDigest: row.sessionDigest }
        : row.tokenExpiresAt !== null
          ? { tokenExpiresAt: row.tokenExpiresAt }
          : undefined,
  };
  // The orders' idempotency keys are in the starter's space: never another caller's.
  if (identityOf(access) !== row.owner) throw new Error(`import ${row.id}: its owner is not its starter's identity`);
  return access;
};

/**
 * The caller a chunk's orders are made as, now: the starter's credential looked up again
 * (auth/current-access.ts), which must still work, be the same subject, hold sales_orders.import
 * and sales_orders.create and reach every location of the import; its permissions are those held
 * both at the start and now. Undefined when the import cannot go on as its starter.
 */
export const starterNow = async (db: Db, starter: AccessContext): Promise<AccessContext | undefined> => {
  const now = await currentAccessOf(db, starter, new Date());
  if (
    !now ||
    now.subject !== starter.subject ||
    !hasPermission(now, Permission.import) ||
    !hasPermission(now, Permission.create) ||
    !covers(scopeOf(now), starter.locations)
  )
    return undefined;
  return { ...starter, permissions: heldBoth([...starter.permissions], now.permissions) };
};
