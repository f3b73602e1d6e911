import { z } from 'zod';

import { calendarDate, id, MAX_DETAIL_LINES, quantity } from './common.js';

/** A licence ending this many days or fewer after the order date draws a `licence_expiring` warning. */
export const LICENCE_EXPIRY_WARNING_DAYS = 30;

export const LicenceWarningCode = {
  noValidLicence: 'no_valid_licence',
  licenceExpiring: 'licence_expiring',
  quantityExceedsLicence: 'quantity_exceeds_licence',
} as const;

export type LicenceWarningCode = (typeof LicenceWarningCode)[keyof typeof LicenceWarningCode];

export const ValidateLicenceBodySchema = z.object({
  sales_order_details: z
    .array(z.object({ product_id: id(), quantity: quantity() }))
    .min(1)
    .max(MAX_DETAIL_LINES)
    .describe('Lines of the same product are added up before the quantity check.'),
  sales_order_date: calendarDate()
    .optional()
    .describe(
      'The date every check is made on: a licence must be valid on it, expiry is counted from it, and the quota ' +
        "is that of the licences valid on it. Defaults to today in the service's business time zone (BUSINESS_TIME_ZONE, UTC unless configured).",
    ),
  sales_order_id: id()
    .optional()
    .describe('When editing an order: its own stored lines do not count against the quota.'),
});

/** A warning's message: product id and name, licence number, dates and quantities. */
export const LICENCE_WARNING_MAX_LENGTH = 1000;
/** At most one warning of each code per product, and at most one product per line. */
const MAX_LICENCE_WARNINGS = MAX_DETAIL_LINES * Object.keys(LicenceWarningCode).length;

export const LicenceWarningSchema = z
  .object({
    product_id: id(),
    code: z
      .enum([
        LicenceWarningCode.noValidLicence,
        LicenceWarningCode.licenceExpiring,
        LicenceWarningCode.quantityExceedsLicence,
      ])
      .describe(
        `no_valid_licence: the product requires a licence and none is valid on the order date; ` +
          `licence_expiring: the licence cover ends within ${LICENCE_EXPIRY_WARNING_DAYS} days of the order date; ` +
          'quantity_exceeds_licence: the quantity is above what the licence has left.',
      ),
    message: z.string().max(LICENCE_WARNING_MAX_LENGTH),
  })
  .describe('One warning about one product; a product has at most one warning of each code.');

export const LicenceValidationSchema = z.object({
  validation_message: z
    .string()
    .max(MAX_LICENCE_WARNINGS * (LICENCE_WARNING_MAX_LENGTH + 1))
    .describe('The warnings\' messages, one per line (joined by "\\n"); "" when there are none.'),
  has_warnings: z.boolean(),
  warnings: z
    .array(LicenceWarningSchema)
    .max(MAX_LICENCE_WARNINGS)
    .describe('In the order the products first appear in the lines; [] when none.'),
});

export type ValidateLicenceBody = z.infer<typeof ValidateLicenceBodySchema>;
export type LicenceWarning = z.infer<typeof LicenceWarningSchema>;
export type LicenceValidation = z.infer<typeof LicenceValidationSchema>;
