import { type EntityTagCondition, WriteSafetyCode } from '@sales-order/contract';

import { DomainError } from '../errors/domain-error.js';
import type { ExpectedVersions } from '../orders/order-versions.js';

/**
 * RFC 9110 If-Match, as the contract parsed it, to the versions a write expects. `*` matches
 * any live order (no version). If-Match uses the strong comparison, so weak tags never match;
 * tags that are not a version cannot match either. Without If-Match a write expects any
 * version, unless the service requires the header (REQUIRE_IF_MATCH): then 428.
 */
export const expectedVersionsOf = (
  ifMatch: EntityTagCondition | undefined,
  requireIfMatch: boolean,
): ExpectedVersions => {
  if (ifMatch === undefined) {
    if (!requireIfMatch) return undefined;
    const message = 'send If-Match with the ETag of the order as read (or * for any version)';
    throw new DomainError('precondition_required', 'This service requires If-Match on updates and deletes', [
      { path: 'if-match', message, code: WriteSafetyCode.ifMatchRequired },
    ]);
  }
  if (ifMatch === '*') return undefined;
  return ifMatch.filter((tag) => !tag.weak && /^\d{1,9}$/.test(tag.opaque)).map((tag) => Number(tag.opaque));
};
