import {
  type Delivery,
  SalesOrderApiError,
  type SalesOrderClient,
  SalesOrderPreconditionFailedError,
} from '@sales-order/client';
import type { DeliveryRecordStatus, OrderDeliveryStatus, SalesOrder } from '@sales-order/contract';
import { typedNumber } from '@sales-order/pricing';

import { addCheck, decimalRule, requiredRule, runChecks } from './checks.js';
import { el, errorSlot, labelled, uniqueId } from './dom.js';
import { describe, FieldErrors, isSessionEnded } from './errors.js';
import { formatDate, formatQuantity } from './format.js';
import { reportOn, say, statusLine } from './notice.js';
import { wordingOf } from './wording.js';

/**
 * The deliveries of the order on the form: what each line ordered, delivered, got back and has
 * pending; a delivery recorded against its lines; the order's deliveries, each cancelled or
 * returned against. Shown for a confirmed order and for any order with goods delivered. After
 * every write the order is read again (`reopen`, the form's own open), so the form, its history
 * and this panel show the order's new version.
 */

/** The service's decimals for a quantity (docs/api.md). */
const QUANTITY_PLACES = 3;

const ORDER_DELIVERY_WORDING: Readonly<Record<OrderDeliveryStatus, string>> = {
  not_delivered: 'Nothing delivered yet.',
  partly_delivered: 'Partly delivered: some goods are still to deliver.',
  delivered: 'Delivered in full: nothing is left to deliver.',
};

const DELIVERY_WORDING: Readonly<Record<DeliveryRecordStatus, string>> = {
  recorded: 'Recorded',
  cancelled: 'Cancelled',
};

type Reopen = (orderId: number) => Promise<unknown>;

/** What the panel's parts share: the service, how to read the order again, and where outcomes are told. */
interface Context {
  client: SalesOrderClient;
  reopen: Reopen;
  /** Beside Record delivery. */
  recordStatus: HTMLElement;
  /** Under the deliveries, for their cancel and return. */
  listStatus: HTMLElement;
  /** Where a cancel or return form opens, under the deliveries. */
  actionBox: HTMLElement;
  /** The panel's heading: the focus goes back to it when what held it is gone. */
  heading: HTMLElement;
}

/** After a write or a closed form took away the focused control, the focus goes to the panel's heading. */
const keepFocus = (ctx: Context) => {
  if (!document.activeElement || document.activeElement === document.body) ctx.heading.focus();
};

/** Today on the clerk's calendar, as a date input holds it (YYYY-MM-DD). */
const todayDate = () => {
  const now = new Date();
  return new Date(now.getTime() - now.getTimezoneOffset() * 60_000).toISOString().slice(0, 10);
};

const textOrNull = (control: HTMLInputElement | HTMLTextAreaElement) => control.value.trim() || null;

/** A sentence ends once: wordings end without a full stop, a few with one. */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** "Line 2, Urea 46% N": a line of the order by its place on the form. */
const lineName = (order: SalesOrder, detailId: number) => {
  const index = order.details.findIndex((detail) => detail.sales_order_detail_id === detailId);
  return index < 0 ? 'A line no longer on the order' : `Line ${index + 1}, ${order.details[index]!.product_name}`;
};

/** A cell that keeps its column's name for a phone, where each row stands as a block (style.css). */
const cell = (column: string, content: Node | string, numeric = false) =>
  el('td', { 'data-label': column, class: numeric ? 'number' : undefined }, content);

const quantityCell = (column: string, value: number) => cell(column, formatQuantity(value), true);

const head = (columns: readonly (readonly [string, boolean])[]) =>
  el(
    'thead',
    {},
    el(
      'tr',
      {},
      ...columns.map(([name, numeric]) => el('th', { scope: 'col', class: numeric ? 'number' : undefined }, name)),
    ),
  );

