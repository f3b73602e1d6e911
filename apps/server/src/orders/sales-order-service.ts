import {
  type CreatedSalesOrder,
  type CreateSalesOrderBody,
  type DeletedSalesOrder,
  type ErrorDetail,
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
} from './numbering.js';
import { orderHistory } from './order-history.js';
import { grandTotal, priceLines, totalCharges } from './order-pricing.js';
import { orderReadRepository, type OrderReadRow } from './order-read-repository.js';
import { checkOrderReferences } from './order-references.js';
import { type ChargeToStore, isDuplicateKeyError, type LineToStore, orderRepository } from './order-repository.js';
import { type ExpectedVersions, missingOrChanged } from './order-versions.js';

/** Who acts: the authenticated subject, recorded as created_by / updated_by / deleted_by. */
export type Actor = string | null;

const linesToStore = (details: SalesOrderDetailInput[], problems: ErrorDetail[]) => {
  const { lines, subtotal } = priceLines(details, problems);
  const stored: LineToStore[] = lines.map((line, index) => {
    const detail = details[index]!;
    return {
      ...line,
      productId: detail.product_id,
      packsizeId: detail.packsize_id ?? null,
      remarks: detail.remarks ?? null,
    };
  });
  return { lines: stored, subtotal };
};

const chargesToStore = (charges: OtherChargeInput[]): ChargeToStore[] =>
  charges.map((charge) => ({ description: charge.description, amount: toDecimal(charge.amount).toFixed(2) }));

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

/** Moves a series' counter past a supplied number of that series, within `maxAhead` of it. */
const takeSuppliedSequence = async (
  tx: Db,
  series: { locationId: number; financialYearId: number },
  sequence: bigint,
  maxAhead: bigint,
) => {
  const problems: ErrorDetail[] = [];
  const counter = await orderRepository.lockCounter(tx, series.locationId, series.financialYearId);
  const moved = counterAfterSuppliedNumber(counter, sequence, maxAhead, problems);
  if (moved === null) throw unprocessable(problems);
  if (moved !== counter) await orderRepository.setCounter(tx, series.locationId, series.financialYearId, moved);
};

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

    return prisma.$transaction(async (tx) => {
      await idempotency?.claim(tx);
      let salesOrderNo: string;
      let sequence: bigint | null;
      if (supplied === null) {
        sequence = await orderRepository.nextSequence(tx, location.id, financialYear.id);
        salesOrderNo = formatOrderNumber(series, sequence);
      } else {
        ({ orderNumber: salesOrderNo, sequence } = supplied);
        if (supplied.kind === 'series') {
          const ids = { locationId: location.id, financialYearId: financialYear.id };
          await takeSuppliedSequence(tx, ids, supplied.sequence, orderNumberMaxAhead);
        }
      }
      const order = await orderRepository
        .insert(tx, {
          salesOrderNo,
          sequence,
          locationId: location.id,
          financialYearId: financialYear.id,
          customerId: input.customer_id,
          salesOrderDate: parseCalendarDate(input.sales_order_date),
          remarks: input.remarks ?? null,
          subtotal: subtotal.toFixed(2),
          otherChargesTotal: otherChargesTotal.toFixed(2),
          grandTotal: total.toFixed(2),
          createdBy: actor,
        })
        .catch((error: unknown) => {
          if (!isDuplicateKeyError(error)) throw error;
          throw unprocessable([
            {
              path: 'sales_order_no',
              message: `${salesOrderNo} is already the number of another order (case and zero padding ignored, deleted orders included)`,
              code: ValidationCode.duplicateOrderNumber,
            },
          ]);
        });
      await orderRepository.insertLines(tx, order.id, lines);
      await orderRepository.insertCharges(tx, order.id, chargesToStore(charges));
      const created = { sales_order_id: order.id, order_number: salesOrderNo, total_amount: toJsonNumber(total) };
      await orderHistory.record(tx, { orderId: order.id, action: 'create', actor, before: null });
      await idempotency?.complete(tx, created);
      return created;
    });
  },

  async update(
    id: number,
    input: UpdateSalesOrderBody,
    actor: Actor,
    expected?: ExpectedVersions,
  ): Promise<UpdatedSalesOrder> {
    return prisma.$transaction(async (tx) => {
      const current = await orderRepository.lockForUpdate(tx, id, actor, expected);
      if (!current) throw await missingOrChanged(tx, id, expected);
      const before = await orderHistory.stateOf(tx, id);

      const problems: ErrorDetail[] = [];
      if (
        input.sales_order_no !== undefined &&
        orderNumberKey(input.sales_order_no) !== orderNumberKey(current.salesOrderNo)
      ) {
        problems.push({
          path: 'sales_order_no',
          message: 'an order keeps its number: numbers are never reused',
          code: ValidationCode.orderNumberChange,
        });
      }
      if (input.location_id !== undefined && input.location_id !== current.locationId) {
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
        : toDecimal(current.otherChargesTotal);
      const total = grandTotal({ subtotal, otherChargesTotal, claimed: input.grand_total }, problems);
      // Only what the update changes must be active: the references the order already holds may not be.
      const keptLines = input.details
        ? await orderRepository.findLineReferences(tx, id)
        : { productIds: new Set<number>(), packsizeIds: new Set<number>() };
      const { financialYear } = await checkOrderReferences(
        tx,
        { customerId: input.customer_id, salesOrderDate: input.sales_order_date, details: input.details },
        problems,
        { customerId: current.customerId, salesOrderDate: formatCalendarDate(current.salesOrderDate), ...keptLines },
      );
      if (financialYear && financialYear.id !== current.financialYearId) {
        problems.push({
          path: 'sales_order_date',
          message: 'an order cannot move to another financial year',
          code: ValidationCode.financialYearChange,
        });
      }
      // Throwing rolls back the version bump taken with the lock.
      if (problems.length > 0) throw unprocessable(problems);

      await orderRepository.update(tx, id, {
        customerId: input.customer_id,
        salesOrderDate: input.sales_order_date === undefined ? undefined : parseCalendarDate(input.sales_order_date),
        remarks: input.remarks,
        subtotal: subtotal.toFixed(2),
        otherChargesTotal: otherChargesTotal.toFixed(2),
        grandTotal: total.toFixed(2),
      });
      if (priced) {
        await orderRepository.deleteLines(tx, id);
        await orderRepository.insertLines(tx, id, priced.lines);
      }
      if (input.other_charges) {
        await orderRepository.deleteCharges(tx, id);
        await orderRepository.insertCharges(tx, id, chargesToStore(input.other_charges));
      }
      await orderHistory.record(tx, { orderId: id, action: 'update', actor, before });
      return { sales_order_id: id, updated: true as const, version: current.version };
    });
  },

  async remove(id: number, actor: Actor, expected?: ExpectedVersions): Promise<DeletedSalesOrder> {
    await prisma.$transaction(async (tx) => {
      if (!(await orderRepository.softDelete(tx, id, actor, expected))) throw await missingOrChanged(tx, id, expected);
      await orderHistory.record(tx, { orderId: id, action: 'delete', actor });
    });
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
