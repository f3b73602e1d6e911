import { WriteSafetyCode } from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import { DomainError, notFound } from '../errors/domain-error.js';
import { orderWriteStore } from './store/order-write-store.js';

/**
 * Optimistic concurrency: a write may name the versions it expects the order to be at (the
 * caller's If-Match); `undefined` means any version.
 */
export type ExpectedVersions = readonly number[] | undefined;

/**
 * Why a conditional write touched no row: the order is gone (404) or has moved on from the
 * expected versions (412, with the version it is at now).
 */
export const missingOrChanged = async (db: Db, id: number, expected: ExpectedVersions): Promise<DomainError> => {
  const current = await orderWriteStore.liveVersion(db, id);
  if (current === null || expected === undefined) return notFound(`sales order ${id} not found`);
  const message = `sales order ${id} is at version ${current}, not ${expected.join(' or ') || 'the one expected'}`;
  return new DomainError('precondition_failed', 'The sales order has changed since it was read', [
    { path: 'if-match', message, code: WriteSafetyCode.versionMismatch, current_version: current },
  ]);
};
