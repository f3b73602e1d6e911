import { describe, expect, it } from 'vitest';

import {
  consumesQuota,
  deleteRefusal,
  deliveryDateProblems,
  EDITABLE_FIELDS,
  lockedFieldRefusals,
  transitionRefusal,
  TRANSITIONS,
} from '../../src/orders/order.js';

const STATUSES = ['draft', 'confirmed', 'closed', 'cancelled'] as const;
const ALL_FIELDS = EDITABLE_FIELDS;

describe('the order state machine', () => {
  it('allows exactly the transitions of the lifecycle, and refuses every other with the current status', () => {
    const allowed = STATUSES.flatMap((status) =>
      (Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[])
        .filter((transition) => transitionRefusal(status, transition) === null)
        .map((transition) => `${status} ${transition}`),
    );
    expect(allowed.sort()).toEqual(
      ['draft confirm', 'draft cancel', 'confirmed cancel', 'confirmed close', 'cancelled amend'].sort(),
    );
    expect(transitionRefusal('closed', 'cancel')).toEqual({
      path: 'status',
      message: 'a closed order cannot be cancelled (only a draft or confirmed order can)',
      code: 'invalid_transition',
      current_status: 'closed',
    });
    // Repeating a done transition is refused like any other.
    expect(transitionRefusal('confirmed', 'confirm')?.code).toBe('invalid_transition');
  });

  it('leads confirm, cancel and close to their states; terminal states lead nowhere but amend', () => {
    expect(TRANSITIONS.confirm.to).toBe('confirmed');
    expect(TRANSITIONS.cancel.to).toBe('cancelled');
    expect(TRANSITIONS.close.to).toBe('closed');
    const leaving = (status: (typeof STATUSES)[number]) =>
      (Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[]).filter(
        (transition) => transitionRefusal(status, transition) === null && TRANSITIONS[transition].to !== status,
      );
    expect(leaving('closed')).toEqual([]);
    expect(leaving('cancelled')).toEqual([]);
  });

  it('locks per status: a draft nothing; confirmed all but remarks and fulfilment; closed all but remarks', () => {
    const locked = (status: (typeof STATUSES)[number]) =>
      lockedFieldRefusals(status, ALL_FIELDS, ALL_FIELDS).map((refusal) => refusal.path);
    expect(locked('draft')).toEqual([]);
    expect(locked('confirmed')).toEqual([
      'sales_order_no',
      'customer_id',
      'sales_order_date',
      'location_id',
      'details',
      'other_charges',
    ]);
    expect(locked('closed')).toEqual(ALL_FIELDS.filter((field) => field !== 'remarks'));
    expect(locked('cancelled')).toEqual(ALL_FIELDS);
  });

  it('counts only changes, except on a cancelled order, which refuses whatever is sent', () => {
    expect(lockedFieldRefusals('confirmed', [], ['customer_id', 'details'])).toEqual([]);
    expect(lockedFieldRefusals('cancelled', [], ['remarks'])).toEqual([
      {
        path: 'remarks',
        message: 'remarks cannot change: the order is cancelled',
        code: 'order_not_editable',
        current_status: 'cancelled',
      },
    ]);
  });

  it('deletes only drafts; quota is held by confirmed and closed orders only', () => {
    expect(STATUSES.filter((status) => deleteRefusal(status) === null)).toEqual(['draft']);
    expect(deleteRefusal('confirmed')?.message).toMatch(/cancel it instead/);
    expect(STATUSES.filter(consumesQuota)).toEqual(['confirmed', 'closed']);
  });

  it('refuses a delivery date before the order date, not on it or after', () => {
    expect(deliveryDateProblems('2026-11-15', '2026-11-14')).toEqual([
      expect.objectContaining({ path: 'delivery_date', code: 'delivery_before_order_date' }),
    ]);
    expect(deliveryDateProblems('2026-11-15', '2026-11-15')).toEqual([]);
    expect(deliveryDateProblems('2026-11-15', null)).toEqual([]);
  });
});