const table = (label: string, columns: readonly (readonly [string, boolean])[], rows: HTMLTableRowElement[]) =>
  el(
    'div',
    { class: 'table-box' },
    el('table', { class: 'stacked', 'aria-label': label }, head(columns), el('tbody', {}, ...rows)),
  );

/** A quantity typed for one row (0 leaves the row out), checked as the service would, its error beside it. */
interface QuantityField {
  control: HTMLInputElement;
  error: HTMLElement;
}

const quantityField = (label: string, value: string): QuantityField => {
  const control = el('input', {
    type: 'text',
    inputmode: 'decimal',
    autocomplete: 'off',
    class: 'decimal',
    value,
    'aria-label': label,
  });
  const error = errorSlot();
  addCheck(control, error, () => 'quantity', decimalRule(control, { min: 0, places: QUANTITY_PLACES }));
  return { control, error };
};

/** A table cell holding a quantity field and its error (the error slot finds its input beside it). */
const quantityCellOf = (column: string, field: QuantityField) =>
  el('td', { 'data-label': column, class: 'quantity-input' }, field.control, field.error);

/**
 * The rows a request sends, in order: each field's quantity above 0, with its key. Row `i` of
 * the request is `rows[i]`, so the service's `lines.{i}...` lands beside the field it came from.
 */
const typedRows = <K>(fields: readonly { key: K; field: QuantityField }[], errors: FieldErrors) => {
  const rows = fields.flatMap(({ key, field }) => {
    const quantity = typedNumber(field.control.value);
    return quantity !== undefined && quantity > 0 ? [{ key, quantity, error: field.error }] : [];
  });
  errors.unregisterUnder('lines');
  rows.forEach((row, index) => errors.register(`lines.${index}`, row.error));
  return rows;
};

const LINE_COLUMNS = [
  ['Line', false],
  ['Product', false],
  ['Ordered', true],
  ['Delivered', true],
  ['Returned', true],
  ['Pending', true],
] as const;

/** Each line's ordered, delivered, returned and pending; with `fields`, what to deliver now beside each. */
const linesTable = (order: SalesOrder, fields?: readonly QuantityField[]) => {
  const shortClosed = order.details.some((detail) => detail.short_closed_quantity > 0);
  const columns = [
    ...LINE_COLUMNS,
    ...(shortClosed ? [['Short-closed', true] as const] : []),
    ...(fields ? [['Deliver now', false] as const] : []),
  ];
  const rows = order.details.map((detail, index) =>
    el(
      'tr',
      {},
      el('th', { scope: 'row', 'data-label': 'Line' }, String(index + 1)),
      cell('Product', detail.product_name),
      quantityCell('Ordered', detail.quantity),
      quantityCell('Delivered', detail.delivered_quantity),
      quantityCell('Returned', detail.returned_quantity),
      quantityCell('Pending', detail.pending_quantity),
      ...(shortClosed ? [quantityCell('Short-closed', detail.short_closed_quantity)] : []),
      ...(fields ? [quantityCellOf('Deliver now', fields[index]!)] : []),
    ),
  );
  return table('Delivered and pending by line', columns, rows);
};

/** A form's refusals: beside the fields its paths name, the rest under it. */
const formErrors = (label: string) => {
  const general = el('ul', { class: 'form-errors', 'aria-label': label, hidden: true });
  return { general, errors: new FieldErrors(general) };
};

/**
 * A refused write in the clerk's words: a stale version reads the order again; a refusal of the
 * delivery's or order's state (path "status" or none) is said on `line`, the rest beside their fields.
 */
/** Where a write's outcome is told: its button, its form's errors and status line, and what a refusal says first. */
interface Outcome {
  button: HTMLButtonElement;
  errors: FieldErrors;
  line: HTMLElement;
  /** "Not recorded", "Not cancelled". */
  notDone: string;
}

