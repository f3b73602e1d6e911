import type { SalesOrder, UpdatedSalesOrder, UpdateSalesOrderBody } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { stateConflict, unprocessable } from '../errors/domain-error.js';
import { formatCalendarDate, parseCalendarDate } from '../shared/calendar.js';
import { toDecimal } from '../shared/money.js';
import { orderNumberKey } from './numbering.js';
import {
  deliveryDateProblems,
  EDITABLE_FIELDS,
  type EditableField,
  financialYearChangeProblems,
  locationScopeProblems,
  lockedFieldRefusals,
  numberOrLocationChangeProblems,
} from './order.js';
import { changesBetween, type OrderSnapshot } from './order-history.js';
import { type Expected, lockAsExpected } from './order-preconditions.js';
import { grandTotal, priceLines, totalCharges } from './order-pricing.js';
import { checkOrderReferences } from './order-references.js';
import {
  chargesToStore,
  historyCharges,
  historyLines,
  historyTotals,
  linesToStore,
  snapshotBefore,
  toReadShape,
  totalsToStore,
} from './order-shapes.js';
import type { OrderDeps } from './order-use-case.js';
import { recordOrderEvent } from './store/order-event-store.js';
import { orderReadStore } from './store/order-read-store.js';
import { type HeaderToStore, orderWriteStore } from './store/order-write-store.js';

/** The value to store for a field an update may omit (keep), clear (null) or set. */
const keepOr = <T>(sent: T | undefined, current: T): T => (sent === undefined ? current : sent);

export interface UpdateOutcome {
  updated: UpdatedSalesOrder;
  /** The order as it reads after the update (its entity tag goes with the answer). */
  order: SalesOrder;
}

/**
 * Updates an order in one transaction: locks it and checks the caller's If-Match, refuses what
 * its status locks (409), checks the change against what it holds (422), and writes the header,
 * the replaced lines and charges, the history entry and the `sales_order.updated` event. Any
 * refusal rolls everything back.
 */
export const updateOrder = (
  { transactions }: OrderDeps,
  access: AccessContext,
  id: number,
  input: UpdateSalesOrderBody,
  expected?: Expected,
): Promise<UpdateOutcome> =>
  transactions.withTransaction(async (tx) => {
    const actor = access.subject;
    const current = await lockAsExpected(tx, id, access.locations, expected);
    const contents = await orderWriteStore.contentsOf(tx, id);
    const before = snapshotBefore(current, contents);

    const details = input.details;
    const priced = details ? priceLines(details) : undefined;
    const lines = details && priced ? linesToStore(details, priced.value.lines) : undefined;
    const subtotal = priced?.value.subtotal ?? toDecimal(current.subtotal);
    const otherChargesTotal = input.other_charges
      ? totalCharges(input.other_charges)
      : toDecimal(current.other_charges_total);
    const total = grandTotal({ subtotal, otherChargesTotal, claimed: input.grand_total });
    const totals = totalsToStore({ subtotal, otherChargesTotal, grandTotal: total.value });
    const header: HeaderToStore = {
      customerId: input.customer_id ?? current.customer_id,
      salesOrderDate:
        input.sales_order_date === undefined
          ? current.sales_order_date
          : formatCalendarDate(parseCalendarDate(input.sales_order_date)),
      remarks: keepOr(input.remarks, current.remarks),
      fieldOfficerId: keepOr(input.field_officer_id, current.field_officer_id),
      portId: keepOr(input.port_id, current.port_id),
      customerReference: keepOr(input.customer_reference, current.customer_reference),
      deliveryDate: keepOr(input.delivery_date, current.delivery_date),
      ...totals,
    };
    const replacedCharges = input.other_charges ? chargesToStore(input.other_charges) : undefined;
    const after: OrderSnapshot = {
      header: {
        ...before.header,
        customer_id: header.customerId,
        sales_order_date: header.salesOrderDate,
        remarks: header.remarks,
        field_officer_id: header.fieldOfficerId,
        port_id: header.portId,
        customer_reference: header.customerReference,
        delivery_date: header.deliveryDate,
      },
      lines: lines ? historyLines(lines) : before.lines,
      charges: replacedCharges ? historyCharges(replacedCharges) : before.charges,
      totals: historyTotals(totals),
    };
    const changes = changesBetween(before, after);
    const linesChanged = Object.values(changes.lines).some((items) => items.length > 0);
    const chargesChanged = Object.values(changes.other_charges).some((items) => items.length > 0);

    // What the order's status locks comes first: a confirmed order's customer is not editable,
    // whether or not the new one exists.
    const changed: EditableField[] = [
      ...(input.sales_order_no !== undefined &&
      orderNumberKey(input.sales_order_no) !== orderNumberKey(current.sales_order_no)
        ? (['sales_order_no'] as const)
        : []),
      ...(input.location_id !== undefined && input.location_id !== current.location_id
        ? (['location_id'] as const)
        : []),
      ...changes.fields.map((change) => change.field as EditableField),
      ...(linesChanged ? (['details'] as const) : []),
      ...(chargesChanged ? (['other_charges'] as const) : []),
    ];
    const sent = EDITABLE_FIELDS.filter((field) => input[field] !== undefined);
    const locked = lockedFieldRefusals(current.status, changed, sent);
    if (locked.length > 0) throw stateConflict(`The order is ${current.status}: these fields are locked`, locked);

    // Only what the update changes must be active: the references the order already holds may not be.
    const references = await checkOrderReferences(
      tx,
      {
        customerId: input.customer_id,
        salesOrderDate: input.sales_order_date,
        details,
        fieldOfficerId: input.field_officer_id,
        portId: input.port_id,
      },
      {
        customerId: current.customer_id,
        salesOrderDate: current.sales_order_date,
        productIds: new Set(contents.lines.map((line) => line.product_id)),
        packsizeIds: new Set(contents.lines.flatMap((line) => (line.packsize_id === null ? [] : [line.packsize_id]))),
        fieldOfficerId: current.field_officer_id,
        portId: current.port_id,
      },
    );
    const problems = [
      ...(input.location_id === undefined ? [] : locationScopeProblems(access, input.location_id)),
      ...numberOrLocationChangeProblems(current, input),
      ...(priced?.problems ?? []),
      ...total.problems,
      ...references.problems,
      ...financialYearChangeProblems(current, references.value.financialYear?.id),
      ...deliveryDateProblems(header.salesOrderDate, header.deliveryDate),
    ];
    if (problems.length > 0) throw unprocessable(problems);

    // A set sent back as it is stays as it is: its rows (and their ids) are not rewritten.
    const version = await orderWriteStore.writeUpdate(
      tx,
      id,
      header,
      { lines: linesChanged ? lines : undefined, charges: chargesChanged ? replacedCharges : undefined },
      { action: 'update', actor, changes },
    );
    await recordOrderEvent(tx, id, 'sales_order.updated');
    const order = await orderReadStore.findLive(tx, id, access.locations);
    return {
      updated: { sales_order_id: id, updated: true as const, version },
      order: toReadShape(order!),
    };
  });
