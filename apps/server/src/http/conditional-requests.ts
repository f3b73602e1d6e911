import {
  type EntityTagCondition,
  ORDER_ENTITY_TAG_PATTERN,
  parseEntityTagCondition,
  WriteSafetyCode,
} from '@sales-order/contract';

import { DomainError } from '../errors/domain-error.js';
import type { Expected } from '../orders/order-preconditions.js';

/**
 * RFC 9110 If-Match, as the contract parsed it, to what a write expects: bare versions ("3")
 * and entity tags ("3-0a1B2c3D4e5F6g7H"). `*` matches any live order. If-Match uses the strong
 * comparison, so weak tags never match; other tags cannot match either. Without If-Match a
 * write expects any version, unless the service requires the header (REQUIRE_IF_MATCH): 428.
 */
export const expectedOf = (ifMatch: EntityTagCondition | undefined, requireIfMatch: boolean): Expected => {
  if (ifMatch === undefined) {
    if (!requireIfMatch) return undefined;
    const message = 'send If-Match with the ETag of the order as read (or * for any version)';
    throw new DomainError('precondition_required', 'This service requires If-Match on updates and deletes', [
      { path: 'if-match', message, code: WriteSafetyCode.ifMatchRequired },
    ]);
  }
  if (ifMatch === '*') return undefined;
  const strong = ifMatch.filter((tag) => !tag.weak).map((tag) => tag.opaque);
  return {
    versions: strong.filter((tag) => /^\d{1,9}$/.test(tag)).map(Number),
    entityTags: strong.filter((tag) => ORDER_ENTITY_TAG_PATTERN.test(tag)),
  };
};

/**
 * RFC 9110 If-None-Match on a read: true when the order still reads as one of the tags the
 * caller holds (weak comparison, as the RFC says for If-None-Match), or for `*`. Evaluated
 * whatever Cache-Control the request sends: fetch clients add `no-cache` to every conditional
 * request, and an origin server answers the precondition regardless (RFC 9111 5.2.1.4 is for caches).
 */
export const stillMatches = (ifNoneMatch: string | undefined, entityTag: string): boolean => {
  if (ifNoneMatch === undefined) return false;
  const condition = parseEntityTagCondition(ifNoneMatch);
  if (condition === null) return false;
  return condition === '*' || condition.some((tag) => tag.opaque === entityTag);
};
