import {
  type CreatedSalesOrder,
  type CreateSalesOrderBody,
  type DeletedSalesOrder,
  type ErrorDetail,
  type HistoryCharge,
  type HistoryLine,
  type HistoryTotals,
  type MaxNumber,
  type MaxNumberQuery,
  type OtherChargeInput,
  type SalesOrder,
  type SalesOrderDetailInput,
  type UpdatedSalesOrder,
  type UpdateSalesOrderBody,
  ValidationCode,
} from '@sales-order/contract';

import { notFound, unprocessable } from '../errors/domain-error.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import type { Db } from '../master-data/master-data-repository.js';
import { formatCalendarDate, formatDateTime, parseCalendarDate } from '../shared/calendar.js';
import { toDecimal, toJsonNumber } from '../shared/money.js';
import {
  counterAfterSuppliedNumber,
  DEFAULT_ORDER_NUMBER_MAX_AHEAD,
  formatOrderNumber,
  orderNumberKey,
  readSuppliedNumber,
  type Series,
  seriesPrefix,
} from './numbering.js';
import { changesBetween, type OrderSnapshot } from './order-history.js';
import { grandTotal, priceLines, totalCharges } from './order-pricing.js';
import { orderReadRepository, type OrderReadRow } from './order-read-repository.js';
import { checkOrderReferences } from './order-references.js';
import { type ExpectedVersions, missingOrChanged } from './order-versions.js';
import {
  type ChargeToStore,
  isUniqueViolation,
  type LineToStore,
  type LockedOrder,
  type Numbering,
  type OrderToStore,
  orderWriteRepository,
  type StoredContents,
} from './order-write-repository.js';

/** Who acts: the authenticated subject, recorded as created_by / updated_by / deleted_by. */
export type Actor = string | null;

const linesToStore = (details: SalesOrderDetailInput[], problems: ErrorDetail[]) => {
  const { lines, subtotal } = priceLines(details, problems);
  // Each decimal's fixed text is worked out once, for both the insert and the history entry.
  const stored: LineToStore[] = lines.map((line, index) => {
    const detail = details[index]!;
    return {
      productId: detail.product_id,
      packsizeId: detail.packsize_id ?? null,
      quantity: line.quantity.toFixed(3),
      rate: line.rate.toFixed(4),
      amount: line.amount.toFixed(2),
      remarks: detail.remarks ?? null,
    };
  });
  return { lines: stored, subtotal };
};

const chargesToStore = (charges: OtherChargeInput[]): ChargeToStore[] =>
  charges.map((charge) => ({ description: charge.description, amount: toDecimal(charge.amount).toFixed(2) }));

/** Lines as a history entry shows them: the stored scale (numeric(18,3/4/2)), as JSON numbers. */
const historyLines = (lines: LineToStore[]): HistoryLine[] =>
  lines.map((line, index) => ({
    line_no: index + 1,
    product_id: line.productId,
    packsize_id: line.packsizeId,
    quantity: toJsonNumber(line.quantity),
    rate: toJsonNumber(line.rate),
    amount: toJsonNumber(line.amount),
    remarks: line.remarks,
  }));

const historyCharges = (charges: ChargeToStore[]): HistoryCharge[] =>
  charges.map((charge, index) => ({
    line_no: index + 1,
    description: charge.description,
    amount: toJsonNumber(charge.amount),
  }));

const historyTotals = (totals: { subtotal: string; otherChargesTotal: string; grandTotal: string }): HistoryTotals => ({
  subtotal: toJsonNumber(totals.subtotal),
  other_charges_total: toJsonNumber(totals.otherChargesTotal),
  grand_total: toJsonNumber(totals.grandTotal),
});

