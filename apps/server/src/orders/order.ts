import {
  type ErrorDetail,
  LifecycleCode,
  type SalesOrder,
  type SalesOrderStatus,
  ValidationCode,
} from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { reaches, scopeOf } from '../auth/scope.js';
import { orderNumberKey } from './numbering.js';

/**
 * The order's own rules, apart from money (order-pricing.ts) and numbers (numbering.ts): who
 * acts on it, its lifecycle (the state machine) and what may change in each state. Pure: the
 * use cases apply them.
 *
 *   draft --confirm--> confirmed --close--> closed
 *   draft, confirmed --cancel--> cancelled --amend--> a new draft (the cancelled order stays)
 */

/**
 * The header fields an order is written with, in the read shape's order (the contract's names
 * and types): a create and an amend write them, an update rewrites them all (the ones it was not
 * sent as they were); every one but the financial year (which follows the date) is one an update
 * can change, and so one each status locks or not (EDITABLE below). A new header field is added
 * here (and to the contract, the Prisma schema, a migration and the read shape): the write model
 * (order-write-model.ts), its statements, the history entry and the lock's read follow.
 */
export const HEADER_FIELDS = [
  'customer_id',
  'sales_order_date',
  'location_id',
  'financial_year_id',
  'remarks',
  'field_officer_id',
  'port_id',
  'customer_reference',
  'delivery_date',
] as const satisfies readonly (keyof SalesOrder)[];

export type HeaderField = (typeof HEADER_FIELDS)[number];

/**
 * An order goes only into a location of the caller's scope: 422 at location_id, the same answer
 * whether the location exists or not (a scoped caller learns nothing of the others).
 */
export const locationScopeProblems = (access: Pick<AccessContext, 'locations'>, locationId: number): ErrorDetail[] =>
  reaches(scopeOf(access), locationId)
    ? []
    : [
        {
          path: 'location_id',
          message: `location ${locationId} is outside the locations this caller may use`,
          code: ValidationCode.locationNotPermitted,
        },
      ];

/** What an order is fixed to once created. */
export interface FixedFields {
  sales_order_no: string;
  location_id: number;
  financial_year_id: number;
}

/**
 * An order keeps its number (numbers are never reused) and its location (its series): a change
 * of either is a problem.
 */
export const numberOrLocationChangeProblems = (
  current: FixedFields,
  change: { sales_order_no?: string; location_id?: number },
): ErrorDetail[] => {
  const problems: ErrorDetail[] = [];
  if (
    change.sales_order_no !== undefined &&
    orderNumberKey(change.sales_order_no) !== orderNumberKey(current.sales_order_no)
  ) {
    problems.push({
      path: 'sales_order_no',
      message: 'an order keeps its number: numbers are never reused',
      code: ValidationCode.orderNumberChange,
    });
  }
  if (change.location_id !== undefined && change.location_id !== current.location_id) {
    problems.push({
      path: 'location_id',
      message: 'an order cannot move to another location',
      code: ValidationCode.locationChange,
    });
  }
  return problems;
};

/** An order keeps its financial year (its series): a new date in another year is a problem. */
export const financialYearChangeProblems = (
  current: Pick<FixedFields, 'financial_year_id'>,
  yearOfNewDate: number | undefined,
): ErrorDetail[] =>
  yearOfNewDate !== undefined && yearOfNewDate !== current.financial_year_id
    ? [
        {
          path: 'sales_order_date',
          message: 'an order cannot move to another financial year',
          code: ValidationCode.financialYearChange,
        },
      ]
    : [];

/** The transitions, each its own route. */
export type Transition = 'confirm' | 'cancel' | 'close' | 'amend';

/** From which states each transition may start, and the state it leaves the order in. */
export const TRANSITIONS: Readonly<Record<Transition, { from: readonly SalesOrderStatus[]; to: SalesOrderStatus }>> = {
  confirm: { from: ['draft'], to: 'confirmed' },
  cancel: { from: ['draft', 'confirmed'], to: 'cancelled' },
  close: { from: ['confirmed'], to: 'closed' },
  // Amend makes a new draft; the cancelled order it starts from stays cancelled.
  amend: { from: ['cancelled'], to: 'cancelled' },
};

