import type { ErrorDetail, OtherChargeInput, SalesOrder, SalesOrderDetailInput } from '@sales-order/contract';

import type { Checked } from '../errors/checked.js';
import { sum, toDecimal } from '../shared/money.js';
import { readSuppliedNumber, type Series, seriesPrefix } from './numbering.js';
import { deliveryDateProblems, financialYearChangeProblems, HEADER_FIELDS, type HeaderField } from './order.js';
import type { ChargeToWrite, LineToWrite, TotalsToWrite } from './order-columns.js';
import {
  changesBetween,
  historyCharges,
  type HistoryEntryToWrite,
  historyLines,
  historyTotals,
} from './order-history.js';
import { grandTotal, type PricedLine, priceLines, totalCharges } from './order-pricing.js';

/**
 * The order's write model: what create, update, amend (and a bulk create, a list of creates)
 * write is prepared here, in one function, from what the caller sent and what the order was:
 * its header, its priced lines and charges, its totals, how it is numbered and its history
 * entry. Pure: the use case checks the references first and hands the store what this returns
 * (store/order-write-store.ts writes a list of prepared orders in one statement per table).
 *
 * Every name is a column's and the read shape's (`customer_id`, `delivery_date`): the header is
 * never mapped to another spelling. A header field is one entry of HEADER_FIELDS (order.ts, beside
 * what each status locks); the store's statements take their column lists from it.
 */

/** An order's header as written and as read: the contract's types (dates YYYY-MM-DD). */
export type OrderHeaderValues = Pick<SalesOrder, HeaderField>;

/** An order as it is written: header, lines, charges and totals. */
export interface OrderState {
  header: OrderHeaderValues;
  lines: LineToWrite[];
  charges: ChargeToWrite[];
  totals: TotalsToWrite;
}

/**
 * How a new order is numbered (its series is its header's location and financial year):
 * - `next`: the next sequence of the series' counter, as `{prefix}{sequence zero-padded}`;
 * - `supplied-series`: a supplied number of the series, which moves the counter up to it,
 *   unless more than ORDER_NUMBER_MAX_AHEAD past it (the order is then refused);
 * - `free-form`: a supplied number of another shape, which moves no counter.
 */
export type Numbering =
  | { kind: 'next'; prefix: string }
  | { kind: 'supplied-series'; salesOrderNo: string; sequence: bigint }
  | { kind: 'free-form'; salesOrderNo: string };

/** What a caller sends for an order: header fields (undefined: keep the base's), the lines to price, charges, the total it expects. */
export type OrderInput = { [Field in HeaderField]?: OrderHeaderValues[Field] | undefined } & {
  sales_order_no?: string | null;
  details?: SalesOrderDetailInput[];
  other_charges?: OtherChargeInput[];
  grand_total?: number | null;
};

/**
 * The references of a new order (or of an update's new date) as the reference check found them:
 * the location and the financial year of the order's date, null when missing or refused.
 */
export interface CheckedReferences {
  location: { id: number; code: string } | null;
  financialYear: { id: number; startDate: Date } | null;
}

/** What is prepared, and from what. */
export type Preparation =
  /** A new order from the input alone, in the series its references name. */
  | { action: 'create'; actor: string | null }
  /** A new draft with the contents of the cancelled order `from` (the input is empty), numbered next in its series. */
  | { action: 'amend'; actor: string | null; from: { id: number; state: OrderState } }
  /** A change of the order `before`, locked by the use case: its number, location and year stay. */
  | { action: 'update'; actor: string | null; before: OrderState };

/** An order ready to be written: a new one (create, amend) or a change (update). */
export interface PreparedOrder extends OrderState {
  /** A new order's numbering; null for an update (its number stays). */
  numbering: Numbering | null;
  /** The cancelled order an amendment starts from; null otherwise. */
  amendedFromId: number | null;
  /**
   * The history entry. A new order's entry leaves out its number: the statement that writes
   * the order settles it, and puts its field change first.
   */
  history: HistoryEntryToWrite;
  /** An update's sets that differ from the stored ones (a set sent back as it is is not rewritten). */
  replaces: { lines: boolean; charges: boolean };
}

/** The value of a header field: what the input says, or (undefined) what the base holds. */
const headerOf = (input: OrderInput, base: OrderHeaderValues | undefined): OrderHeaderValues =>
  Object.fromEntries(
    HEADER_FIELDS.map((field) => [field, input[field] === undefined ? (base?.[field] ?? null) : input[field]]),
  ) as OrderHeaderValues;

const linesToWrite = (details: SalesOrderDetailInput[], priced: PricedLine[]) =>
  priced.map((line, index): LineToWrite => ({
    product_id: details[index]!.product_id,
    packsize_id: details[index]!.packsize_id ?? null,
    quantity: line.quantity,
    rate: line.rate,
    amount: line.amount,
    remarks: details[index]!.remarks ?? null,
  }));

const chargesToWrite = (charges: OtherChargeInput[]): ChargeToWrite[] =>
  charges.map((charge) => ({ description: charge.description, amount: toDecimal(charge.amount).toFixed(2) }));

