import { ValidationCode } from '@sales-order/contract';
import { describe, expect, it } from 'vitest';

import { DomainError } from '../../src/errors/domain-error.js';
import { calculateTotals, grandTotal, priceLines, totalCharges } from '../../src/orders/order-pricing.js';
import { isMoneyInRange, lineAmount, sum, toDecimal, withinOneCent } from '../../src/shared/money.js';

describe('order pricing', () => {
  it('sums rounded line amounts, not the unrounded products', () => {
    // Each line is 0.005 before rounding: 0.01 each after, 0.03 in all (0.015 -> 0.02 if summed first).
    const {
      value: { lines, subtotal },
      problems,
    } = priceLines([1, 2, 3].map(() => ({ quantity: 0.001, rate: 5 })));
    expect(lines.map((line) => line.amount)).toEqual(['0.01', '0.01', '0.01']);
    expect(subtotal.toFixed(2)).toBe('0.03');
    expect(problems).toEqual([]);
  });

  it('prices in integers exactly as decimal.js does: texts, subtotal, problems', () => {
    // Each line as decimal.js prices it (what priceLines did for every line before its integer path).
    const byDecimal = (details: { quantity: number; rate: number; amount?: number }[]) => {
      const lines = details.map((detail) => {
        const [quantity, rate] = [toDecimal(detail.quantity), toDecimal(detail.rate)];
        return { quantity: quantity.toFixed(3), rate: rate.toFixed(4), amount: lineAmount(quantity, rate) };
      });
      const subtotal = sum(lines.map((line) => line.amount));
      const problems = [
        ...lines.flatMap((line, index) => {
          if (!isMoneyInRange(line.amount)) return [[`details.${index}`, ValidationCode.amountOutOfRange]];
          const claimed = details[index]!.amount;
          return claimed != null && !withinOneCent(toDecimal(claimed), line.amount)
            ? [[`details.${index}.amount`, ValidationCode.amountMismatch]]
            : [];
        }),
        ...(isMoneyInRange(subtotal) ? [] : [['details', ValidationCode.amountOutOfRange]]),
      ];
      return {
        lines: lines.map((line) => ({ ...line, amount: line.amount.toFixed(2) })),
        subtotal: subtotal.toFixed(2),
        problems,
      };
    };
    // Random quantities (up to 3 decimals) and rates (up to 4), small and large, with the
    // half-cent ties and the edges: zero and minus zero, the largest values, integers.
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const decimalOf = (digits: number, scale: number) =>
      Number((Math.floor(random() * 10 ** digits) / 10 ** scale).toFixed(scale));
    const details = [
      { quantity: 0.001, rate: 5 },
      { quantity: 0.001, rate: 4.9999 },
      { quantity: 0.5, rate: 0.01 },
      { quantity: 1, rate: 0.005 },
      { quantity: 3, rate: 33.333 },
      { quantity: 3, rate: -0 },
      { quantity: 2, rate: 0 },
      { quantity: 999_999_999.999, rate: 9_999_999_999.9999 },
      { quantity: 999_999_999.999, rate: 9.0071 },
      { quantity: 123_456.789, rate: 72_957.1234 },
      { quantity: 1e-7, rate: 1 },
      { quantity: 2, rate: 1.23456 },
      { quantity: 2, rate: 10, amount: 20 },
      { quantity: 2, rate: 10, amount: 20.02 },
      ...Array.from({ length: 2000 }, (_, index) => ({
        quantity: decimalOf(1 + (index % 12), index % 4),
        rate: decimalOf(1 + (index % 14), index % 5),
      })),
    ];
    for (let at = 0; at < details.length; at += 100) {
      const part = details.slice(at, at + 100);
      const { value, problems } = priceLines(part);
      expect({
        lines: value.lines,
        subtotal: value.subtotal.toFixed(2),
        problems: problems.map((problem) => [problem.path, problem.code]),
      }).toEqual(byDecimal(part));
    }
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
