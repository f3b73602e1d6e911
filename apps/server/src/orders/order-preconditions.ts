import { createHash } from 'node:crypto';

import { ORDER_ENTITY_TAG_PATTERN, type SalesOrder, WriteSafetyCode } from '@sales-order/contract';

import type { Scope } from '../auth/scope.js';
import type { SqlDb } from '../db/sql-db.js';
import { DomainError, notFound } from '../errors/domain-error.js';
import { orderReadStore, type RenderedOrder } from './store/order-read-store.js';
import { type LockedOrder, orderWriteStore } from './store/order-write-store.js';

/**
 * Optimistic concurrency. An order's entity tag is its version and a digest of its
 * representation (`3-0a1B2c3D4e5F6g7H`): the version alone would miss a renamed customer or
 * product, which changes the answer without changing the order. A write may name what it
 * expects (the caller's If-Match): entity tags, compared with the order's current one, or bare
 * versions, compared with its version (the order's `version` field, as the SDK sends it).
 */
export interface ExpectedTags {
  versions: readonly number[];
  entityTags: readonly string[];
}

/** What a write expects; `undefined` means any live order. */
export type Expected = ExpectedTags | undefined;

const digestOf = (...parts: readonly string[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('base64url').slice(0, 16);
};

/** The opaque part of the order's strong entity tag (ETag carries it in quotes). */
export const entityTagOf = (order: SalesOrder): string => `${order.version}-${digestOf(JSON.stringify(order))}`;

/**
 * The same tag from the order's rendered text, without parsing it: the text is what
 * `JSON.stringify` writes for the parsed order (order-read-shape.ts), so the two agree.
 */
export const entityTagOfRendered = (order: RenderedOrder): string =>
  `${order.version}-${digestOf(...order.json.parts)}`;

const versionOfTag = (tag: string): number | undefined => {
  const match = ORDER_ENTITY_TAG_PATTERN.exec(tag);
  return match ? Number(match[1]) : undefined;
};

/**
 * Throws 412 unless the order, locked at `version` by this transaction, is as `expected` says.
 * An entity tag is compared with the order's current representation, read under the lock, and
 * only when its version part is the order's (otherwise it cannot match).
 */
export const checkExpected = async (
  db: SqlDb,
  id: number,
  scope: Scope,
  version: number,
  expected: Expected,
): Promise<void> => {
  if (expected === undefined || expected.versions.includes(version)) return;
  const candidates = expected.entityTags.filter((tag) => versionOfTag(tag) === version);
  if (candidates.length > 0) {
    const current = await orderReadStore.findLive(db, id, scope);
    if (current && candidates.includes(entityTagOfRendered(current))) return;
  }
  const named = [...expected.versions.map(String), ...expected.entityTags];
  const message =
    candidates.length > 0
      ? `sales order ${id} is still at version ${version} but no longer reads as ${candidates.join(' or ')} ` +
        '(a name it shows was changed): read it again'
      : `sales order ${id} is at version ${version}, not ${named.join(' or ') || 'the one expected'}`;
  throw new DomainError('precondition_failed', 'The sales order has changed since it was read', [
    { path: 'if-match', message, code: WriteSafetyCode.versionMismatch, current_version: version },
  ]);
};

/**
 * Locks a live order for the rest of the transaction and checks what the caller expects of it:
 * 404 when there is no such live order, 412 when it is not as expected.
 */
export const lockAsExpected = async (db: SqlDb, id: number, scope: Scope, expected: Expected): Promise<LockedOrder> => {
  // Outside the caller's scope reads exactly as an order that does not exist.
  const locked = await orderWriteStore.lockLive(db, id, scope);
  if (!locked) throw notFound(`sales order ${id} not found`);
  await checkExpected(db, id, scope, locked.version, expected);
  return locked;
};
