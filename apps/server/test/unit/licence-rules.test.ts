import { LicenceWarningCode } from '@sales-order/contract';
import { describe, expect, it } from 'vitest';

import type { Licence } from '../../src/licences/licence-repository.js';
import { lastLicenceOfCover, licenceWarnings, licenceWithMostLeft } from '../../src/licences/licence-rules.js';
import { parseCalendarDate } from '../../src/shared/calendar.js';
import { type Decimal, toDecimal } from '../../src/shared/money.js';

const day = parseCalendarDate;
let nextId = 1;
const licence = (validFrom: string, validTo: string, licensedQuantity: string | null = null): Licence => ({
  id: nextId++,
  productId: 1,
  licenceNo: `L-${nextId}`,
  validFrom: day(validFrom),
  validTo: day(validTo),
  licensedQuantity: licensedQuantity === null ? null : toDecimal(licensedQuantity),
});

const product = { id: 1, name: 'Cypermethrin\n10 EC', requiresLicence: true };
const codes = (licences: Licence[], quantity: string, date: string, consumed = new Map<number, Decimal>()) =>
  licenceWarnings(product, toDecimal(quantity), licences, consumed, day(date)).map((warning) => warning.code);

describe('licence rules', () => {
  it('warns only when the product requires a licence', () => {
    expect(
      licenceWarnings({ ...product, requiresLicence: false }, toDecimal(1), [], new Map(), day('2026-11-22')),
    ).toEqual([]);
    expect(codes([], '1', '2026-11-22')).toEqual([LicenceWarningCode.noValidLicence]);
  });

  it('counts validity inclusively at both ends', () => {
    const only = licence('2026-01-01', '2026-12-31');
    expect(codes([only], '1', '2026-01-01')).toEqual([]);
    expect(codes([only], '1', '2026-12-31')).toEqual([LicenceWarningCode.licenceExpiring]);
    expect(codes([only], '1', '2027-01-01')).toEqual([LicenceWarningCode.noValidLicence]);
  });

  it('warns of expiry within 30 days unless a renewal continues the cover', () => {
    const ending = licence('2026-01-01', '2026-12-01');
    expect(codes([ending], '1', '2026-11-01')).toEqual([LicenceWarningCode.licenceExpiring]);
    expect(codes([ending], '1', '2026-10-31')).toEqual([]);
    const renewal = licence('2026-12-02', '2027-12-01');
    expect(lastLicenceOfCover([ending, renewal], day('2026-11-22'))).toBe(renewal);
    expect(codes([ending, renewal], '1', '2026-11-22')).toEqual([]);
    // A one-day gap breaks the cover.
    const late = licence('2026-12-03', '2027-12-01');
    expect(codes([ending, late], '1', '2026-11-22')).toEqual([LicenceWarningCode.licenceExpiring]);
  });

  it('draws on the licence with the most left, exactly, and an unlimited one never runs out', () => {
    const small = licence('2026-01-01', '2027-06-30', '10.5');
    const large = licence('2026-01-01', '2027-06-30', '20');
    const consumed = new Map([[large.id, toDecimal('9.6')]]);
    expect(licenceWithMostLeft([small, large], consumed)?.licence).toBe(small);
    expect(codes([small, large], '10.5', '2026-11-22', consumed)).toEqual([]);
    expect(codes([small, large], '10.501', '2026-11-22', consumed)).toEqual([
      LicenceWarningCode.quantityExceedsLicence,
    ]);
    const unlimited = licence('2026-01-01', '2027-06-30');
    expect(codes([small, large, unlimited], '1000000', '2026-11-22', consumed)).toEqual([]);
  });

  it('keeps one warning on one line whatever the product name holds', () => {
    const [warning] = licenceWarnings(product, toDecimal(1), [], new Map(), day('2026-11-22'));
    expect(warning?.message).toContain('"Cypermethrin 10 EC"');
    expect(warning?.message).not.toContain('\n');
  });
});
