import { z } from 'zod';

import { requiredText } from './common.js';

/**
 * The order lifecycle: states, the transitions between them and the codes of their refusals.
 *
 * ```
 * draft --confirm--> confirmed --close--> closed
 *   |                    |
 *   +------cancel--------+----> cancelled --amend--> (a new draft, amended_from_id = the cancelled order)
 * ```
 */

export const SALES_ORDER_STATUSES = ['draft', 'confirmed', 'closed', 'cancelled'] as const;

export const SALES_ORDER_STATES_DESCRIPTION =
  'draft -> confirmed -> closed; draft or confirmed -> cancelled; closed and cancelled are terminal (a cancelled ' +
  'order can be amended into a new draft). draft: everything editable, deletable. confirmed: the binding order: ' +
  'customer, location, date, number, lines and other charges locked (remarks, field officer, port, customer ' +
  'reference and delivery date stay editable); not deletable (cancel it); consumes licence quota. closed: fulfilled, ' +
  'read-only but for remarks; consumes licence quota. cancelled: read-only, keeps its number.';

export const SalesOrderStatusSchema = z.enum(SALES_ORDER_STATUSES).describe(SALES_ORDER_STATES_DESCRIPTION);
export type SalesOrderStatus = z.infer<typeof SalesOrderStatusSchema>;

/** `error.details[].code` of the state conflicts (409). */
export const LifecycleCode = {
  /** The transition is not allowed from the order's current status (`current_status` says which). */
  invalidTransition: 'invalid_transition',
  /** A PUT changes a field the order's status locks (one detail per field). */
  orderNotEditable: 'order_not_editable',
  /** DELETE of an order that is not a draft: cancel it instead. */
  orderNotDeletable: 'order_not_deletable',
} as const;
export type LifecycleCode = (typeof LifecycleCode)[keyof typeof LifecycleCode];

export const CANCELLATION_REASON_MAX_LENGTH = 500;

export const ConfirmSalesOrderBodySchema = z.object({
  acknowledge_warnings: z
    .boolean()
    .optional()
    .describe(
      'true: confirm despite licence warnings (they are recorded in the history entry, whose `by` is who overrode ' +
        'them); needs `licences.override`. Otherwise warnings refuse the confirm with 422 and the warnings in `details`.',
    ),
});

export const CancelSalesOrderBodySchema = z.object({
  reason: requiredText(CANCELLATION_REASON_MAX_LENGTH).describe('Why the order is cancelled (kept on the order).'),
});

export type ConfirmSalesOrderBody = z.infer<typeof ConfirmSalesOrderBodySchema>;
export type CancelSalesOrderBody = z.infer<typeof CancelSalesOrderBodySchema>;
