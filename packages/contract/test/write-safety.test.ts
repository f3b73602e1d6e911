import { describe, expect, it } from 'vitest';

import {
  IdempotencyHeadersSchema,
  IfMatchHeadersSchema,
  parseEntityTagCondition,
  versionEntityTag,
} from '../src/index.js';

describe('entity-tag conditions (If-Match / If-None-Match)', () => {
  it('reads *, single and listed tags, weak and strong, with a comma inside a tag', () => {
    expect(parseEntityTagCondition('*')).toBe('*');
    expect(parseEntityTagCondition('"3"')).toEqual([{ weak: false, opaque: '3' }]);
    expect(parseEntityTagCondition(' W/"3" , "4",  "a,b"')).toEqual([
      { weak: true, opaque: '3' },
      { weak: false, opaque: '4' },
      { weak: false, opaque: 'a,b' },
    ]);
    expect(parseEntityTagCondition(versionEntityTag(12))).toEqual([{ weak: false, opaque: '12' }]);
  });

  it('refuses what is not an entity-tag list', () => {
    for (const value of ['', '3', '"3', 'W/3', '"3",,', '"3" "4"', '*, "3"', 'w/"3"']) {
      expect(parseEntityTagCondition(value), value).toBeNull();
    }
  });

  it('turns If-Match into the parsed condition, and refuses a malformed one with invalid_entity_tag', () => {
    expect(IfMatchHeadersSchema.parse({ 'if-match': '"2"' })).toEqual({ 'if-match': [{ weak: false, opaque: '2' }] });
    const refused = IfMatchHeadersSchema.safeParse({ 'if-match': '2' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({
      code: 'custom',
      path: ['if-match'],
      params: { code: 'invalid_entity_tag' },
    });
  });
});

describe('Idempotency-Key', () => {
  it('accepts 1 to 255 printable ASCII characters, nothing else', () => {
    for (const key of ['a', 'k'.repeat(255), '550e8400-e29b-41d4-a716-446655440000', 'order form #7 ~!']) {
      expect(IdempotencyHeadersSchema.safeParse({ 'idempotency-key': key }).success, key).toBe(true);
    }
    for (const key of ['', 'k'.repeat(256), 'clé', 'tab\there', 'line\n']) {
      expect(IdempotencyHeadersSchema.safeParse({ 'idempotency-key': key }).success, key).toBe(false);
    }
    expect(IdempotencyHeadersSchema.safeParse({}).success).toBe(true);
  });
});