const refuse = async (ctx: Context, order: SalesOrder, { errors, line, notDone }: Outcome, error: unknown) => {
  if (error instanceof SalesOrderPreconditionFailedError) {
    await ctx.reopen(order.sales_order_id);
    say(
      line,
      `Someone changed ${order.sales_order_no} meanwhile: it has been read again. Check the figures, then try again.`,
      true,
    );
    return;
  }
  if (!(error instanceof SalesOrderApiError) || isSessionEnded(error)) {
    reportOn(line)(error);
    return;
  }
  const whole = error.details.filter((detail) => detail.path === '' || detail.path === 'status');
  errors.show(error.details.filter((detail) => !whole.includes(detail)));
  const told =
    whole.length > 0
      ? whole.map((detail) => sentence(wordingOf(detail))).join(' ')
      : error.details.length > 0
        ? `${notDone}: correct the marked fields.`
        : describe(error);
  say(line, told, true);
};

/**
 * Sends a write from its button (off while it runs); once done the order is read again and
 * `line` says what `run` answers. A refusal is told by `refuse`.
 */
const write = (ctx: Context, order: SalesOrder, outcome: Outcome, run: () => Promise<string>) => {
  const { button, errors, line } = outcome;
  button.disabled = true;
  errors.clear();
  say(line, 'Sending…');
  run()
    .then(
      async (done) => {
        await ctx.reopen(order.sales_order_id);
        say(line, done);
        keepFocus(ctx);
      },
      (error: unknown) => refuse(ctx, order, outcome, error),
    )
    .catch(reportOn(line))
    .finally(() => {
      button.disabled = false;
    });
};

/** The page's own checks before a write; false (and said, the first wrong field focused) when one fails. */
const checked = (form: HTMLElement, line: HTMLElement) => {
  if (runChecks(form)) return true;
  say(line, 'Not sent: correct the marked fields.', true);
  form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  return false;
};

/** Sends `form` once its checks pass: `prepare` gives the write, or the sentence saying why there is none. */
const sendOn = (
  ctx: Context,
  order: SalesOrder,
  form: HTMLFormElement,
  outcome: Outcome,
  prepare: () => (() => Promise<string>) | string,
) => {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (outcome.button.disabled || !checked(form, outcome.line)) return;
    const run = prepare();
    if (typeof run === 'string') say(outcome.line, run, true);
    else write(ctx, order, outcome, run);
  });
};

/** Record a delivery: its date (today), reference and notes, and a quantity per line (its pending). */
const recordForm = (ctx: Context, order: SalesOrder) => {
  const today = todayDate();
  const date = labelled(
    'Date delivered',
    el('input', { type: 'date', value: today, min: order.sales_order_date, max: today }),
  );
  const reference = labelled('Challan or gate pass no.', el('input', { type: 'text', maxlength: '100' }));
  const remarks = labelled('Notes on the delivery', el('textarea', { rows: '2', maxlength: '2000' }));
  addCheck(date.control, date.error, () => 'delivery_date', requiredRule(date.control));
  const fields = order.details.map((detail, index) => ({
    key: detail.sales_order_detail_id,
    field: quantityField(`Deliver now, line ${index + 1}`, String(detail.pending_quantity)),
  }));
  const { general, errors } = formErrors('Problems with the delivery');
  errors.register('delivery_date', date.error);
  errors.register('reference', reference.error);
  errors.register('remarks', remarks.error);
  const submit = el('button', { type: 'submit' }, 'Record delivery');
  const headingId = uniqueId('record-delivery');
  const form = el(
    'form',
    { novalidate: true, 'aria-labelledby': headingId },
    el('h4', { id: headingId }, 'Record a delivery'),
    el('div', { class: 'header-fields' }, date.wrapper, reference.wrapper, remarks.wrapper),
    linesTable(
      order,
      fields.map(({ field }) => field),
    ),
    general,
    el('div', { class: 'actions' }, submit, ctx.recordStatus),
  );
  const outcome = { button: submit, errors, line: ctx.recordStatus, notDone: 'Not recorded' };
  sendOn(ctx, order, form, outcome, () => {
    const rows = typedRows(fields, errors);
    if (rows.length === 0) return 'Not recorded: enter a quantity on at least one line.';
    return async () => {
      const delivery = await ctx.client.recordDelivery(
        order.sales_order_id,
        {
          delivery_date: date.control.value,
          reference: textOrNull(reference.control),
          remarks: textOrNull(remarks.control),
          lines: rows.map((row) => ({ sales_order_detail_id: row.key, quantity: row.quantity })),
        },
        { ifMatch: order.version },
      );
      return `Recorded delivery ${delivery.delivery_no}.`;
    };
  });
  return form;
};

