import type { HistoryEntry } from '@sales-order/client';
import type { DropdownType, SalesOrder } from '@sales-order/contract';

import { el } from './dom.js';
import { countOf, formatAmount, formatDate, formatInstant, formatQuantity } from './format.js';
import type { Options } from './options.js';
import { FIELDS } from './wording.js';

type Value = string | number | null;
type Line = HistoryEntry['changes']['lines']['added'][number];
type Charge = HistoryEntry['changes']['other_charges']['added'][number];

const ACTIONS: Record<HistoryEntry['action'], string> = {
  create: 'Created',
  update: 'Changed',
  delete: 'Deleted',
  confirm: 'Confirmed',
  cancel: 'Cancelled',
  close: 'Closed',
  amend: 'Created as an amendment',
  deliver: 'Delivery recorded',
  cancel_delivery: 'Delivery cancelled',
  return: 'Goods returned',
  change: 'Changed after confirming',
};

/** Fields holding the id of a master record: shown by the record's name. */
const REFERENCES: Readonly<Record<string, DropdownType>> = {
  customer_id: 'customers',
  location_id: 'locations',
  field_officer_id: 'field-officers',
  port_id: 'ports',
  product_id: 'products',
};
const AMOUNTS = new Set(['amount', 'subtotal', 'other_charges_total', 'grand_total']);
const DATES = new Set(['sales_order_date', 'delivery_date']);

const NONE = '—';

/** Kept by the service, not chosen by the clerk: the financial year follows the order date. */
const UNSHOWN = new Set(['financial_year_id']);

/**
 * The history of an order as a clerk reads it: each change with who and when, and a table of
 * what changed (label, before, after), ids shown by name (from the kept dropdown lists and the
 * order's own names), amounts and dates formatted as everywhere else on the page.
 */
export const createHistoryView = (options: Options) => {
  const nameOf = async (order: SalesOrder, type: DropdownType, id: number): Promise<string> => {
    const own: Record<string, [number | null, string | null][]> = {
      customers: [[order.customer_id, order.customer_name]],
      'field-officers': [[order.field_officer_id, order.field_officer_name]],
      ports: [[order.port_id, order.port_name]],
      products: order.details.map((detail) => [detail.product_id, detail.product_name]),
    };
    const fromOrder = own[type]?.find(([known]) => known === id)?.[1];
    return fromOrder ?? (await options.nameOf(type, id)) ?? `#${id}`;
  };

  const value = async (order: SalesOrder, field: string, raw: Value): Promise<string> => {
    if (raw === null || raw === '') return NONE;
    const reference = REFERENCES[field];
    if (reference && typeof raw === 'number') return nameOf(order, reference, raw);
    if (typeof raw === 'number') return AMOUNTS.has(field) ? formatAmount(raw) : formatQuantity(raw);
    return DATES.has(field) ? formatDate(raw) : raw;
  };

  const label = (field: string) => FIELDS[field]?.name ?? field.replace(/_/g, ' ');

  const lineText = async (order: SalesOrder, line: Line) =>
    `${await nameOf(order, 'products', line.product_id)}: ${formatQuantity(line.quantity)} × ${formatQuantity(line.rate)} = ${formatAmount(line.amount)}`;
  const chargeText = (charge: Charge) => `${charge.description}: ${formatAmount(charge.amount)}`;

  const rows = async (order: SalesOrder, entry: HistoryEntry): Promise<[string, string, string][]> => {
    const { changes } = entry;
    const out: [string, string, string][] = [];
    for (const change of changes.fields.filter(({ field }) => !UNSHOWN.has(field)))
      out.push([
        label(change.field),
        await value(order, change.field, change.from),
        await value(order, change.field, change.to),
      ]);
    for (const line of changes.lines.removed)
      out.push([`Line ${line.line_no} removed`, await lineText(order, line), NONE]);
    for (const line of changes.lines.added) out.push([`Line ${line.line_no} added`, NONE, await lineText(order, line)]);
    for (const line of changes.lines.changed)
      for (const change of line.changes)
        out.push([
          `Line ${line.line_no}: ${label(change.field)}`,
          await value(order, change.field, change.from),
          await value(order, change.field, change.to),
        ]);
    for (const charge of changes.other_charges.removed)
      out.push([`Charge ${charge.line_no} removed`, chargeText(charge), NONE]);
    for (const charge of changes.other_charges.added)
      out.push([`Charge ${charge.line_no} added`, NONE, chargeText(charge)]);
    for (const charge of changes.other_charges.changed)
      for (const change of charge.changes)
        out.push([
          `Charge ${charge.line_no}: ${label(change.field)}`,
          await value(order, change.field, change.from),
          await value(order, change.field, change.to),
        ]);
    const before = changes.totals_before;
    if (before === null || before.grand_total !== changes.totals_after.grand_total)
      out.push([
        'Grand total',
        before === null ? NONE : formatAmount(before.grand_total),
        formatAmount(changes.totals_after.grand_total),
      ]);
    return out;
  };

  const entryItem = async (order: SalesOrder, entry: HistoryEntry) => {
    const title = [
      `Version ${entry.version}: ${ACTIONS[entry.action]}`,
      entry.by ? `by ${entry.by}` : '',
      formatInstant(entry.at),
    ]
      .filter((part) => part !== '')
      .join(', ');
    const item = el('li', {}, el('p', { class: 'history-title' }, title));
    if (entry.reason) item.append(el('p', {}, `Reason: ${entry.reason}`));
    if (entry.acknowledged_warnings?.length)
      item.append(
        el(
          'p',
          {},
          `Confirmed despite ${countOf(entry.acknowledged_warnings.length, { one: 'licence warning', other: 'licence warnings' })}.`,
        ),
      );
    const changed = await rows(order, entry);
    if (changed.length > 0) {
      item.append(
        el(
          'table',
          { class: 'history-changes' },
          el('caption', { class: 'visually-hidden' }, `What version ${entry.version} changed`),
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              el('th', { scope: 'col' }, 'Field'),
              el('th', { scope: 'col' }, 'Before'),
              el('th', { scope: 'col' }, 'After'),
            ),
          ),
          el(
            'tbody',
            {},
            ...changed.map(([what, from, to]) =>
              el('tr', {}, el('th', { scope: 'row' }, what), el('td', {}, from), el('td', {}, to)),
            ),
          ),
        ),
      );
    }
    return item;
  };

  return {
    /** The entries, newest first, as list items. */
    items: async (order: SalesOrder, entries: readonly HistoryEntry[]) =>
      Promise.all([...entries].reverse().map((entry) => entryItem(order, entry))),
  };
};