/** The state a locked order was in before an update, as its history entry compares it. */
const snapshotBefore = (order: LockedOrder, contents: StoredContents): OrderSnapshot => ({
  header: {
    sales_order_no: order.sales_order_no,
    customer_id: order.customer_id,
    sales_order_date: order.sales_order_date,
    location_id: order.location_id,
    financial_year_id: order.financial_year_id,
    remarks: order.remarks,
  },
  lines: contents.lines.map((line) => ({
    ...line,
    quantity: toJsonNumber(line.quantity),
    rate: toJsonNumber(line.rate),
    amount: toJsonNumber(line.amount),
  })),
  charges: contents.charges.map((charge) => ({ ...charge, amount: toJsonNumber(charge.amount) })),
  totals: historyTotals({
    subtotal: order.subtotal,
    otherChargesTotal: order.other_charges_total,
    grandTotal: order.grand_total,
  }),
});

const toReadShape = (order: OrderReadRow): SalesOrder => ({
  ...order,
  subtotal: toJsonNumber(order.subtotal),
  other_charges_total: toJsonNumber(order.other_charges_total),
  grand_total: toJsonNumber(order.grand_total),
  details: order.details.map((detail) => ({
    ...detail,
    quantity: toJsonNumber(detail.quantity),
    rate: toJsonNumber(detail.rate),
    amount: toJsonNumber(detail.amount),
  })),
  other_charges: order.other_charges.map((charge) => ({ ...charge, amount: toJsonNumber(charge.amount) })),
  created_at: formatDateTime(order.created_at),
  updated_at: formatDateTime(order.updated_at),
});

export interface SalesOrderServiceOptions {
  /** How far past its series' counter a supplied series number may be (ORDER_NUMBER_MAX_AHEAD). */
  orderNumberMaxAhead: bigint;
}

