import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { formatCalendarDate, todayIn } from '../src/shared/calendar.js';
import { createLicensedProduct } from './support/licences.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const HOUR_MS = 3_600_000;

/**
 * Two zones without daylight saving, 25 hours apart: their dates always differ (by one or two
 * days), so at any moment at least one of them differs from UTC's date too.
 */
const ZONES = [
  { zone: 'Pacific/Kiritimati', offsetHours: 14 },
  { zone: 'Pacific/Pago_Pago', offsetHours: -11 },
];

/** Today's date at a fixed offset from UTC, worked out without Intl. */
const todayAtOffset = (offsetHours: number, now = Date.now()) =>
  new Date(now + offsetHours * HOUR_MS).toISOString().slice(0, 10);

describe('todayIn', () => {
  it("gives the zone's calendar date, whatever the process's own zone", () => {
    const at = (iso: string) => new Date(iso);
    expect(formatCalendarDate(todayIn('UTC', at('2026-11-21T18:30:00Z')))).toBe('2026-11-21');
    expect(formatCalendarDate(todayIn('Asia/Dhaka', at('2026-11-21T18:30:00Z')))).toBe('2026-11-22');
    expect(formatCalendarDate(todayIn('Asia/Dhaka', at('2026-11-21T17:59:59Z')))).toBe('2026-11-21');
    expect(formatCalendarDate(todayIn('America/Los_Angeles', at('2026-11-22T07:59:59Z')))).toBe('2026-11-21');
    expect(formatCalendarDate(todayIn('Pacific/Kiritimati', at('2026-12-31T10:00:00Z')))).toBe('2027-01-01');
    expect(formatCalendarDate(todayIn('Pacific/Pago_Pago', at('2027-01-01T10:59:59Z')))).toBe('2026-12-31');
    // A calendar date: UTC midnight, so formatting it in UTC cannot shift it.
    expect(todayIn('Asia/Dhaka', at('2026-11-21T18:30:00Z')).toISOString()).toBe('2026-11-22T00:00:00.000Z');
  });
});

describe('validate-licence without sales_order_date', () => {
  let servers: TestServer[] = [];
  // Started before the test (under the hook's timeout), so that the test times only its requests.
  beforeAll(async () => {
    servers = await Promise.all(ZONES.map(({ zone }) => startTestServer({ BUSINESS_TIME_ZONE: zone })));
  });
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it("checks the licences on today's date in BUSINESS_TIME_ZONE, not in UTC", async () => {
    for (const [index, { zone, offsetHours }] of ZONES.entries()) {
      const server = servers[index]!;
      // The day may turn during the request (at 10:00 or 11:00 UTC): then try once more.
      for (let attempt = 1; ; attempt += 1) {
        const today = todayAtOffset(offsetHours);
        // Valid on that zone's today only: any other date would find no valid licence.
        const product = await createLicensedProduct(server.database.prisma, {
          licences: [{ validFrom: today, validTo: today, quantity: null }],
        });
        const response = await server.http
          .post('/sales-orders/validate-licence')
          .send({ sales_order_details: [{ product_id: product.id, quantity: 1 }] });
        if (todayAtOffset(offsetHours) !== today && attempt === 1) continue;
        expect(response.status, zone).toBe(200);
        expect(response.body.data.warnings, zone).toEqual([
          {
            product_id: product.id,
            code: 'licence_expiring',
            message: `Product ${product.id} "${product.name}": licence LIC-${product.code}-1 expires on ${today}, 0 days after the order date (${today}).`,
          },
        ]);
        break;
      }
    }
  });
});
