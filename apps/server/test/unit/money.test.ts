import { describe, expect, it } from 'vitest';

import {
  isMoneyInRange,
  lineAmount,
  roundMoney,
  sum,
  toDecimal,
  toJsonNumber,
  withinOneCent,
} from '../../src/shared/money.js';

describe('money', () => {
  it('reads JSON numbers through their shortest text, so 0.1 stays 0.1', () => {
    expect(toDecimal(0.1).plus(toDecimal(0.2)).toFixed()).toBe('0.3');
    expect(sum([0.1, 0.2, 0.3].map(toDecimal)).toFixed()).toBe('0.6');
  });

  it('rounds half-up to cents, away from zero at exactly half a cent', () => {
    expect(roundMoney(toDecimal('2.675')).toFixed(2)).toBe('2.68');
    expect(roundMoney(toDecimal('2.665')).toFixed(2)).toBe('2.67');
    expect(roundMoney(toDecimal('-2.675')).toFixed(2)).toBe('-2.68');
    expect(roundMoney(toDecimal('2.6749999')).toFixed(2)).toBe('2.67');
  });

  it('prices a line as quantity x rate rounded once, not rate rounded first', () => {
    // 3 x 33.333 = 99.999 -> 100.00; rounding the rate first would give 99.99.
    expect(lineAmount(toDecimal(3), toDecimal(33.333)).toFixed(2)).toBe('100.00');
    // The largest quantity times the largest rate keeps every digit (decimal.js's default
    // 20-digit precision would lose the last ones).
    expect(toDecimal('999999999.999').times(toDecimal('9999999999.9999')).toFixed()).toBe(
      '9999999999989900000.0000001',
    );
    expect(lineAmount(toDecimal('999999999.999'), toDecimal('9999999999.9999')).toFixed(2)).toBe(
      '9999999999989900000.00',
    );
  });

  it('accepts a claimed amount within one cent, inclusive, and nothing further', () => {
    expect(withinOneCent(toDecimal('100.01'), toDecimal('100.00'))).toBe(true);
    expect(withinOneCent(toDecimal('99.99'), toDecimal('100.00'))).toBe(true);
    expect(withinOneCent(toDecimal('100.011'), toDecimal('100.00'))).toBe(false);
  });

  it('knows the range that travels through a JSON double without losing a cent', () => {
    expect(isMoneyInRange(toDecimal('9999999999999.99'))).toBe(true);
    expect(isMoneyInRange(toDecimal('-9999999999999.99'))).toBe(true);
    expect(isMoneyInRange(toDecimal('10000000000000.00'))).toBe(false);
    expect(toJsonNumber(toDecimal('9999999999999.99'))).toBe(9999999999999.99);
  });
});
