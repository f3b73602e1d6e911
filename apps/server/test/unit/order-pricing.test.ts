import { ValidationCode } from '@sales-order/contract';
import { describe, expect, it } from 'vitest';

import { DomainError } from '../../src/errors/domain-error.js';
import { calculateTotals, grandTotal, priceLines, totalCharges } from '../../src/orders/order-pricing.js';
import { toDecimal } from '../../src/shared/money.js';

describe('order pricing', () => {
  it('sums rounded line amounts, not the unrounded products', () => {
    // Each line is 0.005 before rounding: 0.01 each after, 0.03 in all (0.015 -> 0.02 if summed first).
    const {
      value: { lines, subtotal },
      problems,
    } = priceLines([1, 2, 3].map(() => ({ quantity: 0.001, rate: 5 })));
    expect(lines.map((line) => line.amount.toFixed(2))).toEqual(['0.01', '0.01', '0.01']);
    expect(subtotal.toFixed(2)).toBe('0.03');
    expect(problems).toEqual([]);
  });

  it('reports a claimed line amount off by more than a cent, at its path', () => {
    const { problems } = priceLines([
      { quantity: 2, rate: 10, amount: 20.01 },
      { quantity: 2, rate: 10, amount: 20.02 },
    ]);
    expect(problems).toEqual([
      expect.objectContaining({ path: 'details.1.amount', code: ValidationCode.amountMismatch }),
    ]);
  });

  it('takes discounts off the grand total and refuses a negative one', () => {
    const subtotal = toDecimal('100.00');
    const discounted = grandTotal({ subtotal, otherChargesTotal: totalCharges([{ amount: -30.5 }]) });
    expect(discounted.value.toFixed(2)).toBe('69.50');
    expect(discounted.problems).toEqual([]);
    expect(grandTotal({ subtotal, otherChargesTotal: toDecimal('-100.01') }).problems).toEqual([
      expect.objectContaining({ path: 'grand_total', code: ValidationCode.negativeGrandTotal }),
    ]);
  });

  it('checks a claimed grand total to the cent', () => {
    expect(grandTotal({ subtotal: toDecimal(10), otherChargesTotal: toDecimal(0), claimed: 10.01 }).problems).toEqual(
      [],
    );
    expect(grandTotal({ subtotal: toDecimal(10), otherChargesTotal: toDecimal(0), claimed: 10.02 }).problems).toEqual([
      expect.objectContaining({ code: ValidationCode.grandTotalMismatch }),
    ]);
  });

  it('calculate-totals answers exact sums and refuses a total beyond the money range', () => {
    expect(
      calculateTotals({
        details: [
          { quantity: 0.1, rate: 0.2 },
          { quantity: 3, rate: 33.333 },
        ],
        other_charges: [{ amount: 0.1 }, { amount: 0.2 }],
      }),
    ).toEqual({ subtotal: 100.02, other_charges_total: 0.3, grand_total: 100.32 });
    expect(() => calculateTotals({ details: [{ quantity: 999_999_999.999, rate: 9_999_999_999.9999 }] })).toThrow(
      DomainError,
    );
  });
});