/** A form under the deliveries, for one delivery: its heading, fields, and a button to leave it. */
const actionForm = (ctx: Context, title: string, submit: HTMLButtonElement, keep: string, ...parts: Node[]) => {
  const headingId = uniqueId('delivery-action');
  const close = el('button', { type: 'button' }, keep);
  const form = el(
    'form',
    { novalidate: true, 'aria-labelledby': headingId },
    el('h4', { id: headingId }, title),
    ...parts,
    el('div', { class: 'actions' }, submit, close),
  );
  close.addEventListener('click', () => {
    ctx.actionBox.replaceChildren();
    ctx.actionBox.hidden = true;
    keepFocus(ctx);
  });
  return form;
};

const openAction = (ctx: Context, form: HTMLFormElement) => {
  ctx.actionBox.replaceChildren(form);
  ctx.actionBox.hidden = false;
  say(ctx.listStatus, '');
  form.querySelector<HTMLElement>('input, textarea')?.focus();
};

/** Cancel a delivery: why, then the service takes it back (refused once goods came back against it). */
const cancelForm = (ctx: Context, order: SalesOrder, delivery: Delivery) => {
  const reason = labelled('Reason for cancelling the delivery', el('textarea', { rows: '2', maxlength: '500' }));
  addCheck(reason.control, reason.error, () => 'reason', requiredRule(reason.control));
  const { general, errors } = formErrors('Problems with the cancel');
  errors.register('reason', reason.error);
  const submit = el('button', { type: 'submit' }, 'Cancel this delivery');
  const form = actionForm(
    ctx,
    `Cancel delivery ${delivery.delivery_no}`,
    submit,
    'Keep the delivery',
    reason.wrapper,
    general,
  );
  const outcome = { button: submit, errors, line: ctx.listStatus, notDone: 'Not cancelled' };
  sendOn(ctx, order, form, outcome, () => async () => {
    await ctx.client.cancelDelivery(
      delivery.delivery_id,
      { reason: reason.control.value.trim() },
      { ifMatch: order.version },
    );
    return `Cancelled delivery ${delivery.delivery_no}.`;
  });
  return form;
};

/** The lines of a delivery with what each delivered and got back, and what comes back now. */
const returnLines = (order: SalesOrder, delivery: Delivery) => {
  const fields = delivery.lines.map((line, index) => ({
    key: line.delivery_line_id,
    field: quantityField(`Returned now, row ${index + 1}`, '0'),
  }));
  const rows = delivery.lines.map((line, index) =>
    el(
      'tr',
      {},
      el('th', { scope: 'row', 'data-label': 'Line' }, lineName(order, line.sales_order_detail_id)),
      quantityCell('Delivered', line.quantity),
      quantityCell('Returned before', line.returned_quantity),
      quantityCellOf('Returned now', fields[index]!.field),
    ),
  );
  const columns = [
    ['Line', false],
    ['Delivered', true],
    ['Returned before', true],
    ['Returned now', false],
  ] as const;
  return { fields, box: table(`Lines of ${delivery.delivery_no}`, columns, rows) };
};

