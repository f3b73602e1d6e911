import type { UpdatedSalesOrder, UpdateSalesOrderBody } from '@sales-order/contract';

import { unprocessable } from '../errors/domain-error.js';
import { formatCalendarDate, parseCalendarDate } from '../shared/calendar.js';
import { toDecimal } from '../shared/money.js';
import { type Actor, financialYearChangeProblems, numberOrLocationChangeProblems } from './order.js';
import { changesBetween, type OrderSnapshot } from './order-history.js';
import { grandTotal, priceLines, totalCharges } from './order-pricing.js';
import { checkOrderReferences } from './order-references.js';
import {
  chargesToStore,
  historyCharges,
  historyLines,
  historyTotals,
  linesToStore,
  snapshotBefore,
  totalsToStore,
} from './order-shapes.js';
import type { OrderDeps } from './order-use-case.js';
import { type ExpectedVersions, missingOrChanged } from './order-versions.js';
import { recordOrderEvent } from './store/order-event-store.js';
import { orderWriteStore } from './store/order-write-store.js';

/**
 * Updates an order in one transaction: locks it (bumping its version, the If-Match check in
 * the same statement), checks the change against what it holds, and writes the header, the
 * replaced lines and charges, the history entry and the `sales_order.updated` event. Any
 * refusal rolls the whole transaction back.
 */
export const updateOrder = (
  { transactions }: OrderDeps,
  id: number,
  input: UpdateSalesOrderBody,
  actor: Actor,
  expected?: ExpectedVersions,
): Promise<UpdatedSalesOrder> =>
  transactions.withTransaction(async (tx) => {
    const current = await orderWriteStore.lockLive(tx, id, actor, expected);
    if (!current) throw await missingOrChanged(tx, id, expected);
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
    // Only what the update changes must be active: the references the order already holds may not be.
    const references = await checkOrderReferences(
      tx,
      { customerId: input.customer_id, salesOrderDate: input.sales_order_date, details },
      {
        customerId: current.customer_id,
        salesOrderDate: current.sales_order_date,
        productIds: new Set(contents.lines.map((line) => line.product_id)),
        packsizeIds: new Set(contents.lines.flatMap((line) => (line.packsize_id === null ? [] : [line.packsize_id]))),
      },
    );
    const problems = [
      ...numberOrLocationChangeProblems(current, input),
      ...(priced?.problems ?? []),
      ...total.problems,
      ...references.problems,
      ...financialYearChangeProblems(current, references.value.financialYear?.id),
    ];
    // Throwing rolls back the version bump taken with the lock.
    if (problems.length > 0) throw unprocessable(problems);

    const totals = totalsToStore({ subtotal, otherChargesTotal, grandTotal: total.value });
    const header = {
      customerId: input.customer_id ?? current.customer_id,
      salesOrderDate:
        input.sales_order_date === undefined
          ? current.sales_order_date
          : formatCalendarDate(parseCalendarDate(input.sales_order_date)),
      remarks: input.remarks === undefined ? current.remarks : input.remarks,
      ...totals,
    };
    const replacedCharges = input.other_charges ? chargesToStore(input.other_charges) : undefined;
    const after: OrderSnapshot = {
      header: {
        ...before.header,
        customer_id: header.customerId,
        sales_order_date: header.salesOrderDate,
        remarks: header.remarks,
      },
      lines: lines ? historyLines(lines) : before.lines,
      charges: replacedCharges ? historyCharges(replacedCharges) : before.charges,
      totals: historyTotals(totals),
    };
    await orderWriteStore.writeUpdate(
      tx,
      id,
      header,
      { lines, charges: replacedCharges },
      { action: 'update', actor, changes: changesBetween(before, after) },
    );
    await recordOrderEvent(tx, id, 'sales_order.updated');
    return { sales_order_id: id, updated: true as const, version: current.version };
  });
