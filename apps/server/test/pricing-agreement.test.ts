import { MONEY_MAX } from '@sales-order/contract';
import { typedTotals } from '@sales-order/pricing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * The order entry page computes its live totals itself (typedTotals of @sales-order/pricing, on
 * the text the clerk typed) instead of asking calculate-totals at every pause. Here the page's
 * totals and the server's answer to calculate-totals agree to the cent on 10,000 random orders,
 * 500-line ones among them. The server gets each number as the JSON text an ERP or the page
 * writes (the typed digits as they are), read by its JSON parser; the page starts from the same
 * text. Values lean to the edges where float arithmetic goes wrong: half-cent ties, tiny
 * quantities, the largest quantities and rates, long sums of cents.
 */

/** Digits of a decimal with at most `places` decimals, from its integer of 10^-places units. */
const decimalText = (units: bigint, places: number): string => {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(places + 1, '0');
  const whole = places === 0 ? digits : digits.slice(0, -places);
  const fraction = places === 0 ? '' : digits.slice(-places).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
};

/** A typed decimal of at most `places` decimals between `min` and `max` units of 10^-places: small ones often. */
const typed = (places: number, min: bigint, max: bigint) =>
  fc
    .oneof(
      { weight: 4, arbitrary: fc.bigInt({ min, max: min + 100_000n < max ? min + 100_000n : max }) },
      { weight: 2, arbitrary: fc.bigInt({ min, max }) },
      // Ties: a rate ending in 5 at its last place, a quantity of whole units.
      { weight: 2, arbitrary: fc.bigInt({ min: 0n, max: 10_000n }).map((n) => n * 10n + 5n) },
    )
    .filter((units) => units >= min && units <= max)
    .map((units) => decimalText(units, places));

const quantity = typed(3, 1n, 999_999_999_999n); // 0.001 .. 999,999,999.999
const rate = typed(4, 0n, 99_999_999_999_999n); // 0 .. 9,999,999,999.9999
const moneyUnits = BigInt(Math.round(MONEY_MAX * 100));
const amount = typed(2, -moneyUnits, moneyUnits);

const line = fc.record({ quantity, rate });
const order = fc.record({
  lines: fc.oneof(
    { weight: 98, arbitrary: fc.array(line, { minLength: 1, maxLength: 20 }) },
    { weight: 1, arbitrary: fc.array(line, { minLength: 500, maxLength: 500 }) },
    // Quantities and rates of cents that sum past a float's exact range when added as floats.
    {
      weight: 1,
      arbitrary: fc.array(fc.record({ quantity: fc.constantFrom('0.001', '0.003', '1.005'), rate }), {
        minLength: 500,
        maxLength: 500,
      }),
    },
  ),
  charges: fc.array(fc.record({ amount }), { maxLength: 3 }),
});

/** The JSON text of calculate-totals' body, each number written as typed. */
const bodyText = ({ lines, charges }: { lines: { quantity: string; rate: string }[]; charges: { amount: string }[] }) =>
  `{"details":[${lines.map((l) => `{"quantity":${l.quantity},"rate":${l.rate}}`).join(',')}],` +
  `"other_charges":[${charges.map((c) => `{"amount":${c.amount}}`).join(',')}]}`;

describe('the page and the server price alike', () => {
  const suite = useServerWithFixtures();

  it('to the cent on 10,000 random orders, 500-line ones included', async () => {
    // fetch keeps its connection alive: 10,000 requests without 10,000 TCP handshakes.
    const headers = {
      authorization: `Bearer ${await signJwt({ payload: { permissions: ['*'] }, expiresIn: '1h' })}`,
      'content-type': 'application/json',
    };
    let fiveHundred = 0;
    await fc.assert(
      fc.asyncProperty(order, async (typedOrder) => {
        if (typedOrder.lines.length === 500) fiveHundred += 1;
        const page = typedTotals(typedOrder.lines, typedOrder.charges);
        const response = await fetch(`${suite.server.api}/sales-orders/calculate-totals`, {
          method: 'POST',
          headers,
          body: bodyText(typedOrder),
        });
        const answer = (await response.json()) as { data?: unknown };
        if (page === undefined) {
          // Only a grand total past the money range leaves the page without totals: the server refuses it too.
          expect(response.status).toBe(422);
          return;
        }
        expect(response.status).toBe(200);
        expect(answer.data).toEqual(page);
      }),
      { numRuns: 10_000, seed: 48, endOnFailure: true },
    );
    expect(fiveHundred).toBeGreaterThan(50);
  }, 900_000);
});