const PAST_TENSE: Record<Transition, string> = {
  confirm: 'confirmed',
  cancel: 'cancelled',
  close: 'closed',
  amend: 'amended',
};

/**
 * Null when `transition` may start from `status`; otherwise the 409 detail saying why. Repeating
 * a transition already done (confirming a confirmed order) is refused like any other: a caller
 * that must know whether its own call did it gets a clear answer, not a silent success.
 */
export const transitionRefusal = (status: SalesOrderStatus, transition: Transition): ErrorDetail | null => {
  if (TRANSITIONS[transition].from.includes(status)) return null;
  const allowed = TRANSITIONS[transition].from.join(' or ');
  return {
    path: 'status',
    message: `a ${status} order cannot be ${PAST_TENSE[transition]} (only a ${allowed} order can)`,
    code: LifecycleCode.invalidTransition,
    current_status: status,
  };
};

/** The fields an update can change, as the read shape names them; `details` and `other_charges` for the sets. */
export type EditableField = 'sales_order_no' | Exclude<HeaderField, 'financial_year_id'> | 'details' | 'other_charges';

/** Every field an update can change: the number, the header's (but the year), the sets. */
export const EDITABLE_FIELDS: readonly EditableField[] = [
  'sales_order_no',
  ...HEADER_FIELDS.filter((field): field is Exclude<HeaderField, 'financial_year_id'> => field !== 'financial_year_id'),
  'details',
  'other_charges',
];

/** Besides remarks, what stays editable on a confirmed order: how and when it is delivered, not what was agreed. */
const FULFILMENT_FIELDS: readonly EditableField[] = [
  'field_officer_id',
  'port_id',
  'customer_reference',
  'delivery_date',
];

/** What an update may change in each state; `all` in a draft. */
const EDITABLE: Readonly<Record<SalesOrderStatus, 'all' | readonly EditableField[]>> = {
  draft: 'all',
  confirmed: ['remarks', ...FULFILMENT_FIELDS],
  closed: ['remarks'],
  cancelled: [],
};

/**
 * The 409 details of an update that changes fields the order's status locks: one per field.
 * Only a change counts: sending a field back with the value it holds (a whole form saved again)
 * is not one, as in ERPNext's "allow on submit". A cancelled order takes no update at all: each
 * field sent is refused.
 */
export const lockedFieldRefusals = (
  status: SalesOrderStatus,
  changed: readonly EditableField[],
  sent: readonly EditableField[],
): ErrorDetail[] => {
  const editable = EDITABLE[status];
  if (editable === 'all') return [];
  const refused = editable.length === 0 ? sent : changed.filter((field) => !editable.includes(field));
  return refused.map((field) => ({
    path: field,
    message: `${field} cannot change: the order is ${status}`,
    code: LifecycleCode.orderNotEditable,
    current_status: status,
  }));
};

/** Only a draft can be deleted: an order that was ever binding is cancelled instead, and kept. */
export const deleteRefusal = (status: SalesOrderStatus): ErrorDetail | null =>
  status === 'draft'
    ? null
    : {
        path: 'status',
        message:
          status === 'confirmed'
            ? 'a confirmed order cannot be deleted: cancel it instead'
            : `a ${status} order cannot be deleted`,
        code: LifecycleCode.orderNotDeletable,
        current_status: status,
      };

/** A delivery date, when given, is not before the order date (both YYYY-MM-DD, compared as text). */
export const deliveryDateProblems = (orderDate: string, deliveryDate: string | null | undefined): ErrorDetail[] =>
  deliveryDate != null && deliveryDate < orderDate
    ? [
        {
          path: 'delivery_date',
          message: `the delivery date ${deliveryDate} is before the order date ${orderDate}`,
          code: ValidationCode.deliveryBeforeOrderDate,
        },
      ]
    : [];

/** Whether an order in this state holds licence quota (mirrored in SQL by the lines' triggers, migration order_lifecycle). */
export const consumesQuota = (status: SalesOrderStatus): boolean => status === 'confirmed' || status === 'closed';
