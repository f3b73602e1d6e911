import { z } from 'zod';

import { documented } from './common.js';

/**
 * The request headers that make writes safe to retry and edits safe from lost updates:
 * `Idempotency-Key` (Stripe's semantics) and the RFC 9110 conditional headers. An order's
 * entity tag is `"<version>-<digest>"`: its version, and a digest of the representation read
 * (so that a renamed customer or product changes it too); a bare `"<version>"` in If-Match
 * compares the version alone (the order's `version` field, as the SDK's `ifMatch` sends it).
 */

/** Detail codes of the write-safety errors (409, 412, 422, 428). */
export const WriteSafetyCode = {
  invalidIdempotencyKey: 'invalid_idempotency_key',
  invalidEntityTag: 'invalid_entity_tag',
  idempotencyKeyReused: 'idempotency_key_reused',
  idempotencyRequestInProgress: 'idempotency_request_in_progress',
  versionMismatch: 'version_mismatch',
  ifMatchRequired: 'if_match_required',
} as const;

export type WriteSafetyCode = (typeof WriteSafetyCode)[keyof typeof WriteSafetyCode];

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** 1 to 255 printable ASCII characters, e.g. a UUID. */
export const idempotencyKey = () =>
  documented(z.string(), { minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x20-\\x7E]+$' })
    .superRefine((value, ctx) => {
      if (!/^[\x20-\x7E]{1,255}$/.test(value)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`,
          params: { code: WriteSafetyCode.invalidIdempotencyKey },
        });
      }
    })
    .describe(
      'A unique key per intended order (e.g. a UUID), 1-255 printable ASCII characters. A retry with the same key and body ' +
        'gets the first response again (with `Idempotent-Replayed: true`) and creates nothing; the same key with another body ' +
        'gets 422 `idempotency_key_reused`. Keys are kept IDEMPOTENCY_TTL_HOURS (default 24) per authenticated caller.',
    );

/** One entity tag of an If-Match / If-None-Match list. */
export interface EntityTag {
  weak: boolean;
  /** The opaque tag without its quotes; an order's tag is its version in decimal. */
  opaque: string;
}

/** `*`, or the listed entity tags. */
export type EntityTagCondition = '*' | EntityTag[];

// RFC 9110 section 8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, in a comma-separated list.
const ENTITY_TAG_IN_LIST = /\s*(W\/)?"([\x21\x23-\x7E\x80-\xFF]*)"\s*(?:,|$)/y;

/** Parses an If-Match / If-None-Match value; null when it is not `*` or an entity-tag list. */
export const parseEntityTagCondition = (value: string): EntityTagCondition | null => {
  if (value.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  ENTITY_TAG_IN_LIST.lastIndex = 0;
  while (ENTITY_TAG_IN_LIST.lastIndex < value.length) {
    const match = ENTITY_TAG_IN_LIST.exec(value);
    if (!match) return null;
    tags.push({ weak: match[1] !== undefined, opaque: match[2]! });
  }
  return tags.length > 0 ? tags : null;
};

/** An If-Match tag naming an order's version alone: the version compared, not the representation. */
export const versionEntityTag = (version: number): string => `"${version}"`;

/** The opaque part of an order's ETag: `<version>-<digest of the representation>`. */
export const ORDER_ENTITY_TAG_PATTERN = /^([1-9][0-9]{0,9})-([A-Za-z0-9_-]{8,64})$/;

/** Longer than any list of order versions a caller could mean. */
export const ENTITY_TAG_LIST_MAX_LENGTH = 1024;

const entityTagCondition = (description: string) =>
  documented(z.string().max(ENTITY_TAG_LIST_MAX_LENGTH), { maxLength: ENTITY_TAG_LIST_MAX_LENGTH })
    .transform((value, ctx) => {
      const condition = parseEntityTagCondition(value);
      if (condition === null) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: 'must be * or a comma-separated list of entity tags such as "3-0a1B2c3D4e5F6g7H"',
          params: { code: WriteSafetyCode.invalidEntityTag },
        });
        return z.NEVER;
      }
      return condition;
    })
    .describe(description);

export const IdempotencyHeadersSchema = z.object({
  'idempotency-key': idempotencyKey().optional(),
});

export const IfMatchHeadersSchema = z.object({
  'if-match': entityTagCondition(
    'Write only while the order is as read: its ETag, e.g. "3-0a1B2c3D4e5F6g7H" (the representation compared), or its ' +
      'version alone, e.g. "3" (the version compared); `*` matches any live order. A stale tag gets 412 with the current ' +
      'version in error.details. Required (else 428) when the service runs with REQUIRE_IF_MATCH=true.',
  ).optional(),
});

export const IfNoneMatchHeadersSchema = z.object({
  'if-none-match': documented(z.string().max(ENTITY_TAG_LIST_MAX_LENGTH), { maxLength: ENTITY_TAG_LIST_MAX_LENGTH })
    .describe(
      'The ETag the caller holds, e.g. "3-0a1B2c3D4e5F6g7H": while the order reads the same the answer is 304 without a ' +
        'body (whatever Cache-Control the request sends).',
    )
    .optional(),
});

/** A transition: retried safely with Idempotency-Key, guarded against stale reads with If-Match. */
export const TransitionHeadersSchema = IdempotencyHeadersSchema.merge(IfMatchHeadersSchema);