/** The order use cases: the rules of docs/interface.md and docs/decisions.md, nothing of HTTP. */
export const createSalesOrderService = (
  prisma: PrismaClient,
  { orderNumberMaxAhead }: SalesOrderServiceOptions = { orderNumberMaxAhead: DEFAULT_ORDER_NUMBER_MAX_AHEAD },
) => ({
  async get(id: number): Promise<SalesOrder> {
    const order = await orderReadRepository.findLive(prisma, id);
    if (!order) throw notFound(`sales order ${id} not found`);
    return toReadShape(order);
  },

  /** With an idempotency guard, its key is claimed and its result stored in the order's transaction. */
  async create(input: CreateSalesOrderBody, actor: Actor, idempotency?: IdempotencyGuard): Promise<CreatedSalesOrder> {
    const problems: ErrorDetail[] = [];
    const { lines, subtotal } = linesToStore(input.details, problems);
    const charges = input.other_charges ?? [];
    const otherChargesTotal = totalCharges(charges);
    const total = grandTotal({ subtotal, otherChargesTotal, claimed: input.grand_total }, problems);
    const { location, financialYear } = await checkOrderReferences(
      prisma,
      {
        customerId: input.customer_id,
        locationId: input.location_id,
        salesOrderDate: input.sales_order_date,
        details: input.details,
      },
      problems,
    );
    const series: Series | null =
      location && financialYear ? { locationCode: location.code, financialYearStart: financialYear.startDate } : null;
    const supplied =
      series && input.sales_order_no != null ? readSuppliedNumber(input.sales_order_no, series, problems) : null;
    if (problems.length > 0 || !location || !financialYear || !series) throw unprocessable(problems);

    const orderToStore: OrderToStore = {
      salesOrderNo: supplied?.orderNumber ?? null,
      sequence: supplied?.sequence ?? null,
      locationId: location.id,
      financialYearId: financialYear.id,
      customerId: input.customer_id,
      salesOrderDate: formatCalendarDate(parseCalendarDate(input.sales_order_date)),
      remarks: input.remarks ?? null,
      subtotal: subtotal.toFixed(2),
      otherChargesTotal: otherChargesTotal.toFixed(2),
      grandTotal: total.toFixed(2),
      createdBy: actor,
    };
    const chargesStored = chargesToStore(charges);
    const ids = { locationId: location.id, financialYearId: financialYear.id };
    const numbering: Numbering =
      supplied === null
        ? { kind: 'server', ...ids, prefix: seriesPrefix(series) }
        : supplied.kind === 'series'
          ? { kind: 'supplied-series', ...ids, sequence: supplied.sequence, maxAhead: orderNumberMaxAhead }
          : { kind: 'free-form' };
    const history = {
      action: 'create' as const,
      actor,
      changes: changesBetween(null, {
        header: {
          // Settled in the statement when the server numbers the order.
          sales_order_no: orderToStore.salesOrderNo ?? '',
          customer_id: orderToStore.customerId,
          sales_order_date: orderToStore.salesOrderDate,
          location_id: orderToStore.locationId,
          financial_year_id: orderToStore.financialYearId,
          remarks: orderToStore.remarks,
        },
        lines: historyLines(lines),
        charges: historyCharges(chargesStored),
        totals: historyTotals(orderToStore),
      }),
    };
    const duplicateNumber = (salesOrderNo: string) =>
      unprocessable([
        {
          path: 'sales_order_no',
          message: `${salesOrderNo} is already the number of another order (case and zero padding ignored, deleted orders included)`,
          code: ValidationCode.duplicateOrderNumber,
        },
      ]);

    // The stored Idempotency-Key result takes the id and number from the statement itself.
    const created = { sales_order_id: 0, order_number: '', total_amount: toJsonNumber(total) };
    const write = async (db: Db) => {
      const stored = await orderWriteRepository
        .createOrder(
          db,
          orderToStore,
          lines,
          chargesStored,
          numbering,
          history,
          idempotency && { ...idempotency.claimed, result: created },
        )
        .catch((error: unknown) => {
          if (!isUniqueViolation(error)) throw error;
          // A supplied number already taken, or the server's next one: that only by an order
          // stored without moving the counter.
          throw duplicateNumber(orderToStore.salesOrderNo ?? 'the next number of the series');
        });
      const result: CreatedSalesOrder = { ...created, sales_order_id: stored.id, order_number: stored.salesOrderNo };
      return { result, counter: stored.counter };
    };

    // One statement is its own transaction: a server-numbered or free-form create without an
    // Idempotency-Key needs no BEGIN or COMMIT, and its series' counter is locked by that
    // statement only. A claimed key is part of the transaction; a supplied series number is
    // refused after the statement when too far ahead of the counter, rolling the order back.
    if (!idempotency && numbering.kind !== 'supplied-series') return (await write(prisma)).result;
    return prisma.$transaction(async (tx) => {
      await idempotency?.claim(tx);
      const { result, counter } = await write(tx);
      if (numbering.kind === 'supplied-series') {
        const problems: ErrorDetail[] = [];
        // The counter stayed where it was when the number is too far ahead of it.
        if (counterAfterSuppliedNumber(counter!, numbering.sequence, numbering.maxAhead, problems) === null)
          throw unprocessable(problems);
      }
      return result;
    });
  },

  async update(
    id: number,
    input: UpdateSalesOrderBody,
    actor: Actor,
    expected?: ExpectedVersions,
  ): Promise<UpdatedSalesOrder> {
    return prisma.$transaction(async (tx) => {
      const current = await orderWriteRepository.lockForUpdate(tx, id, actor, expected);
      if (!current) throw await missingOrChanged(tx, id, expected);
      const contents = await orderWriteRepository.contentsOf(tx, id);
      const before = snapshotBefore(current, contents);

      const problems: ErrorDetail[] = [];
      if (
        input.sales_order_no !== undefined &&
        orderNumberKey(input.sales_order_no) !== orderNumberKey(current.sales_order_no)
      ) {
        problems.push({
          path: 'sales_order_no',
          message: 'an order keeps its number: numbers are never reused',
          code: ValidationCode.orderNumberChange,
        });
      }
      if (input.location_id !== undefined && input.location_id !== current.location_id) {
        problems.push({
          path: 'location_id',
          message: 'an order cannot move to another location',
          code: ValidationCode.locationChange,
        });
      }
      const priced = input.details ? linesToStore(input.details, problems) : undefined;
      const subtotal = priced?.subtotal ?? toDecimal(current.subtotal);
      const otherChargesTotal = input.other_charges
        ? totalCharges(input.other_charges)
        : toDecimal(current.other_charges_total);
      const total = grandTotal({ subtotal, otherChargesTotal, claimed: input.grand_total }, problems);
      // Only what the update changes must be active: the references the order already holds may not be.
      const keptLines = {
        productIds: new Set(contents.lines.map((line) => line.product_id)),
        packsizeIds: new Set(contents.lines.flatMap((line) => (line.packsize_id === null ? [] : [line.packsize_id]))),
      };
      const { financialYear } = await checkOrderReferences(
        tx,
        { customerId: input.customer_id, salesOrderDate: input.sales_order_date, details: input.details },
        problems,
        { customerId: current.customer_id, salesOrderDate: current.sales_order_date, ...keptLines },
      );
      if (financialYear && financialYear.id !== current.financial_year_id) {
        problems.push({
          path: 'sales_order_date',
          message: 'an order cannot move to another financial year',
          code: ValidationCode.financialYearChange,
        });
      }
      // Throwing rolls back the version bump taken with the lock.
      if (problems.length > 0) throw unprocessable(problems);

      const header = {
        customerId: input.customer_id ?? current.customer_id,
        salesOrderDate:
          input.sales_order_date === undefined
            ? current.sales_order_date
            : formatCalendarDate(parseCalendarDate(input.sales_order_date)),
        remarks: input.remarks === undefined ? current.remarks : input.remarks,
        subtotal: subtotal.toFixed(2),
        otherChargesTotal: otherChargesTotal.toFixed(2),
        grandTotal: total.toFixed(2),
      };
      const replacedCharges = input.other_charges ? chargesToStore(input.other_charges) : undefined;
      const after: OrderSnapshot = {
        header: {
          ...before.header,
          customer_id: header.customerId,
          sales_order_date: header.salesOrderDate,
          remarks: header.remarks,
        },
        lines: priced ? historyLines(priced.lines) : before.lines,
        charges: replacedCharges ? historyCharges(replacedCharges) : before.charges,
        totals: historyTotals(header),
      };
      await orderWriteRepository.writeUpdate(
        tx,
        id,
        header,
        { lines: priced?.lines, charges: replacedCharges },
        { action: 'update', actor, changes: changesBetween(before, after) },
      );
      return { sales_order_id: id, updated: true as const, version: current.version };
    });
  },

  async remove(id: number, actor: Actor, expected?: ExpectedVersions): Promise<DeletedSalesOrder> {
    // One statement, its own transaction: the soft delete and its history entry.
    if (!(await orderWriteRepository.softDelete(prisma, id, actor, expected)))
      throw await missingOrChanged(prisma, id, expected);
    return { sales_order_id: id, deleted: true };
  },

  async maxNumber(query: MaxNumberQuery): Promise<MaxNumber> {
    const series = await orderReadRepository.findSeries(prisma, query.location_id, query.year_id);
    const problems: ErrorDetail[] = [];
    if (series.year_id === null) {
      problems.push({
        path: 'year_id',
        message: `financial year ${query.year_id} does not exist`,
        code: ValidationCode.unknownFinancialYear,
      });
    }
    if (series.location_id === null) {
      problems.push({
        path: 'location_id',
        message: `location ${query.location_id} does not exist`,
        code: ValidationCode.unknownLocation,
      });
    }
    if (series.location_code === null || series.year_start === null) throw unprocessable(problems);

    return {
      max_sales_order_number: series.max_sales_order_number,
      next_sales_order_number: formatOrderNumber(
        { locationCode: series.location_code, financialYearStart: parseCalendarDate(series.year_start) },
        BigInt(series.last_sequence) + 1n,
      ),
      year_id: query.year_id,
      location_id: query.location_id,
    };
  },
});

export type SalesOrderService = ReturnType<typeof createSalesOrderService>;
