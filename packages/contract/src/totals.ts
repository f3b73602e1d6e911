import { z } from 'zod';

import { MAX_DETAIL_LINES, MAX_OTHER_CHARGES, money, quantity, rate, text } from './common.js';

export const CalculateTotalsBodySchema = z.object({
  details: z.array(z.object({ quantity: quantity(), rate: rate() })).max(MAX_DETAIL_LINES),
  other_charges: z
    .array(z.object({ amount: money(), description: text(200).nullish() }))
    .max(MAX_OTHER_CHARGES)
    .optional(),
});

export const TotalsSchema = z.object({
  subtotal: z.number().describe('Sum over details of quantity x rate, each line rounded half-up to 2 places.'),
  other_charges_total: z.number(),
  grand_total: z.number().describe('subtotal + other_charges_total'),
});

export type CalculateTotalsBody = z.infer<typeof CalculateTotalsBodySchema>;
export type Totals = z.infer<typeof TotalsSchema>;
