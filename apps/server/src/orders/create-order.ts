import { type CreatedSalesOrder, type CreateSalesOrderBody, ValidationCode } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { Db } from '../db/transactions.js';
import { unprocessable } from '../errors/domain-error.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import { formatCalendarDate, parseCalendarDate } from '../shared/calendar.js';
import { toJsonNumber } from '../shared/money.js';
import { counterAfterSuppliedNumber, readSuppliedNumber, type Series, seriesPrefix } from './numbering.js';
import { deliveryDateProblems, locationScopeProblems } from './order.js';
import { checkConfirmable } from './order-confirmation.js';
import { changesBetween, changesOfTransition, type CreatedHeader } from './order-history.js';
import { grandTotal, priceLines, totalCharges } from './order-pricing.js';
import { checkOrderReferences } from './order-references.js';
import {
  chargesToStore,
  historyCharges,
  historyLines,
  historyTotals,
  linesToStore,
  lockedTotals,
  totalsToStore,
} from './order-shapes.js';
import type { OrderDeps } from './order-use-case.js';
import { isUniqueViolation, type Numbering, type OrderToStore, orderWriteStore } from './store/order-write-store.js';

const duplicateNumber = (salesOrderNo: string) =>
  unprocessable([
    {
      path: 'sales_order_no',
      message: `${salesOrderNo} is already the number of another order (case and zero padding ignored, deleted orders included)`,
      code: ValidationCode.duplicateOrderNumber,
    },
  ]);

/**
 * Creates an order: prices it, checks its references and number, and stores it with its
 * history entry. With an idempotency guard, its key is claimed and its result stored in the
 * order's transaction.
 */