/** An order's state as its history entry compares it. */
export const snapshotOf = <Header extends object>(header: Header, state: Omit<OrderState, 'header'>) => ({
  header,
  lines: historyLines(state.lines),
  charges: historyCharges(state.charges),
  totals: historyTotals(state.totals),
});

/** How a new order's number is settled: from its series' counter, or the number supplied. */
const numberingOf = (
  supplied: string | null | undefined,
  location: { code: string },
  financialYear: { startDate: Date },
): Checked<Numbering | null> => {
  const series: Series = { locationCode: location.code, financialYearStart: financialYear.startDate };
  if (supplied == null) return { value: { kind: 'next', prefix: seriesPrefix(series) }, problems: [] };
  const read = readSuppliedNumber(supplied, series);
  const number = read.value;
  return {
    value:
      number === null
        ? null
        : number.kind === 'series'
          ? { kind: 'supplied-series', salesOrderNo: number.orderNumber, sequence: number.sequence }
          : { kind: 'free-form', salesOrderNo: number.orderNumber },
    problems: read.problems,
  };
};

/** A stored order (its locked header and totals, its lines and charges) as the write model states it. */
export const stateOf = (
  order: OrderHeaderValues & TotalsToWrite,
  contents: { lines: LineToWrite[]; charges: ChargeToWrite[] },
): OrderState => ({
  header: Object.fromEntries(HEADER_FIELDS.map((field) => [field, order[field]])) as OrderHeaderValues,
  lines: contents.lines.map(({ product_id, packsize_id, quantity, rate, amount, remarks }) => ({
    product_id,
    packsize_id,
    quantity,
    rate,
    amount,
    remarks,
  })),
  charges: contents.charges.map(({ description, amount }) => ({ description, amount })),
  totals: { subtotal: order.subtotal, other_charges_total: order.other_charges_total, grand_total: order.grand_total },
});

/**
 * Prepares an order to write from what the caller sent and its checked references: prices the
 * lines it is sent (the base order's stay as they are otherwise), totals it, checks the total it
 * was sent and its dates, settles how a new order is numbered (an update: that its date keeps
 * its financial year), and writes its history entry. Its problems come in the order of the
 * request's fields, the references' among them; what the order's status locks, the caller's
 * scope and a change of number or location are the use case's to check. Null only when a new
 * order's location or financial year was not found (the problems say why).
 */
export const prepareOrder = (
  input: OrderInput,
  references: Checked<CheckedReferences>,
  how: Preparation,
): Checked<PreparedOrder | null> => {
  const base = how.action === 'update' ? how.before : how.action === 'amend' ? how.from.state : undefined;
  const { location, financialYear } = references.value;
  const priced = input.details ? priceLines(input.details) : undefined;
  const lines = input.details && priced ? linesToWrite(input.details, priced.value.lines) : (base?.lines ?? []);
  const charges = input.other_charges ? chargesToWrite(input.other_charges) : (base?.charges ?? []);
  const subtotal = priced?.value.subtotal ?? (base ? toDecimal(base.totals.subtotal) : sum([]));
  const otherChargesTotal = input.other_charges
    ? totalCharges(input.other_charges)
    : base
      ? toDecimal(base.totals.other_charges_total)
      : sum([]);
  const total = grandTotal({ subtotal, otherChargesTotal, claimed: input.grand_total });
  const totals: TotalsToWrite = {
    subtotal: subtotal.toFixed(2),
    other_charges_total: otherChargesTotal.toFixed(2),
    grand_total: total.value.toFixed(2),
  };
  // A new order's series is the one its references name; an update's stays its own.
  const series =
    how.action === 'update'
      ? { location_id: how.before.header.location_id, financial_year_id: how.before.header.financial_year_id }
      : location && financialYear
        ? { location_id: location.id, financial_year_id: financialYear.id }
        : null;
  const numbering: Checked<Numbering | null> =
    how.action === 'update'
      ? { value: null, problems: financialYearChangeProblems(how.before.header, financialYear?.id) }
      : location && financialYear
        ? numberingOf(input.sales_order_no, location, financialYear)
        : { value: null, problems: [] };
  const header: OrderHeaderValues | null = series && { ...headerOf(input, base?.header), ...series };
  const problems: ErrorDetail[] = [
    ...(priced?.problems ?? []),
    ...total.problems,
    ...references.problems,
    ...numbering.problems,
    ...(header ? deliveryDateProblems(header.sales_order_date, header.delivery_date) : []),
  ];
  if (!header) return { value: null, problems };

  const state: OrderState = { header, lines, charges, totals };
  const amendedFromId = how.action === 'amend' ? how.from.id : null;
  const changes = changesBetween<Partial<OrderHeaderValues> & { amended_from_id?: number }>(
    how.action === 'update' ? snapshotOf(how.before.header, how.before) : null,
    snapshotOf(amendedFromId === null ? header : { ...header, amended_from_id: amendedFromId }, state),
  );
  return {
    value: {
      ...state,
      numbering: numbering.value,
      amendedFromId,
      history: { action: how.action, actor: how.actor, changes },
      replaces: {
        lines: Object.values(changes.lines).some((items) => items.length > 0),
        charges: Object.values(changes.other_charges).some((items) => items.length > 0),
      },
    },
    problems,
  };
};
