import { LICENCE_EXPIRY_WARNING_DAYS, type LicenceWarning, LicenceWarningCode } from '@sales-order/contract';

import { addDays, daysBetween, formatCalendarDate } from '../shared/calendar.js';
import { Decimal, toDecimal } from '../shared/money.js';
import type { Licence } from './licence-repository.js';

/**
 * The licence rules for one product on one date, without storage: which licences are valid,
 * how long the cover lasts, and whether the quantity fits what is left.
 */

export interface LicensedProduct {
  id: number;
  name: string;
  requiresLicence: boolean;
}

const isValidOn = (licence: Licence, date: Date): boolean =>
  licence.validFrom.getTime() <= date.getTime() && date.getTime() <= licence.validTo.getTime();

/** The product's active licences valid on `date`. */
export const licencesValidOn = (licences: Licence[], date: Date): Licence[] =>
  licences.filter((licence) => isValidOn(licence, date));

/**
 * The licence that ends the product's uninterrupted cover from `date`: starting from the
 * licences valid on it, a licence that starts by the day after the cover ends extends it. So
 * a renewal already on file silences the expiry warning of the licence it follows.
 * `licences` are the product's licences sorted by validFrom, at least one valid on `date`.
 */
export const lastLicenceOfCover = (licences: Licence[], date: Date): Licence => {
  let last: Licence | undefined;
  for (const licence of licences) {
    const continues =
      last === undefined ? isValidOn(licence, date) : licence.validFrom.getTime() <= addDays(last.validTo, 1).getTime();
    if (continues && (last === undefined || licence.validTo.getTime() > last.validTo.getTime())) last = licence;
  }
  if (!last) throw new Error('lastLicenceOfCover needs a licence valid on the date');
  return last;
};

/**
 * The licences whose quantities limit a sale on the date: the valid ones, or none at all when
 * one of them is unlimited (it never runs out).
 */
export const quotaLicences = (valid: Licence[]): Licence[] =>
  valid.some((licence) => licence.licensedQuantity === null) ? [] : valid;

/**
 * The quota licence with the most quantity left, or null when there is none to count. Orders
 * name no licence, so a sale draws on whichever licence has room.
 */
export const licenceWithMostLeft = (
  valid: Licence[],
  consumed: Map<number, Decimal>,
): { licence: Licence; licensed: Decimal; used: Decimal; left: Decimal } | null => {
  const quotas = quotaLicences(valid).map((licence) => {
    const licensed = toDecimal(licence.licensedQuantity!);
    const used = consumed.get(licence.id) ?? toDecimal(0);
    return { licence, licensed, used, left: licensed.minus(used) };
  });
  // Ties go to the licence valid longest, then the lowest id, so the message is stable.
  quotas.sort(
    (a, b) =>
      b.left.comparedTo(a.left) ||
      b.licence.validTo.getTime() - a.licence.validTo.getTime() ||
      a.licence.id - b.licence.id,
  );
  return quotas[0] ?? null;
};

const days = (count: number) => `${count} day${count === 1 ? '' : 's'}`;

/**
 * The warnings for one product: none when it needs no licence; `no_valid_licence` alone when
 * no licence is valid on `date`; otherwise `licence_expiring` when the cover ends within
 * LICENCE_EXPIRY_WARNING_DAYS days and `quantity_exceeds_licence` when `quantity` (the
 * product's lines added up) is more than the licence has left.
 */
export const licenceWarnings = (
  product: LicensedProduct,
  quantity: Decimal,
  licences: Licence[],
  consumed: Map<number, Decimal>,
  date: Date,
): LicenceWarning[] => {
  if (!product.requiresLicence) return [];
  // validation_message puts one warning on a line, so a name's own line breaks must not split one.
  const label = `Product ${product.id} "${product.name.replace(/\s+/g, ' ')}"`;
  const onDate = formatCalendarDate(date);
  const valid = licencesValidOn(licences, date);
  if (valid.length === 0) {
    return [
      {
        product_id: product.id,
        code: LicenceWarningCode.noValidLicence,
        message: `${label} requires a licence, but none is valid on ${onDate}.`,
      },
    ];
  }

  const warnings: LicenceWarning[] = [];
  const last = lastLicenceOfCover(licences, date);
  const daysLeft = daysBetween(date, last.validTo);
  if (daysLeft <= LICENCE_EXPIRY_WARNING_DAYS) {
    warnings.push({
      product_id: product.id,
      code: LicenceWarningCode.licenceExpiring,
      message: `${label}: licence ${last.licenceNo} expires on ${formatCalendarDate(last.validTo)}, ${days(daysLeft)} after the order date (${onDate}).`,
    });
  }
  const quota = licenceWithMostLeft(valid, consumed);
  if (quota && quantity.greaterThan(quota.left)) {
    warnings.push({
      product_id: product.id,
      code: LicenceWarningCode.quantityExceedsLicence,
      message:
        // An over-used licence (more on orders than licensed) has nothing left, not a negative amount.
        `${label}: quantity ${quantity.toFixed()} exceeds the ${Decimal.max(quota.left, 0).toFixed()} left on licence ${quota.licence.licenceNo} ` +
        `(${quota.licensed.toFixed()} licensed, ${quota.used.toFixed()} on orders).`,
    });
  }
  return warnings;
};