/** Record a return: its date (today), why, and what came back of each line of the delivery. */
const returnForm = (ctx: Context, order: SalesOrder, delivery: Delivery) => {
  const today = todayDate();
  const date = labelled(
    'Date returned',
    el('input', { type: 'date', value: today, min: delivery.delivery_date, max: today }),
  );
  const reason = labelled('Reason for the return', el('textarea', { rows: '2', maxlength: '500' }));
  addCheck(date.control, date.error, () => 'return_date', requiredRule(date.control));
  addCheck(reason.control, reason.error, () => 'reason', requiredRule(reason.control));
  const { fields, box } = returnLines(order, delivery);
  const { general, errors } = formErrors('Problems with the return');
  errors.register('return_date', date.error);
  errors.register('reason', reason.error);
  const submit = el('button', { type: 'submit' }, 'Record return');
  const fieldsBox = el('div', { class: 'header-fields' }, date.wrapper, reason.wrapper);
  const title = `Return against delivery ${delivery.delivery_no}`;
  const form = actionForm(ctx, title, submit, 'Close without a return', fieldsBox, box, general);
  const outcome = { button: submit, errors, line: ctx.listStatus, notDone: 'Not recorded' };
  sendOn(ctx, order, form, outcome, () => {
    const rows = typedRows(fields, errors);
    if (rows.length === 0) return 'Not recorded: enter what came back on at least one line.';
    return async () => {
      await ctx.client.recordReturn(
        delivery.delivery_id,
        {
          return_date: date.control.value,
          reason: reason.control.value.trim(),
          lines: rows.map((row) => ({ delivery_line_id: row.key, quantity: row.quantity })),
        },
        { ifMatch: order.version },
      );
      return `Recorded the return against ${delivery.delivery_no}.`;
    };
  });
  return form;
};

/** "Line 1, Cypermethrin 10 EC: 4 (1 returned)" for each line of a delivery. */
const quantitiesOf = (order: SalesOrder, delivery: Delivery) =>
  el(
    'ul',
    { class: 'delivery-quantities' },
    ...delivery.lines.map((line) =>
      el(
        'li',
        {},
        `${lineName(order, line.sales_order_detail_id)}: ${formatQuantity(line.quantity)}`,
        line.returned_quantity > 0 ? ` (${formatQuantity(line.returned_quantity)} returned)` : '',
      ),
    ),
  );

/** The buttons of a delivery, as its state and its order's allow. */
const deliveryActions = (ctx: Context, order: SalesOrder, delivery: Delivery, numberId: string) => {
  if (delivery.status !== 'recorded') return [];
  const button = (text: string, form: () => HTMLFormElement) => {
    const made = el('button', { type: 'button', 'aria-describedby': numberId }, text);
    made.addEventListener('click', () => openAction(ctx, form()));
    return made;
  };
  const left = delivery.lines.some((line) => line.quantity > line.returned_quantity);
  return [
    ...(order.status === 'confirmed' ? [button('Cancel delivery', () => cancelForm(ctx, order, delivery))] : []),
    ...(left && (order.status === 'confirmed' || order.status === 'closed')
      ? [button('Record a return', () => returnForm(ctx, order, delivery))]
      : []),
  ];
};

const DELIVERY_COLUMNS = [
  ['Number', false],
  ['Date', false],
  ['Reference', false],
  ['Status', false],
  ['Quantities', false],
  ['Actions', false],
] as const;

/** The order's deliveries, oldest first, each with its cancel and return. */
const deliveriesTable = (ctx: Context, order: SalesOrder, deliveries: readonly Delivery[]) => {
  if (deliveries.length === 0) return el('p', { class: 'hint' }, 'No deliveries recorded yet.');
  const rows = deliveries.map((delivery) => {
    const numberId = uniqueId('delivery-no');
    const status = DELIVERY_WORDING[delivery.status];
    return el(
      'tr',
      {},
      el('th', { scope: 'row', id: numberId, 'data-label': 'Number' }, delivery.delivery_no),
      cell('Date', formatDate(delivery.delivery_date)),
      cell('Reference', delivery.reference ?? '—'),
      delivery.cancellation_reason
        ? cell('Status', `${status}: ${delivery.cancellation_reason}`)
        : el('td', { 'data-label': 'Status', class: 'status-cell' }, status),
      cell('Quantities', quantitiesOf(order, delivery)),
      el(
        'td',
        { 'data-label': 'Actions' },
        el('div', { class: 'actions' }, ...deliveryActions(ctx, order, delivery, numberId)),
      ),
    );
  });
  return table('Deliveries of the order', DELIVERY_COLUMNS, rows);
};

