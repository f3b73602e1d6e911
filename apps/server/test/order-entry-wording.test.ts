import { fileURLToPath } from 'node:url';

import { DETAIL_CODES } from '@sales-order/contract';
import { describe, expect, it } from 'vitest';

/**
 * The order entry page words every error for a clerk from its detail code, in one table
 * (apps/order-entry/src/wording.ts). Every code the contract declares must have a wording there:
 * a code added to the contract without one fails here (and the page's typecheck).
 */
type Wording = string | ((field: { name: string; missing: string; tooSmall?: string }) => string);

const wordingModule = fileURLToPath(new URL('../../order-entry/src/wording.ts', import.meta.url));
// Imported by path: the page's sources are not part of the server's TypeScript project.
const { WORDING, wordingOf } = (await import(wordingModule)) as {
  WORDING: Record<string, Wording>;
  wordingOf: (detail: { code?: string; path: string; message: string }) => string;
};

describe('order entry page: the clerk wording of detail codes', () => {
  it('has a wording for every detail code the contract declares, and none for a code it does not', () => {
    const missing = DETAIL_CODES.filter((code) => !(code in WORDING));
    expect(missing, 'codes without a wording in apps/order-entry/src/wording.ts').toEqual([]);
    expect(Object.keys(WORDING).filter((code) => !DETAIL_CODES.includes(code))).toEqual([]);
  });

  it('words each code as a sentence, without the code or the service message', () => {
    for (const code of DETAIL_CODES) {
      for (const path of ['customer_id', 'details.3.quantity', '']) {
        const words = wordingOf({ code, path, message: 'Expected number, received null' });
        expect(words, code).toMatch(/^[A-Z]/);
        expect(words, code).not.toContain('Expected number');
        expect(words, code).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
      }
    }
    expect(wordingOf({ code: 'invalid_type', path: 'customer_id', message: '' })).toBe('Choose a customer');
    expect(wordingOf({ code: 'too_small', path: 'details.0.quantity', message: '' })).toBe(
      'Quantity must be more than 0',
    );
  });
});
