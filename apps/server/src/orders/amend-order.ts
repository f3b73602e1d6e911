import { LifecycleCode, type SalesOrder } from '@sales-order/contract';

import { stateConflict } from '../errors/domain-error.js';
import { parseCalendarDate } from '../shared/calendar.js';
import { seriesPrefix } from './numbering.js';
import { changesBetween, type CreatedHeader } from './order-history.js';
import { historyCharges, historyLines, lockedTotals } from './order-shapes.js';
import { runTransition, type TransitionRequest } from './order-transition.js';
import type { OrderDeps } from './order-use-case.js';
import { orderReadStore } from './store/order-read-store.js';
import { type ChargeToStore, type LineToStore, type OrderToStore, orderWriteStore } from './store/order-write-store.js';

/**
 * A cancelled order -> a new draft with its customer, location, date, lines, charges and
 * fulfilment fields, the next number of its series and `amended_from_id` naming it. The
 * cancelled order stays as it is; it can be amended once (a second amend is 409, naming the
 * draft the first one made). Answers the new draft.
 */
export const amendOrder = (deps: OrderDeps, id: number, request: TransitionRequest): Promise<SalesOrder> =>
  runTransition(deps, id, 'amend', request, async (tx, source) => {
    const amendment = await orderWriteStore.amendmentOf(tx, id);
    if (amendment !== null) {
      throw stateConflict('The order was already amended', [
        {
          path: 'status',
          message: `cancelled order ${id} was already amended into order ${amendment}`,
          code: LifecycleCode.invalidTransition,
          current_status: source.status,
        },
      ]);
    }
    const contents = await orderWriteStore.contentsOf(tx, id);
    const series = await orderReadStore.findSeries(
      tx,
      source.location_id,
      source.financial_year_id,
      request.access.locations,
    );
    // The order refers to both, and master rows are deactivated, never deleted.
    const prefix = seriesPrefix({
      locationCode: series.location_code!,
      financialYearStart: parseCalendarDate(series.year_start!),
    });
    const lines: LineToStore[] = contents.lines.map((line) => ({
      productId: line.product_id,
      packsizeId: line.packsize_id,
      quantity: line.quantity,
      rate: line.rate,
      amount: line.amount,
      remarks: line.remarks,
    }));
    const charges: ChargeToStore[] = contents.charges.map(({ description, amount }) => ({ description, amount }));
    const draft: OrderToStore = {
      salesOrderNo: null,
      sequence: null,
      locationId: source.location_id,
      financialYearId: source.financial_year_id,
      customerId: source.customer_id,
      salesOrderDate: source.sales_order_date,
      remarks: source.remarks,
      subtotal: source.subtotal,
      otherChargesTotal: source.other_charges_total,
      grandTotal: source.grand_total,
      createdBy: request.access.subject,
      fieldOfficerId: source.field_officer_id,
      portId: source.port_id,
      customerReference: source.customer_reference,
      deliveryDate: source.delivery_date,
      amendedFromId: id,
    };
    const header: CreatedHeader = {
      customer_id: draft.customerId,
      sales_order_date: draft.salesOrderDate,
      location_id: draft.locationId,
      financial_year_id: draft.financialYearId,
      remarks: draft.remarks,
      field_officer_id: draft.fieldOfficerId,
      port_id: draft.portId,
      customer_reference: draft.customerReference,
      delivery_date: draft.deliveryDate,
      amended_from_id: id,
    };
    const created = await orderWriteStore.insertOrder(
      tx,
      draft,
      lines,
      charges,
      { kind: 'server', locationId: draft.locationId, financialYearId: draft.financialYearId, prefix },
      {
        action: 'amend',
        actor: request.access.subject,
        changes: changesBetween(null, {
          header,
          lines: historyLines(lines),
          charges: historyCharges(charges),
          totals: lockedTotals(source),
        }),
      },
    );
    return created.id;
  });