export const createOrder = async (
  { transactions, orderNumberMaxAhead }: OrderDeps,
  // Who creates and where it may: permissions are the route's (or the import's) to check.
  access: Pick<AccessContext, 'subject' | 'locations'>,
  input: CreateSalesOrderBody,
  idempotency?: IdempotencyGuard,
): Promise<CreatedSalesOrder> => {
  const actor = access.subject;
  const priced = priceLines(input.details);
  const lines = linesToStore(input.details, priced.value.lines);
  const charges = input.other_charges ?? [];
  const otherChargesTotal = totalCharges(charges);
  const total = grandTotal({ subtotal: priced.value.subtotal, otherChargesTotal, claimed: input.grand_total });
  const references = await checkOrderReferences(transactions.db, {
    customerId: input.customer_id,
    locationId: input.location_id,
    salesOrderDate: input.sales_order_date,
    details: input.details,
    fieldOfficerId: input.field_officer_id,
    portId: input.port_id,
  });
  const { location, financialYear } = references.value;
  const series: Series | null =
    location && financialYear ? { locationCode: location.code, financialYearStart: financialYear.startDate } : null;
  const supplied =
    series && input.sales_order_no != null ? readSuppliedNumber(input.sales_order_no, series) : undefined;
  const salesOrderDate = formatCalendarDate(parseCalendarDate(input.sales_order_date));
  const outOfScope = locationScopeProblems(access, input.location_id);
  const problems = [
    ...outOfScope,
    ...priced.problems,
    ...total.problems,
    // Outside its scope, the caller learns nothing more of the location (not even whether it exists).
    ...(outOfScope.length > 0
      ? references.problems.filter((problem) => problem.path !== 'location_id')
      : references.problems),
    ...(supplied?.problems ?? []),
    ...deliveryDateProblems(salesOrderDate, input.delivery_date),
  ];
  if (problems.length > 0 || !location || !financialYear || !series) throw unprocessable(problems);

  const suppliedNumber = supplied?.value ?? null;
  const totals = totalsToStore({ subtotal: priced.value.subtotal, otherChargesTotal, grandTotal: total.value });
  const orderToStore: OrderToStore = {
    salesOrderNo: suppliedNumber?.orderNumber ?? null,
    sequence: suppliedNumber?.sequence ?? null,
    locationId: location.id,
    financialYearId: financialYear.id,
    customerId: input.customer_id,
    salesOrderDate,
    remarks: input.remarks ?? null,
    ...totals,
    createdBy: actor,
    fieldOfficerId: input.field_officer_id ?? null,
    portId: input.port_id ?? null,
    customerReference: input.customer_reference ?? null,
    deliveryDate: input.delivery_date ?? null,
    amendedFromId: null,
  };
  const chargesStored = chargesToStore(charges);
  const ids = { locationId: location.id, financialYearId: financialYear.id };
  const numbering: Numbering =
    suppliedNumber === null
      ? { kind: 'server', ...ids, prefix: seriesPrefix(series) }
      : suppliedNumber.kind === 'series'
        ? { kind: 'supplied-series', ...ids, sequence: suppliedNumber.sequence, maxAhead: orderNumberMaxAhead }
        : { kind: 'free-form' };
  const header: CreatedHeader = {
    customer_id: orderToStore.customerId,
    sales_order_date: orderToStore.salesOrderDate,
    location_id: orderToStore.locationId,
    financial_year_id: orderToStore.financialYearId,
    remarks: orderToStore.remarks,
    field_officer_id: orderToStore.fieldOfficerId,
    port_id: orderToStore.portId,
    customer_reference: orderToStore.customerReference,
    delivery_date: orderToStore.deliveryDate,
  };
  const history = {
    action: 'create' as const,
    actor,
    changes: changesBetween(null, {
      header,
      lines: historyLines(lines),
      charges: historyCharges(chargesStored),
      totals: historyTotals(totals),
    }),
  };

  const write = async (db: Db) => {
    const stored = await orderWriteStore
      .insertOrder(db, orderToStore, lines, chargesStored, numbering, history, idempotency?.claimed)
      .catch((error: unknown) => {
        if (!isUniqueViolation(error)) throw error;
        // A supplied number already taken, or the server's next one: that only by an order
        // stored without moving the counter.
        throw duplicateNumber(orderToStore.salesOrderNo ?? 'the next number of the series');
      });
    const result: CreatedSalesOrder = {
      sales_order_id: stored.id,
      order_number: stored.salesOrderNo,
      total_amount: toJsonNumber(total.value),
    };
    return { result, counter: stored.counter };
  };

  const confirm = input.status === 'confirmed';
  // One statement is its own transaction: a server-numbered or free-form draft without an
  // Idempotency-Key needs no BEGIN or COMMIT, and its series' counter is locked by that
  // statement only. A claimed key is part of the transaction; a supplied series number is
  // refused after the statement when too far ahead of the counter, and a confirm after it,
  // rolling the order and its number back.
  if (!idempotency && numbering.kind !== 'supplied-series' && !confirm) return (await write(transactions.db)).result;
  return transactions.withTransaction(async (tx) => {
    await idempotency?.claim(tx);
    const { result, counter } = await write(tx);
    if (numbering.kind === 'supplied-series') {
      // The counter stayed where it was when the number is too far ahead of it.
      const moved = counterAfterSuppliedNumber(counter!, numbering.sequence, numbering.maxAhead);
      if (moved.value === null) throw unprocessable(moved.problems);
    }
    if (confirm) await confirmCreated(tx, result.sales_order_id, access, input.acknowledge_warnings === true);
    return result;
  });
};

/** A create asking for `status: confirmed`: the confirm of the draft just written, in its transaction. */
const confirmCreated = async (
  tx: Db,
  id: number,
  access: Pick<AccessContext, 'subject' | 'locations'>,
  acknowledgeWarnings: boolean,
) => {
  const order = (await orderWriteStore.lockLive(tx, id, access.locations))!;
  const contents = await orderWriteStore.contentsOf(tx, id);
  const acknowledged = await checkConfirmable(tx, id, order, contents, acknowledgeWarnings, (ids) =>
    orderWriteStore.lockQuota(tx, ids),
  );
  await orderWriteStore.writeTransition(tx, id, 'confirmed', {
    action: 'confirm',
    actor: access.subject,
    changes: changesOfTransition('draft', 'confirmed', lockedTotals(order)),
    ...(acknowledged.length > 0 ? { acknowledgedWarnings: acknowledged } : {}),
  });
};
