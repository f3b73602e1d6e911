import { z } from 'zod';
import { MAX_DETAIL_LINES, calendarDate, id, quantity } from './common.js';

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
    .max(MAX_DETAIL_LINES),
  sales_order_date: calendarDate()
    .optional()
    .describe('The order date licences must cover; defaults to today.'),
  sales_order_id: id()
    .optional()
    .describe("When editing an order: its own stored lines do not count against the quota."),
});

export const LicenceWarningSchema = z.object({
  product_id: z.number().int(),
  code: z.enum([
    LicenceWarningCode.noValidLicence,
    LicenceWarningCode.licenceExpiring,
    LicenceWarningCode.quantityExceedsLicence,
  ]),
  message: z.string(),
});

export const LicenceValidationSchema = z.object({
  validation_message: z.string().describe('The warnings, one per line; "" when there are none.'),
  has_warnings: z.boolean(),
  warnings: z.array(LicenceWarningSchema),
});

export type ValidateLicenceBody = z.infer<typeof ValidateLicenceBodySchema>;
export type LicenceWarning = z.infer<typeof LicenceWarningSchema>;
export type LicenceValidation = z.infer<typeof LicenceValidationSchema>;
