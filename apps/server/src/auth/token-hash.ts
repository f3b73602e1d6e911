import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * API keys and host session tokens are stored only as their SHA-256. Both are long random
 * values, so a fast hash is enough: there is nothing to brute-force that a slow password hash
 * would protect.
 */
export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/** Compares two hex digests without leaking, through timing, how much of them matches. */
export const digestsEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
};