/** The panel in its section: `show` renders an order (or hides for none, or one without deliveries). */
const createPanel = (client: SalesOrderClient, reopen: Reopen) => {
  const summary = el('p', { class: 'delivery-summary' });
  const linesBox = el('div');
  const listBox = el('div');
  const ctx: Context = {
    client,
    reopen,
    recordStatus: statusLine('delivery-record-status'),
    listStatus: statusLine('deliveries-status'),
    actionBox: el('div', { class: 'delivery-action', hidden: true }),
    heading: el('h3', { id: 'deliveries-heading', tabindex: '-1' }, 'Deliveries'),
  };
  const section = el(
    'section',
    { class: 'deliveries', 'aria-labelledby': 'deliveries-heading', hidden: true },
    ctx.heading,
    summary,
    linesBox,
    el('h4', {}, 'Deliveries of this order'),
    listBox,
    ctx.actionBox,
    el('div', { class: 'actions' }, ctx.listStatus),
  );
  /** The order shown last, shown or not; a list asked for an older one is not shown. */
  let last: SalesOrder | undefined;
  let asked = 0;

  const loadList = (order: SalesOrder, previous: SalesOrder | undefined) => {
    const sequence = ++asked;
    // A draft has no deliveries, so the order it just became by Confirm has none to ask for.
    const justConfirmed = previous?.sales_order_id === order.sales_order_id && previous.status === 'draft';
    if (justConfirmed && order.details.every((detail) => detail.delivered_quantity === 0)) {
      listBox.replaceChildren(deliveriesTable(ctx, order, []));
      return;
    }
    ctx.client.listOrderDeliveries(order.sales_order_id).then(
      ({ items }) => {
        if (sequence === asked) listBox.replaceChildren(deliveriesTable(ctx, order, items));
      },
      (error: unknown) => {
        if (sequence === asked) reportOn(ctx.listStatus)(error);
      },
    );
  };

  const show = (order: SalesOrder | undefined) => {
    const previous = last;
    last = order;
    if (order?.sales_order_id !== previous?.sales_order_id) {
      say(ctx.recordStatus, '');
      say(ctx.listStatus, '');
      listBox.replaceChildren();
    }
    ctx.actionBox.replaceChildren();
    ctx.actionBox.hidden = true;
    const shown =
      order !== undefined &&
      (order.status === 'confirmed' || order.details.some((detail) => detail.delivered_quantity > 0));
    section.hidden = !shown;
    if (!shown) {
      asked++;
      return;
    }
    summary.textContent = ORDER_DELIVERY_WORDING[order.delivery_status];
    linesBox.replaceChildren(order.status === 'confirmed' ? recordForm(ctx, order) : linesTable(order));
    loadList(order, previous);
  };
  return { section, show };
};

const panels = new WeakMap<HTMLElement, ReturnType<typeof createPanel>>();

/**
 * Shows the deliveries of `order` (undefined: a new order, none) in the order form's `root`,
 * after its form: the one call the form makes each time it shows an order. `reopen` reads an
 * order again onto the form (which calls this again with it).
 */
export const mountDeliveries = (
  root: HTMLElement,
  client: SalesOrderClient,
  order: SalesOrder | undefined,
  reopen: Reopen,
) => {
  let panel = panels.get(root);
  if (!panel) {
    if (!order) return;
    panel = createPanel(client, reopen);
    panels.set(root, panel);
    const form = root.querySelector(':scope > form');
    if (form) form.after(panel.section);
    else root.append(panel.section);
  }
  panel.show(order);
};
